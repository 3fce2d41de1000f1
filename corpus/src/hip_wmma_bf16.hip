// hip_wmma_bf16 (wave32): each wave w computes D = A*B + C on its own 16x16 tiles with
// v_wmma_f32_16x16x16_bf16: A, B bf16 bit patterns row-major at w*256, C, D f32 row-major.
// Lane l holds row l%16 of A and column l%16 of B; C/D element j of lane l is row 2j + l/16,
// column l%16.
#include "corpus_hip.h"

typedef short s16x16 __attribute__((ext_vector_type(16)));
typedef float f32x8 __attribute__((ext_vector_type(8)));

KERNEL void hip_wmma_bf16(const unsigned short* A, const unsigned short* B, const float* C, float* D)
{
    u32 i = gid_x();
    u32 tile = (i / 32) * 256, lane = tid_x() & 31, r = lane & 15, hi = lane >> 4;
    s16x16 a, b;
    f32x8 c;
    for (u32 k = 0; k < 16; k++) {
        a[k] = (short)A[tile + r * 16 + k];
        b[k] = (short)B[tile + k * 16 + r];
    }
    for (u32 j = 0; j < 8; j++)
        c[j] = C[tile + (2 * j + hi) * 16 + r];
    f32x8 d = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a, b, c);
    for (u32 j = 0; j < 8; j++)
        D[tile + (2 * j + hi) * 16 + r] = d[j];
}
