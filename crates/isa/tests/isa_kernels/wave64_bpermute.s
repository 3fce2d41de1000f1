// wave64 (assembled with +wavefrontsize64): ds_bpermute_b32 and ds_permute_b32
// address lanes within the issuing lane's 32-lane half. Lane l uses byte
// address (63 - l) * 4 (which would reverse the whole wave if the permute
// crossed halves), and a second bpermute adds offset:4. The high half has
// lanes 40..47 inactive. out[k*64 + lane], k = 0..2.
  s_load_b64 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v10, 2, v0
  v_mul_u32_u24 v1, 100, v0
  v_sub_nc_u32 v2, 63, v0
  v_lshlrev_b32 v2, 2, v2
  v_mov_b32 v3, 7
  v_mov_b32 v4, 7
  v_mov_b32 v5, 7
  v_cmp_gt_u32 vcc, 40, v0
  v_cmp_le_u32 s[6:7], 48, v0
  s_or_b64 exec, vcc, s[6:7]
  ds_bpermute_b32 v3, v2, v1
  ds_permute_b32 v4, v2, v1
  ds_bpermute_b32 v5, v2, v1 offset:4
  s_mov_b64 exec, -1
  s_waitcnt lgkmcnt(0)
  global_store_b32 v10, v3, s[4:5]
  global_store_b32 v10, v4, s[4:5] offset:256
  global_store_b32 v10, v5, s[4:5] offset:512
  s_endpgm
