// idiv_u32: q[i] = a[i] / b[i] and r[i] = a[i] % b[i] (u32, b != 0); the compiler expands the
// division inline (reciprocal estimate + correction steps).
#include "corpus_cl.h"

UP_TO_1024 kernel void idiv_u32(global const uint* a, global const uint* b, global uint* q, global uint* r)
{
    uint i = GID_X();
    q[i] = a[i] / b[i];
    r[i] = a[i] % b[i];
}
