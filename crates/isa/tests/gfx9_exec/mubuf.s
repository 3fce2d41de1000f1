// MUBUF (one u32 per lane and test, out[t * 64 + lane]) through V#s built
// in SGPRs: a swizzled private buffer as ROCr describes scratch (element
// size 4, index stride 64, ADD_TID_ENABLE) at soffset 512, and raw
// buffers with their range check. Kernarg: out@0, scratch@8. s[0:1]
// kernarg ptr, v0 work-item id x; one wave64 workgroup.
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s8, s6
  s_or_b32 s9, s7, 0x80000000
  s_mov_b32 s10, 0
  s_mov_b32 s11, 0xea4fac
  s_movk_i32 s12, 0x200
  // t0..t2: a dword at offset 4 and a short at offset 10 (offen), read
  // back as a dword, an unsigned short and a signed byte.
  v_add_u32 v2, 1000, v0
  v_mov_b32 v3, 8
  buffer_store_dword v2, off, s[8:11], s12 offset:4
  buffer_store_short v2, v3, s[8:11], s12 offen offset:2
  s_waitcnt vmcnt(0)
  buffer_load_dword v4, off, s[8:11], s12 offset:4
  buffer_load_ushort v5, v3, s[8:11], s12 offen offset:2
  buffer_load_sbyte v6, off, s[8:11], s12 offset:4
  s_waitcnt vmcnt(0)
  global_store_dword v1, v4, s[4:5]
  global_store_dword v1, v5, s[4:5] offset:256
  global_store_dword v1, v6, s[4:5] offset:512
  // t3: a raw buffer at out + 768 of 128 bytes: lanes 32..63 are dropped.
  s_add_u32 s16, s4, 0x300
  s_addc_u32 s17, s5, 0
  s_movk_i32 s18, 0x80
  s_mov_b32 s19, 0
  buffer_store_dword v2, v1, s[16:19], 0 offen
  s_waitcnt vmcnt(0)
  // t4: the same memory as a 64-byte raw buffer: lanes 16..63 read 0.
  s_movk_i32 s18, 0x40
  buffer_load_dword v7, v1, s[16:19], 0 offen
  s_waitcnt vmcnt(0)
  global_store_dword v1, v7, s[4:5] offset:1024
  s_endpgm
