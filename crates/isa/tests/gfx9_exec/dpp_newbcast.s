// row_newbcast (gfx90a, gfx942): each lane reads lane n of its row; one u32
// per lane and test (out[t * 64 + lane]). Kernarg: out@0. s[0:1] kernarg
// ptr, v0 work-item id x; one wave64 workgroup.
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  // t0: lane 5 of each row to the whole row.
  v_add_u32 v2, 1000, v0
  v_mov_b32_dpp v2, v2 row_newbcast:5 row_mask:0xf bank_mask:0xf
  global_store_dword v1, v2, s[4:5]
  // t1: lane 15 of rows 0 and 2 plus the lane id; rows 1 and 3 keep theirs.
  v_add_u32 v3, 2000, v0
  v_add_u32_dpp v3, v3, v0 row_newbcast:15 row_mask:0x5 bank_mask:0xf
  global_store_dword v1, v3, s[4:5] offset:256
  // t2, t3: lane 3 of every row inactive: without bound_ctrl the lanes
  // reading it are not written; with it they read 0.
  v_add_u32 v4, 3000, v0
  v_add_u32 v5, 4000, v0
  s_mov_b32 exec_lo, 0xfff7fff7
  s_mov_b32 exec_hi, 0xfff7fff7
  v_mov_b32_dpp v4, v4 row_newbcast:3 row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v5, v5 row_newbcast:3 row_mask:0xf bank_mask:0xf bound_ctrl:1
  s_mov_b64 exec, -1
  global_store_dword v1, v4, s[4:5] offset:512
  global_store_dword v1, v5, s[4:5] offset:768
  s_endpgm
