//! 32-bit VALU encodings: VOP1, VOP2 and VOPC (RDNA3 ISA "VOP1/VOP2/VOPC").
//! VOP2: src0 [8:0], vsrc1 [16:9], vdst [24:17], op [30:25]; VOP1: src0 [8:0],
//! op [16:9], vdst [24:17]; VOPC: src0 [8:0], vsrc1 [16:9], op [24:17].
//! v_fmamk/v_fmaak always carry a literal (the K constant).

use super::{DecodeError, base_inst, decode_src, lookup, take_literal};
use crate::isa::inst::{Family, Inst, Operand, Src};
use crate::isa::opcodes::{Op, VOP1, VOP2, VOPC};

pub(crate) fn is_madak(op: Op) -> bool {
    matches!(
        op,
        Op::VFmaakF32 | Op::VFmamkF32 | Op::VFmaakF16 | Op::VFmamkF16
    )
}

/// DPP16 (250) and DPP8 (233/234) in src0 add a control dword the emulator does
/// not implement: report the instruction (with its mnemonic) as unsupported.
fn reject_dpp(
    s0: u16,
    words: &[u32],
    info: &crate::isa::opcodes::OpInfo,
) -> Result<(), DecodeError> {
    if matches!(s0, 233 | 234 | 250) {
        let n = 2.min(words.len());
        let suffix = if s0 == 250 { "_dpp" } else { "_dpp8" };
        let base = info.mnemonic.trim_end_matches("_e32");
        return Err(DecodeError {
            words: words[..n].to_vec(),
            mnemonic: Some(format!("{base}{suffix}")),
        });
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
    reject_dpp(s0, words, info)?;
    let (lit, len) = take_literal(words, 1, s0 == 255 || is_madak(info.op), info)?;
    let mut i = base_inst(Family::Vop2, info, words, len);
    i.literal = lit;
    i.dst = ((w >> 17) & 0xFF) as u16;
    i.src[0] = decode_src(s0, info.op, info.widths[1], lit);
    i.src[1] = vgpr_operand(((w >> 9) & 0xFF) as u8);
    if is_madak(info.op) {
        let k = decode_src(255, info.op, 1, lit);
        // fmamk: dst = src0 * K + vsrc1 ; fmaak: dst = src0 * vsrc1 + K. Keep the K in src[2].
        i.src[2] = k;
    }
    Ok(i)
}

pub(super) fn vop1(words: &[u32]) -> Result<Inst, DecodeError> {
    let w = words[0];
    let info = lookup(&VOP1, ((w >> 9) & 0xFF) as usize, words, 1)?;
    let s0 = (w & 0x1FF) as u16;
    reject_dpp(s0, words, info)?;
    let (lit, len) = take_literal(words, 1, s0 == 255 && info.widths[1] != 0, info)?;
    let mut i = base_inst(Family::Vop1, info, words, len);
    i.literal = lit;
    i.dst = ((w >> 17) & 0xFF) as u16;
    i.src[0] = decode_src(s0, info.op, info.widths[1], lit);
    Ok(i)
}

pub(super) fn vopc(words: &[u32]) -> Result<Inst, DecodeError> {
    let w = words[0];
    let info = lookup(&VOPC, ((w >> 17) & 0xFF) as usize, words, 1)?;
    let s0 = (w & 0x1FF) as u16;
    reject_dpp(s0, words, info)?;
    let (lit, len) = take_literal(words, 1, s0 == 255, info)?;
    let mut i = base_inst(Family::Vopc, info, words, len);
    i.literal = lit;
    i.dst = 106; // VCC
    i.src[0] = decode_src(s0, info.op, info.widths[1], lit);
    i.src[1] = vgpr_operand(((w >> 9) & 0xFF) as u8);
    Ok(i)
}
