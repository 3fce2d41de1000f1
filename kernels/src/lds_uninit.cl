// lds_uninit: out[g] = tile[lid] for a 64-entry LDS tile of which only the
// first `written` entries are stored first (from in[g]): work-items at or past
// `written` read LDS nothing wrote (a sanitizer initcheck test; the other
// work-items are clean). Workgroups of up to 64 work-items.
#include "aqueduct_kernel.h"

__attribute__((amdgpu_flat_work_group_size(1, 64)))
kernel void lds_uninit(global const uint* restrict in, global uint* restrict out, uint written)
{
    local uint tile[64];
    uint lid = LID_X();
    uint g = GID_X();
    if (lid < written)
        tile[lid] = in[g];
    WG_BARRIER();
    out[g] = tile[lid];
}
