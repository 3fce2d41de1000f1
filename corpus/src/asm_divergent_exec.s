; asm_divergent_exec: v = x[i]; v = odd(v) ? 3v + 1 : v >> 1 (if/else on the exec mask); then
; while v > 100: v -= 100 (a loop whose lanes leave one by one); out[i] = v.

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_divergent_exec
	.p2align 8
	.type asm_divergent_exec,@function
asm_divergent_exec:
	GLOBAL_ID v1, s5
	s_load_b128 s[8:11], s[2:3], 0x0        ; x, out
	v_lshlrev_b32 v1, 2, v1
	s_waitcnt lgkmcnt(0)
	global_load_b32 v2, v1, s[8:9]
	s_waitcnt vmcnt(0)
	v_and_b32 v3, 1, v2
	v_cmp_ne_u32 vcc_lo, 0, v3
	s_and_saveexec_b32 s12, vcc_lo          ; odd lanes
	s_cbranch_execz .Ldiv_else
	v_mul_lo_u32 v2, v2, 3
	v_add_nc_u32 v2, 1, v2
.Ldiv_else:
	s_xor_b32 exec_lo, exec_lo, s12         ; even lanes (s12 = lanes before the if)
	s_cbranch_execz .Ldiv_join
	v_lshrrev_b32 v2, 1, v2
.Ldiv_join:
	s_mov_b32 exec_lo, s12
	s_mov_b32 s13, exec_lo
.Ldiv_loop:
	v_cmp_lt_u32 vcc_lo, 100, v2
	s_and_b32 exec_lo, exec_lo, vcc_lo
	s_cbranch_execz .Ldiv_loop_end
	v_subrev_nc_u32 v2, 100, v2
	s_branch .Ldiv_loop
.Ldiv_loop_end:
	s_mov_b32 exec_lo, s13
	global_store_b32 v1, v2, s[10:11]
	s_endpgm
.Lasm_divergent_exec_end:
	.size asm_divergent_exec, .Lasm_divergent_exec_end-asm_divergent_exec

	CORPUS_DESCRIPTOR asm_divergent_exec, 4, 14, 1, 0, 0, 0, 16

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
    .name: asm_divergent_exec
    .private_segment_fixed_size: 0
    .sgpr_count: 14
    .symbol: asm_divergent_exec.kd
    .uses_dynamic_stack: false
    .vgpr_count: 4
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
