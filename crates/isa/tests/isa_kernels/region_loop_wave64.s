// region_loop.s for wave64 waves, with a barrier before the loop: lane L
// of wave W runs (L & 7) + W + 1 passes of a loop on itself that adds the
// loaded value to its LDS dword and mixes in the pass count, EXEC (both
// words) narrowing pass by pass. The block after the barrier is the loop,
// where a region's code goes on with the next wave at the barrier.
// s[0:1] kernarg ptr (buffer a at +0, buffer b at +8), s2 workgroup id x,
// v0 local id (workgroups of 256, 1 KiB of LDS); b[i] = lane i's LDS
// dword after the loop plus the passes its wave ran.
  s_load_b128 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_lshl_b32 s8, s2, 10
  v_add_nc_u32 v1, s8, v1
  s_waitcnt lgkmcnt(0)
  global_load_b32 v2, v1, s[4:5]
  v_and_b32 v6, 7, v0
  v_lshrrev_b32 v7, 6, v0
  v_add_nc_u32 v6, v6, v7
  v_add_nc_u32 v6, 1, v6
  v_mov_b32 v5, 0
  v_lshlrev_b32 v12, 2, v0
  v_mov_b32 v13, 0
  ds_store_b32 v12, v13
  s_mov_b32 s9, 0
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_barrier
loop:
  ds_load_b32 v3, v12
  s_waitcnt lgkmcnt(0)
  v_add_nc_u32 v3, v3, v2
  v_xor_b32 v3, v3, v5
  ds_store_b32 v12, v3
  v_add_nc_u32 v5, 1, v5
  s_add_i32 s9, s9, 1
  v_cmp_lt_u32 vcc, v5, v6
  s_and_b64 exec, exec, vcc
  s_cbranch_execnz loop
  s_mov_b64 exec, -1
  ds_load_b32 v3, v12
  s_waitcnt lgkmcnt(0)
  v_add_nc_u32 v3, s9, v3
  global_store_b32 v1, v3, s[6:7]
  s_endpgm
