// Function calls on gfx11, built at -O0 (build_cl.sh does so for *calls*.cl):
// noinline callees (s_getpc/s_swappc_b64 call sequences, s_setpc_b64
// returns, stack frames in scratch), a recursive function, and an indirect
// call through a function-pointer table picked per work-item.
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

__attribute__((noinline)) uint mix(uint a, uint b) { return a * 31u + (b ^ 0x5bd1e995u); }
__attribute__((noinline)) uint twice(uint a) { return mix(a, a) + mix(a + 1u, 7u); }
__attribute__((noinline)) uint fact(uint n) { return n <= 1u ? 1u : n * fact(n - 1u); }
__attribute__((noinline)) uint op_add(uint a, uint b) { return a + b; }
__attribute__((noinline)) uint op_xor(uint a, uint b) { return a ^ b; }
__attribute__((noinline)) uint op_mul(uint a, uint b) { return a * b; }

typedef uint (*binop)(uint, uint);

kernel void calls(global const uint* in, global uint* out)
{
    uint i = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
    uint x = in[i];
    binop table[3] = { op_add, op_xor, op_mul };
    out[i * 4 + 0] = mix(x, i);
    out[i * 4 + 1] = twice(x);
    out[i * 4 + 2] = fact(x % 10u);
    out[i * 4 + 3] = table[x % 3u](x, i + 5u);
}
