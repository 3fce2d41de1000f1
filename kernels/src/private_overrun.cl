// private_overrun: each work-item fills a 32-entry private array from
// in[0..32), then stores one entry of it to out[lid]: entry lid % 32 for
// work-items below `first`, entry `index + lid - first` from there on, so
// indices past 31 read private memory past the array (a sanitizer memcheck
// test of the private path: on gfx90a the array lives in scratch, reached
// by MUBUF through the scratch buffer resource). One workgroup.
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void private_overrun(global const uint* restrict in, global uint* restrict out,
                                        uint index, uint first)
{
    uint a[32];
    for (uint j = 0; j < 32; j++)
        a[j] = in[j] ^ j;
    uint lid = LID_X();
    uint k = lid >= first ? index + (lid - first) : lid % 32u;
    out[lid] = a[k];
}
