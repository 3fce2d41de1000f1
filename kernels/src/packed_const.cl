// packed_const: float2 arithmetic with splat constants on GFX9 (gfx942,
// gfx90a), which clang-19 compiles to the packed f32 ops with an inline
// constant source read as its low dword for both halves
// (`v_pk_fma_f32 ..., 0.5 op_sel_hi:[1,1,0]`,
// `v_pk_add_f32 ..., -4.0, ... op_sel_hi:[0,1]`):
// out[g] = fma(a[g], b[g], 0.5) - 4.0 for g < n.
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void packed_const(global const float2* a, global const float2* b,
                                     global float2* out, uint n)
{
    uint g = GID_X();
    if (g < n)
        out[g] = fma(a[g], b[g], (float2)(0.5f, 0.5f)) + (float2)(-4.0f, -4.0f);
}
