// f16_arith: per element of a, b, c (f16 bit patterns): out[i*6 + ..] = a+b, a*b, fma(a,b,c),
// min(a,b), max(a,b) in f16, and the f32 product a*b (as f16 bits of (half)((float)a * (float)b)
// computed in f32 then rounded to f16 once).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "corpus_cl.h"

UP_TO_1024 kernel void f16_arith(global const half* a, global const half* b, global const half* c,
                                 global half* out)
{
    uint i = GID_X();
    half x = a[i], y = b[i], z = c[i];
    global half* o = out + i * 6;
    o[0] = x + y;
    o[1] = x * y;
    o[2] = __builtin_elementwise_fma(x, y, z);
    o[3] = __builtin_elementwise_min(x, y);
    o[4] = __builtin_elementwise_max(x, y);
    o[5] = (half)((float)x * (float)y);
}
