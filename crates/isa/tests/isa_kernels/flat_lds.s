// Flat addressing of LDS through the shared aperture, and VOP3P packed math.
// out[k*32 + lane].
  s_load_b64 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  v_mov_b32 v12, src_shared_base
  v_mov_b32 v11, v10
  v_add_nc_u32 v1, 0x500, v0
  flat_store_b32 v[11:12], v1
  s_waitcnt lgkmcnt(0)
  ds_load_b32 v2, v10
  v_mov_b32 v3, 0x77
  ds_store_b32 v10, v3 offset:128
  s_waitcnt lgkmcnt(0)
  v_add_nc_u32 v11, 128, v10
  flat_load_b32 v4, v[11:12]
  flat_atomic_add_u32 v5, v[11:12], v0 glc
  s_waitcnt vmcnt(0) lgkmcnt(0)
  ds_load_b32 v6, v10 offset:128
  // packed: lanes hold (lane, lane+1) halves as f16 / u16
  v_cvt_f32_u32 v7, v0
  v_cvt_f16_f32 v7, v7
  v_add_nc_u32 v8, 1, v0
  v_cvt_f32_u32 v8, v8
  v_cvt_f16_f32 v8, v8
  v_pack_b32_f16 v9, v7, v8
  v_pk_mul_f16 v13, v9, v9
  v_pk_add_u16 v14, v9, 0x10001
  v_pk_fma_f16 v15, v9, v9, v9 op_sel:[1,0,0] op_sel_hi:[0,1,1]
  s_waitcnt lgkmcnt(0)
  global_store_b32 v10, v2, s[4:5]
  global_store_b32 v10, v4, s[4:5] offset:128
  global_store_b32 v10, v5, s[4:5] offset:256
  global_store_b32 v10, v6, s[4:5] offset:384
  global_store_b32 v10, v13, s[4:5] offset:512
  global_store_b32 v10, v14, s[4:5] offset:640
  global_store_b32 v10, v15, s[4:5] offset:768
  s_endpgm
