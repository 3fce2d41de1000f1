// fill2d: for the global id (x, y) of each work-item (workgroup id * size +
// local id, no global offset), if x < W and y < H, out[x + y*W] = x + y*W.
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void fill2d(global uint* restrict out, uint W, uint H)
{
    uint x = WG_X() * WGSIZE_X() + LID_X();
    uint y = WG_Y() * WGSIZE_Y() + LID_Y();
    if (x < W && y < H)
        out[x + y * W] = x + y * W;
}
