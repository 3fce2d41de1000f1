//! VOPD dual issue: two VALU ops (X and Y) in one 64-bit word (+ literal).
//! srcX0 [8:0], vsrcX1 [16:9], opY [21:17], opX [25:22]; srcY0 [40:32],
//! vsrcY1 [48:41], vdstY [55:49] (its low bit is the inverse of vdstX's),
//! vdstX [63:56]. One shared literal serves both halves.

use super::vop::{is_madak, vgpr_operand};
use super::{
    DecodeError, DecodeErrorKind, base_inst, decode_src, reject, src_code_valid, truncated,
};
use crate::gfx11::inst::{DualHalf, Family, Inst};
use crate::gfx11::opcodes::{Op, OpInfo, VOPD_X, VOPD_Y};

pub(super) fn vopd(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let (w0, w1) = (words[0], words[1]);
    let x = VOPD_X[((w0 >> 22) & 0xF) as usize];
    let y = VOPD_Y[((w0 >> 17) & 0x1F) as usize];
    let (Some((xop, xname)), Some((yop, yname))) = (x, y) else {
        return Err(reject(DecodeErrorKind::UnknownOpcode, words, 2, None));
    };
    let sx = (w0 & 0x1FF) as u16;
    let sy = (w1 & 0x1FF) as u16;
    // Defined source codes only (no DPP markers); v_dual_mov_b32 has no
    // vsrc1, whose field must then be zero.
    let ok = src_code_valid(sx, 1)
        && src_code_valid(sy, 1)
        && (xop != Op::VMovB32 || (w0 >> 9) & 0xFF == 0)
        && (yop != Op::VMovB32 || (w1 >> 9) & 0xFF == 0);
    if !ok {
        return Err(reject(DecodeErrorKind::InvalidOperand, words, 2, None));
    }
    let needs = sx == 255 || sy == 255 || is_madak(xop) || is_madak(yop);
    let info = OpInfo {
        op: xop,
        mnemonic: xname,
        widths: [1, 1, 1, 0, 0],
    };
    let (lit, len) = if needs {
        match words.get(2) {
            Some(&l) => (Some(l), 3),
            None => return Err(truncated(words, Some(xname))),
        }
    } else {
        (None, 2)
    };
    let mut i = base_inst(Family::Vopd, &info, words, len);
    i.literal = lit;
    let vdstx = (w1 >> 24) as u8;
    i.dst = vdstx as u16;
    i.src[0] = decode_src(sx, xop, 1, lit);
    i.src[1] = vgpr_operand(((w0 >> 9) & 0xFF) as u8);
    // The shared literal is the K of whichever half is fmaak/fmamk (the Y
    // half reads it from src[2] too).
    if is_madak(xop) || is_madak(yop) {
        i.src[2] = decode_src(255, xop, 1, lit);
    }
    let vdsty = ((((w1 >> 17) & 0x7F) << 1) as u8) | ((vdstx & 1) ^ 1);
    i.dual = Some(DualHalf {
        op: yop,
        mnemonic: yname,
        dst: vdsty,
        src0: decode_src(sy, yop, 1, lit),
        vsrc1: ((w1 >> 9) & 0xFF) as u8,
    });
    Ok(i)
}
