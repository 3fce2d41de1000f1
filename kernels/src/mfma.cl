// Matrix fused multiply-adds on GFX9 (gfx942, gfx90a): one wave64 work-group
// per dispatch; each kernel reads every lane's A, B and C register images
// (the values the instruction's source registers hold in that lane) and
// writes the lane's D register image, so the host lays the matrices out as
// the ISA guide's register layouts say and checks the product. One kernel
// per `__builtin_amdgcn_mfma_*` form the target has, named after it, plus a
// few with CBSZ/ABID/BLGP modifiers (suffixed with their values).
#include "aqueduct_kernel.h"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef float floatx2 __attribute__((ext_vector_type(2)));
typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef float floatx32 __attribute__((ext_vector_type(32)));
typedef half halfx4 __attribute__((ext_vector_type(4)));
typedef short shortx2 __attribute__((ext_vector_type(2)));
typedef short shortx4 __attribute__((ext_vector_type(4)));
typedef short shortx8 __attribute__((ext_vector_type(8)));
typedef half halfx8 __attribute__((ext_vector_type(8)));
typedef int intx2 __attribute__((ext_vector_type(2)));
typedef int intx4 __attribute__((ext_vector_type(4)));
typedef int intx16 __attribute__((ext_vector_type(16)));
typedef int intx32 __attribute__((ext_vector_type(32)));
typedef double doublex4 __attribute__((ext_vector_type(4)));

// kernel `name`: D = builtin(A, B, C, cbsz, abid, blgp), A and B of type TA,
// C and D of type TC, one element per lane.
#define MFMA_MOD(name, builtin, TA, TC, cbsz, abid, blgp)                              \
    kernel void name(global const TA *a, global const TA *b, global const TC *c,       \
                     global TC *d) {                                                    \
        uint l = LID_X();                                                               \
        d[l] = builtin(a[l], b[l], c[l], cbsz, abid, blgp);                             \
    }
#define MFMA(form, TA, TC) MFMA_MOD(mfma_##form, __builtin_amdgcn_mfma_##form, TA, TC, 0, 0, 0)

// Both targets.
MFMA(f32_32x32x1f32, float, floatx32)
MFMA(f32_16x16x1f32, float, floatx16)
MFMA(f32_4x4x1f32, float, floatx4)
MFMA(f32_32x32x2f32, float, floatx16)
MFMA(f32_16x16x4f32, float, floatx4)
MFMA(f32_32x32x4f16, halfx4, floatx32)
MFMA(f32_16x16x4f16, halfx4, floatx16)
MFMA(f32_4x4x4f16, halfx4, floatx4)
MFMA(f32_32x32x8f16, halfx4, floatx16)
MFMA(f32_16x16x16f16, halfx4, floatx4)
MFMA(i32_32x32x4i8, int, intx32)
MFMA(i32_16x16x4i8, int, intx16)
MFMA(i32_4x4x4i8, int, intx4)
MFMA(f32_32x32x4bf16_1k, shortx4, floatx32)
MFMA(f32_16x16x4bf16_1k, shortx4, floatx16)
MFMA(f32_4x4x4bf16_1k, shortx4, floatx4)
MFMA(f32_32x32x8bf16_1k, shortx4, floatx16)
MFMA(f32_16x16x16bf16_1k, shortx4, floatx4)
MFMA(f64_16x16x4f64, double, doublex4)
MFMA(f64_4x4x4f64, double, double)
MFMA_MOD(mfma_f32_16x16x1f32_cbsz2_abid3_blgp3, __builtin_amdgcn_mfma_f32_16x16x1f32, float,
         floatx16, 2, 3, 3)
MFMA_MOD(mfma_f32_4x4x4f16_cbsz3_abid5_blgp6, __builtin_amdgcn_mfma_f32_4x4x4f16, halfx4,
         floatx4, 3, 5, 6)
MFMA_MOD(mfma_i32_32x32x4i8_cbsz1_abid1_blgp1, __builtin_amdgcn_mfma_i32_32x32x4i8, int,
         intx32, 1, 1, 1)

// kernel `name`: D = builtin(A, B, C, index, 0, abid) (sparse A, gfx942).
#define SMFMA_ABID(name, builtin, TA, TB, TC, abid)                                    \
    kernel void name(global const TA *a, global const TB *b, global const TC *c,       \
                     global const int *index, global TC *d) {                           \
        uint l = LID_X();                                                               \
        d[l] = builtin(a[l], b[l], c[l], index[l], 0, abid);                            \
    }
#define SMFMAC(form, TA, TB, TC)                                                       \
    SMFMA_ABID(smfmac_##form, __builtin_amdgcn_smfmac_##form, TA, TB, TC, 0)

#if defined(__gfx90a__)
// gfx90a only: the older i8 and bf16 forms (gfx942 dropped them).
MFMA(i32_32x32x8i8, int, intx16)
MFMA(i32_16x16x16i8, int, intx4)
MFMA(f32_32x32x2bf16, shortx2, floatx32)
MFMA(f32_16x16x2bf16, shortx2, floatx16)
MFMA(f32_4x4x2bf16, shortx2, floatx4)
MFMA(f32_32x32x4bf16, shortx2, floatx16)
MFMA(f32_16x16x8bf16, shortx2, floatx4)
#else
// gfx942 only: 8-byte i8, xf32, fp8/bf8.
MFMA(i32_32x32x16_i8, long, intx16)
MFMA(i32_16x16x32_i8, long, intx4)
MFMA(f32_16x16x8_xf32, floatx2, floatx4)
MFMA(f32_32x32x4_xf32, floatx2, floatx16)
MFMA(f32_16x16x32_bf8_bf8, long, floatx4)
MFMA(f32_16x16x32_bf8_fp8, long, floatx4)
MFMA(f32_16x16x32_fp8_bf8, long, floatx4)
MFMA(f32_16x16x32_fp8_fp8, long, floatx4)
MFMA(f32_32x32x16_bf8_bf8, long, floatx16)
MFMA(f32_32x32x16_bf8_fp8, long, floatx16)
MFMA(f32_32x32x16_fp8_bf8, long, floatx16)
MFMA(f32_32x32x16_fp8_fp8, long, floatx16)
// gfx942 reads an f64 op's BLGP as negations of A, B and C (neg:[1,0,1] here).
MFMA_MOD(mfma_f64_4x4x4f64_blgp5, __builtin_amdgcn_mfma_f64_4x4x4f64, double, double, 0, 0, 5)
SMFMAC(f32_16x16x32_f16, halfx4, halfx8, floatx4)
SMFMAC(f32_32x32x16_f16, halfx4, halfx8, floatx16)
SMFMAC(f32_16x16x32_bf16, shortx4, shortx8, floatx4)
SMFMAC(f32_32x32x16_bf16, shortx4, shortx8, floatx16)
SMFMAC(i32_16x16x64_i8, intx2, intx4, intx4)
SMFMAC(i32_32x32x32_i8, intx2, intx4, intx16)
SMFMAC(f32_16x16x64_bf8_bf8, intx2, intx4, floatx4)
SMFMAC(f32_16x16x64_bf8_fp8, intx2, intx4, floatx4)
SMFMAC(f32_16x16x64_fp8_bf8, intx2, intx4, floatx4)
SMFMAC(f32_16x16x64_fp8_fp8, intx2, intx4, floatx4)
SMFMAC(f32_32x32x32_bf8_bf8, intx2, intx4, floatx16)
SMFMAC(f32_32x32x32_bf8_fp8, intx2, intx4, floatx16)
SMFMAC(f32_32x32x32_fp8_bf8, intx2, intx4, floatx16)
SMFMAC(f32_32x32x32_fp8_fp8, intx2, intx4, floatx16)
SMFMA_ABID(smfmac_f32_16x16x32_f16_abid3, __builtin_amdgcn_smfmac_f32_16x16x32_f16, halfx4,
           halfx8, floatx4, 3)
SMFMA_ABID(smfmac_i32_16x16x64_i8_abid1, __builtin_amdgcn_smfmac_i32_16x16x64_i8, intx2, intx4,
           intx4, 1)
#endif
