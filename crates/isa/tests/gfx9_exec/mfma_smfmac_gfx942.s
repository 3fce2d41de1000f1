// A sparse matrix op whose index VGPR names one position twice (index 0
// for both stored elements): undocumented.
  v_mov_b32 v10, 0
  v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10
  s_endpgm
