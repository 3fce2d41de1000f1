// calls_noinline: kernel -> non-inlined functions (s_swappc_b64 / s_setpc_b64), one of which
// takes pointers into the caller's private frame (stack in scratch) and one calls another.
// out[i*3 + ..] = mix(x, y, i), lo * 3 + hi (lo/hi = min/max of x, y), and
// fold(x, y & 7) >> 7 (fold applies mix64 k+1 times).
#include "corpus_cl.h"

__attribute__((noinline)) static uint mix(uint a, uint b, uint c)
{
    return (a ^ (b << 3)) + c * 2654435761u;
}

__attribute__((noinline)) static void order2(uint a, uint b, private uint* lo, private uint* hi)
{
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
}

__attribute__((noinline)) static ulong mix64(ulong v)
{
    v ^= v >> 31;
    return v * 0x9e3779b97f4a7c15ul;
}

__attribute__((noinline)) static ulong fold(ulong v, uint k)
{
    for (uint j = 0; j <= k; j++)
        v = mix64(v + j);
    return v;
}

UP_TO_1024 kernel void calls_noinline(global const uint* x, global const uint* y, global uint* out)
{
    uint i = GID_X();
    uint a = x[i], b = y[i];
    uint lo, hi;
    out[i * 3] = mix(a, b, i);
    order2(a, b, &lo, &hi);
    out[i * 3 + 1] = lo * 3u + hi;
    out[i * 3 + 2] = (uint)(fold(a, b & 7u) >> 7);
}
