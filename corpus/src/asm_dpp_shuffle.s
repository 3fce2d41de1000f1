; asm_dpp_shuffle (wave32, whole waves): for x = in[i], out[i*3 + ..] =
;  0: v_mov_b32_dpp row_shr:1 bound_ctrl (lane 0 of each row gets 0),
;  1: v_add_nc_u32_dpp quad_perm:[3,2,1,0]: x of lane (l ^ 3) + x of lane l,
;  2: v_permlanex16_b32 with selects 0x01234567 / 0x89abcdef: x of lane 15 - l%16 of the other row.

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_dpp_shuffle
	.p2align 8
	.type asm_dpp_shuffle,@function
asm_dpp_shuffle:
	GLOBAL_ID v1, s5
	s_load_b128 s[8:11], s[2:3], 0x0        ; in, out
	v_lshlrev_b32 v5, 2, v1
	s_waitcnt lgkmcnt(0)
	global_load_b32 v2, v5, s[8:9]
	v_mul_u32_u24 v6, 12, v1
	s_mov_b32 s12, 0x01234567
	s_mov_b32 s13, 0x89abcdef
	s_waitcnt vmcnt(0)
	v_mov_b32 v3, 0xdead
	v_mov_b32_dpp v3, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_add_nc_u32_dpp v4, v2, v2 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
	v_mov_b32 v7, v2
	v_permlanex16_b32 v7, v2, s12, s13
	global_store_b32 v6, v3, s[10:11]
	global_store_b32 v6, v4, s[10:11] offset:4
	global_store_b32 v6, v7, s[10:11] offset:8
	s_endpgm
.Lasm_dpp_shuffle_end:
	.size asm_dpp_shuffle, .Lasm_dpp_shuffle_end-asm_dpp_shuffle

	CORPUS_DESCRIPTOR asm_dpp_shuffle, 8, 14, 1, 0, 0, 0, 16

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .name: 'in'
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
    .name: asm_dpp_shuffle
    .private_segment_fixed_size: 0
    .sgpr_count: 14
    .symbol: asm_dpp_shuffle.kd
    .uses_dynamic_stack: false
    .vgpr_count: 8
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
