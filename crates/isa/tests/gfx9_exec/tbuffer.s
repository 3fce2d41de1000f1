// An MTBUF load in a format pair with no conversion the executor models
// (8-bit FLOAT: no unified format has it).
  tbuffer_load_format_x v1, off, s[0:3], 0 format:[BUF_DATA_FORMAT_8,BUF_NUM_FORMAT_FLOAT]
  s_endpgm
