// Packing conversions of two 32-bit sources into 16-bit halves (S0 low, S1
// high). in[lane] (s[6:7]) is read both as f32 and as i32/u32, S1 is in[lane]
// with its sign bit flipped; out (s[4:5]) gets one 32-lane block per op.
  s_load_b128 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_b32 v1, v10, s[6:7]
  s_waitcnt vmcnt(0)
  v_xor_b32 v2, 0x80000000, v1
  v_cvt_pk_norm_i16_f32 v3, v1, v2
  v_cvt_pk_norm_u16_f32 v4, v1, v2
  v_cvt_pk_i16_f32 v5, v1, v2
  v_cvt_pk_u16_f32 v6, v1, v2
  v_cvt_pk_i16_i32 v7, v1, v2
  v_cvt_pk_u16_u32 v8, v1, v2
  global_store_b32 v10, v3, s[4:5]
  global_store_b32 v10, v4, s[4:5] offset:128
  global_store_b32 v10, v5, s[4:5] offset:256
  global_store_b32 v10, v6, s[4:5] offset:384
  global_store_b32 v10, v7, s[4:5] offset:512
  global_store_b32 v10, v8, s[4:5] offset:640
  s_endpgm
