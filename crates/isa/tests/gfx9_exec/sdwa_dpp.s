// SDWA selects and GFX9's whole-wave DPP controls, one u32 per lane and
// test (out[t * 64 + lane]). Kernarg: out@0. s[0:1] kernarg ptr, v0
// work-item id x; one wave64 workgroup.
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v2, 0x81828384
  v_mul_u32_u24 v3, 0x01010101, v0
  s_waitcnt lgkmcnt(0)
  // t0: byte 3 of v2 sign-extended plus word 0 of v3, into word 1 of v4
  // with the rest preserved.
  v_mov_b32 v4, 0x5555aaaa
  v_add_u32_sdwa v4, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_3 src1_sel:WORD_0
  global_store_dword v1, v4, s[4:5]
  // t1: byte 1 of v2 plus byte 0 of v3 into byte 2, the bits above
  // sign-extended, the ones below zero.
  v_add_u32_sdwa v4, v2, v3 dst_sel:BYTE_2 dst_unused:UNUSED_SEXT src0_sel:BYTE_1 src1_sel:BYTE_0
  global_store_dword v1, v4, s[4:5] offset:256
  // t2: wave_shr:1 (lane 0 gets 0 with bound_ctrl), the source overwritten.
  v_mov_b32 v5, v0
  v_mov_b32_dpp v5, v5 wave_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
  global_store_dword v1, v5, s[4:5] offset:512
  // t3: wave_rol:1.
  v_mov_b32 v5, v0
  v_mov_b32_dpp v5, v5 wave_rol:1 row_mask:0xf bank_mask:0xf
  global_store_dword v1, v5, s[4:5] offset:768
  // t4: row_bcast:15 into rows 1 and 3 (v6 = 1000 + lane), rows 0 and 2 keep theirs.
  v_add_u32 v6, 1000, v0
  v_add_u32_dpp v6, v6, v0 row_bcast:15 row_mask:0xa bank_mask:0xf
  global_store_dword v1, v6, s[4:5] offset:1024
  // t5: row_bcast:31 into rows 2 and 3.
  v_add_u32 v6, 1000, v0
  v_mov_b32_dpp v6, v6 row_bcast:31 row_mask:0xc bank_mask:0xf
  global_store_dword v1, v6, s[4:5] offset:1280
  // t6: an SDWA compare into s[10:11] (byte 1 of v3 is the lane) leaves VCC alone.
  s_mov_b64 vcc, 0
  v_mov_b32 v7, 40
  v_cmp_lt_u32_sdwa s[10:11], v3, v7 src0_sel:BYTE_1 src1_sel:DWORD
  v_cndmask_b32_e64 v8, 7, 9, s[10:11]
  v_mov_b32 v10, 0x100
  v_cndmask_b32 v9, 0, v10, vcc
  v_or_b32 v8, v8, v9
  global_store_dword v1, v8, s[4:5] offset:1536
  s_endpgm
