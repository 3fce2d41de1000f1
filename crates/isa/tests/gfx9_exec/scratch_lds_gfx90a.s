// A scratch load into LDS, which the executor does not model.
  scratch_load_dword v1, off lds
  s_endpgm
