#!/usr/bin/env bash
# Regenerates the decoder test vectors <family>.txt from the assembly below:
# each line is assembled with llvm-mc-19 (gfx1100), the encoding is then
# disassembled again by llvm-mc-19, and "dword dword ... ; llvm text" is written.
# The text is the disassembler's (e.g. branch offsets as unsigned 16-bit).
# Not covered: hwreg/sendmsg names other than
# HW_REG_MODE, MSG_DEALLOC_VGPRS and the MSG_RTN_* of s_sendmsg_rtn, DPP/SDWA.
# Usage: crates/isa/tests/isa_vectors/generate.sh   (needs llvm-mc-19, python3)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
MC=(llvm-mc-19 -arch=amdgcn -mcpu=gfx1100)

emit() { # family; assembly on stdin
  local fam="$1" src
  src="$(cat)"
  printf '%s\n' "$src" | "${MC[@]}" -show-encoding | python3 -c '
import re, subprocess, sys
fam = sys.argv[1]
rows = []
for line in sys.stdin:
    m = re.search(r"encoding: \[(.*)\]", line)
    if not m:
        continue
    b = [int(x, 16) for x in m.group(1).split(",")]
    words = [b[i] | b[i+1] << 8 | b[i+2] << 16 | b[i+3] << 24 for i in range(0, len(b), 4)]
    dis = subprocess.run(["llvm-mc-19", "-arch=amdgcn", "-mcpu=gfx1100", "-disassemble"],
                         input=m.group(1) + "\n", capture_output=True, text=True).stdout
    text = [l.strip() for l in dis.splitlines() if l.strip() and not l.strip().startswith(".text")]
    if len(text) != 1:
        sys.exit("%s: %s did not round-trip: %r" % (fam, m.group(1), text))
    rows.append(" ".join("%08x" % w for w in words) + " ; " + re.sub(r"\s+", " ", text[0]))
open(fam + ".txt", "w").write("\n".join(rows) + "\n")
print(fam, len(rows))
' "$fam"
}

emit sop2 <<'EOF'
s_add_u32 s1, s2, s3
s_add_u32 s1, 0x12345678, s2
s_addc_u32 s0, s0, 0
s_sub_u32 s5, -1, s6
s_subb_u32 s5, s6, 64
s_add_i32 s1, -16, s2
s_sub_i32 s100, s101, 0.5
s_min_i32 s1, s2, s3
s_max_u32 vcc_lo, s2, exec_lo
s_cselect_b32 s1, s2, 1.0
s_cselect_b64 s[2:3], s[4:5], -4.0
s_and_b32 s2, s2, 0xffff
s_and_b64 s[0:1], exec, vcc
s_or_b32 exec_lo, exec_lo, s8
s_xor_b64 s[10:11], s[12:13], 0x3f800000
s_and_not1_b32 exec_lo, exec_lo, s10
s_or_not1_b64 s[2:3], s[4:5], s[6:7]
s_nand_b32 s1, m0, s3
s_nor_b32 s1, s2, src_scc
s_xnor_b64 s[2:3], s[4:5], 0
s_lshl_b32 s9, s3, 2
s_lshr_b32 s1, s2, s3
s_ashr_i32 s1, s2, 31
s_lshl_b64 s[0:1], s[2:3], 2
s_lshr_b64 s[0:1], s[2:3], s4
s_ashr_i64 s[0:1], s[2:3], 63
s_lshl1_add_u32 s1, s2, s3
s_lshl4_add_u32 s1, s2, s3
s_bfm_b32 s1, s2, s3
s_bfm_b64 s[2:3], s4, s5
s_mul_i32 s1, s2, s3
s_mul_hi_u32 s1, s2, s3
s_mul_hi_i32 s1, s2, -7
s_bfe_u32 s1, s2, 0x80008
s_bfe_i64 s[2:3], s[4:5], 0x200000
s_absdiff_i32 s1, s2, s3
s_pack_ll_b32_b16 s1, s2, s3
s_pack_hh_b32_b16 s1, s2, s3
s_add_u32 s1, s2, src_shared_base
EOF

emit sop1 <<'EOF'
s_sendmsg_rtn_b64 s[2:3], sendmsg(MSG_RTN_GET_REALTIME)
s_sendmsg_rtn_b32 s2, sendmsg(MSG_RTN_GET_REALTIME)
s_sendmsg_rtn_b64 s[4:5], sendmsg(MSG_RTN_GET_TMA)
s_sendmsg_rtn_b64 s[4:5], sendmsg(MSG_RTN_GET_TBA)
s_mov_b32 s2, exec_lo
s_mov_b32 s1, 0x12345678
s_mov_b32 m0, -1
s_mov_b64 s[2:3], 0
s_mov_b64 vcc, exec
s_cmov_b32 s1, s2
s_not_b32 s1, s2
s_not_b64 s[2:3], s[4:5]
s_wqm_b32 s1, s2
s_brev_b32 s1, s2
s_bcnt1_i32_b32 s1, s2
s_bcnt0_i32_b64 s1, s[2:3]
s_ctz_i32_b32 s1, s2
s_clz_i32_u32 s1, s2
s_cls_i32 s1, s2
s_sext_i32_i8 s1, s2
s_sext_i32_i16 s1, s2
s_bitset0_b32 s1, s2
s_bitset1_b32 s1, 7
s_getpc_b64 s[0:1]
s_setpc_b64 s[30:31]
s_swappc_b64 s[30:31], s[4:5]
s_and_saveexec_b32 s8, vcc_lo
s_or_saveexec_b32 s0, -1
s_xor_saveexec_b32 s1, s2
s_and_not1_saveexec_b32 s1, s2
s_and_not0_wrexec_b32 s1, s2
s_abs_i32 s1, s2
s_movrels_b32 s1, s2
s_quadmask_b32 s1, s2
EOF

emit sopk <<'EOF'
s_movk_i32 s1, 0x1234
s_movk_i32 s1, 0xfff0
s_cmovk_i32 s2, 0x10
s_cmpk_eq_u32 s1, 0x10
s_cmpk_lg_i32 s1, 0x8000
s_cmpk_gt_u32 s1, 0x1
s_cmpk_le_i32 s1, 0x7fff
s_addk_i32 s1, 0x100
s_mulk_i32 s1, 0x3
s_waitcnt_vscnt null, 0x0
s_waitcnt_vmcnt null, 0x1
s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 4)
s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s3
s_call_b64 s[30:31], 16
EOF

emit sopc <<'EOF'
s_cmp_eq_u32 s1, s2
s_cmp_eq_u32 s1, 0
s_cmp_lg_u32 s1, 0x12345
s_cmp_gt_i32 s1, -1
s_cmp_ge_i32 s1, s2
s_cmp_lt_i32 s1, s2
s_cmp_le_u32 s1, 64
s_cmp_lt_u32 s1, s2
s_cmp_ge_u32 exec_lo, vcc_lo
s_cmp_eq_u64 s[2:3], 0
s_cmp_lg_u64 s[2:3], s[4:5]
s_bitcmp0_b32 s1, 3
s_bitcmp1_b64 s[2:3], s4
EOF

emit sopp <<'EOF'
s_nop 0
s_nop 7
s_endpgm
s_barrier
s_branch 29
s_branch -12
s_cbranch_scc0 4
s_cbranch_scc1 5
s_cbranch_vccz 6
s_cbranch_vccnz 7
s_cbranch_execz 17
s_cbranch_execnz -20
s_clause 0x1
s_clause 0x3f
s_waitcnt lgkmcnt(0)
s_waitcnt vmcnt(0)
s_waitcnt vmcnt(1) lgkmcnt(2)
s_waitcnt expcnt(2)
s_delay_alu instid0(VALU_DEP_1)
s_delay_alu instid0(VALU_DEP_1) | instskip(SKIP_3) | instid1(VALU_DEP_1)
s_delay_alu instid0(SALU_CYCLE_1)
s_delay_alu instid0(TRANS32_DEP_1) | instskip(NEXT) | instid1(SALU_CYCLE_2)
s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)
s_sleep 2
s_setprio 1
s_trap 2
s_icache_inv
s_code_end
s_waitcnt_depctr 0xfffe
s_set_inst_prefetch_distance 0x1
EOF

emit smem <<'EOF'
s_load_b32 s2, s[0:1], 0x2c
s_load_b32 s0, s[0:1], null
s_load_b64 s[4:5], s[0:1], 0x10
s_load_b128 s[4:7], s[0:1], 0x8
s_load_b256 s[8:15], s[2:3], 0x100
s_load_b512 s[16:31], s[2:3], 0x40
s_load_b32 s5, s[2:3], s0 offset:0x10
s_load_b32 s5, s[2:3], s0
s_load_b32 s5, s[2:3], -0x10
s_load_b64 s[4:5], s[0:1], 0x10 glc
s_buffer_load_b32 s1, s[4:7], 0x4
s_buffer_load_b64 s[4:5], s[8:11], 0x20
s_buffer_load_b128 s[4:7], s[8:11], s12
s_dcache_inv
s_gl1_inv
EOF

emit vop1 <<'EOF'
v_mov_b32 v2, 0
v_mov_b32 v1, s2
v_mov_b32 v1, 0x12345678
v_mov_b32 v1, 0.15915494
v_mov_b32 v1, -4.0
v_mov_b32 v255, v0
v_mov_b32 v1, src_scc
v_readfirstlane_b32 s1, v2
v_cvt_f32_u32 v1, v2
v_cvt_i32_f32 v1, v2
v_cvt_u32_f32 v1, s3
v_cvt_f32_i32 v1, -1
v_cvt_f64_i32 v[2:3], v1
v_cvt_f32_f64 v1, v[2:3]
v_cvt_f64_f32 v[2:3], v1
v_cvt_f16_f32 v1, v2
v_cvt_f32_f16 v1, v2
v_cvt_floor_i32_f32 v1, v2
v_cvt_nearest_i32_f32 v1, v2
v_rcp_f32 v1, v2
v_rcp_iflag_f32 v1, v2
v_rsq_f32 v1, v2
v_sqrt_f32 v1, v2
v_exp_f32 v1, v2
v_log_f32 v1, v2
v_sin_f32 v1, v2
v_cos_f32 v1, v2
v_rcp_f64 v[2:3], v[4:5]
v_sqrt_f64 v[2:3], 1.0
v_frexp_exp_i32_f32 v1, v2
v_frexp_mant_f32 v1, v2
v_frexp_mant_f64 v[2:3], v[4:5]
v_fract_f32 v1, v2
v_trunc_f32 v1, v2
v_ceil_f32 v1, v2
v_floor_f32 v1, v2
v_rndne_f32 v1, v2
v_rndne_f64 v[2:3], v[4:5]
v_not_b32 v1, v2
v_bfrev_b32 v1, v2
v_clz_i32_u32 v1, v2
v_ctz_i32_b32 v1, v2
v_cvt_f32_ubyte0 v1, v2
v_cvt_f32_ubyte3 v1, v2
v_swap_b32 v1, v2
v_nop
EOF

emit vop2 <<'EOF'
v_add_f32 v1, v2, v3
v_add_f32 v1, s2, v3
v_add_f32 v1, 0x40400000, v3
v_add_f32 v1, 0.5, v3
v_sub_f32 v1, v2, v3
v_subrev_f32 v1, v2, v3
v_mul_f32 v1, v2, v3
v_fmac_f32 v3, s0, v2
v_fmamk_f32 v1, v2, 0x41200000, v3
v_fmaak_f32 v1, v2, v3, 0x41200000
v_max_f32 v1, v2, v3
v_min_f32 v1, v2, v3
v_add_nc_u32 v4, s3, v4
v_sub_nc_u32 v1, v2, v3
v_subrev_nc_u32 v1, 64, v3
v_add_co_ci_u32 v3, vcc_lo, s5, v1, vcc_lo
v_sub_co_ci_u32 v3, vcc_lo, v5, v1, vcc_lo
v_cndmask_b32 v1, v2, v3, vcc_lo
v_and_b32 v1, 0x3ff, v0
v_or_b32 v1, v2, v3
v_xor_b32 v1, -1, v3
v_lshlrev_b32 v3, 2, v0
v_lshrrev_b32 v1, 16, v3
v_ashrrev_i32 v1, 31, v3
v_max_i32 v1, v2, v3
v_min_u32 v1, v2, v3
v_mul_u32_u24 v1, v2, v3
v_mul_i32_i24 v1, v2, v3
v_mul_hi_u32_u24 v1, v2, v3
v_xnor_b32 v1, v2, v3
v_add_f16 v1, v2, v3
v_mul_f16 v1, 0x3c00, v3
v_ldexp_f16 v1, v2, v3
v_dot2acc_f32_f16 v1, v2, v3
v_fmac_f16 v1, v2, v3
v_cvt_pk_rtz_f16_f32 v1, v2, v3
EOF

emit vopc <<'EOF'
v_cmp_eq_u32 vcc_lo, v1, v2
v_cmp_gt_u32 vcc_lo, 0x100, v0
v_cmp_lt_u32 vcc_lo, 0xff, v0
v_cmp_ne_u32 vcc_lo, 0, v4
v_cmp_le_u32 vcc_lo, s1, v2
v_cmp_gt_f32 vcc_lo, 0.5, v2
v_cmp_ngt_f32 vcc_lo, v1, v2
v_cmp_nlt_f32 vcc_lo, v1, v2
v_cmp_u_f32 vcc_lo, v1, v2
v_cmp_o_f32 vcc_lo, v1, v2
v_cmp_lg_f32 vcc_lo, v1, v2
v_cmp_eq_f64 vcc_lo, v[1:2], v[3:4]
v_cmp_lt_i64 vcc_lo, v[1:2], v[3:4]
v_cmp_gt_u64 vcc_lo, 0, v[3:4]
v_cmp_eq_i32 vcc_lo, -1, v2
v_cmp_class_f32 vcc_lo, v1, v2
v_cmp_eq_f16 vcc_lo, v1, v2
v_cmp_lt_u16 vcc_lo, v1, v2
v_cmpx_gt_u32 v1, v2
v_cmpx_ne_u32 0, v4
v_cmpx_eq_u32 s1, v2
v_cmpx_lt_f32 1.0, v2
v_cmpx_class_f64 v[1:2], v3
EOF

emit vop3 <<'EOF'
v_add_f32_e64 v1, v2, v3
v_add_f32_e64 v1, |v2|, -v3
v_add_f32_e64 v1, -|v2|, v3 clamp
v_add_f32_e64 v1, v2, v3 mul:2
v_add_f32_e64 v1, s2, 0.5 div:2
v_mul_f32_e64 v1, v2, v3 mul:4
v_fma_f32 v1, v2, v3, v4
v_fma_f32 v1, -v2, v3, 1.0
v_fma_f32 v1, v2, 0x40490fdb, v4
v_fma_f64 v[1:2], v[3:4], v[5:6], v[7:8]
v_fma_f64 v[1:2], v[3:4], 2.0, -v[7:8]
v_add_f64 v[1:2], v[3:4], v[5:6]
v_mul_f64 v[1:2], v[3:4], 0x40080000
v_max_f64 v[1:2], v[3:4], v[5:6]
v_ldexp_f32 v1, v2, v3
v_ldexp_f64 v[1:2], v[3:4], v5
v_div_scale_f32 v1, vcc_lo, v2, v3, v4
v_div_scale_f64 v[1:2], s5, v[3:4], v[5:6], v[7:8]
v_div_fmas_f32 v1, v2, v3, v4
v_div_fmas_f64 v[1:2], v[3:4], v[5:6], v[7:8]
v_div_fixup_f32 v1, v2, v3, v4
v_div_fixup_f64 v[1:2], v[3:4], v[5:6], v[7:8]
v_mad_u64_u32 v[1:2], null, s15, s2, v[0:1]
v_mad_i64_i32 v[1:2], s3, v4, v5, v[6:7]
v_add_co_u32 v2, vcc_lo, s4, v0
v_add_co_u32 v1, s0, v1, s2
v_sub_co_u32 v1, s0, v2, v3
v_add_co_ci_u32_e64 v2, null, s7, 0, s0
v_add_co_ci_u32_e64 v2, s0, 0, v2, s0
v_mul_lo_u32 v1, v2, v3
v_mul_hi_u32 v1, v2, v3
v_mul_hi_i32 v1, v2, s3
v_add3_u32 v1, v2, v3, v4
v_lshl_add_u32 v1, v2, 2, v4
v_lshl_or_b32 v1, v2, 16, v4
v_and_or_b32 v1, v2, 0xff, v4
v_or3_b32 v1, v2, v3, v4
v_xor3_b32 v1, v2, v3, v4
v_xad_u32 v1, v2, v3, v4
v_bfe_u32 v1, v0, 10, 10
v_bfe_i32 v1, v0, 0, 8
v_bfi_b32 v1, v2, v3, v4
v_bfm_b32 v1, v2, v3
v_alignbit_b32 v1, v2, v3, 7
v_alignbyte_b32 v1, v2, v3, 1
v_perm_b32 v1, v2, v3, 0x5040100
v_lshlrev_b64 v[0:1], 2, v[1:2]
v_lshrrev_b64 v[0:1], v2, v[1:2]
v_ashrrev_i64 v[0:1], 63, v[1:2]
v_cndmask_b32_e64 v1, v2, v3, s4
v_cndmask_b32_e64 v1, 0, 1, vcc_lo
v_cmp_eq_u32_e64 s2, v1, v2
v_cmp_le_u32_e64 vcc_lo, s1, v2
v_cmp_lt_u32_e64 s2, 0xff, v4
v_cmpx_gt_u32_e64 s3, v1
v_cmp_gt_f32_e64 s1, |v1|, -v2
v_cmp_class_f32_e64 s1, v1, 3
v_readlane_b32 s1, v2, 3
v_writelane_b32 v1, s2, 5
v_mbcnt_lo_u32_b32 v1, -1, 0
v_mbcnt_hi_u32_b32 v1, -1, v1
v_med3_f32 v1, v2, v3, v4
v_min3_i32 v1, v2, v3, v4
v_max3_u32 v1, v2, v3, v4
v_maxmin_f32 v1, -v2, |v3|, v4 clamp
v_minmax_f32 v1, v2, s3, 0.5 mul:2
v_maxmin_i32 v1, v2, v3, v4
v_minmax_i32 v1, v2, -1, v4
v_maxmin_u32 v1, s2, v3, v4
v_minmax_u32 v1, v2, v3, 0x12345678
v_maxmin_f16 v1, v2, -v3, v4
v_minmax_f16 v1, |v2|, v3, v4 clamp
v_med3_i32 v1, v2, v3, v4
v_sad_u32 v1, v2, v3, v4
v_bcnt_u32_b32 v1, v2, 0
v_mov_b32_e64 v1, v2
v_sqrt_f32_e64 v1, -v2
v_rcp_f32_e64 v1, v2 clamp
v_cvt_f32_f16_e64 v1, v2
v_add_nc_u32_e64 v1, v2, v3 clamp
v_max_i32_e64 v1, v2, s3
v_mul_u32_u24_e64 v1, v2, 5
v_trig_preop_f64 v[1:2], v[3:4], v5
v_cvt_pk_u8_f32 v1, v2, v3, v4
v_mad_u32_u24 v1, v2, v3, v4
v_fma_f16 v1, v2, v3, v4
v_add_nc_u16 v1, v2, v3
EOF

emit vop3p <<'EOF'
v_pk_add_f16 v1, v2, v3
v_pk_mul_f16 v1, v2, v3 op_sel:[1,0]
v_pk_fma_f16 v1, v2, v3, v4
v_pk_fma_f16 v1, v2, v3, v4 op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[1,0,0] neg_hi:[0,0,1]
v_pk_add_u16 v1, v2, v3
v_pk_sub_i16 v1, v2, v3 clamp
v_pk_lshlrev_b16 v1, v2, v3
v_pk_max_f16 v1, v2, v3
v_pk_min_i16 v1, v2, v3
v_pk_mul_lo_u16 v1, v2, v3
v_fma_mix_f32 v1, v2, v3, v4
v_fma_mix_f32 v1, v2, v3, v4 op_sel_hi:[1,1,0]
v_fma_mixlo_f16 v1, v2, v3, v4 op_sel_hi:[1,1,1]
v_fma_mixhi_f16 v1, v2, v3, v4
v_dot2_f32_f16 v1, v2, v3, v4
EOF

emit vopd <<'EOF'
v_dual_fmac_f32 v7, 0x32a5705f, v5 :: v_dual_sub_f32 v6, v6, v8
v_dual_mov_b32 v2, 0 :: v_dual_lshlrev_b32 v1, 2, v0
v_dual_mov_b32 v2, 1 :: v_dual_lshlrev_b32 v1, 2, v1
v_dual_add_f32 v1, v2, v3 :: v_dual_mul_f32 v4, v5, v6
v_dual_mul_f32 v1, s2, v3 :: v_dual_add_nc_u32 v4, v5, v6
v_dual_cndmask_b32 v1, v2, v3 :: v_dual_mov_b32 v4, v5
v_dual_fmamk_f32 v1, v2, 0x40000000, v3 :: v_dual_mov_b32 v4, v5
v_dual_fmaak_f32 v8, v1, v2, 0x40000000 :: v_dual_mov_b32 v5, v6
v_dual_max_f32 v1, v2, v3 :: v_dual_min_f32 v4, v5, v6
v_dual_subrev_f32 v1, v2, v3 :: v_dual_and_b32 v4, v5, v6
v_dual_mov_b32 v1, v2 :: v_dual_fmac_f32 v4, v5, v6
v_dual_mul_dx9_zero_f32 v1, v2, v3 :: v_dual_mov_b32 v4, 1.0
EOF

# ds_swizzle_b32 offsets, written as numbers and printed by LLVM as its
# swizzle() macro: every (and, or, xor) combination in each of the five
# bit-mask positions, masks mixed across positions, and QUAD_PERM.
for k in $(seq 0 7); do
  for b in 0 1 2 3 4; do
    echo "ds_swizzle_b32 v1, v2 offset:$(( ((k & 1) << b) | (((k >> 1) & 1) << (b + 5)) | (((k >> 2) & 1) << (b + 10)) | (((b * 7 + k) % 32) & ~(1 << b)) ))"
  done
done > ds_swizzle.s
for k in $(seq 0 63); do
  echo "ds_swizzle_b32 v1, v2 offset:$(( (k * 7 % 32) | ((k * 13 + 5) % 32) << 5 | ((k * 19 + 3) % 32) << 10 ))"
done >> ds_swizzle.s
for k in 0 27 57 198 255; do
  echo "ds_swizzle_b32 v1, v2 offset:$(( 0x8000 | k ))"
done >> ds_swizzle.s
emit ds_swizzle < ds_swizzle.s
rm ds_swizzle.s

emit ds <<'EOF'
ds_add_u32 v1, v2
ds_add_u32 v1, v2 offset:16
ds_add_rtn_u32 v3, v1, v2
ds_sub_u32 v1, v2
ds_min_i32 v1, v2
ds_max_u32 v1, v2
ds_and_b32 v1, v2
ds_or_rtn_b32 v3, v1, v2
ds_xor_b32 v1, v2
ds_inc_u32 v1, v2
ds_cmpstore_b32 v1, v2, v3
ds_cmpstore_rtn_b32 v4, v1, v2, v3
ds_storexchg_rtn_b32 v3, v1, v2
ds_add_f32 v1, v2
ds_add_u64 v1, v[2:3]
ds_load_b32 v4, v3
ds_load_b32 v4, v3 offset:1024
ds_load_b64 v[4:5], v3
ds_load_b96 v[4:6], v3
ds_load_b128 v[4:7], v3 offset:16
ds_load_u8 v1, v2
ds_load_i8 v1, v2
ds_load_u16 v1, v2
ds_load_i16 v1, v2
ds_load_u8_d16 v1, v2
ds_load_u16_d16_hi v1, v2
ds_store_b32 v1, v2
ds_store_b32 v1, v2 offset:65535
ds_store_b8 v1, v2
ds_store_b16 v1, v2
ds_store_b64 v1, v[2:3]
ds_store_b96 v1, v[2:4]
ds_store_b128 v1, v[2:5]
ds_store_b16_d16_hi v1, v2
ds_load_2addr_b32 v[1:2], v3 offset0:1 offset1:2
ds_load_2addr_b32 v[1:2], v3 offset1:16
ds_load_2addr_stride64_b32 v[1:2], v3 offset0:1 offset1:2
ds_load_2addr_b64 v[1:4], v5 offset0:4 offset1:8
ds_store_2addr_b32 v1, v2, v3 offset0:1 offset1:2
ds_store_2addr_stride64_b64 v1, v[2:3], v[4:5] offset1:1
ds_bpermute_b32 v1, v2, v3
ds_permute_b32 v1, v2, v3 offset:4
EOF

emit flat <<'EOF'
global_load_b32 v2, v[2:3], off
global_load_b32 v1, v2, s[4:5] offset:-16
global_load_b32 v1, v[2:3], off offset:2047 glc slc dlc
global_load_u8 v1, v1, s[4:5]
global_load_i8 v1, v[2:3], off
global_load_u16 v1, v[2:3], off
global_load_i16 v1, v[2:3], off
global_load_b64 v[1:2], v[2:3], off
global_load_b96 v[1:3], v[2:3], off
global_load_b128 v[4:7], v[2:3], off
global_load_d16_b16 v1, v[2:3], off
global_load_d16_hi_b16 v1, v[2:3], off
global_load_d16_u8 v1, v[2:3], off
global_store_b32 v[0:1], v3, off
global_store_b32 v0, v3, s[2:3] offset:8
global_store_b8 v[0:1], v3, off
global_store_b16 v[0:1], v3, off
global_store_b64 v[0:1], v[2:3], off
global_store_b128 v[0:1], v[2:5], off
global_store_d16_hi_b16 v[0:1], v3, off
global_atomic_add_u32 v0, v1, s[2:3]
global_atomic_add_u32 v[1:2], v4, off
global_atomic_add_u32 v5, v[1:2], v4, off glc
global_atomic_sub_u32 v[1:2], v4, off
global_atomic_swap_b32 v5, v[1:2], v4, off glc
global_atomic_cmpswap_b32 v1, v[2:3], v[4:5], off glc
global_atomic_cmpswap_b64 v[1:2], v[2:3], v[4:7], off glc
global_atomic_min_i32 v[1:2], v4, off
global_atomic_max_u32 v[1:2], v4, off
global_atomic_and_b32 v[1:2], v4, off
global_atomic_or_b32 v[1:2], v4, off
global_atomic_xor_b32 v5, v[1:2], v4, off glc
global_atomic_inc_u32 v[1:2], v4, off
global_atomic_dec_u32 v[1:2], v4, off
global_atomic_add_f32 v[1:2], v4, off
global_atomic_add_u64 v[1:2], v[4:5], off
scratch_load_b32 v1, off, off offset:16
scratch_load_b32 v1, v2, off
scratch_load_b32 v1, off, s3 offset:8
scratch_load_b128 v[1:4], off, off offset:32
scratch_load_u8 v1, v2, off offset:3
scratch_store_b32 off, v2, off offset:4
scratch_store_b32 v1, v2, off offset:8
scratch_store_b128 off, v[2:5], s4 offset:16
flat_load_b32 v1, v[2:3]
flat_load_b32 v1, v[2:3] offset:16 glc
flat_store_b32 v[2:3], v1
flat_store_b64 v[2:3], v[4:5] offset:8
flat_atomic_add_u32 v1, v[2:3], v4 glc
flat_atomic_cmpswap_b32 v[2:3], v[4:5]
buffer_gl0_inv
buffer_gl1_inv
EOF

emit dpp <<'EOF'
v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
v_add_f32_dpp v1, v2, v3 row_shr:1 row_mask:0xf bank_mask:0xf
v_add_f32_dpp v1, -v2, |v3| row_shl:2 row_mask:0x3 bank_mask:0x5 bound_ctrl:1 fi:1
v_add_nc_u32_dpp v1, v2, v3 row_ror:7 row_mask:0xf bank_mask:0xf
v_max_i32_dpp v1, v2, v3 row_mirror row_mask:0xf bank_mask:0xf
v_min_u32_dpp v1, v2, v3 row_half_mirror row_mask:0xf bank_mask:0xf
v_add_f32_dpp v1, v2, v3 row_share:3 row_mask:0xf bank_mask:0xf
v_add_f32_dpp v1, v2, v3 row_xmask:5 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v1, v2 dpp8:[7,6,5,4,3,2,1,0]
v_add_f32_dpp v1, v2, v3 dpp8:[1,0,3,2,5,4,7,6] fi:1
v_cmp_eq_u32_dpp vcc_lo, v1, v2 row_shr:1 row_mask:0xf bank_mask:0xf
v_add_co_ci_u32_dpp v1, vcc_lo, v2, v3, vcc_lo row_shr:1 row_mask:0xf bank_mask:0xf
v_cndmask_b32_dpp v1, v2, v3, vcc_lo quad_perm:[0,0,0,0] row_mask:0xf bank_mask:0xf
v_cvt_f32_i32_dpp v1, v2 row_shr:15 row_mask:0xa bank_mask:0x1
v_permlane16_b32 v1, v2, s3, s4
v_permlanex16_b32 v1, v2, s3, s4
EOF
