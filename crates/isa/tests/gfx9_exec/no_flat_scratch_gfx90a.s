// A scratch store without the prologue that sets FLAT_SCRATCH (gfx90a).
  v_mov_b32 v1, 7
  scratch_store_dword off, v1, s0 offset:0
  s_endpgm
