// A non-zero constant C: what the matrix core adds is undocumented.
  v_mfma_f32_4x4x1f32 v[0:3], v4, v5, 1.0
  s_endpgm
