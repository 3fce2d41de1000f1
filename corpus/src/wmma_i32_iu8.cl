// wmma_i32_iu8 (wave32): like wmma_f32_f16 with signed 8-bit A and B (16x16, row-major bytes at
// w*256) and i32 C/D: one v_wmma_i32_16x16x16_iu8 (both operands signed, no clamp).
#include "corpus_cl.h"

typedef int i4 __attribute__((ext_vector_type(4)));
typedef int i8v __attribute__((ext_vector_type(8)));

kernel void wmma_i32_iu8(global const char* A, global const char* B, global const int* C, global int* D)
{
    uint i = GID_X();
    uint tile = (i >> 5) * 256u, lane = LID_X() & 31u, r = lane & 15u, hi = lane >> 4;
    i4 a, b;
    for (uint q = 0; q < 4; q++) {
        uint wa = 0, wb = 0;
        for (uint k = 0; k < 4; k++) {
            wa |= (uint)(uchar)A[tile + r * 16 + q * 4 + k] << (8 * k);
            wb |= (uint)(uchar)B[tile + (q * 4 + k) * 16 + r] << (8 * k);
        }
        a[q] = (int)wa;
        b[q] = (int)wb;
    }
    i8v c;
    for (uint j = 0; j < 8; j++)
        c[j] = C[tile + (2 * j + hi) * 16 + r];
    i8v d = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, a, true, b, c, false);
    for (uint j = 0; j < 8; j++)
        D[tile + (2 * j + hi) * 16 + r] = d[j];
}
