// xcc_id: work-item (0, 0, 0) of each workgroup stores the XCC it runs on,
// HW_REG_XCC_ID bits 3:0 (s_getreg_b32 hwreg(HW_REG_XCC_ID, 0, 4); the
// register is id 20 on GFX940+, LLVM SIDefines.h), at out[g], g the
// workgroup's index with x fastest: WG_X + groups_x * (WG_Y + groups_y * WG_Z).
// gfx942 only (gfx90a has no XCC_ID register).
#include "aqueduct_kernel.h"

#define HWREG_XCC_ID_BITS_3_0 (20 | (3 << 11))

ANY_WG_SIZE kernel void xcc_id(global uint* out, uint groups_x, uint groups_y)
{
    if (LID_X() != 0 || LID_Y() != 0 || LID_Z() != 0)
        return;
    uint g = WG_X() + groups_x * (WG_Y() + groups_y * WG_Z());
    out[g] = __builtin_amdgcn_s_getreg(HWREG_XCC_ID_BITS_3_0);
}
