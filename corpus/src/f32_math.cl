// f32_math: for a = x[i], b = y[i] (normal, non-zero): out[i*8 + ..] = sqrt(|a|), a / b, 1 / b,
// fmin(a, b), fmax(a, b), |a|, copysign(a, b), ldexp(a, i % 16 - 8). OpenCL's default
// accuracy applies to sqrt (3 ulp) and division (2.5 ulp); the rest are exact.
#include "corpus_cl.h"

UP_TO_1024 kernel void f32_math(global const float* x, global const float* y, global float* out)
{
    uint i = GID_X();
    float a = x[i], b = y[i];
    global float* o = out + i * 8;
    o[0] = __builtin_sqrtf(__builtin_fabsf(a));
    o[1] = a / b;
    o[2] = 1.0f / b;
    o[3] = __builtin_fminf(a, b);
    o[4] = __builtin_fmaxf(a, b);
    o[5] = __builtin_fabsf(a);
    o[6] = __builtin_copysignf(a, b);
    o[7] = __builtin_ldexpf(a, (int)(i & 15u) - 8);
}
