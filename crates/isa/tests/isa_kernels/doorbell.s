// s_sendmsg_rtn GET_DOORBELL is not modelled: a typed error naming the message.
  s_sendmsg_rtn_b32 s0, sendmsg(MSG_RTN_GET_DOORBELL)
  s_endpgm
