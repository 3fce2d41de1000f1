; asm_vadd_u32: c[i] = a[i] + b[i] (u32 wrapping) for global ids i < n; ids >= n do nothing
; (exec mask from v_cmp + s_and_saveexec_b32).

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_vadd_u32
	.p2align 8
	.type asm_vadd_u32,@function
asm_vadd_u32:
	GLOBAL_ID v1, s5
	s_load_b256 s[8:15], s[2:3], 0x0        ; a, b, c, n
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32 vcc_lo, s14, v1
	s_and_saveexec_b32 s16, vcc_lo
	s_cbranch_execz .Lvadd_done
	v_lshlrev_b32 v1, 2, v1
	global_load_b32 v2, v1, s[8:9]
	global_load_b32 v3, v1, s[10:11]
	s_waitcnt vmcnt(0)
	v_add_nc_u32 v2, v2, v3
	global_store_b32 v1, v2, s[12:13]
.Lvadd_done:
	s_endpgm
.Lasm_vadd_u32_end:
	.size asm_vadd_u32, .Lasm_vadd_u32_end-asm_vadd_u32

	CORPUS_DESCRIPTOR asm_vadd_u32, 4, 17, 1, 0, 0, 0, 32

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
      - .name: 'c'
        .offset: 16
        .size: 8
        .address_space: global
        .value_kind: global_buffer
      - .name: 'len'
        .offset: 24
        .size: 4
        .value_kind: by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 32
    .max_flat_workgroup_size: 1024
    .name: asm_vadd_u32
    .private_segment_fixed_size: 0
    .sgpr_count: 17
    .symbol: asm_vadd_u32.kd
    .uses_dynamic_stack: false
    .vgpr_count: 4
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
