// hip_f64_newton: out[i] = an f64 reciprocal square root of x[i] by Newton's method from an f32
// seed: y = (double)(1.0f / (float)x), then 6 steps y = y * fma(-0.5 * x * y, y, 1.5). Every
// operation is written out (fused only where fma is named), so the host repeats it exactly.
#include "corpus_hip.h"

KERNEL void hip_f64_newton(const double* x, double* out)
{
    u32 i = gid_x();
    double v = x[i];
    double y = (double)(1.0f / (float)v);
    for (int s = 0; s < 6; s++) {
        double h = -0.5 * v * y;
        y = y * __builtin_fma(h, y, 1.5);
    }
    out[i] = y;
}
