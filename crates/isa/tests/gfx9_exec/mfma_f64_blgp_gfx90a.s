// BLGP on a CDNA2 f64 matrix op, which does not define it.
  v_mfma_f64_4x4x4f64 v[0:1], v[2:3], v[4:5], v[0:1] blgp:1
  s_endpgm
