// A loop on itself that touches memory (so the wave loop does not run it
// for two waves at once and it joins the region the block before it
// heads), with EXEC narrowed pass by pass: lane L of wave W runs
// (L & 7) + W + 1 passes, each adding the loaded value to its LDS dword
// and mixing in the pass count; the loop leaves when no lane has passes
// left. s[0:1] kernarg ptr (buffer a at +0, buffer b at +8), s2 workgroup
// id x, v0 local id (workgroups of 256, 1 KiB of LDS); b[i] = lane i's
// LDS dword after the loop plus the passes its wave ran.
  s_load_b128 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_lshl_b32 s8, s2, 10
  v_add_nc_u32 v1, s8, v1
  s_waitcnt lgkmcnt(0)
  global_load_b32 v2, v1, s[4:5]
  v_and_b32 v6, 7, v0
  v_lshrrev_b32 v7, 5, v0
  v_add_nc_u32 v6, v6, v7
  v_add_nc_u32 v6, 1, v6
  v_mov_b32 v5, 0
  v_lshlrev_b32 v12, 2, v0
  v_mov_b32 v13, 0
  ds_store_b32 v12, v13
  s_mov_b32 s9, 0
  s_waitcnt vmcnt(0) lgkmcnt(0)
loop:
  ds_load_b32 v3, v12
  s_waitcnt lgkmcnt(0)
  v_add_nc_u32 v3, v3, v2
  v_xor_b32 v3, v3, v5
  ds_store_b32 v12, v3
  v_add_nc_u32 v5, 1, v5
  s_add_i32 s9, s9, 1
  v_cmp_lt_u32 vcc_lo, v5, v6
  s_and_b32 exec_lo, exec_lo, vcc_lo
  s_cbranch_execnz loop
  s_mov_b32 exec_lo, -1
  ds_load_b32 v3, v12
  s_waitcnt lgkmcnt(0)
  v_add_nc_u32 v3, s9, v3
  global_store_b32 v1, v3, s[6:7]
  s_endpgm
