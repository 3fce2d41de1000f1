// Typed buffer access through GFX9's DATA_FORMAT/NUM_FORMAT pairs (the V#'s
// for buffer_*_format_*, the instruction's for tbuffer_*). Kernarg: out@0,
// in@8 (64 dwords). s[0:1] kernarg ptr, v0 work-item id x; one wave64.
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_lshlrev_b32 v10, 4, v0
  v_lshlrev_b32 v11, 3, v0
  v_lshlrev_b32 v12, 1, v0
  s_waitcnt lgkmcnt(0)
  // A raw V# over in (256 bytes): 8_8_8_8 UNORM, DST_SEL x, y, z, w.
  s_mov_b32 s8, s6
  s_and_b32 s9, s7, 0xffff
  s_movk_i32 s10, 0x100
  s_mov_b32 s11, 0x50fac
  // t0 (out + 0, four dwords a lane): the bytes at in + 4 * lane.
  buffer_load_format_xyzw v[2:5], v1, s[8:11], 0 offen
  s_waitcnt vmcnt(0)
  global_store_dwordx4 v10, v[2:5], s[4:5]
  // t1 (out + 1024, two dwords a lane): the same dwords as 16_16 SNORM;
  // the instruction's formats, not the V#'s.
  tbuffer_load_format_xy v[2:3], v1, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SNORM] offen
  s_waitcnt vmcnt(0)
  global_store_dwordx2 v11, v[2:3], s[4:5] offset:1024
  // t2 (out + 1536): x returns the w component (DST_SEL_X 7) of a
  // 128-byte buffer: lanes 32..63 are out of range and read 0.
  s_movk_i32 s10, 0x80
  s_mov_b32 s11, 0x50007
  buffer_load_format_x v2, v1, s[8:11], 0 offen
  s_waitcnt vmcnt(0)
  global_store_dword v1, v2, s[4:5] offset:1536
  // t3 (out + 1792, a half a lane): lane + 0.25 stored as 16 FLOAT into a
  // 96-byte buffer: lanes 48..63 are dropped.
  s_add_u32 s12, s4, 0x700
  s_addc_u32 s13, s5, 0
  s_movk_i32 s14, 0x60
  s_mov_b32 s15, 0
  v_cvt_f32_u32 v2, v0
  v_add_f32 v2, 0.25, v2
  tbuffer_store_format_x v2, v12, s[12:15], 0 format:[BUF_DATA_FORMAT_16,BUF_NUM_FORMAT_FLOAT] offen
  s_endpgm
