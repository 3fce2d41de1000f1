// A typed load through a swizzled structured V# (stride 16, NUM_RECORDS
// 16, 32 FLOAT), which the executor does not model.
  s_mov_b32 s0, 0
  s_mov_b32 s1, 0x80100000
  s_mov_b32 s2, 16
  s_mov_b32 s3, 0x27000
  v_mov_b32 v0, 0
  buffer_load_format_x v1, v0, s[0:3], 0 idxen
  s_endpgm
