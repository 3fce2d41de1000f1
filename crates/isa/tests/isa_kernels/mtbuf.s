// MTBUF typed loads/stores with format conversion, a V#'s dst_sel on
// loads, a MUBUF literal soffset, and VOP3P DPP. in = 256 bytes, out[k*32 + lane]
// (k = 0..19); stores at out+0x1000 (element per lane, 4 bytes apart),
// out+0x1100 (d16 16_16 float) and out+0x1200 (10_11_11 float).
  s_load_b128 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  v_mov_b32 v30, v0
  s_waitcnt lgkmcnt(0)
  // A: raw V# over in, 64 bytes, dst_sel x,y,z,w
  s_mov_b32 s8, s6
  s_and_b32 s9, s7, 0xffff
  s_mov_b32 s10, 64
  s_mov_b32 s11, 0x30000fac
  tbuffer_load_format_xyzw v[0:3], v10, s[8:11], 0 format:[BUF_FMT_8_8_8_8_UNORM] offen
  tbuffer_load_format_xy v[4:5], v10, s[8:11], 0 format:[BUF_FMT_16_16_SNORM] offen
  tbuffer_load_format_xyzw v[6:9], v10, s[8:11], 0 format:[BUF_FMT_10_11_11_FLOAT] offen
  tbuffer_load_format_xyzw v[11:14], v10, s[8:11], 0 format:[BUF_FMT_2_10_10_10_SINT] offen
  tbuffer_load_d16_format_xyz v[15:16], v10, s[8:11], 0 format:[BUF_FMT_8_8_8_8_SSCALED] offen
  // B: the same V# with dst_sel w, z, 1, 0
  s_mov_b32 s15, 0x30000077
  s_mov_b32 s12, s8
  s_mov_b32 s13, s9
  s_mov_b32 s14, s10
  tbuffer_load_format_xyzw v[17:20], v10, s[12:15], 0 format:[BUF_FMT_8_8_8_8_UINT] offen
  // MUBUF with a literal soffset (outside the range check): llvm-mc-19 does
  // not assemble one, so these are the words of
  // buffer_load_b32 v21, v10, s[8:11], 0x64 offen (soffset code 255).
  .long 0xe0500000, 0xff42150a, 0x00000064
  // VOP3P DPP: dot2 of (lane, 1) . (2, 3) from the lane above in the row, + 0.5
  v_cvt_f32_u32 v22, v30
  v_cvt_f16_f32 v22, v22
  v_mov_b32 v23, 0x3c00
  v_perm_b32 v22, v23, v22, 0x05040100
  v_mov_b32 v24, 0x42004000
  v_mov_b32 v25, 0.5
  v_mov_b32 v26, 7.0
  v_dot2_f32_f16_e64_dpp v26, v22, v24, v25 row_shl:1 row_mask:0xf bank_mask:0xf
  // C: stores through a V# over out+0x1000, 0x400 bytes
  s_add_u32 s16, s4, 0x1000
  s_addc_u32 s17, s5, 0
  s_and_b32 s17, s17, 0xffff
  s_mov_b32 s18, 0x400
  s_mov_b32 s19, 0x30000fac
  v_cvt_f32_u32 v31, v30
  v_mul_f32 v31, 0x3d800000, v31
  v_add_f32 v31, -1.0, v31
  v_mov_b32 v32, 2.0
  v_mov_b32 v33, -2.0
  v_mov_b32 v34, 0x7fc00000
  tbuffer_store_format_xyzw v[31:34], v10, s[16:19], 0 format:[BUF_FMT_8_8_8_8_SNORM] offen
  v_mov_b32 v35, 0xc5003c00
  tbuffer_store_d16_format_xy v35, v10, s[16:19], 0 format:[BUF_FMT_16_16_FLOAT] offen offset:256
  v_add_nc_u32 v36, 1, v30
  v_cvt_f32_u32 v36, v36
  v_mul_f32 v36, 0.5, v36
  v_mov_b32 v37, 1.5
  v_mov_b32 v38, 0x42c80000
  tbuffer_store_format_xyz v[36:38], v10, s[16:19], 0 format:[BUF_FMT_10_11_11_FLOAT] offen offset:512
  s_waitcnt vmcnt(0)
  global_store_b32 v10, v0, s[4:5]
  global_store_b32 v10, v1, s[4:5] offset:128
  global_store_b32 v10, v2, s[4:5] offset:256
  global_store_b32 v10, v3, s[4:5] offset:384
  global_store_b32 v10, v4, s[4:5] offset:512
  global_store_b32 v10, v5, s[4:5] offset:640
  global_store_b32 v10, v6, s[4:5] offset:768
  global_store_b32 v10, v7, s[4:5] offset:896
  global_store_b32 v10, v8, s[4:5] offset:1024
  global_store_b32 v10, v9, s[4:5] offset:1152
  global_store_b32 v10, v11, s[4:5] offset:1280
  global_store_b32 v10, v14, s[4:5] offset:1408
  global_store_b32 v10, v15, s[4:5] offset:1536
  global_store_b32 v10, v16, s[4:5] offset:1664
  global_store_b32 v10, v17, s[4:5] offset:1792
  global_store_b32 v10, v18, s[4:5] offset:1920
  global_store_b32 v10, v19, s[4:5] offset:2048
  global_store_b32 v10, v20, s[4:5] offset:2176
  global_store_b32 v10, v21, s[4:5] offset:2304
  global_store_b32 v10, v26, s[4:5] offset:2432
  s_endpgm
