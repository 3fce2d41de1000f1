//! Pixel-shader interpolation encodings, decoded and printed like LLVM but
//! never executed by compute kernels (the executor reports them illegal).
//! LDSDIR (one dword): vdst [7:0], attr_chan [9:8], attr [15:10],
//! wait_vdst [19:16], op [21:20], [23:22] reserved zero.
//! VINTERP (two dwords): vdst [7:0], wait_exp [10:8], op_sel [14:11],
//! clamp 15, op [22:16]; src0 [40:32], src1 [49:41], src2 [58:50],
//! neg [63:61]; a literal (code 255) follows as a third dword.

use super::{
    DecodeError, DecodeErrorKind, base_inst, decode_src, lookup, require, src_code_valid, truncated,
};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::opcodes::{LDSDIR, VINTERP};

/// LDSDIR: `imm` holds the attribute field [15:8], `imm2` wait_vdst.
pub(super) fn ldsdir(words: &[u32]) -> Result<Inst, DecodeError> {
    let w = words[0];
    let info = lookup(&LDSDIR, ((w >> 20) & 3) as usize, words, 1)?;
    require(
        (w >> 22) & 3 == 0,
        DecodeErrorKind::ReservedField,
        words,
        1,
        info,
    )?;
    let mut i = base_inst(Family::Ldsdir, info, words, 1);
    i.dst = (w & 0xFF) as u16;
    i.imm = ((w >> 8) & 0xFF) as i32;
    i.imm2 = (w >> 16) & 0xF;
    Ok(i)
}

/// VINTERP: `imm2` holds wait_exp; sources as 9-bit operand codes.
pub(super) fn vinterp(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let (w0, w1) = (words[0], words[1]);
    let info = lookup(&VINTERP, ((w0 >> 16) & 0x7F) as usize, words, 2)?;
    let codes = [
        (w1 & 0x1FF) as u16,
        ((w1 >> 9) & 0x1FF) as u16,
        ((w1 >> 18) & 0x1FF) as u16,
    ];
    // No reserved source codes; op_sel only on the f16 forms.
    let ok = codes.iter().all(|&c| src_code_valid(c, 1));
    require(ok, DecodeErrorKind::InvalidOperand, words, 2, info)?;
    let opsel_ok = (w0 >> 11) & 0xF == 0 || info.mnemonic.contains("f16");
    require(opsel_ok, DecodeErrorKind::ReservedField, words, 2, info)?;
    let (lit, len) = super::take_literal(words, 2, codes.contains(&255), info)?;
    let mut i = base_inst(Family::Vinterp, info, words, len);
    i.literal = lit;
    i.dst = (w0 & 0xFF) as u16;
    for (k, &code) in codes.iter().enumerate() {
        i.src[k] = decode_src(code, info.op, 1, lit);
    }
    i.imm2 = (w0 >> 8) & 7;
    i.mods.opsel = ((w0 >> 11) & 0xF) as u8;
    i.mods.clamp = (w0 >> 15) & 1 != 0;
    i.mods.neg = ((w1 >> 29) & 7) as u8;
    Ok(i)
}
