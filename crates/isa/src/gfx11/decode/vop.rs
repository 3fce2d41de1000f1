//! 32-bit VALU encodings: VOP1, VOP2 and VOPC (RDNA3 ISA "VOP1/VOP2/VOPC").
//! VOP2: src0 [8:0], vsrc1 [16:9], vdst [24:17], op [30:25]; VOP1: src0 [8:0],
//! op [16:9], vdst [24:17]; VOPC: src0 [8:0], vsrc1 [16:9], op [24:17].
//! v_fmamk/v_fmaak always carry a literal (the K constant).

use super::operand_class::{dst_is_16, no_dpp, src_is_float};
use super::{
    DecodeError, DecodeErrorKind, base_inst, decode_src, lookup, require, src_code_valid,
    take_literal,
};
use crate::gfx11::inst::{Dpp, Family, Inst, Mods, Operand, Src};
use crate::gfx11::opcodes::OpInfo;
use crate::gfx11::opcodes::{Op, VOP1, VOP2, VOPC};

pub(crate) fn is_madak(op: Op) -> bool {
    matches!(
        op,
        Op::VFmaakF32 | Op::VFmamkF32 | Op::VFmaakF16 | Op::VFmamkF16
    )
}

/// DPP16 (src0 = 250) and DPP8 (233, 234 = with FI): a second dword holds the
/// real src0 VGPR and the lane-permutation controls.
fn decode_dpp(
    s0: u16,
    words: &[u32],
    info: &OpInfo,
) -> Result<Option<(Dpp, Operand, Mods)>, DecodeError> {
    if !matches!(s0, 233 | 234 | 250) {
        return Ok(None);
    }
    let Some(&d) = words.get(1) else {
        return Err(super::truncated(words, Some(info.mnemonic)));
    };
    Ok(Some(dpp_controls(s0, d)))
}

/// The DPP controls of dword `d` for a src0 marker `s0` (233/234 DPP8, 250
/// DPP16): the controls, the permuted src0 VGPR, and the DPP16 word's
/// src0/src1 neg/abs bits (VOP3 DPP takes its modifiers from the VOP3 word).
pub(super) fn dpp_controls(s0: u16, d: u32) -> (Dpp, Operand, Mods) {
    let src = Operand {
        code: 256 + (d & 0xFF) as u16,
        src: Src::DppRow,
    };
    if s0 != 250 {
        let dpp = Dpp {
            ctrl: 0,
            dpp8: Some(d >> 8),
            fi: s0 == 234,
            bound_ctrl: true,
            row_mask: 0xF,
            bank_mask: 0xF,
        };
        return (dpp, src, Mods::default());
    }
    let dpp = Dpp {
        ctrl: ((d >> 8) & 0x1FF) as u16,
        dpp8: None,
        fi: (d >> 18) & 1 != 0,
        bound_ctrl: (d >> 19) & 1 != 0,
        bank_mask: ((d >> 24) & 0xF) as u8,
        row_mask: (d >> 28) as u8,
    };
    let mods = Mods {
        neg: (((d >> 20) & 1) | (((d >> 22) & 1) << 1)) as u8,
        abs: (((d >> 21) & 1) | (((d >> 23) & 1) << 1)) as u8,
        ..Mods::default()
    };
    (dpp, src, mods)
}

fn apply_dpp(i: &mut Inst, dpp: Option<(Dpp, Operand, Mods)>) {
    if let Some((d, src, mods)) = dpp {
        i.dpp = Some(d);
        i.src[0] = src;
        i.mods = mods;
        i.len = 2;
    }
}

/// LLVM's operand rules for the 32-bit VALU encodings (see `operand_class`):
/// reserved source codes, constants a 64-bit source cannot take, DPP on ops
/// without a DPP form or with modifiers the op has no use for, 16-bit
/// destinations above v127, and the unused fields of v_nop/v_pipeflush.
fn validate(i: &Inst, words: &[u32], info: &OpInfo) -> Result<(), DecodeError> {
    let w0 = words[0];
    let n = i.len as usize;
    let s0 = (w0 & 0x1FF) as u16;
    let bad = DecodeErrorKind::InvalidOperand;
    if i.widths[1] != 0 && s0 < 256 && !matches!(s0, 233 | 234 | 250) {
        let width = i.widths[1].max(1);
        require(src_code_valid(s0, width), bad, words, n, info)?;
        // No LDS direct for 64-bit sources.
        require(width < 2 || s0 != 254, bad, words, n, info)?;
    }
    if let Some(d) = &i.dpp {
        require(
            !no_dpp(i.op, i.widths),
            DecodeErrorKind::ReservedField,
            words,
            n,
            info,
        )?;
        if d.dpp8.is_none() {
            let mods = i.mods.neg | i.mods.abs;
            let slots = if i.family == Family::Vop1 { 1 } else { 2 };
            for k in 0..2 {
                if (mods >> k) & 1 != 0 {
                    let ok = k < slots && src_is_float(i.op, k);
                    require(ok, DecodeErrorKind::ReservedField, words, n, info)?;
                }
            }
        }
    }
    if i.family != Family::Vopc && i.op != Op::VMovB16 {
        if i.widths[0] == 0 {
            require(i.dst == 0, DecodeErrorKind::ReservedField, words, n, info)?;
        } else if dst_is_16(i.op) {
            require(i.dst < 128, bad, words, n, info)?;
        }
    }
    if i.op == Op::VReadfirstlaneB32 {
        require(src_code_valid(i.dst, 1), bad, words, n, info)?;
    }
    if matches!(i.op, Op::VFmaakF16 | Op::VFmamkF16 | Op::VLdexpF16) {
        require((w0 >> 9) & 0x80 == 0, bad, words, n, info)?;
    }
    Ok(())
}

pub(crate) fn vgpr_operand(reg: u8) -> Operand {
    Operand {
        code: 256 + reg as u16,
        src: Src::Vgpr(reg),
    }
}

pub(super) fn vop2(words: &[u32]) -> Result<Inst, DecodeError> {
    let w = words[0];
    let info = lookup(&VOP2, ((w >> 25) & 0x3F) as usize, words, 1)?;
    let s0 = (w & 0x1FF) as u16;
    let dpp = decode_dpp(s0, words, info)?;
    let (lit, len) = take_literal(words, 1, s0 == 255 || is_madak(info.op), info)?;
    let mut i = base_inst(
        Family::Vop2,
        info,
        words,
        len.max(if dpp.is_some() { 2 } else { 1 }),
    );
    i.literal = lit;
    i.dst = ((w >> 17) & 0xFF) as u16;
    i.src[0] = decode_src(s0, info.op, info.widths[1], lit);
    i.src[1] = vgpr_operand(((w >> 9) & 0xFF) as u8);
    apply_dpp(&mut i, dpp);
    if is_madak(info.op) {
        let k = decode_src(255, info.op, 1, lit);
        // fmamk: dst = src0 * K + vsrc1 ; fmaak: dst = src0 * vsrc1 + K. Keep the K in src[2].
        i.src[2] = k;
    }
    validate(&i, words, info)?;
    Ok(i)
}

pub(super) fn vop1(words: &[u32]) -> Result<Inst, DecodeError> {
    let w = words[0];
    let info = lookup(&VOP1, ((w >> 9) & 0xFF) as usize, words, 1)?;
    let s0 = (w & 0x1FF) as u16;
    let dpp = decode_dpp(s0, words, info)?;
    let (lit, len) = take_literal(words, 1, s0 == 255 && info.widths[1] != 0, info)?;
    let mut i = base_inst(
        Family::Vop1,
        info,
        words,
        len.max(if dpp.is_some() { 2 } else { 1 }),
    );
    i.literal = lit;
    i.dst = ((w >> 17) & 0xFF) as u16;
    i.src[0] = decode_src(s0, info.op, info.widths[1], lit);
    apply_dpp(&mut i, dpp);
    validate(&i, words, info)?;
    Ok(i)
}

pub(super) fn vopc(words: &[u32]) -> Result<Inst, DecodeError> {
    let w = words[0];
    let info = lookup(&VOPC, ((w >> 17) & 0xFF) as usize, words, 1)?;
    let s0 = (w & 0x1FF) as u16;
    let dpp = decode_dpp(s0, words, info)?;
    let (lit, len) = take_literal(words, 1, s0 == 255, info)?;
    let mut i = base_inst(
        Family::Vopc,
        info,
        words,
        len.max(if dpp.is_some() { 2 } else { 1 }),
    );
    i.literal = lit;
    i.dst = 106; // VCC
    i.src[0] = decode_src(s0, info.op, info.widths[1], lit);
    i.src[1] = vgpr_operand(((w >> 9) & 0xFF) as u8);
    apply_dpp(&mut i, dpp);
    validate(&i, words, info)?;
    Ok(i)
}
