; asm_f64_ops: f64 VALU: for a = a[i], b = b[i]: out[i*4 + ..] = fma(a, b, a), a + b, a * b,
; max(a, b) (v_fma_f64, v_add_f64, v_mul_f64, v_max_f64).

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_f64_ops
	.p2align 8
	.type asm_f64_ops,@function
asm_f64_ops:
	GLOBAL_ID v1, s5
	s_load_b128 s[8:11], s[2:3], 0x0        ; a, b
	s_load_b64 s[12:13], s[2:3], 0x10       ; out
	v_lshlrev_b32 v2, 3, v1
	s_waitcnt lgkmcnt(0)
	global_load_b64 v[4:5], v2, s[8:9]
	global_load_b64 v[6:7], v2, s[10:11]
	v_lshlrev_b32 v3, 5, v1
	s_waitcnt vmcnt(0)
	v_fma_f64 v[8:9], v[4:5], v[6:7], v[4:5]
	v_add_f64 v[10:11], v[4:5], v[6:7]
	v_mul_f64 v[12:13], v[4:5], v[6:7]
	v_max_f64 v[14:15], v[4:5], v[6:7]
	global_store_b128 v3, v[8:11], s[12:13]
	global_store_b128 v3, v[12:15], s[12:13] offset:16
	s_endpgm
.Lasm_f64_ops_end:
	.size asm_f64_ops, .Lasm_f64_ops_end-asm_f64_ops

	CORPUS_DESCRIPTOR asm_f64_ops, 16, 14, 1, 0, 0, 0, 24

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
    .name: asm_f64_ops
    .private_segment_fixed_size: 0
    .sgpr_count: 14
    .symbol: asm_f64_ops.kd
    .uses_dynamic_stack: false
    .vgpr_count: 16
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
