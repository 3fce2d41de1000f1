// v_fmac_f16: e32 (low halves) and e64 with a negated source and op_sel
// reading and writing the high half. out[lane], out[32 + lane].
  s_load_b64 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  v_cvt_f32_u32 v1, v0
  v_cvt_f16_f32 v1, v1
  v_mov_b32 v2, 0x3555
  v_mov_b32 v5, 0x3c003800
  v_fmac_f16 v5, v1, v2
  v_mov_b32 v6, 0x3c003800
  v_fmac_f16_e64 v6, -v1, v2 op_sel:[0,0,1,1]
  s_waitcnt lgkmcnt(0)
  global_store_b32 v10, v5, s[4:5]
  global_store_b32 v10, v6, s[4:5] offset:128
  s_endpgm
