// s_getreg of HW_REG_SHADER_CYCLES (whole and a bit field), s_sethalt 0
// (resume: a no-op). out[0..3] = cycles, cycles[11:4], cycles after.
  s_load_b64 s[4:5], s[0:1], 0x0
  s_getreg_b32 s6, hwreg(HW_REG_SHADER_CYCLES)
  s_getreg_b32 s7, hwreg(HW_REG_SHADER_CYCLES, 4, 8)
  s_sethalt 0
  s_getreg_b32 s8, hwreg(HW_REG_SHADER_CYCLES)
  v_mov_b32 v1, s6
  v_mov_b32 v2, s7
  v_mov_b32 v3, s8
  v_mov_b32 v4, 0
  s_waitcnt lgkmcnt(0)
  global_store_b96 v4, v[1:3], s[4:5]
  s_endpgm
