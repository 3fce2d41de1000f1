// stress: the stress tests' dispatch (tests/stress.rs,
// crates/hsa/tests/stress.rs). Every work-item i < n writes
// out[i] = seed * 2654435761 + i, and adds 1 to counters[slot] with an
// atomic, so the host can tell a lost packet (count 0) or one run twice
// (count 2n) from a correct one (count n) and check every output word.
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void stamp(global uint* out, global uint* counters, uint slot, uint seed, uint n)
{
    uint i = GID_X();
    if (i >= n)
        return;
    out[i] = seed * 2654435761u + i;
    __atomic_fetch_add(&counters[slot], 1u, __ATOMIC_RELAXED);
}
