// Loads into LDS (gfx942): MUBUF with the lds bit and the global form, each
// read back from LDS (one u32 per lane and test, out[t * 64 + lane]).
// Kernarg: out@0, in@8 (128 dwords). s[0:1] kernarg ptr, v0 work-item id
// x; one wave64 workgroup with 1 KiB of LDS.
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_lshlrev_b32 v4, 1, v0
  s_waitcnt lgkmcnt(0)
  // A raw V# over the first 256 bytes of in.
  s_mov_b32 s8, s6
  s_and_b32 s9, s7, 0xffff
  s_movk_i32 s10, 0x100
  s_mov_b32 s11, 0
  // t0: dwords at in + 4 * lane + 16 to LDS 16 + 4 * lane (lanes 60..63
  // are past NUM_RECORDS and write 0).
  s_mov_b32 m0, 0
  buffer_load_dword v1, s[8:11], 0 offen offset:16 lds
  s_waitcnt vmcnt(0)
  ds_read_b32 v2, v1 offset:16
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
  // t1: signed bytes at in + lane to LDS 512 + 4 * lane from the even
  // lanes only; the odd lanes' LDS keeps 0xdead0000 + lane.
  v_or_b32 v3, 0xdead0000, v0
  ds_write_b32 v1, v3 offset:512
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, 0x200
  s_mov_b32 exec_lo, 0x55555555
  s_mov_b32 exec_hi, 0x55555555
  buffer_load_sbyte v0, s[8:11], 0 offen lds
  s_mov_b64 exec, -1
  s_waitcnt vmcnt(0)
  ds_read_b32 v2, v1 offset:512
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5] offset:256
  // t2: global dwords at in + 4 * lane + 4 to LDS 772 + 4 * lane: lane
  // 63's dword is past the 1 KiB allocation (dropped, and read as 0).
  s_mov_b32 m0, 0x300
  global_load_lds_dword v1, s[6:7] offset:4
  s_waitcnt vmcnt(0)
  ds_read_b32 v2, v1 offset:772
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5] offset:512
  // t3: global unsigned shorts at in + 2 * lane to LDS 4 * lane.
  s_mov_b32 m0, 0
  global_load_lds_ushort v4, s[6:7]
  s_waitcnt vmcnt(0)
  ds_read_b32 v2, v1
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5] offset:768
  s_endpgm
