// idiv_64: 64-bit division, expanded inline: out[i*4 + ..] = ua/ub, ua%ub (u64) and
// sa/sb, sa%sb (i64, truncating) for the same bit patterns a[i], b[i] (b != 0, never
// INT64_MIN / -1).
#include "corpus_cl.h"

UP_TO_1024 kernel void idiv_64(global const ulong* a, global const ulong* b, global ulong* out)
{
    uint i = GID_X();
    ulong x = a[i], y = b[i];
    global ulong* o = out + i * 4;
    o[0] = x / y;
    o[1] = x % y;
    o[2] = (ulong)((long)x / (long)y);
    o[3] = (ulong)((long)x % (long)y);
}
