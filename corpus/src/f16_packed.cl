// f16_packed: half2 arithmetic (packed v_pk_* instructions): for each pair p,
// out[p] = fma(a[p], b[p], c[p]) - a[p] * c[p] computed lane-wise in f16, and
// sum[p] = f32 of (a + b).x + f32 of (a + b).y.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "corpus_cl.h"

UP_TO_1024 kernel void f16_packed(global const half2* a, global const half2* b, global const half2* c,
                                  global half2* out, global float* sum)
{
    uint i = GID_X();
    half2 x = a[i], y = b[i], z = c[i];
    half2 f = __builtin_elementwise_fma(x, y, z);
    half2 m = x * z;
    out[i] = f - m;
    half2 s = x + y;
    sum[i] = (float)s.x + (float)s.y;
}
