; asm_valu_mix: three-operand integer VALU ops on a = a[i], b = b[i], c = c[i]:
; out[i*8 + ..] = low and high word of v_mad_u64_u32 a * b + c, v_bfe_u32(a, b & 31, c & 31),
; v_perm_b32(a, b, 0x07050301), v_alignbit_b32(a, b, c & 31), v_med3_i32(a, b, c),
; v_xad_u32 (a ^ b) + c, v_lshl_add_u32 (a << (b & 31)) + c.

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_valu_mix
	.p2align 8
	.type asm_valu_mix,@function
asm_valu_mix:
	GLOBAL_ID v1, s5
	s_load_b256 s[8:15], s[2:3], 0x0        ; a, b, c, out
	v_lshlrev_b32 v2, 2, v1
	s_waitcnt lgkmcnt(0)
	global_load_b32 v3, v2, s[8:9]
	global_load_b32 v4, v2, s[10:11]
	global_load_b32 v5, v2, s[12:13]
	v_lshlrev_b32 v20, 5, v1
	s_waitcnt vmcnt(0)
	v_and_b32 v6, 31, v4                    ; b & 31
	v_and_b32 v7, 31, v5                    ; c & 31
	v_mov_b32 v8, v5
	v_mov_b32 v9, 0
	v_mad_u64_u32 v[10:11], null, v3, v4, v[8:9]
	v_bfe_u32 v12, v3, v6, v7
	v_perm_b32 v13, v3, v4, 0x07050301
	v_alignbit_b32 v14, v3, v4, v7
	v_med3_i32 v15, v3, v4, v5
	v_xad_u32 v16, v3, v4, v5
	v_lshl_add_u32 v17, v3, v6, v5
	global_store_b128 v20, v[10:13], s[14:15]
	global_store_b128 v20, v[14:17], s[14:15] offset:16
	s_endpgm
.Lasm_valu_mix_end:
	.size asm_valu_mix, .Lasm_valu_mix_end-asm_valu_mix

	CORPUS_DESCRIPTOR asm_valu_mix, 21, 16, 1, 0, 0, 0, 32

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
      - .name: 'out'
        .offset: 24
        .size: 8
        .address_space: global
        .value_kind: global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 32
    .max_flat_workgroup_size: 1024
    .name: asm_valu_mix
    .private_segment_fixed_size: 0
    .sgpr_count: 16
    .symbol: asm_valu_mix.kd
    .uses_dynamic_stack: false
    .vgpr_count: 21
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
