// lane_permute (wave32, whole waves): every cross-lane move on one value x = in[i]; per lane
// out[i*11 + ..] =
//  0 permlane16(sel_lo, sel_hi)   1 permlanex16(sel_lo, sel_hi)
//  2 ds_swizzle bit mode (and 0x1c, or 0x01, xor 0x10)   3 ds_swizzle quad mode [3,2,1,0]
//  4 ds_bpermute from lane (7*lane + 3) % 32
//  5 DPP row_shl:3, lanes without a source keep 0xdead   6 DPP row_ror:5
//  7 DPP row_mirror   8 DPP row_half_mirror   9 DPP quad_perm [2,3,0,1]   10 DPP row_xmask:3
#include "corpus_cl.h"

kernel void lane_permute(global const uint* in, global uint* out, uint sel_lo, uint sel_hi)
{
    uint i = GID_X();
    uint lane = LID_X() & 31u;
    uint x = in[i];
    int xi = (int)x;
    global uint* o = out + i * 11;
    o[0] = __builtin_amdgcn_permlane16(x, x, sel_lo, sel_hi, false, false);
    o[1] = __builtin_amdgcn_permlanex16(x, x, sel_lo, sel_hi, false, false);
    o[2] = (uint)__builtin_amdgcn_ds_swizzle(xi, 0x1c | (0x01 << 5) | (0x10 << 10));
    o[3] = (uint)__builtin_amdgcn_ds_swizzle(xi, 0x8000 | 0x1b);
    o[4] = (uint)__builtin_amdgcn_ds_bpermute((int)(((7u * lane + 3u) & 31u) * 4u), xi);
    o[5] = (uint)__builtin_amdgcn_update_dpp(0xdead, xi, 0x103, 0xf, 0xf, false);
    o[6] = (uint)__builtin_amdgcn_update_dpp(0, xi, 0x125, 0xf, 0xf, false);
    o[7] = (uint)__builtin_amdgcn_update_dpp(0, xi, 0x140, 0xf, 0xf, false);
    o[8] = (uint)__builtin_amdgcn_update_dpp(0, xi, 0x141, 0xf, 0xf, false);
    o[9] = (uint)__builtin_amdgcn_update_dpp(0, xi, 0x4e, 0xf, 0xf, false);
    o[10] = (uint)__builtin_amdgcn_update_dpp(0, xi, 0x163, 0xf, 0xf, false);
}
