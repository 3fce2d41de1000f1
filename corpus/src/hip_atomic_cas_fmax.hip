// hip_atomic_cas_fmax: best[i % 4] = max of the f32 inputs mapping to it, by a compare-and-swap
// loop on the float's bits (an order-independent result under contention); also
// argmin[0] = smallest index holding the overall minimum, by a 64-bit atomic min on
// (ordered float bits << 32 | index).
#include "corpus_hip.h"

__device__ inline u32 ordered(float f)
{
    u32 b = __builtin_bit_cast(u32, f);
    return (b & 0x80000000u) ? ~b : b | 0x80000000u;
}

KERNEL void hip_atomic_cas_fmax(const float* in, float* best, u64* argmin)
{
    u32 i = gid_x();
    float v = in[i];
    u32* slot = (u32*)&best[i & 3];
    u32 seen = __hip_atomic_load(slot, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    while (__builtin_bit_cast(float, seen) < v &&
           !__hip_atomic_compare_exchange_strong(slot, &seen, __builtin_bit_cast(u32, v), __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) {
    }
    u64 key = ((u64)ordered(v) << 32) | i;
    __hip_atomic_fetch_min(argmin, key, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
