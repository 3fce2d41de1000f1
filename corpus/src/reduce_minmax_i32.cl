// reduce_minmax_i32: out[2g] = min and out[2g+1] = max (signed) of group g's inputs, two LDS
// trees side by side. Any group size (odd ones too): each round folds the upper half down.
#include "corpus_cl.h"

UP_TO_1024 kernel void reduce_minmax_i32(global const int* in, global int* out)
{
    local int lo[1024], hi[1024];
    uint lid = LID_X(), size = WGSIZE_X();
    int v = in[WG_X() * size + lid];
    lo[lid] = v;
    hi[lid] = v;
    BARRIER();
    for (uint live = size; live > 1;) {
        uint half_up = (live + 1) >> 1;
        if (lid + half_up < live) {
            lo[lid] = lo[lid + half_up] < lo[lid] ? lo[lid + half_up] : lo[lid];
            hi[lid] = hi[lid + half_up] > hi[lid] ? hi[lid + half_up] : hi[lid];
        }
        live = half_up;
        BARRIER();
    }
    if (lid == 0) {
        out[2 * WG_X()] = lo[0];
        out[2 * WG_X() + 1] = hi[0];
    }
}
