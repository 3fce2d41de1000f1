// CBSZ 3 on a 4-block op: broadcasting to 8 blocks is undocumented.
  v_mfma_f32_16x16x1f32 v[0:15], v16, v17, v[0:15] cbsz:3
  s_endpgm
