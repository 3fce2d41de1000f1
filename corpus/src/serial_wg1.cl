// serial_wg1: one work-item per group (reqd_work_group_size 1): group g writes the wrapping
// u32 inclusive prefix sums of in[g*len .. g*len + len) to out, in a serial loop.
#include "corpus_cl.h"

__attribute__((reqd_work_group_size(1, 1, 1))) kernel void serial_wg1(global const uint* in, global uint* out,
                                                                      uint len)
{
    uint base = WG_X() * len, acc = 0;
    for (uint j = 0; j < len; j++) {
        acc += in[base + j];
        out[base + j] = acc;
    }
}
