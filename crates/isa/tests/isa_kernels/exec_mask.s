// EXEC masking, v_cmpx, VCC carry chains, VOPD, scratch and flat apertures.
// out[k*32 + lane].
  s_load_b64 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  v_mov_b32 v1, 0
  s_mov_b32 s6, exec_lo
  v_cmpx_gt_u32 16, v0
  v_mov_b32 v1, 1
  s_mov_b32 exec_lo, s6
  v_cmp_lt_u32 vcc_lo, 20, v0
  v_cndmask_b32 v2, 5, 7, vcc_lo
  // 64-bit add chain: (lane<<28 | 0xf0000000 low) + 0x20000000
  v_lshlrev_b32 v3, 28, v0
  v_mov_b32 v4, v0
  v_add_co_u32 v3, vcc_lo, v3, 0x20000000
  v_add_co_ci_u32_e32 v4, vcc_lo, 0, v4, vcc_lo
  // VOPD: both halves read before writing (swap-like)
  v_mov_b32 v5, 3
  v_mov_b32 v6, v0
  v_dual_add_f32 v5, v6, v6 :: v_dual_mov_b32 v6, v5
  // scratch: per-lane store at lane-dependent offset, load back
  v_mul_u32_u24 v7, 4, v0
  v_add_nc_u32 v8, 100, v0
  scratch_store_b32 v7, v8, off offset:16
  v_mov_b32 v8, 0
  scratch_load_b32 v9, v7, off offset:16
  // flat store through the private aperture to the same slot, load through scratch
  v_add_nc_u32 v11, 16, v7
  v_mov_b32 v12, src_private_base
  v_add_nc_u32 v13, 1000, v0
  flat_store_b32 v[11:12], v13
  s_waitcnt vmcnt(0)
  scratch_load_b32 v14, v7, off offset:16
  s_waitcnt vmcnt(0)
  global_store_b32 v10, v1, s[4:5]
  global_store_b32 v10, v2, s[4:5] offset:128
  global_store_b32 v10, v3, s[4:5] offset:256
  global_store_b32 v10, v4, s[4:5] offset:384
  global_store_b32 v10, v5, s[4:5] offset:512
  global_store_b32 v10, v6, s[4:5] offset:640
  global_store_b32 v10, v9, s[4:5] offset:768
  global_store_b32 v10, v14, s[4:5] offset:896
  s_endpgm
