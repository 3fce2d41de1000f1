; asm_salu_loop: a scalar loop per workgroup g: acc = 0; for k in 0..n: acc = rotl(acc, 1) +
; ((k * k) ^ g); then lane 0 writes out[g] = acc. Only SALU arithmetic, s_cmp and s_cbranch.

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_salu_loop
	.p2align 8
	.type asm_salu_loop,@function
asm_salu_loop:
	s_load_b64 s[8:9], s[2:3], 0x0          ; out
	s_load_b32 s10, s[2:3], 0x8             ; n
	v_and_b32 v0, 0x3ff, v0
	s_mov_b32 s11, 0                        ; acc
	s_mov_b32 s12, 0                        ; k
	s_waitcnt lgkmcnt(0)
	s_cmp_eq_u32 s10, 0
	s_cbranch_scc1 .Lsalu_store
.Lsalu_loop:
	s_lshl_b32 s13, s11, 1
	s_lshr_b32 s14, s11, 31
	s_or_b32 s11, s13, s14
	s_mul_i32 s13, s12, s12
	s_xor_b32 s13, s13, s4
	s_add_u32 s11, s11, s13
	s_add_u32 s12, s12, 1
	s_cmp_lt_u32 s12, s10
	s_cbranch_scc1 .Lsalu_loop
.Lsalu_store:
	v_cmp_eq_u32 vcc_lo, 0, v0
	s_and_saveexec_b32 s15, vcc_lo
	s_cbranch_execz .Lsalu_done
	s_lshl_b32 s13, s4, 2
	v_mov_b32 v1, s13
	v_mov_b32 v2, s11
	global_store_b32 v1, v2, s[8:9]
.Lsalu_done:
	s_endpgm
.Lasm_salu_loop_end:
	.size asm_salu_loop, .Lasm_salu_loop_end-asm_salu_loop

	CORPUS_DESCRIPTOR asm_salu_loop, 3, 16, 1, 0, 0, 0, 16

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .name: 'out'
        .offset: 0
        .size: 8
        .address_space: global
        .value_kind: global_buffer
      - .name: 'len'
        .offset: 8
        .size: 4
        .value_kind: by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 1024
    .name: asm_salu_loop
    .private_segment_fixed_size: 0
    .sgpr_count: 16
    .symbol: asm_salu_loop.kd
    .uses_dynamic_stack: false
    .vgpr_count: 3
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
