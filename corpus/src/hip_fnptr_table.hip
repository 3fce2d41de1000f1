// hip_fnptr_table: out[i] = op[sel[i] % 4](a[i], b[i]) through a table of device function
// pointers (indirect s_swappc_b64 with divergent targets): add, sub, mul, and xor-rotate.
#include "corpus_hip.h"

typedef u32 (*binop)(u32, u32);
__device__ __attribute__((noinline)) u32 op_add(u32 a, u32 b) { return a + b; }
__device__ __attribute__((noinline)) u32 op_sub(u32 a, u32 b) { return a - b; }
__device__ __attribute__((noinline)) u32 op_mul(u32 a, u32 b) { return a * b; }
__device__ __attribute__((noinline)) u32 op_xrot(u32 a, u32 b) { return (a ^ b) << 7 | (a ^ b) >> 25; }

KERNEL void hip_fnptr_table(const u32* sel, const u32* a, const u32* b, u32* out)
{
    binop table[4] = {op_add, op_sub, op_mul, op_xrot};
    u32 i = gid_x();
    out[i] = table[sel[i] & 3u](a[i], b[i]);
}
