// GFX9's 16-bit VALU results zero the destination's high half, which is
// 0xdead0000 before each op; one u32 per lane and test (out[t * 64 + lane]).
// Kernarg: out@0. s[0:1] kernarg ptr, v0 work-item id x; one wave64 workgroup.
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_mul_u32_u24 v2, 0x01030507, v0
  v_add_u32 v3, 0x9000, v0
  v_cvt_f32_u32 v7, v0
  s_mov_b32 s6, 0xdead0000
  s_waitcnt lgkmcnt(0)
  // t0: v_sub_u16_e32 (the form clang-19 -O3 emits in hip_stencil_lds).
  v_mov_b32 v4, s6
  v_sub_u16 v4, v2, v3
  global_store_dword v1, v4, s[4:5]
  // t1: v_add_u16_e64.
  v_mov_b32 v4, s6
  v_add_u16_e64 v4, v2, v3
  global_store_dword v1, v4, s[4:5] offset:256
  // t2: v_mul_lo_u16.
  v_mov_b32 v4, s6
  v_mul_lo_u16 v4, v2, v3
  global_store_dword v1, v4, s[4:5] offset:512
  // t3: v_lshlrev_b16.
  v_mov_b32 v4, s6
  v_lshlrev_b16 v4, 3, v2
  global_store_dword v1, v4, s[4:5] offset:768
  // t4: v_max_i16.
  v_mov_b32 v4, s6
  v_max_i16 v4, v2, v3
  global_store_dword v1, v4, s[4:5] offset:1024
  // t5: v_cvt_f16_u16 of the lane into v5 (high half 0xdead first).
  v_mov_b32 v5, s6
  v_cvt_f16_u16 v5, v0
  global_store_dword v1, v5, s[4:5] offset:1280
  // t6: v_add_f16 of that with itself (a pre-resolved f16 form on gfx11).
  v_mov_b32 v4, s6
  v_add_f16 v4, v5, v5
  global_store_dword v1, v4, s[4:5] offset:1536
  // t7: v_cvt_f16_f32 of the lane.
  v_mov_b32 v4, s6
  v_cvt_f16_f32 v4, v7
  global_store_dword v1, v4, s[4:5] offset:1792
  s_endpgm
