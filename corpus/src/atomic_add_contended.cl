// atomic_add_contended: every item adds in[i] to counters[i % slots] (u32) and to wide[i % 2]
// (u64), and 1 to counters[slots] (the item count): many waves on few addresses.
#include "corpus_cl.h"

UP_TO_1024 kernel void atomic_add_contended(global const uint* in, global uint* counters,
                                            global ulong* wide, uint slots, uint n)
{
    uint i = GID_X();
    if (i >= n)
        return;
    ATOMIC_ADD(&counters[i % slots], in[i]);
    ATOMIC_ADD(&wide[i & 1], (ulong)in[i] << 20);
    ATOMIC_ADD(&counters[slots], 1u);
}
