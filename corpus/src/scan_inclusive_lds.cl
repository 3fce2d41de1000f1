// scan_inclusive_lds: out[i] = wrapping u32 inclusive prefix sum of in[] within i's workgroup
// (Hillis-Steele in double-buffered LDS: log2(size) steps, one barrier each). Items >= n read 0
// and write nothing.
#include "corpus_cl.h"

UP_TO_1024 kernel void scan_inclusive_lds(global const uint* in, global uint* out, uint n)
{
    local uint buf[2][1024];
    uint lid = LID_X(), size = WGSIZE_X(), gid = WG_X() * size + lid;
    uint cur = 0;
    buf[0][lid] = gid < n ? in[gid] : 0u;
    BARRIER();
    for (uint off = 1; off < size; off <<= 1) {
        uint v = buf[cur][lid];
        if (lid >= off)
            v += buf[cur][lid - off];
        buf[cur ^ 1][lid] = v;
        cur ^= 1;
        BARRIER();
    }
    if (gid < n)
        out[gid] = buf[cur][lid];
}
