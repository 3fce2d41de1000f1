// An MTBUF load, which the executor does not model on GFX9 (its typed
// DATA_FORMAT/NUM_FORMAT conversions).
  tbuffer_load_format_x v1, off, s[0:3], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_UINT]
  s_endpgm
