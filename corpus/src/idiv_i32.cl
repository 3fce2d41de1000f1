// idiv_i32: q[i] = a[i] / b[i] and r[i] = a[i] % b[i] (i32, truncating; b != 0 and never
// INT_MIN / -1).
#include "corpus_cl.h"

UP_TO_1024 kernel void idiv_i32(global const int* a, global const int* b, global int* q, global int* r)
{
    uint i = GID_X();
    q[i] = a[i] / b[i];
    r[i] = a[i] % b[i];
}
