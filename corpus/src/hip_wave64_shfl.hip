// corpus-flags: -mwavefrontsize64
// hip_wave64_shfl (wave64): HIP-style shuffles by ds_bpermute in a wave64 kernel. On RDNA
// (gfx10+), ds_bpermute in wave64 reads only within the 32-lane half of the reading lane (the
// byte address selects lane (addr / 4) % 32 of that half; crossing halves needs
// v_permlane64), so: out[i] = x of lane (lane + 1) % 32 of its own half, and sum[w] = twice
// the sum of the wave's low half, since the xor-32 step of the butterfly reads the lane itself.
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
