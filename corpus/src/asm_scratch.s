; asm_scratch: private memory through scratch_* instructions (architected flat scratch): each
; item stores x ^ k at private word k for k < 16 (immediate offsets), then loads word
; (x + k) % 16 for k < 16 (per-lane addresses) and sums them: out[i] = sum over j < 16 of x ^ j.

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_scratch
	.p2align 8
	.type asm_scratch,@function
asm_scratch:
	GLOBAL_ID v1, s5
	s_load_b128 s[8:11], s[2:3], 0x0        ; x, out
	v_lshlrev_b32 v1, 2, v1
	s_waitcnt lgkmcnt(0)
	global_load_b32 v2, v1, s[8:9]
	s_waitcnt vmcnt(0)
	.irp k, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	v_xor_b32 v3, \k, v2
	scratch_store_b32 off, v3, off offset:4*\k
	.endr
	v_mov_b32 v4, 0                         ; sum
	s_mov_b32 s12, 0                        ; k
.Lscratch_loop:
	v_add_nc_u32 v5, s12, v2
	v_and_b32 v5, 15, v5
	v_lshlrev_b32 v5, 2, v5
	scratch_load_b32 v6, v5, off
	s_waitcnt vmcnt(0)
	v_add_nc_u32 v4, v4, v6
	s_add_u32 s12, s12, 1
	s_cmp_lt_u32 s12, 16
	s_cbranch_scc1 .Lscratch_loop
	global_store_b32 v1, v4, s[10:11]
	s_endpgm
.Lasm_scratch_end:
	.size asm_scratch, .Lasm_scratch_end-asm_scratch

	CORPUS_DESCRIPTOR asm_scratch, 8, 16, 1, 64, 1, 0, 16

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
    .name: asm_scratch
    .private_segment_fixed_size: 64
    .sgpr_count: 16
    .symbol: asm_scratch.kd
    .uses_dynamic_stack: false
    .vgpr_count: 8
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
