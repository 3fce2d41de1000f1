//! Scalar ALU encodings: SOP1, SOP2, SOPK, SOPC, SOPP (RDNA3 ISA §"SOP*").

use super::{DecodeError, base_inst, decode_src, lookup, take_literal};
use crate::isa::inst::{Family, Inst};
use crate::isa::opcodes::{Op, SOP1, SOP2, SOPC, SOPK, SOPP};

pub(super) fn sop2(words: &[u32]) -> Result<Inst, DecodeError> {
    let w = words[0];
    let info = lookup(&SOP2, ((w >> 23) & 0x7F) as usize, words, 1)?;
    let (s0, s1) = ((w & 0xFF) as u16, ((w >> 8) & 0xFF) as u16);
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
    let mut i = base_inst(Family::Sopp, info, words, 1);
    i.imm = (w & 0xFFFF) as u16 as i16 as i32;
    Ok(i)
}
