// s_sendmsg_rtn: REALTIME (b64, b32, b64 again), then TMA and TBA over
// registers preset to -1. out[0..9] = s6, s7, s8, s10, s11, s12, s13, s14, s15.
// kernarg: out +0.
  s_load_b64 s[4:5], s[0:1], 0x0
  s_mov_b64 s[12:13], -1
  s_mov_b64 s[14:15], -1
  s_sendmsg_rtn_b64 s[6:7], sendmsg(MSG_RTN_GET_REALTIME)
  s_sendmsg_rtn_b32 s8, sendmsg(MSG_RTN_GET_REALTIME)
  s_sendmsg_rtn_b64 s[10:11], sendmsg(MSG_RTN_GET_REALTIME)
  s_sendmsg_rtn_b64 s[12:13], sendmsg(MSG_RTN_GET_TMA)
  s_sendmsg_rtn_b64 s[14:15], sendmsg(MSG_RTN_GET_TBA)
  v_mov_b32 v10, 0
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v1, s6
  global_store_b32 v10, v1, s[4:5] offset:0
  v_mov_b32 v1, s7
  global_store_b32 v10, v1, s[4:5] offset:4
  v_mov_b32 v1, s8
  global_store_b32 v10, v1, s[4:5] offset:8
  v_mov_b32 v1, s10
  global_store_b32 v10, v1, s[4:5] offset:12
  v_mov_b32 v1, s11
  global_store_b32 v10, v1, s[4:5] offset:16
  v_mov_b32 v1, s12
  global_store_b32 v10, v1, s[4:5] offset:20
  v_mov_b32 v1, s13
  global_store_b32 v10, v1, s[4:5] offset:24
  v_mov_b32 v1, s14
  global_store_b32 v10, v1, s[4:5] offset:28
  v_mov_b32 v1, s15
  global_store_b32 v10, v1, s[4:5] offset:32
  s_endpgm
