// atomic_inc_dec_wrap: the hardware wrapping atomics: every item does
// inc (old >= limit ? 0 : old + 1) on cells[0] and dec ((old == 0 || old > limit) ? limit : old - 1)
// on cells[1], with limit = `limit`.
#include "corpus_cl.h"

UP_TO_1024 kernel void atomic_inc_dec_wrap(global uint* cells, uint limit)
{
    __builtin_amdgcn_atomic_inc32(&cells[0], limit, __ATOMIC_RELAXED, "agent");
    __builtin_amdgcn_atomic_dec32(&cells[1], limit, __ATOMIC_RELAXED, "agent");
}
