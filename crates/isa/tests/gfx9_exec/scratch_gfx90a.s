// Private memory through scratch_* on gfx90a: the prologue sets FLAT_SCRATCH
// from the flat scratch init (s[2:3]) and the wave offset (s5). s[0:1]
// kernarg ptr (out@0), s4 workgroup id x, v0 work-item id x; out[lane] =
// 3 * id | id << 16, each lane's private dwords its own.
  s_add_u32 flat_scratch_lo, s2, s5
  s_addc_u32 flat_scratch_hi, s3, 0
  s_load_dwordx2 s[6:7], s[0:1], 0x0
  s_mov_b32 s8, 0
  v_lshlrev_b32 v1, 2, v0
  v_mul_u32_u24 v2, 3, v0
  // Private dword 4 through saddr, dword 3 through vaddr; read back the other way.
  scratch_store_dword off, v2, s8 offset:16
  v_mov_b32 v3, 8
  scratch_store_dword v3, v0, off offset:4
  scratch_load_dword v4, v3, off offset:8
  scratch_load_dword v5, off, s8 offset:12
  s_waitcnt vmcnt(0)
  v_lshlrev_b32 v5, 16, v5
  v_or_b32 v4, v4, v5
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v4, s[6:7]
  s_endpgm
