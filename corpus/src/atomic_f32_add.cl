// atomic_f32_add: sums[i % 4] += in[i] with f32 atomic adds. The inputs are small integers,
// so every partial sum is exact and the result does not depend on the order.
#include "corpus_cl.h"

UP_TO_1024 kernel void atomic_f32_add(global const float* in, global float* sums)
{
    uint i = GID_X();
    __atomic_fetch_add(&sums[i & 3], in[i], __ATOMIC_RELAXED);
}
