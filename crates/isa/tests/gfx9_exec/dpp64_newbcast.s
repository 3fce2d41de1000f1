// row_newbcast on the DP ALU ops (gfx90a, gfx942): a 64-bit src0 reads
// both dwords of lane n of its row. src v[2:3] per lane: low dword
// 0x12345 | lane << 20, high dword 0x40000000 | lane << 12. Kernarg: out@0.
// t0, t2, t3: one u32 per lane at out + 256 * t; t1: one u64 per lane at
// out + 1024. s[0:1] kernarg ptr, v0 work-item id x; one wave64 workgroup.
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_lshlrev_b32 v12, 3, v0
  v_lshlrev_b32 v2, 20, v0
  v_or_b32 v2, 0x12345, v2
  v_lshlrev_b32 v3, 12, v0
  v_or_b32 v3, 0x40000000, v3
  s_waitcnt lgkmcnt(0)
  // t0: lane 5 of each row, to f32.
  v_cvt_f32_f64_dpp v4, v[2:3] row_newbcast:5 row_mask:0xf bank_mask:0xf
  global_store_dword v1, v4, s[4:5]
  // t1: D = S0 * 2.0 + D (D = lane as f64) with S0 from lane 7 of rows 0
  // and 2, banks 0 and 1 only; every other lane keeps D.
  v_cvt_f64_u32 v[6:7], v0
  v_mov_b32 v8, 0
  v_mov_b32 v9, 0x40000000
  v_fmac_f64_dpp v[6:7], v[2:3], v[8:9] row_newbcast:7 row_mask:0x5 bank_mask:0x3
  global_store_dwordx2 v12, v[6:7], s[4:5] offset:1024
  // t2, t3: lane 3 of every row inactive: without bound_ctrl the lanes
  // reading it are not written; with it they read 0 in both dwords.
  v_add_u32 v10, 3000, v0
  v_add_u32 v11, 4000, v0
  s_mov_b32 exec_lo, 0xfff7fff7
  s_mov_b32 exec_hi, 0xfff7fff7
  v_cvt_f32_f64_dpp v10, v[2:3] row_newbcast:3 row_mask:0xf bank_mask:0xf
  v_cvt_f32_f64_dpp v11, v[2:3] row_newbcast:3 row_mask:0xf bank_mask:0xf bound_ctrl:1
  s_mov_b64 exec, -1
  global_store_dword v1, v10, s[4:5] offset:512
  global_store_dword v1, v11, s[4:5] offset:768
  s_endpgm
