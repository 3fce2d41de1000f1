// DPP16, DPP8 and permlane: out[k*32 + lane].
  s_load_b64 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  v_mov_b32 v2, 100
  v_mov_b32_dpp v2, v0 row_shr:1 row_mask:0xf bank_mask:0xf
  v_add_nc_u32_dpp v3, v0, v0 row_xmask:1 row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v4, v0 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v5, v0 dpp8:[7,6,5,4,3,2,1,0]
  v_mov_b32_dpp v6, v0 row_shl:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  s_mov_b32 s6, 0x76543210
  s_mov_b32 s7, 0xfedcba98
  v_permlanex16_b32 v7, v0, s6, s7
  v_mov_b32 v8, 7
  v_mov_b32_dpp v8, v0 row_mirror row_mask:0x2 bank_mask:0xf
  s_waitcnt lgkmcnt(0)
  global_store_b32 v10, v2, s[4:5]
  global_store_b32 v10, v3, s[4:5] offset:128
  global_store_b32 v10, v4, s[4:5] offset:256
  global_store_b32 v10, v5, s[4:5] offset:384
  global_store_b32 v10, v6, s[4:5] offset:512
  global_store_b32 v10, v7, s[4:5] offset:640
  global_store_b32 v10, v8, s[4:5] offset:768
  s_endpgm
