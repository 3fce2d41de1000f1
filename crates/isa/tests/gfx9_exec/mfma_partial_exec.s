// An MFMA under a partial EXEC: the guide does not say what the matrix
// core does with inactive lanes.
  s_mov_b64 exec, 1
  v_mfma_f32_4x4x1f32 v[0:3], v4, v5, v[0:3]
  s_endpgm
