; asm_barrier_rounds: out[i] = rounds * i + 1 for global ids i: each round adds i to a sum
; that starts at 1, stores it and waits at an s_barrier. A workgroup whose size is not a multiple of 32 has a last
; wave with part of its lanes after full ones, so a translated region that goes on with
; the next wave at the barrier meets a wave whose EXEC is not all ones; its stores must
; write only its lanes (an inactive lane's sum and offset are 0: a store of it would
; overwrite out[0]'s 1).

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_barrier_rounds
	.p2align 8
	.type asm_barrier_rounds,@function
asm_barrier_rounds:
	; Every lane's v1, v2 and v3 start at 0, the inactive ones' too.
	s_mov_b32 s12, exec_lo
	s_mov_b32 exec_lo, -1
	v_mov_b32 v1, 0
	v_mov_b32 v2, 0
	v_mov_b32 v3, 0
	s_mov_b32 exec_lo, s12
	GLOBAL_ID v1, s5
	s_load_b64 s[8:9], s[2:3], 0x0          ; out
	s_load_b32 s10, s[2:3], 0x8             ; rounds (at least 1)
	v_mov_b32 v2, 1
	v_lshlrev_b32 v3, 2, v1
	s_mov_b32 s11, 0
	s_waitcnt lgkmcnt(0)
.Lrounds_loop:
	v_add_nc_u32 v2, v2, v1
	global_store_b32 v3, v2, s[8:9]
	s_barrier
	s_add_i32 s11, s11, 1
	s_cmp_lg_u32 s11, s10
	s_cbranch_scc1 .Lrounds_loop
	s_endpgm
.Lasm_barrier_rounds_end:
	.size asm_barrier_rounds, .Lasm_barrier_rounds_end-asm_barrier_rounds

	CORPUS_DESCRIPTOR asm_barrier_rounds, 4, 13, 1, 0, 0, 0, 16

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .name: 'out'
        .offset: 0
        .size: 8
        .address_space: global
        .value_kind: global_buffer
      - .name: 'rounds'
        .offset: 8
        .size: 4
        .value_kind: by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 1024
    .name: asm_barrier_rounds
    .private_segment_fixed_size: 0
    .sgpr_count: 13
    .symbol: asm_barrier_rounds.kd
    .uses_dynamic_stack: false
    .vgpr_count: 4
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
