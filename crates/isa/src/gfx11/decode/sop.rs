//! Scalar ALU encodings: SOP1, SOP2, SOPK, SOPC, SOPP (RDNA3 ISA §"SOP*").

use super::{
    DecodeError, DecodeErrorKind, base_inst, decode_src, lookup, require, src_code_valid,
    take_literal,
};
use crate::gfx11::opcodes::OpInfo;

/// Reject reserved source codes and scalar destinations that have no
/// register of the operand's width. `srcs`: (code, width) of used sources.
fn check_scalar(
    words: &[u32],
    info: &OpInfo,
    srcs: &[(u16, u8)],
    dst: Option<(u16, u8)>,
) -> Result<(), DecodeError> {
    for &(code, width) in srcs {
        require(
            width == 0 || src_code_valid(code, width),
            DecodeErrorKind::InvalidOperand,
            words,
            1,
            info,
        )?;
    }
    if let Some((code, width)) = dst {
        require(
            width == 0 || src_code_valid(code, width),
            DecodeErrorKind::InvalidOperand,
            words,
            1,
            info,
        )?;
    }
    Ok(())
}
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::opcodes::{Op, SOP1, SOP2, SOPC, SOPK, SOPP};

pub(super) fn sop2(words: &[u32]) -> Result<Inst, DecodeError> {
    let w = words[0];
    let info = lookup(&SOP2, ((w >> 23) & 0x7F) as usize, words, 1)?;
    let (s0, s1) = ((w & 0xFF) as u16, ((w >> 8) & 0xFF) as u16);
    let sdst = ((w >> 16) & 0x7F) as u16;
    check_scalar(
        words,
        info,
        &[(s0, info.widths[1]), (s1, info.widths[2])],
        Some((sdst, info.widths[0])),
    )?;
    let (lit, len) = take_literal(words, 1, s0 == 255 || s1 == 255, info)?;
    let mut i = base_inst(Family::Sop2, info, words, len);
    i.literal = lit;
    i.dst = ((w >> 16) & 0x7F) as u16;
    i.src[0] = decode_src(s0, info.op, info.widths[1], lit);
    i.src[1] = decode_src(s1, info.op, info.widths[2], lit);
    Ok(i)
}

pub(super) fn sop1(words: &[u32]) -> Result<Inst, DecodeError> {
    let w = words[0];
    let info = lookup(&SOP1, ((w >> 8) & 0xFF) as usize, words, 1)?;
    let s0 = (w & 0xFF) as u16;
    // s_sendmsg_rtn's SSRC0 is a message id, not a source operand.
    let srcs: &[(u16, u8)] = if matches!(info.op, Op::SSendmsgRtnB32 | Op::SSendmsgRtnB64) {
        &[]
    } else {
        &[(s0, info.widths[1])]
    };
    check_scalar(
        words,
        info,
        srcs,
        Some((((w >> 16) & 0x7F) as u16, info.widths[0])),
    )?;
    let (lit, len) = take_literal(words, 1, s0 == 255 && info.widths[1] != 0, info)?;
    let mut i = base_inst(Family::Sop1, info, words, len);
    i.literal = lit;
    i.dst = ((w >> 16) & 0x7F) as u16;
    i.src[0] = decode_src(s0, info.op, info.widths[1], lit);
    Ok(i)
}

pub(super) fn sopk(words: &[u32]) -> Result<Inst, DecodeError> {
    let w = words[0];
    let info = lookup(&SOPK, ((w >> 23) & 0x1F) as usize, words, 1)?;
    if matches!(info.op, Op::SCallB64) {
        check_scalar(words, info, &[], Some((((w >> 16) & 0x7F) as u16, 2)))?;
    }
    let (lit, len) = take_literal(words, 1, info.op == Op::SSetregImm32B32, info)?;
    let mut i = base_inst(Family::Sopk, info, words, len);
    i.literal = lit;
    i.dst = ((w >> 16) & 0x7F) as u16;
    i.imm = (w & 0xFFFF) as u16 as i16 as i32;
    Ok(i)
}

pub(super) fn sopc(words: &[u32]) -> Result<Inst, DecodeError> {
    let w = words[0];
    let info = lookup(&SOPC, ((w >> 16) & 0x7F) as usize, words, 1)?;
    let (s0, s1) = ((w & 0xFF) as u16, ((w >> 8) & 0xFF) as u16);
    check_scalar(
        words,
        info,
        &[(s0, info.widths[1]), (s1, info.widths[2])],
        None,
    )?;
    let (lit, len) = take_literal(words, 1, s0 == 255 || s1 == 255, info)?;
    let mut i = base_inst(Family::Sopc, info, words, len);
    i.literal = lit;
    i.src[0] = decode_src(s0, info.op, info.widths[1], lit);
    i.src[1] = decode_src(s1, info.op, info.widths[2], lit);
    Ok(i)
}

pub(super) fn sopp(words: &[u32]) -> Result<Inst, DecodeError> {
    let w = words[0];
    let info = lookup(&SOPP, ((w >> 16) & 0x7F) as usize, words, 1)?;
    // Instructions without an operand must leave simm16 clear.
    let bare = matches!(
        info.op,
        Op::SBarrier
            | Op::SCodeEnd
            | Op::SIcacheInv
            | Op::SWakeup
            | Op::SEndpgmSaved
            | Op::SWaitIdle
            | Op::STtracedata
    );
    require(
        !bare || w & 0xFFFF == 0,
        DecodeErrorKind::ReservedField,
        words,
        1,
        info,
    )?;
    let mut i = base_inst(Family::Sopp, info, words, 1);
    i.imm = (w & 0xFFFF) as u16 as i16 as i32;
    Ok(i)
}
