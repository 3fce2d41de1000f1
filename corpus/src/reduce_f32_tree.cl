// reduce_f32_tree: out[g] = f32 sum of group g's S inputs by the fixed tree
// p[i] += p[i + s] for s = S/2, S/4, .., 1 (S a power of two), so the rounding is reproducible.
#include "corpus_cl.h"

UP_TO_1024 kernel void reduce_f32_tree(global const float* in, global float* out)
{
    local float p[1024];
    uint lid = LID_X(), size = WGSIZE_X();
    p[lid] = in[WG_X() * size + lid];
    BARRIER();
    for (uint s = size >> 1; s > 0; s >>= 1) {
        if (lid < s)
            p[lid] = p[lid] + p[lid + s];
        BARRIER();
    }
    if (lid == 0)
        out[WG_X()] = p[0];
}
