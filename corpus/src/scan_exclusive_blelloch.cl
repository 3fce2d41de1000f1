// scan_exclusive_blelloch: each workgroup of S items (S a power of two) scans a block of 2*S
// u32 (wrapping) in LDS with the work-efficient up-sweep/down-sweep: out[b*2S + j] = sum of
// in[b*2S .. b*2S + j). 2*log2(2S) + 1 barriers per group.
#include "corpus_cl.h"

UP_TO_1024 kernel void scan_exclusive_blelloch(global const uint* in, global uint* out)
{
    local uint t[2048];
    uint lid = LID_X(), size = WGSIZE_X();
    uint base = WG_X() * 2u * size;
    t[2 * lid] = in[base + 2 * lid];
    t[2 * lid + 1] = in[base + 2 * lid + 1];
    uint offset = 1;
    for (uint d = size; d > 0; d >>= 1) {
        BARRIER();
        if (lid < d) {
            uint ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - 1;
            t[bi] += t[ai];
        }
        offset <<= 1;
    }
    if (lid == 0)
        t[2 * size - 1] = 0;
    for (uint d = 1; d < 2 * size; d <<= 1) {
        offset >>= 1;
        BARRIER();
        if (lid < d) {
            uint ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - 1;
            uint x = t[ai];
            t[ai] = t[bi];
            t[bi] += x;
        }
    }
    BARRIER();
    out[base + 2 * lid] = t[2 * lid];
    out[base + 2 * lid + 1] = t[2 * lid + 1];
}
