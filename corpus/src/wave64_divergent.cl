// corpus-flags: -mwavefrontsize64
// wave64_divergent (wave64): steps[i] = number of Collatz steps from x[i] to 1 (capped at 1000),
// a loop whose trip count differs in every lane; even[i] = x[i] halved while even, in a nested
// if/else so the 64-bit exec mask splits and rejoins.
#include "corpus_cl.h"

UP_TO_1024 kernel void wave64_divergent(global const uint* x, global uint* steps, global uint* even)
{
    uint i = GID_X();
    uint v = x[i], n = 0;
    while (v > 1u && n < 1000u) {
        v = (v & 1u) ? 3u * v + 1u : v >> 1;
        n++;
    }
    steps[i] = n;
    uint e = x[i];
    if (e != 0u) {
        while ((e & 1u) == 0u)
            e >>= 1;
    } else {
        e = 0xffffffffu;
    }
    even[i] = e;
}
