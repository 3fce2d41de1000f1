// atomic_lds_kinds: every kind of LDS atomic over one group's inputs; out[g*10 + k] for
// k = add, sub (from 0), umin, umax, smin, smax, and, or, xor, and the number of items whose
// compare-exchange of 0 -> id+1 succeeded (exactly 1).
#include "corpus_cl.h"

UP_TO_1024 kernel void atomic_lds_kinds(global const uint* in, global uint* out)
{
    local uint a[10];
    local int s[2];
    uint lid = LID_X(), size = WGSIZE_X();
    uint v = in[WG_X() * size + lid];
    if (lid == 0) {
        a[0] = 0; a[1] = 0; a[2] = 0xffffffffu; a[3] = 0; a[6] = 0xffffffffu;
        a[7] = 0; a[8] = 0; a[9] = 0; s[0] = 0x7fffffff; s[1] = (int)0x80000000;
    }
    local uint claim;
    if (lid == 0)
        claim = 0;
    BARRIER();
    __atomic_fetch_add(&a[0], v, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&a[1], v, __ATOMIC_RELAXED);
    __atomic_fetch_min(&a[2], v, __ATOMIC_RELAXED);
    __atomic_fetch_max(&a[3], v, __ATOMIC_RELAXED);
    __atomic_fetch_min(&s[0], (int)v, __ATOMIC_RELAXED);
    __atomic_fetch_max(&s[1], (int)v, __ATOMIC_RELAXED);
    __atomic_fetch_and(&a[6], v, __ATOMIC_RELAXED);
    __atomic_fetch_or(&a[7], v, __ATOMIC_RELAXED);
    __atomic_fetch_xor(&a[8], v, __ATOMIC_RELAXED);
    uint expected = 0;
    if (__atomic_compare_exchange_n(&claim, &expected, lid + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        __atomic_fetch_add(&a[9], 1u, __ATOMIC_RELAXED);
    BARRIER();
    if (lid == 0) {
        global uint* o = out + WG_X() * 10;
        o[0] = a[0]; o[1] = a[1]; o[2] = a[2]; o[3] = a[3];
        o[4] = (uint)s[0]; o[5] = (uint)s[1];
        o[6] = a[6]; o[7] = a[7]; o[8] = a[8]; o[9] = a[9];
    }
}
