; asm_vopd: dual-issue VOPD pairs on f32: for a = a[i], b = b[i]:
; out[i*4 + ..] = a * b, b - a, fma(a, b, a * b), b (v_dual_mul/sub, then v_dual_fmac/mov).

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_vopd
	.p2align 8
	.type asm_vopd,@function
asm_vopd:
	GLOBAL_ID v1, s5
	s_load_b128 s[8:11], s[2:3], 0x0        ; a, b
	s_load_b64 s[12:13], s[2:3], 0x10       ; out
	v_lshlrev_b32 v1, 2, v1
	s_waitcnt lgkmcnt(0)
	global_load_b32 v2, v1, s[8:9]
	global_load_b32 v3, v1, s[10:11]
	s_waitcnt vmcnt(0)
	v_mov_b32 v6, v2
	v_mov_b32 v7, v3
	v_dual_mul_f32 v4, v2, v3 :: v_dual_sub_f32 v5, v7, v6
	v_mov_b32 v8, v4
	v_dual_fmac_f32 v8, v2, v3 :: v_dual_mov_b32 v9, v7
	v_lshlrev_b32 v10, 2, v1                ; 16 * global id
	global_store_b32 v10, v4, s[12:13]
	global_store_b32 v10, v5, s[12:13] offset:4
	global_store_b32 v10, v8, s[12:13] offset:8
	global_store_b32 v10, v9, s[12:13] offset:12
	s_endpgm
.Lasm_vopd_end:
	.size asm_vopd, .Lasm_vopd_end-asm_vopd

	CORPUS_DESCRIPTOR asm_vopd, 12, 14, 1, 0, 0, 0, 24

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .name: 'a'
        .offset: 0
        .size: 8
        .address_space: global
        .value_kind: global_buffer
      - .name: 'b'
        .offset: 8
        .size: 8
        .address_space: global
        .value_kind: global_buffer
      - .name: 'out'
        .offset: 16
        .size: 8
        .address_space: global
        .value_kind: global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 24
    .max_flat_workgroup_size: 1024
    .name: asm_vopd
    .private_segment_fixed_size: 0
    .sgpr_count: 14
    .symbol: asm_vopd.kd
    .uses_dynamic_stack: false
    .vgpr_count: 12
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
