// atomic_u64_kinds: 64-bit global atomics: cells[0] += in[i], cells[1] = min, cells[2] = max,
// cells[3] ^= in[i], cells[4] |= in[i], cells[5] &= in[i] (all unsigned), one address each.
#include "corpus_cl.h"

UP_TO_1024 kernel void atomic_u64_kinds(global const ulong* in, global ulong* cells)
{
    ulong v = in[GID_X()];
    __atomic_fetch_add(&cells[0], v, __ATOMIC_RELAXED);
    __atomic_fetch_min(&cells[1], v, __ATOMIC_RELAXED);
    __atomic_fetch_max(&cells[2], v, __ATOMIC_RELAXED);
    __atomic_fetch_xor(&cells[3], v, __ATOMIC_RELAXED);
    __atomic_fetch_or(&cells[4], v, __ATOMIC_RELAXED);
    __atomic_fetch_and(&cells[5], v, __ATOMIC_RELAXED);
}
