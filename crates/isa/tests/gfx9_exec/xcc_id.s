// HW_REG_XCC_ID: each workgroup stores the register's XCC field (bits 3:0)
// and the whole register at out[2 * wg], out[2 * wg + 1]. Kernarg: out@0.
// s[0:1] kernarg ptr, s2 workgroup id x; one wave64 per workgroup. gfx90a
// has no XCC_ID (a GFX940 register): the read is an illegal instruction.
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_getreg_b32 s6, hwreg(20, 0, 4)
  s_getreg_b32 s7, hwreg(20)
  s_lshl_b32 s8, s2, 3
  v_mov_b32 v1, s8
  v_mov_b32 v2, s6
  v_mov_b32 v3, s7
  s_waitcnt lgkmcnt(0)
  global_store_dwordx2 v1, v[2:3], s[4:5]
  s_endpgm
