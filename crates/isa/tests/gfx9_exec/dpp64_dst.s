// A DP ALU op with a 32-bit source and a 64-bit destination under a DPP
// control other than row_newbcast: v_cvt_f64_f32_dpp v[0:1], v2
// quad_perm:[1,0,3,2] (llvm-mc-19 refuses it; llvm-objdump-19: "DP ALU dpp
// only supports row_newbcast").
  .long 0x7e0020fa, 0xff00b102
  s_endpgm
