// hip_block_reduce_shfl: out[g] = wrapping u32 sum of group g's inputs: a shuffle-down tree in
// each wave (ds_bpermute), wave totals through LDS, then the first wave reduces those.
#include "corpus_hip.h"

KERNEL void hip_block_reduce_shfl(const u32* in, u32* out)
{
    __shared__ u32 partial[32];
    u32 lane = lane_id(), wave = tid_x() / __AMDGCN_WAVEFRONT_SIZE;
    u32 waves = (bdim_x() + __AMDGCN_WAVEFRONT_SIZE - 1) / __AMDGCN_WAVEFRONT_SIZE;
    int v = (int)in[gid_x()];
    for (u32 off = __AMDGCN_WAVEFRONT_SIZE / 2; off > 0; off >>= 1) {
        int o = shfl(v, lane + off);
        if (lane + off < __AMDGCN_WAVEFRONT_SIZE)
            v += o;
    }
    if (lane == 0)
        partial[wave] = (u32)v;
    sync_threads();
    if (wave == 0) {
        int w = lane < waves ? (int)partial[lane] : 0;
        for (u32 off = __AMDGCN_WAVEFRONT_SIZE / 2; off > 0; off >>= 1) {
            int o = shfl(w, lane + off);
            if (lane + off < __AMDGCN_WAVEFRONT_SIZE)
                w += o;
        }
        if (lane == 0)
            out[bid_x()] = (u32)w;
    }
}
