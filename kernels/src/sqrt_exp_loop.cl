// sqrt_exp_loop: per element i < n, starting from x = in[i] and acc = 0, run
// `iters` rounds of
//     acc += sqrt(|x| + k) * exp(-x * 0.01 * k);  x = x * 0.5 + 1 / (1 + acc)
// and write acc to out[i]. A compute-heavy kernel (transcendentals, loops).
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void sqrt_exp_loop(global const float* restrict in, global float* restrict out,
                          uint iters, uint n)
{
    uint i = GID_X();
    if (i >= n)
        return;
    float x = in[i];
    float acc = 0.0f;
    for (uint k = 0; k < iters; ++k) {
        float fk = (float)k;
        acc += __builtin_sqrtf(__builtin_fabsf(x) + fk) * __builtin_expf(-x * 0.01f * fk);
        x = x * 0.5f + 1.0f / (1.0f + acc);
    }
    out[i] = acc;
}
