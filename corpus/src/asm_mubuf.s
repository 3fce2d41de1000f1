; asm_mubuf: buffer (MUBUF) loads and stores through buffer resources built in SGPRs:
; in_rsrc covers n words of `in` (num_records = 4n), so items i >= n read 0 (bounds-checked raw
; buffer); out[i] = in[i] + 1 via an out_rsrc covering `count` words.

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.include "corpus_asm.inc"

	.text
	.globl asm_mubuf
	.p2align 8
	.type asm_mubuf,@function
asm_mubuf:
	GLOBAL_ID v1, s5
	s_load_b256 s[8:15], s[2:3], 0x0        ; in, out, n, count
	v_lshlrev_b32 v1, 2, v1
	s_waitcnt lgkmcnt(0)
	s_mov_b32 s16, s8                       ; in_rsrc: base
	s_and_b32 s17, s9, 0xffff               ;          base high 16 bits, stride 0
	s_lshl_b32 s18, s12, 2                  ;          num_records (bytes)
	s_mov_b32 s19, 0x30016fac               ;          dst_sel xyzw, format 32_FLOAT, raw OOB
	s_mov_b32 s20, s10                      ; out_rsrc
	s_and_b32 s21, s11, 0xffff
	s_lshl_b32 s22, s13, 2
	s_mov_b32 s23, 0x30016fac
	buffer_load_b32 v2, v1, s[16:19], 0 offen
	s_waitcnt vmcnt(0)
	v_add_nc_u32 v2, 1, v2
	buffer_store_b32 v2, v1, s[20:23], 0 offen
	s_endpgm
.Lasm_mubuf_end:
	.size asm_mubuf, .Lasm_mubuf_end-asm_mubuf

	CORPUS_DESCRIPTOR asm_mubuf, 4, 24, 1, 0, 0, 0, 32

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
      - .name: 'len'
        .offset: 16
        .size: 4
        .value_kind: by_value
      - .name: 'count'
        .offset: 20
        .size: 4
        .value_kind: by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 32
    .max_flat_workgroup_size: 1024
    .name: asm_mubuf
    .private_segment_fixed_size: 0
    .sgpr_count: 24
    .symbol: asm_mubuf.kd
    .uses_dynamic_stack: false
    .vgpr_count: 4
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
