// bitops: out[i*8 + ..] for a = x[i], b = y[i]: popcount(a), clz(a) (32 for 0), ctz(a) (32 for
// 0), bit-reverse(a), rotate-left(a, b % 32), mul_hi(a, b) (u32), 24-bit multiply-add
// (a & 0xffffff) * (b & 0xffffff) + (a ^ b), and bit-field extract (a >> (b % 16)) & 0xfff.
#include "corpus_cl.h"

UP_TO_1024 kernel void bitops(global const uint* x, global const uint* y, global uint* out)
{
    uint i = GID_X();
    uint a = x[i], b = y[i], r = b & 31u;
    global uint* o = out + i * 8;
    o[0] = (uint)__builtin_popcount(a);
    o[1] = a ? (uint)__builtin_clz(a) : 32u;
    o[2] = a ? (uint)__builtin_ctz(a) : 32u;
    o[3] = __builtin_bitreverse32(a);
    o[4] = r ? (a << r) | (a >> (32u - r)) : a;
    o[5] = (uint)(((ulong)a * (ulong)b) >> 32);
    o[6] = (a & 0xffffffu) * (b & 0xffffffu) + (a ^ b);
    o[7] = (a >> (b & 15u)) & 0xfffu;
}
