// An AGPR past the wave's allocation: a4 of a wave owning a0..a3.
  v_accvgpr_write_b32 a3, 1
  v_accvgpr_write_b32 a4, 1
  s_endpgm
