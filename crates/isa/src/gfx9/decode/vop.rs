//! 32-bit vector ALU encodings: VOP1, VOP2, VOPC (AMD CDNA3 ISA guide,
//! "Microcode Formats", VOP1/VOP2/VOPC), with their DPP (src0 = 250) and
//! SDWA (src0 = 249) forms, whose control dword follows the instruction.

use super::operand::src_code_valid;
use super::{Cx, base_inst, lookup, take_literal};
use crate::gfx11::decode::{DecodeError, DecodeErrorKind, decode_src};
use crate::gfx11::inst::{Dpp, Family, Inst, Operand, Sdwa, Src};
use crate::opcodes::{Op, OpInfo};

/// The VGPR operand `reg`.
pub(crate) fn vgpr(reg: u8) -> Operand {
    Operand {
        code: 256 + reg as u16,
        src: Src::Vgpr(reg),
    }
}

/// VOP2 ops with a constant K in a literal dword (madmk: src0 * K + src1;
/// madak: src0 * src1 + K).
fn takes_k(op: Op) -> bool {
    let n = op.name();
    n.contains("mk_") || n.contains("ak_")
}

/// Does a VGPR tuple of `width` starting at `reg` end at or below v255?
fn fits(reg: u16, width: u8) -> bool {
    reg + width.max(1) as u16 <= 256
}

/// Shared VOP1/VOP2/VOPC body: `src0` is bits [8:0], `vsrc1` [16:9] when used.
fn e32(
    cx: &Cx,
    family: Family,
    info: &OpInfo,
    dst: Option<u8>,
    vsrc1: Option<u8>,
) -> Result<Inst, DecodeError> {
    let w = cx.w(0);
    let s0 = (w & 0x1FF) as u16;
    match s0 {
        // An op without src0 ignores the field.
        249 | 250 if info.widths[1] == 0 => {}
        250 if has_dpp(family, info) => return dpp(cx, family, info, dst, vsrc1),
        249 if has_sdwa(info) => return sdwa(cx, family, info, dst, vsrc1),
        249 | 250 => {
            return Err(super::reject(
                DecodeErrorKind::InvalidOperand,
                cx.words,
                1,
                Some(info.mnemonic),
            ));
        }
        _ => {}
    }
    let ws = info.widths;
    // Operand-less ops (v_nop, v_clrexcp) leave their fields clear.
    if ws[0] == 0 && ws[1] == 0 && family == Family::Vop1 {
        cx.require(
            w & 0x01FE_0000 == 0,
            DecodeErrorKind::ReservedField,
            1,
            info,
        )?;
    }
    // v_readfirstlane_b32's SGPR destination: reserved codes are rejected.
    if info.op == Op::VReadfirstlaneB32 {
        cx.require(
            !matches!((w >> 17) & 0xFF, 209..=234 | 249 | 250 | 254 | 255),
            DecodeErrorKind::InvalidOperand,
            1,
            info,
        )?;
    }
    cx.require(
        if s0 >= 256 {
            fits(s0 - 256, ws[1])
        } else {
            ws[1] == 0 || src_code_valid(s0, ws[1])
        },
        DecodeErrorKind::InvalidOperand,
        1,
        info,
    )?;
    if let Some(v) = vsrc1 {
        cx.require(
            fits(v as u16, ws[2]),
            DecodeErrorKind::InvalidOperand,
            1,
            info,
        )?;
    }
    if let Some(d) = dst {
        cx.require(
            ws[0] == 0 || fits(d as u16, ws[0]),
            DecodeErrorKind::InvalidOperand,
            1,
            info,
        )?;
    }
    let needs = (s0 == 255 && ws[1] != 0) || takes_k(info.op);
    let (lit, len) = take_literal(cx.words, 1, needs, info)?;
    let mut i = base_inst(family, info, cx.words, len);
    i.literal = lit;
    i.dst = dst.unwrap_or(0) as u16;
    i.src[0] = decode_src(s0, info.op, ws[1], lit);
    if let Some(v) = vsrc1 {
        i.src[1] = vgpr(v);
    }
    if takes_k(info.op) {
        // K in src[2], as gfx11's decoder keeps it for fmamk/fmaak (madmk:
        // src0 * K + src1; madak: src0 * src1 + K).
        i.src[2] = decode_src(255, info.op, 1, lit);
    }
    Ok(i)
}

/// Does the op have a DPP form? (None for VOPC, the constant-K ops, the
/// swaps and lane reads, and the gfx942 fp8 conversions.)
fn has_dpp(family: Family, info: &OpInfo) -> bool {
    use Op::*;
    family != Family::Vopc
        && !takes_k(info.op)
        && !matches!(
            info.op,
            VSwapB32 | VReadfirstlaneB32 | VNop | VClrexcp | VPkFmacF16 | VAccvgprMovB32
        )
}

/// Does the op have an SDWA form? (None for 64-bit operands, the swaps
/// and lane reads, the constant-K ops and v_mac_f16.)
fn has_sdwa(info: &OpInfo) -> bool {
    use Op::*;
    info.widths.iter().all(|&w| w < 2)
        && !takes_k(info.op)
        && !matches!(
            info.op,
            VSwapB32
                | VReadfirstlaneB32
                | VNop
                | VClrexcp
                | VMacF16
                | VMacF32
                | VFmacF32
                | VPkFmacF16
                | VAccvgprMovB32
        )
        && !dot_accumulate(info.op)
}

/// The accumulating dot products (v_dot2c_*, v_dot4c_*, v_dot8c_*).
pub(crate) fn dot_accumulate(op: Op) -> bool {
    let n = op.name();
    n.starts_with("v_dot") && n.contains("c_")
}

/// Does source `slot` of `op` take float modifiers (neg/abs)? Otherwise
/// its modifier bit is SDWA/DPP sign extension.
pub(crate) fn slot_is_float(op: Op, slot: usize) -> bool {
    if slot == 1 && matches!(op, Op::VLdexpF16 | Op::VLdexpF32) {
        return false;
    }
    // The fp8/bf8 sources are packed bytes; v_cndmask_b32 takes float
    // modifiers in its DPP and SDWA forms.
    if op.name().starts_with("v_cvt_") && (op.name().ends_with("fp8") || op.name().ends_with("bf8"))
    {
        return false;
    }
    if op == Op::VCndmaskB32 {
        return true;
    }
    crate::gfx11::decode::src_is_float(op, slot)
}

/// Check the per-source modifier bits of a DPP/SDWA form: float sources
/// take neg/abs, integer ones only sext (SDWA) — or, in DPP, the neg bit
/// read as sext when the op has a float source. `n`: sources used.
fn check_mods(
    cx: &Cx,
    info: &OpInfo,
    n: usize,
    neg: u8,
    abs: u8,
    sext: u8,
    dpp: bool,
) -> Result<(), DecodeError> {
    // The integer dot products ignore their modifier bits.
    if dpp && dot_accumulate(info.op) && !slot_is_float(info.op, 0) {
        return Ok(());
    }
    let any_float = (0..n).any(|k| slot_is_float(info.op, k));
    for k in 0..2 {
        let (ng, ab, sx) = ((neg >> k) & 1, (abs >> k) & 1, (sext >> k) & 1);
        let ok = if k >= n {
            ng | ab | sx == 0
        } else if slot_is_float(info.op, k) {
            sx == 0
        } else if dpp {
            any_float || ng | ab == 0
        } else {
            ng | ab == 0
        };
        cx.require(ok, DecodeErrorKind::ReservedField, 2, info)?;
    }
    Ok(())
}

fn dpp(
    cx: &Cx,
    family: Family,
    info: &OpInfo,
    dst: Option<u8>,
    vsrc1: Option<u8>,
) -> Result<Inst, DecodeError> {
    cx.need(2, Some(info))?;
    let d = cx.w(1);
    let n = if vsrc1.is_some() { 2 } else { 1 };
    let neg = (((d >> 20) & 1) | ((d >> 22) & 1) << 1) as u8;
    let abs = (((d >> 21) & 1) | ((d >> 23) & 1) << 1) as u8;
    check_mods(cx, info, n, neg, abs, 0, true)?;
    let mut i = base_inst(family, info, cx.words, 2);
    i.dst = dst.unwrap_or(0) as u16;
    i.src[0] = vgpr(d as u8);
    if let Some(v) = vsrc1 {
        i.src[1] = vgpr(v);
    }
    i.mods.neg = (((d >> 20) & 1) | ((d >> 22) & 1) << 1) as u8;
    i.mods.abs = (((d >> 21) & 1) | ((d >> 23) & 1) << 1) as u8;
    i.dpp = Some(Dpp {
        ctrl: ((d >> 8) & 0x1FF) as u16,
        dpp8: None,
        fi: false,
        bound_ctrl: d & (1 << 19) != 0,
        row_mask: (d >> 28) as u8,
        bank_mask: ((d >> 24) & 0xF) as u8,
    });
    Ok(i)
}

fn sdwa(
    cx: &Cx,
    family: Family,
    info: &OpInfo,
    dst: Option<u8>,
    vsrc1: Option<u8>,
) -> Result<Inst, DecodeError> {
    cx.need(2, Some(info))?;
    let d = cx.w(1);
    let n = if vsrc1.is_some() { 2 } else { 1 };
    let neg = (((d >> 20) & 1) | ((d >> 28) & 1) << 1) as u8;
    let abs = (((d >> 21) & 1) | ((d >> 29) & 1) << 1) as u8;
    let sext = (((d >> 19) & 1) | ((d >> 27) & 1) << 1) as u8;
    check_mods(cx, info, n, neg, abs, sext, false)?;
    // VOP1 has no src1: its select, modifiers and s1 bit stay clear.
    if family == Family::Vop1 {
        cx.require(
            d & 0xBF00_0000 == 0,
            DecodeErrorKind::ReservedField,
            2,
            info,
        )?;
    }
    // A scalar source must be a register or an inline constant.
    let scalar_ok =
        |code: u16, width: u8| code != 255 && super::operand::src_code_valid(code, width);
    if d & (1 << 23) != 0 {
        cx.require(
            scalar_ok((d & 0xFF) as u16, info.widths[1]),
            DecodeErrorKind::InvalidOperand,
            2,
            info,
        )?;
    }
    if let (Some(v), true) = (vsrc1, d & (1 << 31) != 0) {
        cx.require(
            scalar_ok(v as u16, info.widths[2]),
            DecodeErrorKind::InvalidOperand,
            2,
            info,
        )?;
    }
    // Selects of 7 name no part of a dword.
    let sels = [
        (d >> 16) & 7,
        (d >> 24) & 7,
        if family == Family::Vopc {
            0
        } else {
            (d >> 8) & 7
        },
    ];
    cx.require(
        sels.iter().all(|&s| s != 7),
        DecodeErrorKind::ReservedField,
        2,
        info,
    )?;
    let mut i = base_inst(family, info, cx.words, 2);
    i.dst = dst.unwrap_or(0) as u16;
    // s0 [23]: src0 is a scalar/constant code rather than a VGPR.
    let s0 = (d & 0xFF) as u16;
    i.src[0] = if d & (1 << 23) != 0 {
        decode_src(s0, info.op, info.widths[1], None)
    } else {
        vgpr(s0 as u8)
    };
    if let Some(v) = vsrc1 {
        // s1 [31]: src1 is a scalar/constant code.
        i.src[1] = if d & (1 << 31) != 0 {
            decode_src(v as u16, info.op, info.widths[2], None)
        } else {
            vgpr(v)
        };
    }
    i.mods.neg = (((d >> 20) & 1) | ((d >> 28) & 1) << 1) as u8;
    i.mods.abs = (((d >> 21) & 1) | ((d >> 29) & 1) << 1) as u8;
    let vopc = family == Family::Vopc;
    if vopc && d & (1 << 15) != 0 {
        let sdst = ((d >> 8) & 0x7F) as u16;
        cx.require(
            super::operand::sdst_valid(sdst, 2),
            DecodeErrorKind::InvalidOperand,
            2,
            info,
        )?;
    }
    // Output modifiers only apply to float results.
    if !vopc && d & (3 << 14) != 0 {
        cx.require(
            crate::gfx11::decode::dst_is_float(info.op),
            DecodeErrorKind::ReservedField,
            2,
            info,
        )?;
    }
    if !vopc {
        i.mods.clamp = d & (1 << 13) != 0;
        i.mods.omod = ((d >> 14) & 3) as u8;
    }
    i.sdwa = Some(Sdwa {
        dst_sel: if vopc { 6 } else { ((d >> 8) & 7) as u8 },
        dst_unused: if vopc { 0 } else { ((d >> 11) & 3) as u8 },
        src0_sel: ((d >> 16) & 7) as u8,
        src1_sel: ((d >> 24) & 7) as u8,
        sext: (((d >> 19) & 1) | ((d >> 27) & 1) << 1) as u8,
        sdst: (vopc && d & (1 << 15) != 0).then_some(((d >> 8) & 0x7F) as u8),
    });
    Ok(i)
}

pub(super) fn vop1(cx: &Cx) -> Result<Inst, DecodeError> {
    let w = cx.w(0);
    let info = lookup(cx.t.vop1, ((w >> 9) & 0xFF) as usize, cx.words, 1)?;
    e32(cx, Family::Vop1, info, Some((w >> 17) as u8), None)
}

pub(super) fn vop2(cx: &Cx) -> Result<Inst, DecodeError> {
    let w = cx.w(0);
    let info = lookup(cx.t.vop2, ((w >> 25) & 0x3F) as usize, cx.words, 1)?;
    e32(
        cx,
        Family::Vop2,
        info,
        Some((w >> 17) as u8),
        Some((w >> 9) as u8),
    )
}

pub(super) fn vopc(cx: &Cx) -> Result<Inst, DecodeError> {
    let w = cx.w(0);
    let info = lookup(cx.t.vopc, ((w >> 17) & 0xFF) as usize, cx.words, 1)?;
    e32(cx, Family::Vopc, info, None, Some((w >> 9) as u8))
}
