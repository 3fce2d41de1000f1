// idiv_const: division by constants (multiply-high sequences): out[i*8 + ..] =
// u/7, u%7, u/1000, u%65537, s/3, s%3, s/-10, s%-10 with u = x[i] and s = (int)x[i].
#include "corpus_cl.h"

UP_TO_1024 kernel void idiv_const(global const uint* x, global uint* out)
{
    uint i = GID_X();
    uint u = x[i];
    int s = (int)u;
    global uint* o = out + i * 8;
    o[0] = u / 7u;
    o[1] = u % 7u;
    o[2] = u / 1000u;
    o[3] = u % 65537u;
    o[4] = (uint)(s / 3);
    o[5] = (uint)(s % 3);
    o[6] = (uint)(s / -10);
    o[7] = (uint)(s % -10);
}
