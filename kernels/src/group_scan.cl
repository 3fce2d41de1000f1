// group_scan: in place, data[g*S + l] becomes the inclusive prefix sum (u32, wrapping) of
// workgroup g's slice data[g*S .. g*S + l] for workgroup size S (1D); elements >= n count as
// 0 and are left alone. The scan ping-pongs between two __local arrays of S uints each that
// the host sizes at launch (clSetKernelArg(kernel, 1, S * 4, NULL); aqueduct-run:
// --arg ping=local:BYTES --arg pong=local:BYTES): log2(S) rounds, one barrier each.
#include "aqueduct_kernel.h"

ANY_WG_SIZE
kernel void group_scan(global uint* data, local uint* ping, local uint* pong, uint n)
{
    uint lid = LID_X();
    uint size = WGSIZE_X();
    uint gid = WG_X() * size + lid;
    ping[lid] = gid < n ? data[gid] : 0u;
    WG_BARRIER();
    local uint* src = ping;
    local uint* dst = pong;
    for (uint offset = 1; offset < size; offset <<= 1) {
        dst[lid] = src[lid] + (lid >= offset ? src[lid - offset] : 0u);
        WG_BARRIER();
        local uint* t = src;
        src = dst;
        dst = t;
    }
    if (gid < n)
        data[gid] = src[lid];
}
