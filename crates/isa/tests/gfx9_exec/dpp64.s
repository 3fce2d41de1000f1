// DPP of a 64-bit source (the DP ALU form), which the executor does not model.
  v_cvt_f32_f64_dpp v0, v[2:3] row_newbcast:1 row_mask:0xf bank_mask:0xf
  s_endpgm
