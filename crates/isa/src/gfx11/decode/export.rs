//! EXP (pixel/vertex shader exports), decoded and printed like LLVM but never
//! executed by compute kernels (the executor reports it illegal).
//! Two dwords: en [3:0], target [9:4], done 11, row_en 13 (bits 10, 12 and
//! [25:14] are ignored, as LLVM does); vsrc0..3 [39:32], [47:40], [55:48],
//! [63:56]. Every word of the encoding is an instruction.

use super::{DecodeError, base_inst, truncated};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::opcodes::EXP;

/// `imm` holds the target, `imm2` the enable mask, `flags` bit 0 done and
/// bit 1 row_en; `data`/`addr`/`saddr` are not used: the sources stay in
/// word 1.
pub(super) fn exp(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let Some(info) = EXP[0].as_ref() else {
        return Err(truncated(words, None));
    };
    let w0 = words[0];
    let mut i = base_inst(Family::Exp, info, words, 2);
    i.imm = ((w0 >> 4) & 0x3F) as i32;
    i.imm2 = w0 & 0xF;
    i.flags = (((w0 >> 11) & 1) | (((w0 >> 13) & 1) << 1)) as u8;
    Ok(i)
}

/// LLVM's name of export target `t`.
pub(crate) fn exp_target(t: u32) -> String {
    match t {
        0..=7 => format!("mrt{t}"),
        8 => "mrtz".into(),
        12..=16 => format!("pos{}", t - 12),
        20 => "prim".into(),
        21 | 22 => format!("dual_src_blend{}", t - 21),
        _ => format!("invalid_target_{t}"),
    }
}
