// lds_strided_sum: a group loads its 4096 words into LDS, then item l sums the 64 words
// buf[(l * stride + 33 * j) % 4096] for j < 64 (u32 wrapping): strides that are multiples
// of 32 put a wave's accesses in one bank. out[global id] = the sum.
#include "corpus_cl.h"

UP_TO_1024 kernel void lds_strided_sum(global const uint* in, global uint* out, uint stride)
{
    local uint buf[4096];
    uint lid = LID_X(), size = WGSIZE_X();
    for (uint j = lid; j < 4096u; j += size)
        buf[j] = in[WG_X() * 4096u + j];
    BARRIER();
    uint s = 0;
    for (uint j = 0; j < 64; j++)
        s += buf[(lid * stride + 33u * j) & 4095u];
    out[WG_X() * size + lid] = s;
}
