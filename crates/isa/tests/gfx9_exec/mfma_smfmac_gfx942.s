// A sparse matrix op: which index field pairs with which stored A element
// is undocumented.
  v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10
  s_endpgm
