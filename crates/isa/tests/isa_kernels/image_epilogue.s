// Image test harness, last part: every lane's v[10:13] to out[lane].
  s_waitcnt vmcnt(0)
  s_mov_b32 exec_lo, -1
  global_store_b128 v20, v[10:13], s[16:17]
  s_endpgm
