// Matrix fused multiply-adds on GFX9 (gfx942, gfx90a): one wave64 work-group
// per dispatch; each kernel reads every lane's A, B and C register images
// (the values the instruction's source registers hold in that lane) and
// writes the lane's D register image, so the host lays the matrices out as
// the ISA guide's register layouts say and checks the product.
#include "aqueduct_kernel.h"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef half halfx4 __attribute__((ext_vector_type(4)));
typedef short shortx4 __attribute__((ext_vector_type(4)));
typedef int intx4 __attribute__((ext_vector_type(4)));
typedef double doublex4 __attribute__((ext_vector_type(4)));

kernel void mfma_f32_16x16x4f32(global const float *a, global const float *b,
                                global const floatx4 *c, global floatx4 *d) {
    uint l = LID_X();
    d[l] = __builtin_amdgcn_mfma_f32_16x16x4f32(a[l], b[l], c[l], 0, 0, 0);
}

kernel void mfma_f32_32x32x2f32(global const float *a, global const float *b,
                                global const floatx16 *c, global floatx16 *d) {
    uint l = LID_X();
    d[l] = __builtin_amdgcn_mfma_f32_32x32x2f32(a[l], b[l], c[l], 0, 0, 0);
}

kernel void mfma_f32_16x16x16f16(global const halfx4 *a, global const halfx4 *b,
                                 global const floatx4 *c, global floatx4 *d) {
    uint l = LID_X();
    d[l] = __builtin_amdgcn_mfma_f32_16x16x16f16(a[l], b[l], c[l], 0, 0, 0);
}

kernel void mfma_f32_32x32x8f16(global const halfx4 *a, global const halfx4 *b,
                                global const floatx16 *c, global floatx16 *d) {
    uint l = LID_X();
    d[l] = __builtin_amdgcn_mfma_f32_32x32x8f16(a[l], b[l], c[l], 0, 0, 0);
}

kernel void mfma_f32_16x16x16bf16_1k(global const shortx4 *a, global const shortx4 *b,
                                     global const floatx4 *c, global floatx4 *d) {
    uint l = LID_X();
    d[l] = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a[l], b[l], c[l], 0, 0, 0);
}

kernel void mfma_f32_32x32x8bf16_1k(global const shortx4 *a, global const shortx4 *b,
                                    global const floatx16 *c, global floatx16 *d) {
    uint l = LID_X();
    d[l] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a[l], b[l], c[l], 0, 0, 0);
}

// gfx90a has the 16-deep i8 form, gfx942 the 32-deep one (two registers of A, B).
#if defined(__gfx90a__)
kernel void mfma_i32_16x16_i8(global const int *a, global const int *b,
                              global const intx4 *c, global intx4 *d) {
    uint l = LID_X();
    d[l] = __builtin_amdgcn_mfma_i32_16x16x16i8(a[l], b[l], c[l], 0, 0, 0);
}
#else
kernel void mfma_i32_16x16_i8(global const long *a, global const long *b,
                              global const intx4 *c, global intx4 *d) {
    uint l = LID_X();
    d[l] = __builtin_amdgcn_mfma_i32_16x16x32_i8(a[l], b[l], c[l], 0, 0, 0);
}
#endif

kernel void mfma_f64_16x16x4f64(global const double *a, global const double *b,
                                global const doublex4 *c, global doublex4 *d) {
    uint l = LID_X();
    d[l] = __builtin_amdgcn_mfma_f64_16x16x4f64(a[l], b[l], c[l], 0, 0, 0);
}
