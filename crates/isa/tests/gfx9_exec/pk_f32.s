// Packed f32 on register pairs (one dword pair per lane and test,
// out[t * 128 + 2 * lane + half]). Kernarg: out@0, in@8 (a, b, c pairs,
// 64 lanes each). s[0:1] kernarg ptr, v0 work-item id x; one wave64.
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 3, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx2 v[2:3], v1, s[6:7]
  global_load_dwordx2 v[4:5], v1, s[6:7] offset:512
  global_load_dwordx2 v[6:7], v1, s[6:7] offset:1024
  s_waitcnt vmcnt(0)
  // t0: the plain forms (op_sel_hi defaults to the high dwords).
  v_pk_fma_f32 v[8:9], v[2:3], v[4:5], v[6:7]
  global_store_dwordx2 v1, v[8:9], s[4:5]
  // t1: swapped selects and a negated low a.
  v_pk_mul_f32 v[8:9], v[2:3], v[4:5] op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0]
  global_store_dwordx2 v1, v[8:9], s[4:5] offset:512
  // t2: a negated high b, clamped.
  v_pk_add_f32 v[8:9], v[2:3], v[4:5] neg_hi:[0,1] clamp
  global_store_dwordx2 v1, v[8:9], s[4:5] offset:1024
  // t3: c from an SGPR pair (its high dword for both halves), the
  // result over a source.
  s_mov_b32 s8, 0.5
  s_mov_b32 s9, 4.0
  v_pk_fma_f32 v[2:3], v[2:3], v[4:5], s[8:9] op_sel:[0,0,1] neg_hi:[1,0,1]
  global_store_dwordx2 v1, v[2:3], s[4:5] offset:1536
  s_endpgm
