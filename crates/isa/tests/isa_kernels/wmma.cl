// WMMA on gfx1100 wave32 (one wave computes one 16x16x16 tile) with the
// RDNA3 register layout: lane%16 holds row m of A and column n of B, VGPR r
// of lane l holds D[2r + l/16][l%16]. Matrices are row-major in memory.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half v16h __attribute__((ext_vector_type(16)));
typedef short v16s __attribute__((ext_vector_type(16)));
typedef float v8f __attribute__((ext_vector_type(8)));
typedef int v8i __attribute__((ext_vector_type(8)));
typedef int v4i __attribute__((ext_vector_type(4)));
typedef int v2i __attribute__((ext_vector_type(2)));

#define LANE __builtin_amdgcn_workitem_id_x()
#define ROW(r) ((2 * (r) + LANE / 16) * 16 + LANE % 16)

// D = A x B + C in f32 from f16 inputs.
kernel void wmma_f32_f16(global const half* a, global const half* b, global const float* c, global float* d)
{
    v16h av, bv;
    for (int k = 0; k < 16; ++k) {
        av[k] = a[(LANE % 16) * 16 + k];
        bv[k] = b[k * 16 + LANE % 16];
    }
    v8f cv;
    for (int r = 0; r < 8; ++r)
        cv[r] = c[ROW(r)];
    v8f dv = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(av, bv, cv);
    for (int r = 0; r < 8; ++r)
        d[ROW(r)] = dv[r];
}

// f16 result in the high halves (op_sel), f16 C read from the high halves too.
kernel void wmma_f16_hi(global const half* a, global const half* b, global const half* c, global half* d)
{
    v16h av, bv, cv;
    for (int k = 0; k < 16; ++k) {
        av[k] = a[(LANE % 16) * 16 + k];
        bv[k] = b[k * 16 + LANE % 16];
    }
    for (int r = 0; r < 8; ++r) {
        cv[2 * r] = (half)0.0f;
        cv[2 * r + 1] = c[ROW(r)];
    }
    v16h dv = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32(av, bv, cv, true);
    for (int r = 0; r < 8; ++r)
        d[ROW(r)] = dv[2 * r + 1];
}

// Signed 8-bit A, unsigned 8-bit B, i32 accumulate (a, b as packed bytes, 4 per uint).
kernel void wmma_iu8(global const int* a, global const int* b, global const int* c, global int* d)
{
    v4i av, bv;
    for (int k = 0; k < 4; ++k) {
        av[k] = a[(LANE % 16) * 4 + k];
        bv[k] = b[(LANE % 16) * 4 + k];
    }
    v8i cv;
    for (int r = 0; r < 8; ++r)
        cv[r] = c[ROW(r)];
    v8i dv = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, av, false, bv, cv, false);
    for (int r = 0; r < 8; ++r)
        d[ROW(r)] = dv[r];
}

// Signed 4-bit A and B with clamp (a, b as packed nibbles, 8 per uint).
kernel void wmma_iu4_clamp(global const int* a, global const int* b, global const int* c, global int* d)
{
    v2i av, bv;
    for (int k = 0; k < 2; ++k) {
        av[k] = a[(LANE % 16) * 2 + k];
        bv[k] = b[(LANE % 16) * 2 + k];
    }
    v8i cv;
    for (int r = 0; r < 8; ++r)
        cv[r] = c[ROW(r)];
    v8i dv = __builtin_amdgcn_wmma_i32_16x16x16_iu4_w32(true, av, true, bv, cv, true);
    for (int r = 0; r < 8; ++r)
        d[ROW(r)] = dv[r];
}
