// grid3d_ids: a 3D dispatch; each item writes its global (x, y, z) packed as x | y << 10 | z << 20
// to out[(z * gy + y) * gx + x], where gx, gy are the grid sizes (the grid clips partial groups).
#include "corpus_cl.h"

UP_TO_1024 kernel void grid3d_ids(global uint* out, uint gx, uint gy)
{
    uint x = WG_X() * WGSIZE_X() + LID_X();
    uint y = WG_Y() * WGSIZE_Y() + LID_Y();
    uint z = WG_Z() * WGSIZE_Z() + LID_Z();
    out[(z * gy + y) * gx + x] = x | (y << 10) | (z << 20);
}
