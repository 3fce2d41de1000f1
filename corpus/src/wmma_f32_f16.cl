// wmma_f32_f16 (wave32): each wave w computes D = A*B + C for its own 16x16 tiles
// (A, B f16 row-major at w*256; C, D f32 row-major at w*256) with one
// v_wmma_f32_16x16x16_f16. Lane l holds row l%16 of A and column l%16 of B; C/D element j
// of lane l is row 2j + l/16, column l%16.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "corpus_cl.h"

typedef half h16 __attribute__((ext_vector_type(16)));
typedef float f8 __attribute__((ext_vector_type(8)));

kernel void wmma_f32_f16(global const half* A, global const half* B, global const float* C, global float* D)
{
    uint i = GID_X();
    uint tile = (i >> 5) * 256u, lane = LID_X() & 31u, r = lane & 15u, hi = lane >> 4;
    h16 a, b;
    f8 c;
    for (uint k = 0; k < 16; k++) {
        a[k] = A[tile + r * 16 + k];
        b[k] = B[tile + k * 16 + r];
    }
    for (uint j = 0; j < 8; j++)
        c[j] = C[tile + (2 * j + hi) * 16 + r];
    f8 d = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c);
    for (uint j = 0; j < 8; j++)
        D[tile + (2 * j + hi) * 16 + r] = d[j];
}
