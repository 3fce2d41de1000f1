// lds_subword: byte and halfword LDS stores and loads with sign and zero extension. Item l of
// a group stores b = low byte and h = bits 8..24 of v = in[i]; after a barrier it reads its
// neighbour n = (l + 1) % size: out[2i] = sign-extended byte n, out[2i+1] = sign-extended
// half n xor (zero-extended byte n << 16) xor zero-extended half n.
#include "corpus_cl.h"

UP_TO_1024 kernel void lds_subword(global const uint* in, global uint* out)
{
    local uchar bytes[1024];
    local ushort halves[1024];
    uint lid = LID_X(), size = WGSIZE_X(), i = WG_X() * size + lid;
    uint v = in[i];
    bytes[lid] = (uchar)v;
    halves[lid] = (ushort)(v >> 8);
    BARRIER();
    uint n = (lid + 1u) % size;
    char sb = ((local char*)bytes)[n];
    short sh = ((local short*)halves)[n];
    out[2 * i] = (uint)(int)sb;
    out[2 * i + 1] = (uint)(int)sh ^ ((uint)bytes[n] << 16) ^ (uint)halves[n];
}
