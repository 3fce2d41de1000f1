// AGPRs (one u32 per lane and test, out[t * 64 + lane]): the moves, and
// global and DS data and destinations in AGPRs. Kernarg: out@0. s[0:1]
// kernarg ptr, v0 work-item id x; one wave64 workgroup owning a0..a7.
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  // t0: write from a VGPR and a constant, AGPR to AGPR, read back.
  v_add_u32 v2, 100, v0
  v_accvgpr_write_b32 a3, v2
  v_accvgpr_mov_b32 a5, a3
  v_accvgpr_write_b32 a3, 7
  v_accvgpr_read_b32 v3, a5
  v_accvgpr_read_b32 v4, a3
  v_add_u32 v3, v3, v4
  global_store_dword v1, v3, s[4:5]
  // t1: a global store from an AGPR, a global load into one.
  v_mul_lo_u32 v2, v0, 3
  v_accvgpr_write_b32 a0, v2
  global_store_dword v1, a0, s[4:5] offset:256
  s_waitcnt vmcnt(0)
  global_load_dword a1, v1, s[4:5] offset:256
  s_waitcnt vmcnt(0)
  v_accvgpr_read_b32 v2, a1
  v_add_u32 v2, 1, v2
  global_store_dword v1, v2, s[4:5] offset:512
  // t2: LDS written from an AGPR pair and read back reversed into one;
  // v0 (the window's row) still holds the work-item id after it.
  v_xor_b32 v2, 0x5a, v0
  v_accvgpr_write_b32 a6, v2
  v_accvgpr_write_b32 a7, v0
  v_lshlrev_b32 v5, 3, v0
  ds_write_b64 v5, a[6:7]
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_sub_u32 v3, 504, v5
  ds_read_b64 a[2:3], v3
  s_waitcnt lgkmcnt(0)
  v_accvgpr_read_b32 v2, a2
  v_accvgpr_read_b32 v4, a3
  v_lshlrev_b32 v4, 8, v4
  v_or_b32 v2, v2, v4
  v_add_u32 v2, v2, v0
  global_store_dword v1, v2, s[4:5] offset:768
  s_endpgm
