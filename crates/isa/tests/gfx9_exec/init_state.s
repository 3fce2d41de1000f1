// The initial wave state: every wave stores s0..s18, exec_lo and exec_hi
// (out[wave * 32 + k])
// and its v0 per lane (out[256 + wave * 64 + lane]). The descriptor the test
// builds enables private segment buffer s[0:3], dispatch ptr s[4:5], queue
// ptr s[6:7], kernarg ptr s[8:9] (out@0), dispatch id s[10:11], flat scratch
// init s[12:13] (gfx90a; gfx942 moves the rest down by two), private
// segment size, workgroup ids x/y/z and the private segment wave offset.
  s_load_dwordx2 s[40:41], s[8:9], 0x0
  // The flat work-item id of each lane, from the packed v0 (VOP2 only).
  v_and_b32 v40, 0x3ff, v0
  v_lshrrev_b32 v44, 10, v0
  v_and_b32 v44, 0x3ff, v44
  v_lshlrev_b32 v44, 4, v44
  v_add_u32 v40, v40, v44
  v_lshrrev_b32 v44, 20, v0
  v_lshlrev_b32 v44, 7, v44
  v_add_u32 v40, v40, v44
  // The wave's index: lane 0's flat work-item id (in a 16 x 8 x 2
  // workgroup) / 64.
  v_readfirstlane_b32 s42, v0
  s_and_b32 s43, s42, 0x3ff
  s_bfe_u32 s46, s42, 0xa000a
  s_lshr_b32 s47, s42, 20
  s_lshl_b32 s46, s46, 4
  s_lshl_b32 s47, s47, 7
  s_add_u32 s43, s43, s46
  s_add_u32 s43, s43, s47
  s_lshr_b32 s43, s43, 6
  v_mov_b32 v41, 0
  s_lshl_b32 s44, s43, 7
  v_mov_b32 v42, s44
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v1, s0
  global_store_dword v42, v1, s[40:41] offset:0
  v_mov_b32 v1, s1
  global_store_dword v42, v1, s[40:41] offset:4
  v_mov_b32 v1, s2
  global_store_dword v42, v1, s[40:41] offset:8
  v_mov_b32 v1, s3
  global_store_dword v42, v1, s[40:41] offset:12
  v_mov_b32 v1, s4
  global_store_dword v42, v1, s[40:41] offset:16
  v_mov_b32 v1, s5
  global_store_dword v42, v1, s[40:41] offset:20
  v_mov_b32 v1, s6
  global_store_dword v42, v1, s[40:41] offset:24
  v_mov_b32 v1, s7
  global_store_dword v42, v1, s[40:41] offset:28
  v_mov_b32 v1, s8
  global_store_dword v42, v1, s[40:41] offset:32
  v_mov_b32 v1, s9
  global_store_dword v42, v1, s[40:41] offset:36
  v_mov_b32 v1, s10
  global_store_dword v42, v1, s[40:41] offset:40
  v_mov_b32 v1, s11
  global_store_dword v42, v1, s[40:41] offset:44
  v_mov_b32 v1, s12
  global_store_dword v42, v1, s[40:41] offset:48
  v_mov_b32 v1, s13
  global_store_dword v42, v1, s[40:41] offset:52
  v_mov_b32 v1, s14
  global_store_dword v42, v1, s[40:41] offset:56
  v_mov_b32 v1, s15
  global_store_dword v42, v1, s[40:41] offset:60
  v_mov_b32 v1, s16
  global_store_dword v42, v1, s[40:41] offset:64
  v_mov_b32 v1, s17
  global_store_dword v42, v1, s[40:41] offset:68
  v_mov_b32 v1, s18
  global_store_dword v42, v1, s[40:41] offset:72
  v_mov_b32 v1, exec_lo
  global_store_dword v42, v1, s[40:41] offset:76
  v_mov_b32 v1, exec_hi
  global_store_dword v42, v1, s[40:41] offset:80
  // v0 per lane at out[256 + flat id].
  v_lshlrev_b32 v43, 2, v40
  v_add_u32 v43, 0x400, v43
  global_store_dword v43, v0, s[40:41]
  s_endpgm
