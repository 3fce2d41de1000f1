// MUBUF with hand-built V#s: raw (oob_select 3) loads of every width at the
// num_records boundary, soffset outside the check, d16_hi, stores dropped
// past the end, structured idxen+offen (oob 0 and 1), oob 2, stride 0 with
// idxen, add_tid, and atomics with glc return. in = 64 dwords, out[k*32 + lane]
// (k = 0..15), stores at out+0x1000, atomic counters at out+0x2000.
  s_load_b128 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  v_lshlrev_b32 v13, 1, v0
  v_add_nc_u32 v12, 8, v0
  s_waitcnt lgkmcnt(0)
  // A: raw, base = in, num_records = 40 bytes
  s_mov_b32 s8, s6
  s_and_b32 s9, s7, 0xffff
  s_mov_b32 s10, 40
  s_mov_b32 s11, 0x30000000
  buffer_load_b32 v1, v10, s[8:11], 0 offen
  buffer_load_b128 v[2:5], v10, s[8:11], 0 offen
  buffer_load_i8 v6, v12, s[8:11], 0 offen offset:1
  v_mov_b32 v7, 0x1234
  buffer_load_d16_hi_b16 v7, v13, s[8:11], 0 offen
  s_mov_b32 s20, 4
  buffer_load_b32 v22, v10, s[8:11], s20 offen
  // C: structured, stride 8, 5 records, oob 0: index = lane, offset = 4 (+4)
  s_mov_b32 s12, s6
  s_or_b32 s13, s9, 0x80000
  s_mov_b32 s14, 5
  s_mov_b32 s15, 0
  v_mov_b32 v15, v0
  v_mov_b32 v16, 4
  buffer_load_b32 v8, v[15:16], s[12:15], 0 idxen offen
  buffer_load_b32 v9, v[15:16], s[12:15], 0 idxen offen offset:4
  // oob 1: index only
  s_mov_b32 s15, 0x10000000
  buffer_load_b32 v17, v[15:16], s[12:15], 0 idxen offen offset:4
  // oob 2: num_records 0 -> nothing; 1 -> everything (v18 is lane 2's dword)
  s_mov_b32 s15, 0x20000000
  s_mov_b32 s14, 0
  buffer_load_b32 v18, v[15:16], s[12:15], 0 idxen offen
  s_mov_b32 s14, 1
  buffer_load_b32 v19, v[15:16], s[12:15], 0 idxen offen
  // stride 0 with idxen: the index adds nothing, every lane reads in[3]
  s_mov_b32 s13, s9
  s_mov_b32 s14, 256
  s_mov_b32 s15, 0x30000000
  buffer_load_b32 v20, v[15:16], s[12:15], 0 idxen offen offset:8
  // add_tid: index = lane, stride 4
  s_or_b32 s13, s9, 0x40000
  s_or_b32 s15, s15, 0x800000
  buffer_load_b32 v21, off, s[12:15], 0
  // B: stores to out+0x1000, num_records 64: lanes 16..31 dropped
  s_add_u32 s16, s4, 0x1000
  s_addc_u32 s17, s5, 0
  s_and_b32 s17, s17, 0xffff
  s_mov_b32 s18, 64
  s_mov_b32 s19, 0x30000000
  v_add_nc_u32 v11, 100, v0
  buffer_store_b32 v11, v10, s[16:19], 0 offen
  // D: atomics at out+0x2000, 3 counters in range (num_records 12)
  s_add_u32 s24, s4, 0x2000
  s_addc_u32 s25, s5, 0
  s_and_b32 s25, s25, 0xffff
  s_mov_b32 s26, 12
  s_mov_b32 s27, 0x30000000
  v_and_b32 v24, 3, v0
  v_lshlrev_b32 v24, 2, v24
  v_mov_b32 v23, 1
  buffer_atomic_add_u32 v23, v24, s[24:27], 0 offen glc
  s_waitcnt vmcnt(0)
  global_store_b32 v10, v1, s[4:5]
  global_store_b32 v10, v2, s[4:5] offset:128
  global_store_b32 v10, v3, s[4:5] offset:256
  global_store_b32 v10, v4, s[4:5] offset:384
  global_store_b32 v10, v5, s[4:5] offset:512
  global_store_b32 v10, v6, s[4:5] offset:640
  global_store_b32 v10, v7, s[4:5] offset:768
  global_store_b32 v10, v22, s[4:5] offset:896
  global_store_b32 v10, v8, s[4:5] offset:1024
  global_store_b32 v10, v9, s[4:5] offset:1152
  global_store_b32 v10, v17, s[4:5] offset:1280
  global_store_b32 v10, v18, s[4:5] offset:1408
  global_store_b32 v10, v19, s[4:5] offset:1536
  global_store_b32 v10, v20, s[4:5] offset:1664
  global_store_b32 v10, v21, s[4:5] offset:1792
  global_store_b32 v10, v23, s[4:5] offset:1920
  s_endpgm
