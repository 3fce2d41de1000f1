; corpus-flags: -mattr=+wavefrontsize64
; asm_wave64_triple (wave64): out[i] = 3 * a[i] for i < n (64-bit exec mask), and for each wave w
; odd[w] = number of odd a[i] among its active lanes (v_cmp into the 64-bit vcc, s_bcnt1_i32_b64).

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_wave64_triple
	.p2align 8
	.type asm_wave64_triple,@function
asm_wave64_triple:
	GLOBAL_ID v1, s5
	s_load_b256 s[8:15], s[2:3], 0x0        ; a, out, odd, n
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32 vcc, s14, v1
	s_and_saveexec_b64 s[16:17], vcc
	s_cbranch_execz .Lw64_done
	v_lshlrev_b32 v2, 2, v1
	global_load_b32 v3, v2, s[8:9]
	s_waitcnt vmcnt(0)
	v_mul_lo_u32 v4, v3, 3
	global_store_b32 v2, v4, s[10:11]
	v_and_b32 v5, 1, v3
	v_cmp_ne_u32 vcc, 0, v5
	s_bcnt1_i32_b64 s18, vcc
	v_and_b32 v6, 63, v0
	v_cmp_eq_u32 vcc, 0, v6
	s_and_b64 exec, exec, vcc               ; lane 0 of the wave
	s_cbranch_execz .Lw64_done
	v_lshrrev_b32 v7, 6, v1
	v_lshlrev_b32 v7, 2, v7
	v_mov_b32 v8, s18
	global_store_b32 v7, v8, s[12:13]
.Lw64_done:
	s_endpgm
.Lasm_wave64_triple_end:
	.size asm_wave64_triple, .Lasm_wave64_triple_end-asm_wave64_triple

	CORPUS_DESCRIPTOR asm_wave64_triple, 12, 19, 0, 0, 0, 0, 32

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .name: 'a'
        .offset: 0
        .size: 8
        .address_space: global
        .value_kind: global_buffer
      - .name: 'out'
        .offset: 8
        .size: 8
        .address_space: global
        .value_kind: global_buffer
      - .name: 'odd'
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
    .name: asm_wave64_triple
    .private_segment_fixed_size: 0
    .sgpr_count: 19
    .symbol: asm_wave64_triple.kd
    .uses_dynamic_stack: false
    .vgpr_count: 12
    .wavefront_size: 64
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
