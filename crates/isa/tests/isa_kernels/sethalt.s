// s_sethalt 1 halts the wave: a Halt error at the instruction's PC (byte 8).
  v_mov_b32 v1, 0
  s_nop 0
  s_sethalt 1
  s_endpgm
