// Two blocks that only compute on NaNs of several payloads, each run for
// two waves at once. In each, f32 ops take two or three NaN sources
// (which of them the host returns depends on the instruction form LLVM
// picks; gfxsim's rule takes the first).
// - body1, from a and b: results held in registers when EXEC is written
//   (to all ones still) at its end.
// - body2: from d, results read as bits by integer ops, then overwritten
//   (v10, v11); from e, results left in registers at its end (v12, v13).
// s[0:1] kernarg ptr (buffer in: a, b, d, e per lane; buffer out: 32
// bytes per lane), s2 workgroup id x, v0 local id (workgroups of 256).
  s_load_b128 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 4, v0
  s_lshl_b32 s10, s2, 12
  v_add_nc_u32 v1, s10, v1
  s_waitcnt lgkmcnt(0)
  global_load_b128 v[2:5], v1, s[4:5]
  v_lshlrev_b32 v14, 1, v1
  s_mov_b32 s11, -1
  s_waitcnt vmcnt(0)
  s_branch body1
body1:
  v_fma_f32 v6, v2, v3, v2
  v_fma_f32 v7, v3, v2, v3
  v_add_f32 v8, v3, v2
  v_mul_f32 v9, v2, v3
  v_cmp_class_f32 vcc_lo, v6, 3
  v_cndmask_b32 v13, v7, v2, vcc_lo
  v_max_f32 v9, v9, v3
  v_fma_f32 v8, v8, v3, v2
  v_mul_f32 v6, v3, v6
  v_add_f32 v7, v2, v7
  v_fma_f32 v13, v3, v13, v2
  v_sub_f32 v9, v3, v9
  v_mul_f32 v13, v13, v2
  v_add_f32 v6, v6, v3
  v_fma_f32 v7, v7, v7, v3
  s_and_b32 exec_lo, exec_lo, s11
  s_branch body2
body2:
  v_fma_f32 v10, v4, v4, v4
  v_add_f32 v11, v4, v4
  v_lshrrev_b32 v10, 9, v10
  v_xor_b32 v11, v11, v10
  v_fma_f32 v12, v5, v5, v5
  v_mul_f32 v15, v5, v5
  v_add_f32 v12, v12, v5
  v_fma_f32 v15, v15, v5, v5
  v_sub_f32 v12, v12, v15
  v_mul_f32 v15, v15, v12
  v_add_f32 v12, v12, v5
  v_fma_f32 v15, v12, v15, v5
  v_max_f32 v12, v12, v15
  v_mul_f32 v15, v15, v5
  v_add_f32 v13, v15, v12
  v_sub_f32 v12, v5, v15
  s_branch store
store:
  global_store_b128 v14, v[6:9], s[6:7]
  global_store_b128 v14, v[10:13], s[6:7] offset:16
  s_endpgm
