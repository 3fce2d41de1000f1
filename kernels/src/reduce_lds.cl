// reduce_lds: out[g] = sum of in[g*S .. g*S+S) (u32, wrapping; elements >= n count
// as 0) for workgroup g of size S. S must be a power of two in [32, 1024]; it is
// read from the dispatch (hidden_group_size_x), not fixed at compile time. The
// tree reduction in LDS runs log2(S) rounds, each ending in a workgroup barrier,
// plus the barrier after the initial load (6 barriers for S = 32, 11 for 1024).
#include "aqueduct_kernel.h"

__attribute__((amdgpu_flat_work_group_size(32, 1024)))
kernel void reduce_lds(global const uint* restrict in, global uint* restrict out, uint n)
{
    local uint partial[1024];
    uint lid = LID_X();
    uint size = WGSIZE_X();
    uint gid = WG_X() * size + lid;
    partial[lid] = gid < n ? in[gid] : 0u;
    WG_BARRIER();
    for (uint stride = size >> 1; stride > 0; stride >>= 1) {
        if (lid < stride)
            partial[lid] += partial[lid + stride];
        WG_BARRIER();
    }
    if (lid == 0)
        out[WG_X()] = partial[0];
}
