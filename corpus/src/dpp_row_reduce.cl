// dpp_row_reduce (wave32): scan[i] = inclusive u32 prefix sum over the 32 lanes of i's wave,
// by DPP row_shr:1,2,4,8 steps within each 16-lane row plus lane 15's total added to row 1
// (readlane); total[w] = the wave's sum by a butterfly of DPP row_xmask:1,2,4,8 and a
// permlanex16 swap of the two rows, stored by every lane of the wave (the same value): with a
// lane-0-only store, clang-19 -O3 sinks the permlanex16 into the lane-0 branch, where it would
// read a lane that never computed its operand. The grid is whole waves.
#include "corpus_cl.h"

#define ROW_SHR(n) (0x110 + (n))
#define ROW_XMASK(n) (0x160 + (n))

kernel void dpp_row_reduce(global const uint* x, global uint* scan, global uint* total)
{
    uint i = GID_X();
    uint lane = LID_X() & 31u;
    int v = (int)x[i];
    int s = v;
    s += __builtin_amdgcn_update_dpp(0, s, ROW_SHR(1), 0xf, 0xf, true);
    s += __builtin_amdgcn_update_dpp(0, s, ROW_SHR(2), 0xf, 0xf, true);
    s += __builtin_amdgcn_update_dpp(0, s, ROW_SHR(4), 0xf, 0xf, true);
    s += __builtin_amdgcn_update_dpp(0, s, ROW_SHR(8), 0xf, 0xf, true);
    int row0 = __builtin_amdgcn_readlane(s, 15);
    if (lane >= 16u)
        s += row0;
    scan[i] = (uint)s;
    int t = v;
    t += __builtin_amdgcn_update_dpp(0, t, ROW_XMASK(1), 0xf, 0xf, false);
    t += __builtin_amdgcn_update_dpp(0, t, ROW_XMASK(2), 0xf, 0xf, false);
    t += __builtin_amdgcn_update_dpp(0, t, ROW_XMASK(4), 0xf, 0xf, false);
    t += __builtin_amdgcn_update_dpp(0, t, ROW_XMASK(8), 0xf, 0xf, false);
    t += (int)__builtin_amdgcn_permlanex16((uint)t, (uint)t, 0x76543210u, 0xfedcba98u, false, false);
    total[i >> 5] = (uint)t;
}
