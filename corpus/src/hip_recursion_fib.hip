// hip_recursion_fib: out[i] = fib(n[i]) (fib(0) = 0, fib(1) = 1, u32 wrapping) by a naive
// recursive device function: real calls with a dynamic stack in scratch, divergent depth.
#include "corpus_hip.h"

__device__ __attribute__((noinline)) u32 fib(u32 n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

KERNEL void hip_recursion_fib(const u32* n, u32* out)
{
    u32 i = gid_x();
    out[i] = fib(n[i]);
}
