// y[i] = a * x[i] + y[i] for i < n, with GFX9's VOP2 carry ops for the x
// address and a global saddr form for y. Kernarg: a@0, x@8, y@16, n@24.
// s[0:1] kernarg ptr, s2 workgroup id x, v0 work-item id x; wave64.
  s_load_dword s3, s[0:1], 0x0
  s_load_dwordx4 s[4:7], s[0:1], 0x8
  s_load_dword s8, s[0:1], 0x18
  s_lshl_b32 s9, s2, 6
  v_add_u32 v0, s9, v0
  s_waitcnt lgkmcnt(0)
  v_cmp_gt_u32 vcc, s8, v0
  s_and_saveexec_b64 s[10:11], vcc
  s_cbranch_execz done
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v2, s5
  v_add_co_u32 v4, vcc, s4, v1
  v_addc_co_u32 v5, vcc, 0, v2, vcc
  global_load_dword v5, v[4:5], off
  global_load_dword v6, v1, s[6:7]
  s_waitcnt vmcnt(0)
  v_fmac_f32 v6, s3, v5
  global_store_dword v1, v6, s[6:7]
done:
  s_endpgm
