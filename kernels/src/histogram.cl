// histogram: bins[v] += count of bytes equal to v in data[0..n) (256 u32 bins).
// Each workgroup first counts into an LDS-private histogram with LDS atomics,
// then adds its non-zero bins to the global ones with global atomics. Works for
// any 1D workgroup size (bins are strided over the work-items).
#include "aqueduct_kernel.h"

#define BINS 256u

ANY_WG_SIZE kernel void histogram(global const uchar* restrict data, global uint* restrict bins, uint n)
{
    local uint local_bins[BINS];
    uint lid = LID_X();
    uint size = WGSIZE_X();
    for (uint b = lid; b < BINS; b += size)
        local_bins[b] = 0u;
    WG_BARRIER();
    uint i = WG_X() * size + lid;
    if (i < n)
        __atomic_fetch_add(&local_bins[data[i]], 1u, __ATOMIC_RELAXED);
    WG_BARRIER();
    for (uint b = lid; b < BINS; b += size) {
        uint count = local_bins[b];
        if (count != 0u)
            __atomic_fetch_add(&bins[b], count, __ATOMIC_RELAXED);
    }
}
