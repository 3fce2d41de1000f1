// atomic_bitwise: for slot s = i % 8: and_[s] &= in[i], or_[s] |= in[i], xor_[s] ^= in[i]
// (global atomics without return).
#include "corpus_cl.h"

UP_TO_1024 kernel void atomic_bitwise(global const uint* in, global uint* and_, global uint* or_,
                                      global uint* xor_)
{
    uint i = GID_X(), s = i & 7;
    uint v = in[i];
    __atomic_fetch_and(&and_[s], v, __ATOMIC_RELAXED);
    __atomic_fetch_or(&or_[s], v, __ATOMIC_RELAXED);
    __atomic_fetch_xor(&xor_[s], v, __ATOMIC_RELAXED);
}
