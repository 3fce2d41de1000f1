// lds_transpose: out = transpose of the width x width u32 matrix in (width a multiple of 32),
// through a 32x32 LDS tile per 32x8 workgroup; row pitch 32 + pad words, so pad = 0 makes
// every column read hit one LDS bank and pad = 1 spreads it over all banks.
#include "corpus_cl.h"

kernel void lds_transpose(global const uint* in, global uint* out, uint width, uint pad)
{
    local uint tile[32 * 33];
    uint pitch = 32u + pad;
    uint tx = LID_X(), ty = LID_Y();
    uint x = WG_X() * 32u + tx, y = WG_Y() * 32u + ty;
    for (uint j = 0; j < 32; j += 8)
        tile[(ty + j) * pitch + tx] = in[(y + j) * width + x];
    BARRIER();
    x = WG_Y() * 32u + tx;
    y = WG_X() * 32u + ty;
    for (uint j = 0; j < 32; j += 8)
        out[(y + j) * width + x] = tile[tx * pitch + ty + j];
}
