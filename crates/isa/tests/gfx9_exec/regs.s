// Register renumbering and GFX9-only semantics, one u32 per lane and test
// (out[t * 64 + lane]). Kernarg: out@0. s[0:1] kernarg ptr, s2 workgroup
// id x, v0 work-item id x; one wave64 workgroup.
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_mov_b32 s6, 4
  s_load_dword s7, s[0:1], s6          // SGPR offset (imm = 0): out's high word
  v_lshlrev_b32 v1, 2, v0              // lane * 4
  s_waitcnt lgkmcnt(0)
  // t0: M0 written and read back.
  s_mov_b32 m0, 0x1234
  s_add_u32 s8, m0, 1
  v_mov_b32 v2, s8
  global_store_dword v1, v2, s[4:5]
  // t1: v_cmpx writes VCC as well as EXEC (lanes 0..39 stay on).
  s_mov_b64 s[10:11], exec
  s_mov_b64 vcc, 0
  v_cmpx_gt_u32 vcc, 40, v0
  s_mov_b64 exec, s[10:11]
  v_mov_b32 v6, 9
  v_cndmask_b32 v2, 7, v6, vcc
  global_store_dword v1, v2, s[4:5] offset:256
  // t2: VOP2 v_sub_co_u32 borrow into VCC, v_subb_co_u32 reads it.
  v_subrev_co_u32 v3, vcc, 32, v0
  v_subb_co_u32 v4, vcc, 0, v0, vcc
  v_add_u32 v2, v3, v4
  v_mov_b32 v6, 0x100
  v_cndmask_b32 v5, 0, v6, vcc
  v_or_b32 v2, v2, v5
  global_store_dword v1, v2, s[4:5] offset:512
  // t3: DPP row_shr:1 (bound_ctrl writes 0 into each row's lane 0).
  v_mov_b32 v2, 0
  v_add_u32_dpp v2, v0, v0 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
  global_store_dword v1, v2, s[4:5] offset:768
  // t4: the SGPR-offset load read out's high word; v_readfirstlane into m0.
  v_add_u32 v7, 5, v0
  v_readfirstlane_b32 m0, v7
  s_add_u32 s9, s7, m0
  v_mov_b32 v2, s9
  global_store_dword v1, v2, s[4:5] offset:1024
  // t5: LDS through DS with M0 left as it is (GFX9 needs no M0 limit).
  v_xor_b32 v2, 0x55, v0
  ds_write_b32 v1, v2
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_sub_u32 v3, 252, v1
  ds_read_b32 v2, v3
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5] offset:1280
  s_endpgm
