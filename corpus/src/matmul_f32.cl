// matmul_f32: C = A * B for n x n f32 row-major matrices, one item per C element (2D grid):
// acc = fma(A[r][k], B[k][c], acc) for k = 0 .. n-1 from acc = 0, so the host can match it.
#include "corpus_cl.h"

UP_TO_1024 kernel void matmul_f32(global const float* A, global const float* B, global float* C, uint n)
{
    uint c = WG_X() * WGSIZE_X() + LID_X();
    uint r = WG_Y() * WGSIZE_Y() + LID_Y();
    if (r >= n || c >= n)
        return;
    float acc = 0.0f;
    for (uint k = 0; k < n; k++)
        acc = __builtin_fmaf(A[r * n + k], B[k * n + c], acc);
    C[r * n + c] = acc;
}
