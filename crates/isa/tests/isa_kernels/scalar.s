// Scalar ALU, SCC, carry chains, branches. out[k] (u32) = result k.
// s[0:1] kernarg ptr (out at +0), s2 workgroup id x, v0 local id.
  s_load_b64 s[4:5], s[0:1], 0x0
  v_mov_b32 v10, 0
  // 64-bit add with carry: 0xffffffff_00000001 + 0x00000001_ffffffff
  s_mov_b32 s6, 1
  s_mov_b32 s7, -1
  s_mov_b32 s8, -1
  s_mov_b32 s9, 1
  s_add_u32 s10, s6, s8
  s_addc_u32 s11, s7, s9
  s_cselect_b32 s12, 1, 0
  // loop: sum 1..10
  s_mov_b32 s13, 0
  s_mov_b32 s14, 1
loop:
  s_add_i32 s13, s13, s14
  s_add_i32 s14, s14, 1
  s_cmp_le_i32 s14, 10
  s_cbranch_scc1 loop
  s_lshl_b64 s[16:17], s[6:7], 4
  s_mov_b32 s18, 0xabcd1234
  s_bfe_u32 s18, s18, 0x80008
  s_mov_b32 s19, 0xf000
  s_bfe_i32 s19, s19, 0x4000c
  s_ctz_i32_b32 s20, 0x100
  s_clz_i32_u32 s21, 0x100
  s_bcnt1_i32_b32 s22, 0xf0f0
  s_mul_i32 s23, -7, 6
  s_mul_hi_u32 s24, 0x80000000, 6
  s_sub_u32 s25, 1, 2
  s_subb_u32 s26, 5, 1
  s_ashr_i32 s27, 0x80000000, 4
  s_movk_i32 s28, 0xfff0
  s_addk_i32 s28, 0x20
  s_min_i32 s29, -5, 3
  s_max_u32 s30, -5, 3
  s_sext_i32_i8 s31, 0x80
  s_cmp_eq_u64 s[6:7], s[6:7]
  s_cselect_b32 s32, 7, 8
  s_and_not1_b32 s33, 0xff, 0x0f
  s_xnor_b32 s34, 0, 0
  s_bitset1_b32 s35, 3
  s_mov_b32 s35, 0
  s_bitset1_b32 s35, 3
  s_getpc_b64 s[36:37]
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v1, s10
  global_store_b32 v10, v1, s[4:5]
  v_mov_b32 v1, s11
  global_store_b32 v10, v1, s[4:5] offset:4
  v_mov_b32 v1, s12
  global_store_b32 v10, v1, s[4:5] offset:8
  v_mov_b32 v1, s13
  global_store_b32 v10, v1, s[4:5] offset:12
  v_mov_b32 v1, s16
  global_store_b32 v10, v1, s[4:5] offset:16
  v_mov_b32 v1, s17
  global_store_b32 v10, v1, s[4:5] offset:20
  v_mov_b32 v1, s18
  global_store_b32 v10, v1, s[4:5] offset:24
  v_mov_b32 v1, s19
  global_store_b32 v10, v1, s[4:5] offset:28
  v_mov_b32 v1, s20
  global_store_b32 v10, v1, s[4:5] offset:32
  v_mov_b32 v1, s21
  global_store_b32 v10, v1, s[4:5] offset:36
  v_mov_b32 v1, s22
  global_store_b32 v10, v1, s[4:5] offset:40
  v_mov_b32 v1, s23
  global_store_b32 v10, v1, s[4:5] offset:44
  v_mov_b32 v1, s24
  global_store_b32 v10, v1, s[4:5] offset:48
  v_mov_b32 v1, s25
  global_store_b32 v10, v1, s[4:5] offset:52
  v_mov_b32 v1, s26
  global_store_b32 v10, v1, s[4:5] offset:56
  v_mov_b32 v1, s27
  global_store_b32 v10, v1, s[4:5] offset:60
  v_mov_b32 v1, s28
  global_store_b32 v10, v1, s[4:5] offset:64
  v_mov_b32 v1, s29
  global_store_b32 v10, v1, s[4:5] offset:68
  v_mov_b32 v1, s30
  global_store_b32 v10, v1, s[4:5] offset:72
  v_mov_b32 v1, s31
  global_store_b32 v10, v1, s[4:5] offset:76
  v_mov_b32 v1, s32
  global_store_b32 v10, v1, s[4:5] offset:80
  v_mov_b32 v1, s33
  global_store_b32 v10, v1, s[4:5] offset:84
  v_mov_b32 v1, s34
  global_store_b32 v10, v1, s[4:5] offset:88
  v_mov_b32 v1, s35
  global_store_b32 v10, v1, s[4:5] offset:92
  v_mov_b32 v1, s36
  global_store_b32 v10, v1, s[4:5] offset:96
  s_endpgm
