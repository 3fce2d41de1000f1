// atomic_cas_increment: adds in[i] to sums[i % 2] with a compare-exchange retry loop
// (global_atomic_cmpswap); tries[i] = how many attempts it took (>= 1).
#include "corpus_cl.h"

UP_TO_1024 kernel void atomic_cas_increment(global const uint* in, global uint* sums, global uint* tries)
{
    uint i = GID_X();
    global uint* p = &sums[i & 1];
    uint seen = __atomic_load_n(p, __ATOMIC_RELAXED);
    uint attempts = 1;
    while (!__atomic_compare_exchange_n(p, &seen, seen + in[i], false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        attempts++;
    tries[i] = attempts;
}
