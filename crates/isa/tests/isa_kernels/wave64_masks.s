// wave64 (generate.sh assembles *wave64*.s with +wavefrontsize64): 64-bit VCC
// and EXEC in compares, v_cndmask, carries, saveexec/cmpx, mbcnt, readlane /
// writelane / readfirstlane / permlane64 across the halves, vccz/execz on
// the whole mask, per-lane scratch.
// out[k*64 + lane], k = 0..18.
  s_load_b64 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  v_cmp_le_u32 vcc, 40, v0
  s_mov_b64 s[6:7], vcc
  v_cndmask_b32_e64 v1, 1, 2, vcc
  v_and_b32 v2, 1, v0
  v_cmp_eq_u32_e64 s[8:9], 1, v2
  v_cndmask_b32_e64 v2, 5, 6, s[8:9]
  // 64-bit carry chain: 0xffffffff + lane carries out for lanes >= 1
  v_mov_b32 v3, -1
  v_mov_b32 v4, -1
  v_add_co_u32 v3, vcc, v3, v0
  v_add_co_ci_u32_e32 v4, vcc, 0, v4, vcc
  s_mov_b64 s[10:11], vcc
  // saveexec (lanes < 48), then cmpx narrows to lanes 36..47
  v_mov_b32 v5, 0
  v_mov_b32 v6, 0
  v_mul_u32_u24 v8, 3, v0
  v_cmp_gt_u32 s[12:13], 48, v0
  s_and_saveexec_b64 s[14:15], s[12:13]
  v_mov_b32 v5, 7
  v_cmpx_le_u32 36, v0
  v_mov_b32 v6, 9
  s_mov_b64 s[16:17], exec
  v_readfirstlane_b32 s19, v8
  s_mov_b64 exec, s[14:15]
  // mbcnt over the odd-lane mask
  v_mbcnt_lo_u32_b32 v7, s8, 0
  v_mbcnt_hi_u32_b32 v7, s9, v7
  // readlane 50 / writelane 45 across the halves
  v_readlane_b32 s18, v8, 50
  v_mov_b32 v9, 0
  v_writelane_b32 v9, s18, 45
  v_writelane_b32 v9, s19, 3
  // vccz tests all 64 bits: vcc = 1 << 40 is not zero
  s_mov_b32 vcc_lo, 0
  s_mov_b32 vcc_hi, 0x100
  v_mov_b32 v11, 0
  s_cbranch_vccz 1
  v_mov_b32 v11, 1
  // execz tests all 64 bits: exec = lanes 32..63 only
  s_mov_b32 exec_lo, 0
  s_cbranch_execz 1
  v_mov_b32 v11, 2
  s_mov_b64 exec, -1
  // a compare whose scalar source is the low word of its own destination
  s_mov_b32 s20, 40
  v_cmp_gt_u32_e64 s[20:21], v0, s20
  v_mov_b32 v18, s20
  v_mov_b32 v19, s21
  v_permlane64_b32 v20, v8
  // private memory: each of the 64 lanes has its own slot
  v_add_nc_u32 v21, 500, v0
  scratch_store_b32 off, v21, off offset:8
  v_mov_b32 v21, 0
  s_waitcnt vmcnt(0)
  scratch_load_b32 v21, off, off offset:8
  s_waitcnt vmcnt(0)
  v_mov_b32 v12, s6
  v_mov_b32 v13, s7
  v_mov_b32 v14, s10
  v_mov_b32 v15, s11
  v_mov_b32 v16, s16
  v_mov_b32 v17, s17
  global_store_b32 v10, v1, s[4:5]
  global_store_b32 v10, v2, s[4:5] offset:256
  global_store_b32 v10, v3, s[4:5] offset:512
  global_store_b32 v10, v4, s[4:5] offset:768
  global_store_b32 v10, v5, s[4:5] offset:1024
  global_store_b32 v10, v6, s[4:5] offset:1280
  global_store_b32 v10, v7, s[4:5] offset:1536
  global_store_b32 v10, v9, s[4:5] offset:1792
  global_store_b32 v10, v11, s[4:5] offset:2048
  global_store_b32 v10, v12, s[4:5] offset:2304
  global_store_b32 v10, v13, s[4:5] offset:2560
  global_store_b32 v10, v14, s[4:5] offset:2816
  global_store_b32 v10, v15, s[4:5] offset:3072
  global_store_b32 v10, v16, s[4:5] offset:3328
  global_store_b32 v10, v17, s[4:5] offset:3584
  global_store_b32 v10, v18, s[4:5] offset:3840
  s_add_u32 s4, s4, 4096
  s_addc_u32 s5, s5, 0
  global_store_b32 v10, v19, s[4:5]
  global_store_b32 v10, v20, s[4:5] offset:256
  global_store_b32 v10, v21, s[4:5] offset:512
  s_endpgm
