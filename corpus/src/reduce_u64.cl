// reduce_u64: out[g] = wrapping u64 sum of group g's inputs (S a power of two), LDS tree of
// 64-bit values (ds_load_b64/ds_store_b64, 64-bit adds).
#include "corpus_cl.h"

UP_TO_1024 kernel void reduce_u64(global const ulong* in, global ulong* out)
{
    local ulong p[1024];
    uint lid = LID_X(), size = WGSIZE_X();
    p[lid] = in[WG_X() * size + lid];
    BARRIER();
    for (uint s = size >> 1; s > 0; s >>= 1) {
        if (lid < s)
            p[lid] += p[lid + s];
        BARRIER();
    }
    if (lid == 0)
        out[WG_X()] = p[0];
}
