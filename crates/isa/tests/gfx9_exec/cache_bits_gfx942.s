// gfx942's cache-policy bits as an observer sees them: a plain store, an
// agent-scope writeback, an sc1 store, a system-scope (sc0 sc1) load, an
// agent-scope invalidate, a work-group-scope (sc0) invalidate, a
// nontemporal (nt) load. Kernarg: buf@0; one wave64, lane 0 active.
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_mov_b32 v1, 0
  v_mov_b32 v2, 7
  s_mov_b64 exec, 1
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
  buffer_wbl2 sc1
  global_store_dword v1, v2, s[4:5] offset:4 sc1
  global_load_dword v3, v1, s[4:5] offset:4 sc0 sc1
  buffer_inv sc1
  buffer_inv sc0
  global_load_dword v3, v1, s[4:5] nt
  s_waitcnt vmcnt(0)
  s_endpgm
