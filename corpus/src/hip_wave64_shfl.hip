// corpus-flags: -mwavefrontsize64
// hip_wave64_shfl (wave64): per wave of 64 lanes, out[i] = x from lane (lane + 1) % 64 and
// sum[w] = wrapping u32 sum of the wave's 64 inputs by a shuffle-xor butterfly (ds_bpermute
// across both halves of the wave).
#include "corpus_hip.h"

KERNEL void hip_wave64_shfl(const u32* x, u32* out, u32* sum)
{
    u32 i = gid_x(), lane = lane_id();
    int v = (int)x[i];
    out[i] = (u32)shfl(v, lane + 1);
    for (u32 m = 1; m < 64; m <<= 1)
        v += shfl(v, lane ^ m);
    if (lane == 0)
        sum[i / 64] = (u32)v;
}
