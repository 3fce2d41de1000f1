// write_timestamp: work-item 0 stores the GPU's 100 MHz realtime counter at
// queries[index] (profiling tests compare it with the CP's start_ts/end_ts).
// gfx11 reads it with s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME (0x83); gfx9
// has s_memrealtime (the same 100 MHz "REFCLK" counter).
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void write_timestamp(global ulong* queries, uint index)
{
    if (GID_X() != 0)
        return;
#if defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || defined(__gfx1103__)
    ulong ticks = __builtin_amdgcn_s_sendmsg_rtnl(0x83);
#else
    ulong ticks = __builtin_amdgcn_s_memrealtime();
#endif
    queries[index] = ticks;
}
