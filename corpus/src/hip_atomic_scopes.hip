// hip_atomic_scopes: the same adds at every memory scope and ordering: for item i,
// cells[0] += 1 (wavefront scope, relaxed), cells[1] += i (workgroup, acq_rel), cells[2] += 2
// (agent, seq_cst), cells[3] += i & 255 (system, release); an LDS counter at workgroup scope
// gives per-group item counts in groups[g]; returned values feed last[g], the largest
// ticket a group saw at agent scope (= items in the whole grid minus 1 overall).
#include "corpus_hip.h"

KERNEL void hip_atomic_scopes(u32* cells, u32* groups, u32* last)
{
    __shared__ u32 count;
    u32 i = gid_x();
    if (tid_x() == 0)
        count = 0;
    sync_threads();
    __hip_atomic_fetch_add(&cells[0], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WAVEFRONT);
    __hip_atomic_fetch_add(&cells[1], i, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_WORKGROUP);
    __hip_atomic_fetch_add(&cells[2], 2u, __ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_add(&cells[3], i & 255u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
    __hip_atomic_fetch_add(&count, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    u32 ticket = __hip_atomic_fetch_add(&cells[4], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_max(&last[0], ticket, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    sync_threads();
    if (tid_x() == 0)
        groups[bid_x()] = count;
}
