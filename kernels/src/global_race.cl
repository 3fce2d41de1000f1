// global_race: every work-item stores its workgroup's id to out[lid], so
// every workgroup writes the same words with no atomic and no order between
// them (a sanitizer racecheck-global test); when `check` is non-zero each
// work-item then reads flags[0], which only workgroup 0 writes (a
// read-write race for the other workgroups). Workgroups of up to 64 work-items.
#include "aqueduct_kernel.h"

__attribute__((amdgpu_flat_work_group_size(1, 64)))
kernel void global_race(global uint* out, global uint* flags, uint check)
{
    uint lid = LID_X();
    out[lid] = WG_X();
    if (check != 0) {
        if (WG_X() == 0 && lid == 0)
            *(volatile global uint*)flags = 1;
        else
            out[64 + lid] = *(volatile global uint*)flags;
    }
}
