// A packed f32 op reading the high dword of a constant (op_sel_hi's
// default), which the executor does not model.
  v_pk_mul_f32 v[0:1], v[2:3], 1.0
  s_endpgm
