; asm_ds_ops (groups of exactly 64 items, two waves): item l stores x = in[i] to LDS word l and
; adds it to an LDS counter (ds_add_u32); after a barrier out[i*4 + ..] =
;  0: LDS word (l + 1) % 64 (the next item, across waves), 1: ds_swizzle xor 16 (x of lane l ^ 16
;  in the wave), 2: ds_bpermute from lane (l + 1) % 32 of the wave, 3: the group's sum.

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_ds_ops
	.p2align 8
	.type asm_ds_ops,@function
asm_ds_ops:
	GLOBAL_ID v1, s5
	s_load_b128 s[8:11], s[2:3], 0x0        ; in, out
	v_lshlrev_b32 v5, 2, v1                 ; 4 * global id
	v_lshlrev_b32 v6, 2, v0                 ; 4 * local id
	v_mov_b32 v9, 0
	v_mov_b32 v10, 0x100
	v_cmp_eq_u32 vcc_lo, 0, v0
	s_and_saveexec_b32 s12, vcc_lo
	ds_store_b32 v10, v9                    ; counter = 0 (item 0)
	s_mov_b32 exec_lo, s12
	s_waitcnt lgkmcnt(0)
	global_load_b32 v2, v5, s[8:9]
	s_waitcnt vmcnt(0) lgkmcnt(0)
	s_barrier
	ds_store_b32 v6, v2
	ds_add_u32 v10, v2
	s_waitcnt lgkmcnt(0)
	s_barrier
	v_add_nc_u32 v7, 4, v6
	v_and_b32 v7, 0xff, v7
	ds_load_b32 v3, v7
	ds_swizzle_b32 v4, v2 offset:0x401f
	v_add_nc_u32 v8, 1, v0
	v_and_b32 v8, 31, v8
	v_lshlrev_b32 v8, 2, v8
	ds_bpermute_b32 v8, v8, v2
	ds_load_b32 v11, v10
	v_lshlrev_b32 v12, 4, v1                ; 16 * global id
	s_waitcnt lgkmcnt(0)
	global_store_b32 v12, v3, s[10:11]
	global_store_b32 v12, v4, s[10:11] offset:4
	global_store_b32 v12, v8, s[10:11] offset:8
	global_store_b32 v12, v11, s[10:11] offset:12
	s_endpgm
.Lasm_ds_ops_end:
	.size asm_ds_ops, .Lasm_ds_ops_end-asm_ds_ops

	CORPUS_DESCRIPTOR asm_ds_ops, 16, 16, 1, 0, 0, 260, 16

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
    .group_segment_fixed_size: 260
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 64
    .name: asm_ds_ops
    .private_segment_fixed_size: 0
    .sgpr_count: 16
    .symbol: asm_ds_ops.kd
    .uses_dynamic_stack: false
    .vgpr_count: 16
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
