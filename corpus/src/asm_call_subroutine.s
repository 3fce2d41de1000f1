; asm_call_subroutine: out[i] = f(f(x[i])) with f(v) = v * v + 7 (u32 wrapping), a subroutine
; called once with s_swappc_b64 (address from s_getpc_b64 + offset) and once with s_call_b64;
; it returns with s_setpc_b64.

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_call_subroutine
	.p2align 8
	.type asm_call_subroutine,@function
asm_call_subroutine:
	GLOBAL_ID v1, s5
	s_load_b128 s[8:11], s[2:3], 0x0        ; x, out
	v_lshlrev_b32 v1, 2, v1
	s_waitcnt lgkmcnt(0)
	global_load_b32 v2, v1, s[8:9]
	s_waitcnt vmcnt(0)
	s_getpc_b64 s[20:21]
.Lcall_pc:
	s_add_u32 s20, s20, .Lcall_f-.Lcall_pc
	s_addc_u32 s21, s21, 0
	s_swappc_b64 s[30:31], s[20:21]
	s_call_b64 s[30:31], .Lcall_f
	global_store_b32 v1, v2, s[10:11]
	s_endpgm
.Lcall_f:                                   ; v2 = v2 * v2 + 7, returns to s[30:31]
	v_mul_lo_u32 v2, v2, v2
	v_add_nc_u32 v2, 7, v2
	s_setpc_b64 s[30:31]
.Lasm_call_subroutine_end:
	.size asm_call_subroutine, .Lasm_call_subroutine_end-asm_call_subroutine

	CORPUS_DESCRIPTOR asm_call_subroutine, 4, 32, 1, 0, 0, 0, 16

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .name: 'x'
        .offset: 0
        .size: 8
        .address_space: global
        .value_kind: global_buffer
      - .name: 'out'
        .offset: 8
        .size: 8
        .address_space: global
        .value_kind: global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 1024
    .name: asm_call_subroutine
    .private_segment_fixed_size: 0
    .sgpr_count: 32
    .symbol: asm_call_subroutine.kd
    .uses_dynamic_stack: false
    .vgpr_count: 4
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
