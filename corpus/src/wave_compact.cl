// wave_compact (wave32, whole waves): per wave w, the inputs divisible by 3 are packed in lane
// order to out[w*32 ..] (position = mbcnt of the ballot below the lane), count[w] = how many,
// first[w] = the first kept value (readfirstlane inside the kept lanes), or 0xffffffff.
#include "corpus_cl.h"

kernel void wave_compact(global const uint* x, global uint* out, global uint* count, global uint* first)
{
    uint i = GID_X();
    uint w = i >> 5;
    uint v = x[i];
    bool keep = v % 3u == 0u;
    uint mask = __builtin_amdgcn_ballot_w32(keep);
    uint pos = __builtin_amdgcn_mbcnt_lo(mask, 0u);
    if (keep) {
        out[w * 32u + pos] = v;
        uint f = __builtin_amdgcn_readfirstlane(v);
        if (pos == 0u)
            first[w] = f;
    }
    if ((LID_X() & 31u) == 0u) {
        count[w] = (uint)__builtin_popcount(mask);
        if (mask == 0u)
            first[w] = 0xffffffffu;
    }
}
