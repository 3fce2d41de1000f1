// Global atomics: every lane of every group: old = atomic_add(&out[0], 1) (returned),
// atomic_max(&out[1], gid), atomic_sub(&out[2], 2), atomic_or(&out[3], 1 << (lid & 31)),
// cmpswap(&out[4], gid, 0) (only the lane seeing 0 wins), ds atomics into LDS then out[5].
// ret[gid] = old of the add.
  s_load_b128 s[4:7], s[0:1], 0x0
  v_lshl_add_u32 v1, s2, 6, v0
  v_mov_b32 v2, 0
  v_mov_b32 v3, 1
  s_waitcnt lgkmcnt(0)
  global_atomic_add_u32 v4, v2, v3, s[4:5] glc
  global_atomic_max_u32 v2, v1, s[4:5] offset:4
  v_mov_b32 v5, 2
  global_atomic_sub_u32 v2, v5, s[4:5] offset:8
  v_and_b32 v6, 31, v0
  v_lshlrev_b32 v6, v6, 1
  global_atomic_or_b32 v2, v6, s[4:5] offset:12
  v_add_nc_u32 v8, 1, v1
  v_mov_b32 v9, 0
  global_atomic_cmpswap_b32 v10, v2, v[8:9], s[4:5] offset:16 glc
  ds_store_b32 v2, v2
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_add_rtn_u32 v11, v2, v3
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_load_b32 v12, v2
  s_waitcnt lgkmcnt(0)
  v_cmp_eq_u32 vcc_lo, 0, v0
  s_and_saveexec_b32 s8, vcc_lo
  global_atomic_add_u32 v2, v12, s[4:5] offset:20
  s_or_b32 exec_lo, exec_lo, s8
  v_lshlrev_b32 v1, 2, v1
  s_waitcnt vmcnt(0)
  global_store_b32 v1, v4, s[6:7]
  s_endpgm
