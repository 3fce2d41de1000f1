// fill3d: for the global id (x, y, z) of each work-item (workgroup id * size +
// local id + global offset, in all three dimensions), if x < W, y < H, z < D,
// out[x + y*W + z*W*H] = x + y*W + z*W*H. Uses 3D work-item and workgroup ids and
// the hidden_global_offset_{x,y,z} arguments (read through the implicit argument
// pointer, code object v5 layout).
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void fill3d(global uint* restrict out, uint W, uint H, uint D)
{
    const constant ulong* implicit = (const constant ulong*)__builtin_amdgcn_implicitarg_ptr();
    // hidden_global_offset_x/y/z live at byte offsets 40, 48 and 56.
    uint x = (uint)implicit[5] + WG_X() * WGSIZE_X() + LID_X();
    uint y = (uint)implicit[6] + WG_Y() * WGSIZE_Y() + LID_Y();
    uint z = (uint)implicit[7] + WG_Z() * WGSIZE_Z() + LID_Z();
    if (x < W && y < H && z < D) {
        uint index = x + y * W + z * W * H;
        out[index] = index;
    }
}
