// A DP ALU op (64-bit source) under a DPP control other than row_newbcast,
// which llvm-mc-19 refuses to assemble: v_cvt_f32_f64_dpp v0, v[2:3]
// quad_perm:[1,0,3,2] (llvm-objdump-19: "DP ALU dpp only supports
// row_newbcast").
  .long 0x7e001efa, 0xff00b102
  s_endpgm
