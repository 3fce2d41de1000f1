// ds_swizzle_b32 in quad-perm and bit-mask modes (the LLVM swizzle macros),
// and with inactive source lanes. out[k*32 + lane]; v2 = lane*3 + 1.
  s_load_b64 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  v_mad_u32_u24 v2, v0, 3, 1
  ds_swizzle_b32 v3, v2 offset:swizzle(QUAD_PERM,1,2,3,0)
  ds_swizzle_b32 v4, v2 offset:swizzle(BITMASK_PERM,"01pip")
  ds_swizzle_b32 v5, v2 offset:swizzle(SWAP,16)
  ds_swizzle_b32 v6, v2 offset:swizzle(REVERSE,8)
  ds_swizzle_b32 v7, v2 offset:swizzle(BROADCAST,8,5)
  ds_swizzle_b32 v8, v2 offset:0xffff
  v_mov_b32 v9, 77
  s_mov_b32 exec_lo, 0xffff
  ds_swizzle_b32 v9, v2 offset:swizzle(SWAP,16)
  s_mov_b32 exec_lo, -1
  s_waitcnt lgkmcnt(0)
  global_store_b32 v10, v3, s[4:5]
  global_store_b32 v10, v4, s[4:5] offset:128
  global_store_b32 v10, v5, s[4:5] offset:256
  global_store_b32 v10, v6, s[4:5] offset:384
  global_store_b32 v10, v7, s[4:5] offset:512
  global_store_b32 v10, v8, s[4:5] offset:640
  global_store_b32 v10, v9, s[4:5] offset:768
  s_endpgm
