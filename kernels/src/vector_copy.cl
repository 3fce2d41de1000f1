// vector_copy: dst[i] = src[i] for i < n (u32 elements, 1D grid).
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void vector_copy(global const uint* restrict src, global uint* restrict dst, uint n)
{
    uint i = GID_X();
    if (i < n)
        dst[i] = src[i];
}
