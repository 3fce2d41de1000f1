//! Scalar ALU encodings: SOP1, SOP2, SOPK, SOPC, SOPP (AMD CDNA3 ISA guide,
//! "Microcode Formats", SOP*).

use super::operand::{sdst_valid, src_code_valid};
use super::{Cx, base_inst, lookup, take_literal};
use crate::gfx11::decode::{DecodeError, DecodeErrorKind, decode_src};
use crate::gfx11::inst::{Family, Inst};
use crate::opcodes::{Op, OpInfo};

/// Reject reserved source codes and destinations with no register of the
/// operand's width. `srcs`: (code, width) of the used sources.
fn check(
    cx: &Cx,
    info: &OpInfo,
    srcs: &[(u16, u8)],
    dst: Option<(u16, u8)>,
) -> Result<(), DecodeError> {
    for &(code, width) in srcs {
        cx.require(
            width == 0 || src_code_valid(code, width),
            DecodeErrorKind::InvalidOperand,
            1,
            info,
        )?;
    }
    if let Some((code, width)) = dst {
        cx.require(
            width == 0 || sdst_valid(code, width),
            DecodeErrorKind::InvalidOperand,
            1,
            info,
        )?;
    }
    Ok(())
}

pub(super) fn sop2(cx: &Cx) -> Result<Inst, DecodeError> {
    let w = cx.w(0);
    let info = lookup(cx.t.sop2, ((w >> 23) & 0x7F) as usize, cx.words, 1)?;
    let (s0, s1, sdst) = (
        (w & 0xFF) as u16,
        ((w >> 8) & 0xFF) as u16,
        ((w >> 16) & 0x7F) as u16,
    );
    check(
        cx,
        info,
        &[(s0, info.widths[1]), (s1, info.widths[2])],
        Some((sdst, info.widths[0])),
    )?;
    let (lit, len) = take_literal(cx.words, 1, s0 == 255 || s1 == 255, info)?;
    let mut i = base_inst(Family::Sop2, info, cx.words, len);
    i.literal = lit;
    i.dst = sdst;
    i.src[0] = decode_src(s0, info.op, info.widths[1], lit);
    i.src[1] = decode_src(s1, info.op, info.widths[2], lit);
    Ok(i)
}

pub(super) fn sop1(cx: &Cx) -> Result<Inst, DecodeError> {
    let w = cx.w(0);
    let info = lookup(cx.t.sop1, ((w >> 8) & 0xFF) as usize, cx.words, 1)?;
    let (s0, sdst) = ((w & 0xFF) as u16, ((w >> 16) & 0x7F) as u16);
    check(
        cx,
        info,
        &[(s0, info.widths[1])],
        Some((sdst, info.widths[0])),
    )?;
    let (lit, len) = take_literal(cx.words, 1, s0 == 255 && info.widths[1] != 0, info)?;
    let mut i = base_inst(Family::Sop1, info, cx.words, len);
    i.literal = lit;
    i.dst = sdst;
    i.src[0] = decode_src(s0, info.op, info.widths[1], lit);
    Ok(i)
}

pub(super) fn sopk(cx: &Cx) -> Result<Inst, DecodeError> {
    let w = cx.w(0);
    let info = lookup(cx.t.sopk, ((w >> 23) & 0x1F) as usize, cx.words, 1)?;
    let sdst = ((w >> 16) & 0x7F) as u16;
    if info.widths[0] != 0 {
        check(cx, info, &[], Some((sdst, info.widths[0])))?;
    }
    let (lit, len) = take_literal(cx.words, 1, info.op == Op::SSetregImm32B32, info)?;
    let mut i = base_inst(Family::Sopk, info, cx.words, len);
    i.literal = lit;
    i.dst = sdst;
    i.imm = (w & 0xFFFF) as u16 as i16 as i32;
    Ok(i)
}

pub(super) fn sopc(cx: &Cx) -> Result<Inst, DecodeError> {
    let w = cx.w(0);
    let info = lookup(cx.t.sopc, ((w >> 16) & 0x7F) as usize, cx.words, 1)?;
    let (s0, s1) = ((w & 0xFF) as u16, ((w >> 8) & 0xFF) as u16);
    // s_set_gpr_idx_on's ssrc1 field is its mode immediate.
    let w1 = if info.op == Op::SSetGprIdxOn {
        0
    } else {
        info.widths[2]
    };
    check(cx, info, &[(s0, info.widths[1]), (s1, w1)], None)?;
    let (lit, len) = take_literal(
        cx.words,
        1,
        (s0 == 255 && info.widths[1] != 0) || (s1 == 255 && w1 != 0),
        info,
    )?;
    let mut i = base_inst(Family::Sopc, info, cx.words, len);
    i.literal = lit;
    i.src[0] = decode_src(s0, info.op, info.widths[1], lit);
    i.src[1] = decode_src(s1, info.op, info.widths[2], lit);
    Ok(i)
}

pub(super) fn sopp(cx: &Cx) -> Result<Inst, DecodeError> {
    let w = cx.w(0);
    let info = lookup(cx.t.sopp, ((w >> 16) & 0x7F) as usize, cx.words, 1)?;
    let bare = crate::gfx9::disasm::sopp_bare(info.op);
    cx.require(
        !bare || w & 0xFFFF == 0,
        DecodeErrorKind::ReservedField,
        1,
        info,
    )?;
    let mut i = base_inst(Family::Sopp, info, cx.words, 1);
    i.imm = (w & 0xFFFF) as u16 as i16 as i32;
    Ok(i)
}
