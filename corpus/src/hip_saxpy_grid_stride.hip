// hip_saxpy_grid_stride: y[i] = fma(a, x[i], y[i]) for i < n by a grid-stride loop over a grid
// smaller than n (the stride is the dispatch's grid size from the packet).
#include "corpus_hip.h"

KERNEL void hip_saxpy_grid_stride(float a, const float* x, float* y, u32 n)
{
    u32 stride = grid_x();
    for (u32 i = gid_x(); i < n; i += stride)
        y[i] = __builtin_fmaf(a, x[i], y[i]);
}
