//! GFX9 instructions in the executor's form: the code cache runs every
//! decoded GFX9 instruction through [`normalise`] once, so the gfx11
//! semantics (keyed by `Op`) run it with no per-instruction question about
//! the family. The disassembler never sees this form: it prints the decoder's.
//!
//! What changes (AMD CDNA3 ISA guide, "Scalar Operands", "Microcode Formats"):
//! - scalar register codes: GFX9's M0 is 124 and its null 125, gfx11 has
//!   them the other way round; FLAT_SCRATCH (102/103) and XNACK_MASK
//!   (104/105) stay where they are, as the executor's s102..s105;
//! - SMEM: GFX9 says with its imm and soe bits whether the offset is an
//!   immediate or an SGPR and whether soffset is added; gfx11's form always
//!   adds `imm` and the soffset SGPR (null: none);
//! - FLAT/GLOBAL/SCRATCH: "no saddr" is 0x7F (gfx11: null); gfx90a's
//!   scratch uses its address VGPR exactly when saddr is off (gfx942 and
//!   gfx11 say so with the sve bit), and addresses from FLAT_SCRATCH, which
//!   must be the wave's scratch slot ([`Inst::FLAT_SCRATCH_BASE`]);
//! - v_cmpx writes VCC (VOPC) or its SGPR destination (VOP3) as well as
//!   EXEC ([`Inst::CMPX_WRITES_DST`]);
//! - ds_permute/ds_bpermute span the whole wave64 ([`Inst::PERMUTE_WAVE64`]);
//! - the integer ds_cmpst forms run as gfx11's ds_cmpstore with the data
//!   operands swapped;
//! - MUBUF and MTBUF loads, stores and atomics take GFX9's V# and range
//!   rules ([`Inst::GFX9_BUFFER`]), loads into LDS and typed access
//!   (GFX9's DATA_FORMAT/NUM_FORMAT pairs) included;
//! - gfx90a's global loads with the lds bit run as gfx942's
//!   global_load_lds_* ops;
//! - a constant source of the packed 32-bit ops (v_pk_fma/mul/add_f32,
//!   v_pk_mov_b32) becomes its 32-bit value in the pair's low dword;
//! - s_getreg_b32 names GFX9's hardware register ids ([`Inst::GFX9_HWREG`]);
//! - v_accvgpr_mov_b32 (VOP1) marks both operands as AGPRs in `Inst::acc`,
//!   as the decoder does for the other AGPR operands; the executor reads
//!   `acc` and `mai` itself (AGPRs, matrix ops). No encoding puts an AGPR
//!   under DPP or SDWA (see `normalise`).
//!
//! What the executor does not model fails here, as an `Unmodelled` decode
//! error naming the instruction, which the wave reports as an illegal
//! instruction when it reaches it: DPP controls other than row_newbcast on
//! the DP ALU ops (64-bit operands), scratch loads into LDS, the high
//! dword of a non-zero packed constant. The executor refuses the rest of what it does not model
//! itself (typed formats with no unified format, buffers with no range
//! rule).

use super::Target;
use crate::gfx11::decode::{DecodeError, DecodeErrorKind, decode_src, is_vop3_compare};
use crate::gfx11::inst::{Family, Inst, Operand, Src};
use crate::opcodes::Op;

/// GFX9's M0 and null register codes.
const M0: u16 = 124;
const NULL: u16 = 125;
/// The executor's (gfx11's) null register code.
const EXEC_NULL: u8 = 124;
/// GFX9 FLAT saddr "off".
const SADDR_OFF: u8 = 0x7F;

/// The executor's code for GFX9 scalar register code `code` (M0 and null
/// swap places; every other code is the same register).
pub(crate) fn sreg(code: u16) -> u16 {
    match code {
        M0 => NULL,
        NULL => M0,
        c => c,
    }
}

fn sreg8(code: u8) -> u8 {
    sreg(code as u16) as u8
}

/// A source operand renumbered (constants and VGPRs stay as they are).
fn operand(o: Operand) -> Operand {
    match o.src {
        Src::Sgpr(r) => Operand {
            code: sreg(o.code),
            src: Src::Sgpr(sreg8(r)),
        },
        _ => o,
    }
}

fn unmodelled(i: &Inst, what: &str) -> DecodeError {
    DecodeError {
        kind: DecodeErrorKind::Unmodelled,
        words: i.raw().to_vec(),
        mnemonic: Some(format!("{} ({what})", i.mnemonic)),
    }
}

/// Is `i`'s `dst` field a scalar register code?
fn scalar_dst(i: &Inst) -> bool {
    match i.family {
        Family::Sop1 | Family::Sop2 | Family::Sopk | Family::Smem => true,
        Family::Vop1 | Family::Vop3 => {
            matches!(i.op, Op::VReadfirstlaneB32 | Op::VReadlaneB32) || is_vop3_compare(i)
        }
        _ => false,
    }
}

/// `i` (decoded for `target`) in the executor's form, or why the executor
/// cannot run it.
pub fn normalise(target: Target, mut i: Inst) -> Result<Inst, DecodeError> {
    // v_accvgpr_mov_b32 (VOP1) names AGPRs on both sides.
    if i.op == Op::VAccvgprMovB32 {
        i.acc = Inst::ACC_DST | Inst::ACC_SRC0;
    }
    // No GFX9 encoding names an AGPR under DPP or SDWA: VOP1/VOP2/VOPC have
    // no acc bit, LLVM's DPP and SDWA operand classes are VGPR-only
    // (llvm-mc-19 for gfx90a and gfx942: "invalid operand for instruction"),
    // and v_accvgpr_mov_b32 has neither form ("dpp/sdwa variant of this
    // instruction is not supported"; the decoder refuses those words as
    // llvm-objdump-19 does, tests/gfx9_vectors/*/vop1_dpp.txt and
    // vop1_sdwa.txt). Should a decode ever combine them, it is refused.
    if i.acc != 0 && (i.dpp.is_some() || i.sdwa.is_some()) {
        return Err(unmodelled(
            &i,
            "AGPR operands with DPP or SDWA: no such encoding",
        ));
    }
    if let Some(s) = &mut i.sdwa {
        // A VOPC SDWA compare writes VCC or the SGPR pair its sdst names.
        s.sdst = s.sdst.map(sreg8).filter(|&c| c != 106);
    }
    if let Some(dpp) = &i.dpp {
        // The controls gfx11's DPP16 shares (AMD CDNA3 ISA guide, "DPP"):
        // quad_perm, row_shl/shr/ror, row_mirror, row_half_mirror; GFX9's
        // wave shifts, rotates and row_bcast (valu/dpp.rs); and the
        // row_newbcast:n of gfx90a and gfx942 (0x150..=0x15F), each lane
        // reading lane n of its row: the encoding of gfx11's row_share
        // (LLVM SIDefines.h, DPP::ROW_NEWBCAST_FIRST = ROW_SHARE_FIRST;
        // CDNA3 ISA guide, DPP_CTRL "DPP_ROW_SHARE").
        let known = matches!(
            dpp.ctrl,
            0..=0xFF
                | 0x101..=0x10F
                | 0x111..=0x11F
                | 0x121..=0x12F
                | 0x130
                | 0x134
                | 0x138
                | 0x13C
                | 0x140..=0x143
                | 0x150..=0x15F
        );
        if !known {
            return Err(unmodelled(&i, "DPP control"));
        }
        // The DP ALU ops (any 64-bit operand: v_mov_b64, v_fmac_f64,
        // v_cvt_*_f64, v_*_f64 of VOP1) take DPP only with row_newbcast:n:
        // llvm-mc-19 for gfx90a and gfx942 refuses every other control on
        // them ("DP ALU dpp only supports row_newbcast"), and
        // llvm-objdump-19 prints that in its place (gfx9/disasm.rs).
        if i.widths.iter().any(|&w| w >= 2) && !(0x150..=0x15F).contains(&dpp.ctrl) {
            return Err(unmodelled(&i, "DP ALU DPP control other than row_newbcast"));
        }
        // The executor reads a DPP src0 through the permuted row.
        i.src[0].src = Src::DppRow;
    }
    for k in 0..3 {
        i.src[k] = operand(i.src[k]);
    }
    if matches!(
        i.op,
        Op::VPkFmaF32 | Op::VPkMulF32 | Op::VPkAddF32 | Op::VPkMovB32
    ) {
        packed_constants(&mut i)?;
    }
    if scalar_dst(&i) {
        i.dst = sreg(i.dst);
    }
    i.sdst = sreg8(i.sdst);
    if zeroes_high_half(&i) {
        i.flags |= Inst::ZERO_HI16;
    }
    match i.family {
        Family::Smem => smem(&mut i)?,
        Family::Mubuf => mubuf(&mut i)?,
        // Typed buffer access converts through GFX9's DATA_FORMAT and
        // NUM_FORMAT pair, over GFX9's V# (vmem/gfx9_typed.rs).
        Family::Mtbuf => i.flags |= Inst::GFX9_BUFFER,
        Family::Flat | Family::Global | Family::Scratch => flat(target, &mut i)?,
        Family::Sopk if i.op == Op::SGetregB32 => getreg(target, &mut i)?,
        Family::Vopc | Family::Vop3 if i.op.name().starts_with("v_cmpx_") => {
            // GFX9 v_cmpx writes EXEC and the compare's destination
            // (AMD CDNA3 ISA guide, "Vector Compare": "write the result to
            // VCC or SGPR and to EXEC").
            i.flags |= Inst::CMPX_WRITES_DST;
        }
        // GFX9's LDS crossbar permutes over the whole wave64 (AMD CDNA3 ISA
        // guide, DS_PERMUTE_B32 / DS_BPERMUTE_B32: the lane index is
        // address[7:2]); RDNA's works within each 32-lane half.
        Family::Ds if matches!(i.op, Op::DsPermuteB32 | Op::DsBpermuteB32) => {
            i.flags |= Inst::PERMUTE_WAVE64;
        }
        // GFX9's compare-store takes the compare value in DATA and the new
        // value in DATA2 (AMD CDNA3 ISA guide, DS_CMPST_B32: "src = DATA2;
        // cmp = DATA"); gfx11's DS_CMPSTORE has them the other way round.
        // The float forms compare as floats and stay unmodelled.
        Family::Ds
            if matches!(
                i.op,
                Op::DsCmpstB32 | Op::DsCmpstRtnB32 | Op::DsCmpstB64 | Op::DsCmpstRtnB64
            ) =>
        {
            i.op = match i.op {
                Op::DsCmpstB32 => Op::DsCmpstoreB32,
                Op::DsCmpstRtnB32 => Op::DsCmpstoreRtnB32,
                Op::DsCmpstB64 => Op::DsCmpstoreB64,
                _ => Op::DsCmpstoreRtnB64,
            };
            i.data.swap(0, 1);
        }
        _ => {}
    }
    Ok(i)
}

/// Does `i` write zeros to its destination's high half? GFX9's VOP1, VOP2
/// and VOP3 16-bit ops below do (LLVM `GCNSubtarget::zeroesHigh16BitsOfDest`:
/// true up to GFX9; gfx10+ keep the high half, as gfx11's semantics here
/// do), and compiled code relies on it: clang-19 -O3 for gfx942 builds an
/// LDS address from all 32 bits of a v_sub_u16 result. SDWA writes
/// by its dst_sel and dst_unused; GFX9's op_sel ops (v_mad_u16, v_fma_f16,
/// v_div_fixup_f16, the mix ops) and v_mac/madak/madmk_f16 keep the high
/// half (the same LLVM function).
fn zeroes_high_half(i: &Inst) -> bool {
    use Op::*;
    matches!(i.family, Family::Vop1 | Family::Vop2 | Family::Vop3)
        && i.sdwa.is_none()
        && i.mods.opsel == 0
        && matches!(
            i.op,
            VCvtF16F32
                | VCvtF16U16
                | VCvtF16I16
                | VRcpF16
                | VRsqF16
                | VSqrtF16
                | VLogF16
                | VExpF16
                | VSinF16
                | VCosF16
                | VFloorF16
                | VCeilF16
                | VTruncF16
                | VRndneF16
                | VFractF16
                | VFrexpMantF16
                | VFrexpExpI16F16
                | VLdexpF16
                | VLshlrevB16
                | VLshrrevB16
                | VAshrrevI16
                | VAddNcU16
                | VSubNcU16
                | VSubrevU16
                | VMulLoU16
                | VAddF16
                | VSubF16
                | VSubrevF16
                | VMulF16
                | VMaxF16
                | VMinF16
                | VMaxU16
                | VMinU16
                | VMaxI16
                | VMinI16
        )
}

/// A constant source of the packed 32-bit ops (v_pk_fma/mul/add_f32,
/// v_pk_mov_b32) is a 32-bit constant in the low dword of the pair: LLVM
/// types the operand as 32 bits (`OPERAND_REG_INLINE_C_V2FP32`, operand
/// size 4: llvm-mc-19 folds `0x3f800000` to `1.0` there), and for a splat
/// constant its instruction selection (`SelectVOP3PMods`) clears
/// op_sel_hi so that both halves read that low dword (clang-19 for gfx90a
/// and gfx942: `v_pk_fma_f32 v[2:3], v[2:3], v[4:5], 0.5
/// op_sel_hi:[1,1,0]`). What the high dword holds is documented nowhere
/// (the CDNA3 ISA guide's "VOP3P" says nothing of 64-bit constants) and
/// LLVM never reads it, so selecting it from a non-zero constant stays
/// unmodelled. GFX9 VOP3P has no literal (llvm-mc-19 refuses one).
fn packed_constants(i: &mut Inst) -> Result<(), DecodeError> {
    let n = match i.op {
        Op::VPkFmaF32 => 3,
        _ => 2,
    };
    for k in 0..n {
        if !matches!(i.src[k].src, Src::Imm(_)) {
            continue;
        }
        // The dwords this source gives: v_pk_mov_b32 reads op_sel only.
        let high = if i.op == Op::VPkMovB32 {
            (i.mods.opsel >> k) & 1 != 0
        } else {
            ((i.mods.opsel | i.mods.opsel_hi) >> k) & 1 != 0
        };
        let o = decode_src(i.src[k].code, i.op, 1, None);
        match o.src {
            Src::Imm(0) => {}
            Src::Imm(_) if high => {
                return Err(unmodelled(i, "high dword of a packed constant"));
            }
            Src::Imm(_) => i.src[k] = o,
            _ => return Err(unmodelled(i, "packed literal")),
        }
    }
    Ok(())
}

/// SMEM (AMD CDNA3 ISA guide, "Scalar Memory"): imm [17] set, the offset
/// is the 21-bit immediate; clear, offset[7:0] names an SGPR; soe [14]
/// adds the soffset SGPR to an immediate offset.
fn smem(i: &mut Inst) -> Result<(), DecodeError> {
    if super::decode::no_address(i.op) {
        return Ok(());
    }
    let (w0, w1) = (i.words[0], i.words[1]);
    let (imm, soe) = ((w0 >> 17) & 1 != 0, (w0 >> 14) & 1 != 0);
    match (imm, soe) {
        (true, false) => i.imm2 = u32::from(EXEC_NULL),
        (true, true) => i.imm2 = u32::from(sreg((w1 >> 25) as u16)),
        (false, false) if w1 & 0xFF < 128 => {
            i.imm = 0;
            i.imm2 = u32::from(sreg((w1 & 0xFF) as u16));
        }
        (false, false) => return Err(unmodelled(i, "offset register code")),
        (false, true) => return Err(unmodelled(i, "soe without an immediate offset")),
    }
    Ok(())
}

/// MUBUF: the cache controls (buffer_wbinvl1*, buffer_wbl2, buffer_inv:
/// no operands) run as they are; the loads, stores and atomics read GFX9's
/// V#, which has no OOB_SELECT and checks ranges by the buffer's kind (AMD
/// CDNA3 ISA guide, "Buffer Instructions"), so they are marked for that
/// path ([`Inst::GFX9_BUFFER`]).
fn mubuf(i: &mut Inst) -> Result<(), DecodeError> {
    if i.widths[0] != 0 || i.widths[1] != 0 {
        i.flags |= Inst::GFX9_BUFFER;
    }
    Ok(())
}

/// s_getreg_b32: GFX9 numbers its hardware registers differently from
/// gfx11 (LLVM `SIDefines.h`, `Hwreg` ids; gfx11's 20 is FLAT_SCR_LO,
/// GFX940's is XCC_ID), so the executor reads the id as GFX9's
/// ([`Inst::GFX9_HWREG`]). It models MODE (1) and, on gfx942, XCC_ID (20,
/// a GFX940+ register: AMDGPUAsmUtils.cpp names it for GFX940 only).
fn getreg(target: Target, i: &mut Inst) -> Result<(), DecodeError> {
    let id = i.imm as u32 & 0x3F;
    let modelled = id == 1 || (id == 20 && target == Target::Gfx942);
    if !modelled {
        return Err(unmodelled(i, &format!("hwreg({id})")));
    }
    i.flags |= Inst::GFX9_HWREG;
    Ok(())
}

/// FLAT, GLOBAL and SCRATCH.
fn flat(target: Target, i: &mut Inst) -> Result<(), DecodeError> {
    let lds_bit = i.flags & super::decode::LDS != 0;
    if i.family == Family::Scratch && (lds_bit || i.op.name().contains("load_lds")) {
        return Err(unmodelled(i, "scratch load into LDS"));
    }
    // gfx90a's global loads with the lds bit are gfx942's global_load_lds_*
    // (LLVM prints `global_load_dword ... lds` for one, `global_load_lds_dword`
    // for the other; AMD CDNA2 and CDNA3 ISA guides, "Global Load LDS"):
    // the executor runs the gfx942 ops (vmem/lds_dma.rs).
    if lds_bit {
        i.op = match i.op {
            Op::GlobalLoadB32 => Op::GlobalLoadLdsDword,
            Op::GlobalLoadU8 => Op::GlobalLoadLdsUbyte,
            Op::GlobalLoadI8 => Op::GlobalLoadLdsSbyte,
            Op::GlobalLoadU16 => Op::GlobalLoadLdsUshort,
            Op::GlobalLoadI16 => Op::GlobalLoadLdsSshort,
            _ => return Err(unmodelled(i, "load into LDS")),
        };
        i.flags &= !super::decode::LDS;
    }
    if i.family != Family::Flat && i.saddr == NULL as u8 {
        return Err(unmodelled(i, "null saddr"));
    }
    let off = i.saddr == SADDR_OFF;
    if i.family == Family::Scratch && target == Target::Gfx90a {
        // gfx90a: SADDR off means the address VGPR is used, else it is not
        // (AMD CDNA2 ISA guide, "Scratch Instructions"); addresses are
        // relative to FLAT_SCRATCH (no architected flat scratch).
        i.flags =
            (i.flags & !Inst::SVE) | if off { Inst::SVE } else { 0 } | Inst::FLAT_SCRATCH_BASE;
    }
    if off {
        i.saddr = EXEC_NULL;
    }
    // The sc1 bit (Inst::SC1) is a cache policy: execution ignores it, an
    // observer (strict coherence's per-XCC L2s) reads it.
    Ok(())
}
