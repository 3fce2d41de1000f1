// hip_templates: one templated pairwise routine instantiated for u32, u64 and double:
// out_u32[i] = x[2i] * 3 + x[2i+1], out_u64[i] = same on (u64)x << 16, out_f64[i] = same on
// (double)x, with fma for double (fma(a, 3, b)).
#include "corpus_hip.h"

template <typename T> __device__ T combine(T a, T b) { return a * T(3) + b; }
template <> __device__ double combine<double>(double a, double b) { return __builtin_fma(a, 3.0, b); }

template <typename T> __device__ void pairwise(const T* in, T* out, u32 i)
{
    out[i] = combine<T>(in[2 * i], in[2 * i + 1]);
}

KERNEL void hip_templates(const u32* x, u32* out_u32, u64* wide_in, u64* out_u64, double* dbl_in,
                          double* out_f64)
{
    u32 i = gid_x();
    wide_in[2 * i] = (u64)x[2 * i] << 16;
    wide_in[2 * i + 1] = (u64)x[2 * i + 1] << 16;
    dbl_in[2 * i] = (double)x[2 * i];
    dbl_in[2 * i + 1] = (double)x[2 * i + 1];
    pairwise<u32>(x, out_u32, i);
    pairwise<u64>(wide_in, out_u64, i);
    pairwise<double>(dbl_in, out_f64, i);
}
