// f64_arith: per element of a, b, c (f64): out[i*6 + ..] = a+b, a*b, fma(a,b,c), a/b, sqrt(|a|),
// and (double)(float)a (f64 -> f32 -> f64 rounding). Division and square root use the
// compiler's inline f64 expansions (v_div_scale/fmas/fixup, v_rsq_f64 + Newton steps).
#include "corpus_cl.h"

UP_TO_1024 kernel void f64_arith(global const double* a, global const double* b, global const double* c,
                                 global double* out)
{
    uint i = GID_X();
    double x = a[i], y = b[i], z = c[i];
    global double* o = out + i * 6;
    o[0] = x + y;
    o[1] = x * y;
    o[2] = __builtin_fma(x, y, z);
    o[3] = x / y;
    o[4] = __builtin_sqrt(__builtin_fabs(x));
    o[5] = (double)(float)x;
}
