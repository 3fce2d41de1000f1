// lds_rotate_rounds: a group's values go round its LDS ring `rounds` times:
// each round v[i] = v[(i + 1) % S] * 3 + round (wrapping), two barriers per round.
#include "corpus_cl.h"

UP_TO_1024 kernel void lds_rotate_rounds(global uint* data, uint rounds)
{
    local uint ring[1024];
    uint lid = LID_X(), size = WGSIZE_X(), gid = WG_X() * size + lid;
    ring[lid] = data[gid];
    BARRIER();
    for (uint r = 0; r < rounds; r++) {
        uint v = ring[(lid + 1) % size] * 3u + r;
        BARRIER();
        ring[lid] = v;
        BARRIER();
    }
    data[gid] = ring[lid];
}
