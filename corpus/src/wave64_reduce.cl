// corpus-flags: -mwavefrontsize64
// wave64_reduce (wave64): out[g] = wrapping u32 sum of group g's inputs (LDS tree, S a power of
// two), and odd[w] = number of odd inputs in wave w of the dispatch, from a 64-bit ballot.
#include "corpus_cl.h"

UP_TO_1024 kernel void wave64_reduce(global const uint* in, global uint* out, global uint* odd)
{
    local uint p[1024];
    uint lid = LID_X(), size = WGSIZE_X(), gid = WG_X() * size + lid;
    uint v = in[gid];
    ulong mask = __builtin_amdgcn_ballot_w64((v & 1u) != 0);
    if ((lid & 63) == 0)
        odd[gid >> 6] = (uint)__builtin_popcountl(mask);
    p[lid] = v;
    BARRIER();
    for (uint s = size >> 1; s > 0; s >>= 1) {
        if (lid < s)
            p[lid] += p[lid + s];
        BARRIER();
    }
    if (lid == 0)
        out[WG_X()] = p[0];
}
