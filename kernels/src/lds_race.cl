// lds_race: out[g] = tile[size - 1 - lid] after every work-item stored in[g]
// to tile[lid], with no barrier between the store and the load: with more
// than one wave per workgroup, waves read LDS other waves write (a sanitizer
// racecheck test). Workgroups of up to 64 work-items.
#include "aqueduct_kernel.h"

__attribute__((amdgpu_flat_work_group_size(1, 64)))
kernel void lds_race(global const uint* restrict in, global uint* restrict out)
{
    local volatile uint tile[64];
    uint lid = LID_X();
    uint g = GID_X();
    tile[lid] = in[g];
    out[g] = tile[WGSIZE_X() - 1 - lid];
}
