// VALU per lane: x = in_f[lane] (f32), i = in_i[lane] (u32), d = in_d[lane] (f64).
// out[k*32 + lane] = result k. kernarg: out +0, in_f +8, in_i +16, in_d +24.
  s_load_b256 s[4:11], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  v_lshlrev_b32 v11, 3, v0
  s_waitcnt lgkmcnt(0)
  global_load_b32 v1, v10, s[6:7]
  global_load_b32 v2, v10, s[8:9]
  global_load_b64 v[3:4], v11, s[10:11]
  s_waitcnt vmcnt(0)
  v_add_f32 v20, v1, 0x3fc00000
  global_store_b32 v10, v20, s[4:5] offset:0
  v_fma_f32 v20, -v1, |v1|, 2.0
  global_store_b32 v10, v20, s[4:5] offset:128
  v_sqrt_f32 v20, |v1|
  global_store_b32 v10, v20, s[4:5] offset:256
  v_rcp_f32 v20, v1
  global_store_b32 v10, v20, s[4:5] offset:384
  v_exp_f32 v20, v1
  global_store_b32 v10, v20, s[4:5] offset:512
  v_log_f32 v20, |v1|
  global_store_b32 v10, v20, s[4:5] offset:640
  v_sin_f32 v20, v1
  global_store_b32 v10, v20, s[4:5] offset:768
  v_cos_f32 v20, v1
  global_store_b32 v10, v20, s[4:5] offset:896
  v_cvt_i32_f32 v20, v1
  global_store_b32 v10, v20, s[4:5] offset:1024
  v_cvt_f32_i32 v20, v2
  global_store_b32 v10, v20, s[4:5] offset:1152
  v_mul_hi_u32 v20, v2, 0x9e3779b9
  global_store_b32 v10, v20, s[4:5] offset:1280
  v_mad_u64_u32 v[20:21], null, v2, v2, v[3:4]
  global_store_b32 v10, v20, s[4:5] offset:1408
  global_store_b32 v10, v21, s[4:5] offset:1536
  v_bfe_u32 v20, v2, 5, 7
  global_store_b32 v10, v20, s[4:5] offset:1664
  v_mov_b32 v21, 0x11223344
  v_perm_b32 v20, v2, v21, 0x07030501
  global_store_b32 v10, v20, s[4:5] offset:1792
  v_alignbit_b32 v20, v2, 0xdeadbeef, 12
  global_store_b32 v10, v20, s[4:5] offset:1920
  v_add_f64 v[20:21], v[3:4], 0.5
  v_mul_f64 v[20:21], v[20:21], v[3:4]
  v_fma_f64 v[20:21], v[20:21], -2.0, v[3:4]
  global_store_b32 v10, v20, s[4:5] offset:2048
  global_store_b32 v10, v21, s[4:5] offset:2176
  v_cvt_f64_i32 v[20:21], v2
  v_cvt_f32_f64 v22, v[20:21]
  global_store_b32 v10, v22, s[4:5] offset:2304
  v_ldexp_f32 v20, v1, 3
  global_store_b32 v10, v20, s[4:5] offset:2432
  v_frexp_mant_f32 v20, v1
  global_store_b32 v10, v20, s[4:5] offset:2560
  v_frexp_exp_i32_f32 v20, v1
  global_store_b32 v10, v20, s[4:5] offset:2688
  v_mbcnt_lo_u32_b32 v20, -1, 0
  global_store_b32 v10, v20, s[4:5] offset:2816
  v_cvt_f16_f32 v20, v1
  v_cvt_f32_f16 v20, v20
  global_store_b32 v10, v20, s[4:5] offset:2944
  v_readlane_b32 s12, v2, 5
  v_mov_b32 v20, s12
  global_store_b32 v10, v20, s[4:5] offset:3072
  v_add_f32_e64 v20, v1, v1 clamp mul:2
  global_store_b32 v10, v20, s[4:5] offset:3200
  v_xad_u32 v20, v2, 0xff, v0
  global_store_b32 v10, v20, s[4:5] offset:3328
  v_mad_u64_u32 v[20:21], s13, v2, v2, v[3:4]
  v_cndmask_b32_e64 v20, 0, 1, s13
  global_store_b32 v10, v20, s[4:5] offset:3456
  s_endpgm
