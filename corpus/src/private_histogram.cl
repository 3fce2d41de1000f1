// private_histogram: each item counts the low 6 bits of its 128 input bytes into a private
// array of 64 counters (data-dependent indices: scratch), then writes the counts out.
#include "corpus_cl.h"

UP_TO_1024 kernel void private_histogram(global const uchar* bytes, global uint* counts)
{
    uint c[64];
    for (uint j = 0; j < 64; j++)
        c[j] = 0;
    global const uchar* mine = bytes + GID_X() * 128u;
    for (uint j = 0; j < 128; j++)
        c[mine[j] & 63u]++;
    global uint* o = counts + GID_X() * 64u;
    for (uint j = 0; j < 64; j++)
        o[j] = c[j];
}
