// convert_f32: conversions and rounding; for f = x[i] (|f| < 2^31) and k = n[i] (i32):
// out[i*8 + ..] = bits of (int)f, (uint)fabs(f), (float)k, (float)(uint)k, floor(f), ceil(f),
// trunc(f), rint(f) (round half to even).
#include "corpus_cl.h"

UP_TO_1024 kernel void convert_f32(global const float* x, global const int* n, global uint* out)
{
    uint i = GID_X();
    float f = x[i];
    int k = n[i];
    global uint* o = out + i * 8;
    o[0] = (uint)(int)f;
    o[1] = (uint)__builtin_fabsf(f);
    o[2] = as_uint((float)k);
    o[3] = as_uint((float)(uint)k);
    o[4] = as_uint(__builtin_floorf(f));
    o[5] = as_uint(__builtin_ceilf(f));
    o[6] = as_uint(__builtin_truncf(f));
    o[7] = as_uint(__builtin_rintf(f));
}
