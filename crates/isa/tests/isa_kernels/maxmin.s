// Fused min/max (v_maxmin_*, v_minmax_*; f32, i32, u32, f16) with source
// modifiers, clamp and omod (f16: low halves, then high halves shifted down). gid = s2 * 32 + v0; a, b, c = in_a/in_b/in_c[gid];
// out[k * 2048 + gid] = result k. kernarg: out +0, in_a +8, in_b +16, in_c +24.
  s_load_b256 s[4:11], s[0:1], 0x0
  s_lshl_b32 s12, s2, 5
  v_add_nc_u32 v10, s12, v0
  v_lshlrev_b32 v10, 2, v10
  s_waitcnt lgkmcnt(0)
  global_load_b32 v1, v10, s[6:7]
  global_load_b32 v2, v10, s[8:9]
  global_load_b32 v3, v10, s[10:11]
  s_waitcnt vmcnt(0)
  v_maxmin_f32 v20, v1, v2, v3
  global_store_b32 v10, v20, s[4:5]
  v_add_nc_u32 v10, 0x2000, v10
  v_minmax_f32 v20, v1, v2, v3
  global_store_b32 v10, v20, s[4:5]
  v_add_nc_u32 v10, 0x2000, v10
  v_maxmin_f32 v20, -v1, |v2|, v3 clamp
  global_store_b32 v10, v20, s[4:5]
  v_add_nc_u32 v10, 0x2000, v10
  v_minmax_f32 v20, v1, v2, -v3 mul:2
  global_store_b32 v10, v20, s[4:5]
  v_add_nc_u32 v10, 0x2000, v10
  v_maxmin_i32 v20, v1, v2, v3
  global_store_b32 v10, v20, s[4:5]
  v_add_nc_u32 v10, 0x2000, v10
  v_minmax_i32 v20, v1, v2, v3
  global_store_b32 v10, v20, s[4:5]
  v_add_nc_u32 v10, 0x2000, v10
  v_maxmin_u32 v20, v1, v2, v3
  global_store_b32 v10, v20, s[4:5]
  v_add_nc_u32 v10, 0x2000, v10
  v_minmax_u32 v20, v1, v2, v3
  global_store_b32 v10, v20, s[4:5]
  v_add_nc_u32 v10, 0x2000, v10
  v_mov_b32 v20, 0
  v_maxmin_f16 v20, v1, v2, v3
  global_store_b32 v10, v20, s[4:5]
  v_add_nc_u32 v10, 0x2000, v10
  v_mov_b32 v20, 0
  v_minmax_f16 v20, v1, v2, v3
  global_store_b32 v10, v20, s[4:5]
  v_add_nc_u32 v10, 0x2000, v10
  v_lshrrev_b32 v4, 16, v1
  v_lshrrev_b32 v5, 16, v2
  v_lshrrev_b32 v6, 16, v3
  v_mov_b32 v20, 0
  v_maxmin_f16 v20, -v4, v5, |v6|
  global_store_b32 v10, v20, s[4:5]
  v_add_nc_u32 v10, 0x2000, v10
  v_mov_b32 v20, 0
  v_minmax_f16 v20, v4, -v5, v6 clamp
  global_store_b32 v10, v20, s[4:5]
  s_endpgm
