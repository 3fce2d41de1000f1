// hip_block_scan: out[i] = wrapping u32 inclusive prefix sum within i's group (group size a
// multiple of the wave size): a shuffle-up scan per wave, the wave totals scanned in LDS by
// wave 0, then each wave adds the totals of the waves before it.
#include "corpus_hip.h"

KERNEL void hip_block_scan(const u32* in, u32* out)
{
    __shared__ u32 totals[32];
    u32 lane = lane_id(), wave = tid_x() / __AMDGCN_WAVEFRONT_SIZE;
    u32 waves = bdim_x() / __AMDGCN_WAVEFRONT_SIZE;
    int v = (int)in[gid_x()];
    for (u32 off = 1; off < __AMDGCN_WAVEFRONT_SIZE; off <<= 1) {
        int o = shfl(v, lane - off);
        if (lane >= off)
            v += o;
    }
    if (lane == __AMDGCN_WAVEFRONT_SIZE - 1)
        totals[wave] = (u32)v;
    sync_threads();
    if (wave == 0) {
        int t = lane < waves ? (int)totals[lane] : 0;
        for (u32 off = 1; off < __AMDGCN_WAVEFRONT_SIZE; off <<= 1) {
            int o = shfl(t, lane - off);
            if (lane >= off)
                t += o;
        }
        if (lane < waves)
            totals[lane] = (u32)t;
    }
    sync_threads();
    if (wave > 0)
        v += (int)totals[wave - 1];
    out[gid_x()] = (u32)v;
}
