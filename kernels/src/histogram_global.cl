// histogram_global: bins[v] += count of bytes equal to v in data[0..n) (256 u32
// bins), with one global atomic add per byte and no LDS (compare histogram.cl).
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void histogram_global(global const uchar* restrict data, global uint* restrict bins, uint n)
{
    uint i = GID_X();
    if (i < n)
        __atomic_fetch_add(&bins[data[i]], 1u, __ATOMIC_RELAXED);
}
