// gfx942's v_mov_b64_dpp under row_newbcast: all 64 bits of lane 9 of each
// row, rows 1 and 3 and banks 2 and 3 only, lane 9 of row 3 inactive, once
// without bound_ctrl and once with it. src v[2:3] per lane: low dword
// 0x12345 | lane << 20, high dword 0x40000000 | lane << 12; destinations
// start as lane | 0xAB000000 (low) and 0xCD000000 | lane (high). Kernarg:
// out@0, one u64 per lane and test at out + 512 * t. s[0:1] kernarg ptr,
// v0 work-item id x; one wave64 workgroup.
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 3, v0
  v_lshlrev_b32 v2, 20, v0
  v_or_b32 v2, 0x12345, v2
  v_lshlrev_b32 v3, 12, v0
  v_or_b32 v3, 0x40000000, v3
  v_or_b32 v4, 0xAB000000, v0
  v_or_b32 v5, 0xCD000000, v0
  v_mov_b32 v6, v4
  v_mov_b32 v7, v5
  s_waitcnt lgkmcnt(0)
  s_mov_b32 exec_hi, 0xfdffffff
  v_mov_b64_dpp v[4:5], v[2:3] row_newbcast:9 row_mask:0xa bank_mask:0xc
  v_mov_b64_dpp v[6:7], v[2:3] row_newbcast:9 row_mask:0xa bank_mask:0xc bound_ctrl:1
  s_mov_b64 exec, -1
  global_store_dwordx2 v1, v[4:5], s[4:5]
  global_store_dwordx2 v1, v[6:7], s[4:5] offset:512
  s_endpgm
