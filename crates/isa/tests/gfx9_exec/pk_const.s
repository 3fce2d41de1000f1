// Packed 32-bit ops with constant sources in the forms LLVM emits (the
// constant's low dword for both halves), one dword pair per lane and test
// (out[t * 128 + 2 * lane + half]). Kernarg: out@0, in@8 (a, b pairs, 64
// lanes each). s[0:1] kernarg ptr, v0 work-item id x; one wave64.
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 3, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx2 v[2:3], v1, s[6:7]
  global_load_dwordx2 v[4:5], v1, s[6:7] offset:512
  s_waitcnt vmcnt(0)
  // t0: clang-19's fma(a, b, (float2)(0.5f, 0.5f)).
  v_pk_fma_f32 v[8:9], v[2:3], v[4:5], 0.5 op_sel_hi:[1,1,0]
  global_store_dwordx2 v1, v[8:9], s[4:5]
  // t1: clang-19's a + (float2)(-4.0f, -4.0f) as src0, negated high.
  v_pk_add_f32 v[8:9], -4.0, v[4:5] op_sel_hi:[0,1] neg_hi:[1,0]
  global_store_dwordx2 v1, v[8:9], s[4:5] offset:512
  // t2: 1/(2*pi), an integer constant as f32 bits (2: a denormal).
  v_pk_mul_f32 v[8:9], v[2:3], 0.15915494 op_sel_hi:[1,0]
  v_pk_fma_f32 v[8:9], v[8:9], 2, v[4:5] op_sel_hi:[1,0,1]
  global_store_dwordx2 v1, v[8:9], s[4:5] offset:1024
  // t3: v_pk_mov_b32 with -1 low and b's high dword high.
  v_pk_mov_b32 v[8:9], -1, v[4:5] op_sel:[0,1]
  global_store_dwordx2 v1, v[8:9], s[4:5] offset:1536
  // t4: a's high dword low, 2.0 high; then 0 selected high (zero dwords).
  v_pk_mov_b32 v[8:9], v[2:3], 2.0 op_sel:[1,0]
  global_store_dwordx2 v1, v[8:9], s[4:5] offset:2048
  v_pk_add_f32 v[8:9], v[2:3], 0 op_sel:[0,1] op_sel_hi:[1,1]
  global_store_dwordx2 v1, v[8:9], s[4:5] offset:2560
  s_endpgm
