// lookup_table: out[i] = lut_base[idx[i] & 3] for i < n, where lut_base is a
// program-scope pointer initialised to &lut[2], so out[i] = 12 + (idx[i] & 3).
// The pointer's initial value is an address, so the linked code object has a
// dynamic relocation (R_AMDGPU_RELATIVE64) for it: the kernel reads the right
// table only if the loader applied relocations for the load address.
#include "aqueduct_kernel.h"

global uint lut[8] = {10u, 11u, 12u, 13u, 14u, 15u, 16u, 17u};
global uint* global lut_base = &lut[2];

ANY_WG_SIZE kernel void lookup_table(global const uint* restrict idx, global uint* restrict out, uint n)
{
    uint i = GID_X();
    if (i < n)
        out[i] = lut_base[idx[i] & 3u];
}
