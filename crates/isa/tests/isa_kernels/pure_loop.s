// Blocks that only compute and end in a branch: a loop on itself whose
// trip count differs from wave to wave (a lane runs (lane & 15) + 7 - wave
// passes; the wave exits when none has passes left), one lane of wave 3 of
// each workgroup overflowing to an infinity and then a NaN after a few
// passes, and then a block that branches forward on the passes taken.
// Between the two, each wave stores its index to LDS dword 0, and after
// the second it reads it back: which wave stored last shows the order in
// which the waves ran (the same in every engine).
// s[0:1] kernarg ptr (in/out buffer a at +0, buffer b at +8), s2 workgroup
// id x, v0 local id (workgroups of 256; 4 bytes of LDS); a[i] = the f32
// chain plus the NaN probe, b[i] = the integer sum.
  s_load_b128 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_lshl_b32 s8, s2, 10
  v_add_nc_u32 v1, s8, v1
  s_waitcnt lgkmcnt(0)
  global_load_b32 v2, v1, s[4:5]
  v_and_b32 v6, 15, v0
  v_lshrrev_b32 v7, 5, v0
  v_sub_nc_u32 v11, 7, v7
  v_add_nc_u32 v6, v6, v11
  v_mov_b32 v5, 0
  v_mov_b32 v8, 1.0
  v_cmp_eq_u32 vcc_lo, 0x65, v0
  v_mov_b32 v10, 0x49800000
  v_cndmask_b32 v10, 1.0, v10, vcc_lo
  v_mov_b32 v9, 0
  s_mov_b32 s9, 0
  s_waitcnt vmcnt(0)
  s_branch loop
loop:
  .rept 4
  v_mul_f32 v3, 0x3f400000, v2
  v_add_f32 v4, v3, v2
  v_fma_f32 v2, v4, 0.5, v3
  v_cmp_gt_f32 vcc_lo, 1.0, v2
  v_cndmask_b32 v2, v2, v4, vcc_lo
  .endr
  v_mul_f32 v8, v8, v10
  v_sub_f32 v9, v8, v8
  v_add_nc_u32 v5, 1, v5
  s_add_i32 s9, s9, 1
  v_cmp_lt_u32 vcc_lo, v5, v6
  s_cbranch_vccnz loop
  v_mov_b32 v12, 0
  ds_store_b32 v12, v7
  s_branch after
after:
  .rept 6
  v_mul_f32 v3, 0x3f400000, v2
  v_add_f32 v4, v3, v2
  v_fma_f32 v2, v4, 0.5, v3
  v_add_nc_u32 v5, v5, v7
  .endr
  s_cmp_gt_u32 s9, 19
  s_cbranch_scc1 skip
  v_add_nc_u32 v5, 0x64, v5
skip:
  ds_load_b32 v13, v12
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v13, 16, v13
  v_add_nc_u32 v5, v5, v13
  v_add_f32 v2, v2, v9
  v_add_nc_u32 v5, s9, v5
  global_store_b32 v1, v2, s[4:5]
  global_store_b32 v1, v5, s[6:7]
  s_endpgm
