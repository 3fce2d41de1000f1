// divergent_barrier: work-items below `limit` store in[g] to LDS, wait at a
// barrier inside that branch, and copy their neighbour's value to out[g]; the
// others only copy in[g]. With `limit` a multiple of the wave size, waves past
// it never reach the barrier and end while the others wait (a sanitizer
// synccheck test; hardware releases the barrier when they end).
// Workgroups of up to 128 work-items (two waves of 64 on the GFX9 parts).
#include "aqueduct_kernel.h"

__attribute__((amdgpu_flat_work_group_size(1, 128)))
kernel void divergent_barrier(global const uint* restrict in, global uint* restrict out, uint limit)
{
    local uint tile[128];
    uint lid = LID_X();
    uint g = GID_X();
    if (lid < limit) {
        tile[lid] = in[g];
        WG_BARRIER();
        out[g] = tile[(lid + 1) % limit];
    } else {
        out[g] = in[g];
    }
}
