// atomic_minmax: slot s = i % 4 gets signed min/max and unsigned min/max of the items that map
// to it: smin[s], smax[s], umin[s], umax[s] (global atomics, the returned value unused).
#include "corpus_cl.h"

UP_TO_1024 kernel void atomic_minmax(global const int* in, global int* smin, global int* smax,
                                     global uint* umin, global uint* umax)
{
    uint i = GID_X(), s = i & 3;
    int v = in[i];
    __atomic_fetch_min(&smin[s], v, __ATOMIC_RELAXED);
    __atomic_fetch_max(&smax[s], v, __ATOMIC_RELAXED);
    __atomic_fetch_min(&umin[s], (uint)v, __ATOMIC_RELAXED);
    __atomic_fetch_max(&umax[s], (uint)v, __ATOMIC_RELAXED);
}
