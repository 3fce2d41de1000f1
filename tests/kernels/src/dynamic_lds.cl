// dynamic_lds: two kernels in one code object (tests/shader_modules.rs).
// reverse_in_lds takes a dynamic LDS argument (a local pointer, metadata
// kind dynamic_shared_pointer), which the facade cannot bind; copy_words
// is a plain copy that stays usable beside it.
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void reverse_in_lds(global const uint* src, global uint* dst, local uint* tile)
{
    uint l = LID_X();
    uint g = GID_X();
    tile[l] = src[g];
    WG_BARRIER();
    dst[g] = tile[WGSIZE_X() - 1 - l];
}

ANY_WG_SIZE kernel void copy_words(global const uint* src, global uint* dst)
{
    uint g = GID_X();
    dst[g] = src[g];
}
