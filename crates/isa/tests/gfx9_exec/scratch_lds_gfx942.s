// A scratch load into LDS, which the executor does not model.
  scratch_load_lds_dword v1, off
  s_endpgm
