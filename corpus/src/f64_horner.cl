// f64_horner: out[i] = the degree-15 polynomial with coefficients coef[0..16] at x[i] by Horner's
// rule, one fused multiply-add per step: r = fma(r, x, coef[k]) for k = 15 .. 0, r = coef[16].
#include "corpus_cl.h"

UP_TO_1024 kernel void f64_horner(global const double* x, global const double* coef, global double* out)
{
    uint i = GID_X();
    double v = x[i], r = coef[16];
    for (int k = 15; k >= 0; k--)
        r = __builtin_fma(r, v, coef[k]);
    out[i] = r;
}
