// A MUBUF load, which the executor does not model on GFX9 (its range checks).
  buffer_load_dword v1, off, s[0:3], 0
  s_endpgm
