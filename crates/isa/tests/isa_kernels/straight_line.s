// A block that only computes: after a branch, 40 rounds of f32 and integer
// work (280 instructions, more than one block holds), then the stores.
// s[0:1] kernarg ptr (in/out buffer a at +0, buffer b at +8), s2 workgroup
// id x, v0 local id (workgroups of 256); a[i] = the f32 chain, b[i] = the
// integer sum.
  s_load_b128 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_lshl_b32 s8, s2, 10
  v_add_nc_u32 v1, s8, v1
  s_waitcnt lgkmcnt(0)
  global_load_b32 v2, v1, s[4:5]
  v_mov_b32 v5, v0
  s_mov_b32 s9, 0
  s_waitcnt vmcnt(0)
  s_branch body
body:
  .rept 40
  v_mul_f32 v3, 0x3f400000, v2
  v_add_f32 v4, v3, v2
  v_fma_f32 v2, v4, 0.5, v3
  v_cmp_gt_f32 vcc_lo, 1.0, v2
  v_cndmask_b32 v2, v2, v4, vcc_lo
  v_add_nc_u32 v5, v5, v2
  s_add_i32 s9, s9, 1
  .endr
  v_add_nc_u32 v5, s9, v5
  global_store_b32 v1, v2, s[4:5]
  global_store_b32 v1, v5, s[6:7]
  s_endpgm
