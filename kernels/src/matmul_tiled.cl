// matmul_tiled: C = A * B for row-major f32 matrices, A is M x K, B is K x N,
// C is M x N. 2D grid: x covers columns of C, y covers rows. The workgroup must
// be 16 x 16: each one stages 16x16 tiles of A and B in LDS per step of K.
// Sizes need not be multiples of 16 (out-of-range tile elements load as 0).
#include "aqueduct_kernel.h"

#define TS 16

__attribute__((reqd_work_group_size(16, 16, 1)))
kernel void matmul_tiled(global const float* restrict A, global const float* restrict B,
                         global float* restrict C, uint M, uint N, uint K)
{
    local float tile_a[TS][TS];
    local float tile_b[TS][TS];
    uint tx = LID_X();
    uint ty = LID_Y();
    uint row = WG_Y() * TS + ty;
    uint col = WG_X() * TS + tx;
    float acc = 0.0f;
    for (uint t = 0; t < K; t += TS) {
        uint a_col = t + tx;
        uint b_row = t + ty;
        tile_a[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        tile_b[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        WG_BARRIER();
        for (uint k = 0; k < TS; ++k)
            acc += tile_a[ty][k] * tile_b[k][tx];
        WG_BARRIER();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}
