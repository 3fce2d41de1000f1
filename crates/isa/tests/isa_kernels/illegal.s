// A decodable instruction the emulator does not implement.
  v_mov_b32 v1, 0
  s_nop 0
  v_mullit_f32 v1, v2, v3, v4
  s_endpgm
