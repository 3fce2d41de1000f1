// 256 work-items (8 waves): LDS exchange across waves with three barriers.
// lds[lid] = 3*lid; barrier; a = lds[255-lid]; barrier; lds[lid] = a + 1; barrier;
// out[lid] = lds[(lid + 32) & 255] (2addr load also checked: out2[lid] = lds[lid] + lds[lid^1... via offsets]).
  s_load_b64 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_mul_u32_u24 v2, 3, v0
  ds_store_b32 v1, v2
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_sub_nc_u32 v3, 0xff, v0
  v_lshlrev_b32 v3, 2, v3
  ds_load_b32 v4, v3
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_add_nc_u32 v4, 1, v4
  ds_store_b32 v1, v4
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_add_nc_u32 v5, 32, v0
  v_and_b32 v5, 0xff, v5
  v_lshlrev_b32 v5, 2, v5
  ds_load_b32 v6, v5
  v_and_b32 v7, 0x3f, v0
  v_lshlrev_b32 v7, 2, v7
  ds_load_2addr_stride64_b32 v[8:9], v7 offset0:1 offset1:3
  s_waitcnt lgkmcnt(0)
  v_add_nc_u32 v8, v8, v9
  s_waitcnt lgkmcnt(0)
  global_store_b32 v1, v6, s[4:5]
  global_store_b32 v1, v8, s[4:5] offset:1024
  s_endpgm
