// v_movrels / v_movreld / v_movrelsd / v_movrelsd_2 (VGPR index + M0).
// out[k*32 + lane] for v6..v9.
  s_load_b64 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  v_add_nc_u32 v2, 10, v0
  v_add_nc_u32 v3, 20, v0
  v_add_nc_u32 v4, 30, v0
  v_add_nc_u32 v5, 40, v0
  v_mov_b32 v6, 0
  v_mov_b32 v7, 0
  v_mov_b32 v8, 0
  v_mov_b32 v9, 0
  s_mov_b32 m0, 2
  v_movrels_b32 v6, v2
  v_movreld_b32 v5, v3
  s_mov_b32 m0, 1
  v_movrelsd_b32 v7, v3
  s_mov_b32 m0, 0x20002
  v_movrelsd_2_b32 v7, v3
  s_waitcnt lgkmcnt(0)
  global_store_b32 v10, v6, s[4:5]
  global_store_b32 v10, v7, s[4:5] offset:128
  global_store_b32 v10, v8, s[4:5] offset:256
  global_store_b32 v10, v9, s[4:5] offset:384
  s_endpgm
