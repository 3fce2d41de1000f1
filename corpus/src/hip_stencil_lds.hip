// hip_stencil_lds: 2D 5-point stencil on a width x height u32 grid (16x16 groups): each group
// stages its tile plus a one-element halo in LDS (edges clamp), then
// out[y][x] = 4*c - up - down - left - right (wrapping).
#include "corpus_hip.h"

KERNEL void hip_stencil_lds(const u32* in, u32* out, u32 width, u32 height)
{
    __shared__ u32 tile[18][18];
    u32 tx = tid_x(), ty = tid_y();
    int x = (int)(bid_x() * 16 + tx), y = (int)(bid_y() * 16 + ty);
    for (u32 j = ty * 16 + tx; j < 18 * 18; j += 256) {
        int lx = (int)(j % 18) - 1 + (int)(bid_x() * 16), ly = (int)(j / 18) - 1 + (int)(bid_y() * 16);
        lx = lx < 0 ? 0 : (lx >= (int)width ? (int)width - 1 : lx);
        ly = ly < 0 ? 0 : (ly >= (int)height ? (int)height - 1 : ly);
        tile[j / 18][j % 18] = in[ly * width + lx];
    }
    sync_threads();
    if (x < (int)width && y < (int)height) {
        u32 c = tile[ty + 1][tx + 1];
        out[y * width + x] = 4 * c - tile[ty][tx + 1] - tile[ty + 2][tx + 1] - tile[ty + 1][tx] - tile[ty + 1][tx + 2];
    }
}
