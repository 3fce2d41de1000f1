; asm_wmma_f16 (wave32): one v_wmma_f32_16x16x16_f16 per wave w on lane-ready layouts:
; A row r (16 f16) at a + w*512 + 32r, column r of B stored as row r of bt (same layout),
; C and D in the accumulator's own order: lane l's 8 f32 at c/d + w*1024 + 32l, where element j
; of lane l is row 2j + l/16, column l%16 of the 16x16 result.

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_wmma_f16
	.p2align 8
	.type asm_wmma_f16,@function
asm_wmma_f16:
	GLOBAL_ID v1, s5
	s_load_b256 s[8:15], s[2:3], 0x0        ; a, bt, c, d
	v_lshrrev_b32 v2, 5, v1                 ; wave (tile) index
	v_and_b32 v3, 15, v1                    ; r = lane % 16
	v_and_b32 v4, 31, v1                    ; lane
	v_lshlrev_b32 v5, 9, v2                 ; tile * 512
	v_lshl_add_u32 v5, v3, 5, v5            ; + 32r
	v_lshlrev_b32 v6, 10, v2                ; tile * 1024
	v_lshl_add_u32 v6, v4, 5, v6            ; + 32 * lane
	s_waitcnt lgkmcnt(0)
	global_load_b128 v[10:13], v5, s[8:9]
	global_load_b128 v[14:17], v5, s[8:9] offset:16
	global_load_b128 v[18:21], v5, s[10:11]
	global_load_b128 v[22:25], v5, s[10:11] offset:16
	global_load_b128 v[26:29], v6, s[12:13]
	global_load_b128 v[30:33], v6, s[12:13] offset:16
	s_waitcnt vmcnt(0)
	v_wmma_f32_16x16x16_f16 v[26:33], v[10:17], v[18:25], v[26:33]
	global_store_b128 v6, v[26:29], s[14:15]
	global_store_b128 v6, v[30:33], s[14:15] offset:16
	s_endpgm
.Lasm_wmma_f16_end:
	.size asm_wmma_f16, .Lasm_wmma_f16_end-asm_wmma_f16

	CORPUS_DESCRIPTOR asm_wmma_f16, 34, 16, 1, 0, 0, 0, 32

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .name: 'a'
        .offset: 0
        .size: 8
        .address_space: global
        .value_kind: global_buffer
      - .name: 'bt'
        .offset: 8
        .size: 8
        .address_space: global
        .value_kind: global_buffer
      - .name: 'c'
        .offset: 16
        .size: 8
        .address_space: global
        .value_kind: global_buffer
      - .name: 'd'
        .offset: 24
        .size: 8
        .address_space: global
        .value_kind: global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 32
    .max_flat_workgroup_size: 1024
    .name: asm_wmma_f16
    .private_segment_fixed_size: 0
    .sgpr_count: 16
    .symbol: asm_wmma_f16.kd
    .uses_dynamic_stack: false
    .vgpr_count: 34
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
