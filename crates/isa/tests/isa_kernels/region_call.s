// Calls inside a region: the kernel calls one subroutine twice by LLVM's
// call sequence (s_getpc_b64, then s_add_u32/s_addc_u32 of the callee's
// distance, s_swappc_b64) and once by s_call_b64, and the subroutine
// returns with s_setpc_b64.
// s[0:1] kernarg ptr (buffer a at +0, buffer b at +8), s2 workgroup id x,
// v0 local id (workgroups of 256); with f(v) = (v + a[i]) ^ 0x55,
// b[i] = f(f(f(3) + 1)).
  s_load_b128 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_lshl_b32 s8, s2, 10
  v_add_nc_u32 v1, s8, v1
  s_waitcnt lgkmcnt(0)
  global_load_b32 v2, v1, s[4:5]
  v_mov_b32 v3, 3
  s_waitcnt vmcnt(0)
  s_getpc_b64 s[10:11]
first:
  s_add_u32 s10, s10, callee-first
  s_addc_u32 s11, s11, 0
  s_swappc_b64 s[30:31], s[10:11]
  v_add_nc_u32 v3, 1, v3
  s_getpc_b64 s[10:11]
second:
  s_add_u32 s10, s10, callee-second
  s_addc_u32 s11, s11, 0
  s_swappc_b64 s[30:31], s[10:11]
  s_call_b64 s[30:31], callee
  global_store_b32 v1, v3, s[6:7]
  s_endpgm
callee:
  v_add_nc_u32 v3, v3, v2
  v_xor_b32 v3, 0x55, v3
  s_setpc_b64 s[30:31]
