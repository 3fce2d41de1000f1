// scalar_overrun: every work-item stores table[k] to out[g]. `k` is uniform,
// so the load of table[k] is one scalar load (s_load_b32) for the wave: with
// k at or past table's length it reads past the buffer (a sanitizer memcheck
// test of the scalar memory path).
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void scalar_overrun(constant uint* table, global uint* out, uint k)
{
    out[GID_X()] = table[k];
}
