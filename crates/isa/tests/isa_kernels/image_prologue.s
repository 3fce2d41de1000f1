// Image test harness, first part (tests/image_exec): the test appends MIMG
// words and image_epilogue.s. Kernargs: T# @0x0 (into s[8:15]), coordinates
// @0x20, data @0x28, out @0x30, active lanes @0x38. Per lane:
// v[1:4] = coordinates[lane] (16 bytes), v[5:8] = data[lane], v[10:13] =
// 0xdeadbeef (the load destination); then EXEC keeps lanes below the count.
  s_load_b256 s[8:15], s[0:1], 0x0
  s_load_b128 s[4:7], s[0:1], 0x20
  s_load_b64 s[16:17], s[0:1], 0x30
  s_load_b32 s18, s[0:1], 0x38
  v_lshlrev_b32 v20, 4, v0
  v_mov_b32 v10, 0xdeadbeef
  v_mov_b32 v11, 0xdeadbeef
  v_mov_b32 v12, 0xdeadbeef
  v_mov_b32 v13, 0xdeadbeef
  s_waitcnt lgkmcnt(0)
  global_load_b128 v[1:4], v20, s[4:5]
  global_load_b128 v[5:8], v20, s[6:7]
  s_waitcnt vmcnt(0)
  v_cmpx_gt_u32_e32 s18, v0
