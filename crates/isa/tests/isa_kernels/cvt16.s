// 16-bit integer <-> f16 conversions and the 16 -> 32 bit extensions.
// in[lane] (s[6:7]) holds a 16-bit pattern in its low half and 0x5a5a in
// its high half; out (s[4:5]) gets one 32-lane block per conversion; the
// seventh is a VOP3 form with clamp (result in [0, 1]); then the normalized
// conversions: norm_i16, norm_u16, pk_norm_i16 of (x, -x), pk_norm_u16 of
// (x, the high half 0x5a5a).
  s_load_b128 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_b32 v1, v10, s[6:7]
  v_mov_b32 v2, 0
  v_mov_b32 v3, 0
  v_mov_b32 v4, 0
  v_mov_b32 v5, 0
  v_mov_b32 v8, 0x12340000
  s_waitcnt vmcnt(0)
  v_cvt_f16_u16 v2, v1
  v_cvt_f16_i16 v3, v1
  v_cvt_u16_f16 v4, v1
  v_cvt_i16_f16 v5, v1
  v_cvt_i32_i16 v6, v1
  v_cvt_u32_u16 v7, v1
  v_cvt_f16_i16_e64 v8, v1 clamp
  v_mov_b32 v11, 0
  v_mov_b32 v12, 0
  v_cvt_norm_i16_f16 v11, v1
  v_cvt_norm_u16_f16 v12, v1
  v_xor_b32 v15, 0x8000, v1
  v_cvt_pk_norm_i16_f16 v13, v1, v15
  v_cvt_pk_norm_u16_f16 v14, v1, v1 op_sel:[0,1,0]
  global_store_b32 v10, v2, s[4:5]
  global_store_b32 v10, v3, s[4:5] offset:128
  global_store_b32 v10, v4, s[4:5] offset:256
  global_store_b32 v10, v5, s[4:5] offset:384
  global_store_b32 v10, v6, s[4:5] offset:512
  global_store_b32 v10, v7, s[4:5] offset:640
  global_store_b32 v10, v8, s[4:5] offset:768
  global_store_b32 v10, v11, s[4:5] offset:896
  global_store_b32 v10, v12, s[4:5] offset:1024
  global_store_b32 v10, v13, s[4:5] offset:1152
  global_store_b32 v10, v14, s[4:5] offset:1280
  s_endpgm
