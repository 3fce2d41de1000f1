//! GFX9 SDWA (sub-dword addressing: AMD CDNA3 ISA guide, "VOP_SDWA"): each
//! 32-bit source is reduced to the byte or word its select names, zero- or
//! sign-extended (sext), the instruction runs as its plain form on those
//! values, and the result's selected part (dst_sel) is written into the
//! destination with the rest padded with zeros, sign-extended from the
//! part, or preserved (dst_unused). Float modifiers (neg/abs, clamp, omod)
//! stay with the plain form, which applies them to the selected values.
//!
//! The plain form reads the selected src0 through `Wave::dpp_row` (as DPP
//! does) and a VGPR src1 from its register, which holds the selected values
//! while the plain form runs; a scalar src1 becomes the constant it selects.
//! A compare whose sdst names an SGPR pair other than VCC runs as the VCC
//! form and moves its mask there.
//! Only GFX9 code carries SDWA, so gfx11 instructions never come here.

use crate::gfx11::exec::env::{Env, ExecResult};
use crate::gfx11::exec::valu::src32;
use crate::gfx11::inst::{Family, Inst, Operand, Sdwa, Src};
use crate::gfx11::wave::{LANES, Lanes, NULL, VCC, Wave};

/// The part of `v` that select `sel` names (0..=3 a byte, 4/5 a word,
/// 6 the dword), zero- or sign-extended.
fn select(v: u32, sel: u8, sext: bool) -> u32 {
    let (shift, bits) = match sel {
        0..=3 => (8 * sel as u32, 8),
        4 | 5 => (16 * (sel as u32 - 4), 16),
        _ => return v,
    };
    let part = (v >> shift) & ((1 << bits) - 1);
    if sext {
        ((part << (32 - bits)) as i32 >> (32 - bits)) as u32
    } else {
        part
    }
}

/// `result`'s low part placed where `sel` names in `old` (the other bits
/// by `unused`: 0 zeros, 1 the part's sign above it and zeros below, 2
/// `old`'s bits).
fn place(old: u32, result: u32, sel: u8, unused: u8) -> u32 {
    let (shift, bits) = match sel {
        0..=3 => (8 * sel as u32, 8),
        4 | 5 => (16 * (sel as u32 - 4), 16),
        _ => return result,
    };
    let mask = ((1u32 << bits) - 1) << shift;
    let part = (result << shift) & mask;
    match unused {
        2 => (old & !mask) | part,
        1 => {
            let sign = (part >> (shift + bits - 1)) & 1 != 0;
            let above = if shift + bits == 32 {
                0
            } else {
                u32::MAX << (shift + bits)
            };
            part | if sign { above } else { 0 }
        }
        _ => part,
    }
}

/// Execute SDWA instruction `i` over the current 32 lanes; `plain` runs its
/// plain form (step.rs's `step_plain`).
pub(crate) fn step_sdwa(
    w: &mut Wave,
    env: &mut Env,
    i: &Inst,
    s: &Sdwa,
    plain: impl Fn(&mut Wave, &mut Env, &Inst) -> ExecResult,
) -> ExecResult {
    let mut p = i.clone();
    p.sdwa = None;
    let a = src32(w, env, i, 0)?;
    w.dpp_row = a.map(|v| select(v, s.src0_sel, s.sext & 1 != 0));
    p.src[0] = Operand {
        code: i.src[0].code,
        src: Src::DppRow,
    };
    // src1 of VOP2/VOPC: a VGPR holds its selected values while the plain
    // form runs; a scalar or constant is one value for every lane.
    let mut saved: Option<(usize, Lanes)> = None;
    if i.family != Family::Vop1 {
        let b = src32(w, env, i, 1)?.map(|v| select(v, s.src1_sel, s.sext & 2 != 0));
        match i.src[1].src {
            Src::Vgpr(r) => {
                saved = Some((r as usize, w.vgpr[r as usize]));
                w.vgpr[r as usize] = b;
            }
            _ => {
                p.src[1] = Operand {
                    code: i.src[1].code,
                    src: Src::Imm(u64::from(b[0])),
                };
            }
        }
    }
    let vector_dst = i.family != Family::Vopc;
    let d = i.dst as usize & 255;
    let old = w.vgpr[d];
    let exec = w.exec();
    // A compare into an SGPR pair runs as the VCC form, its result then
    // moved to the pair (this half's word) and VCC restored.
    let vcc = w.sgpr[VCC + w.half];
    let r = plain(w, env, &p);
    let result = w.vgpr[d];
    if let Some((reg, row)) = saved {
        w.vgpr[reg] = row;
    }
    let flow = r?;
    if let Some(sdst) = s.sdst {
        let mask = w.sgpr[VCC + w.half];
        w.sgpr[VCC + w.half] = vcc;
        if sdst as usize != NULL {
            w.set_sgpr(sdst as usize + w.half, mask);
        }
    }
    if vector_dst {
        let mut out = old;
        for l in 0..LANES {
            if exec >> l & 1 != 0 {
                out[l] = place(old[l], result[l], s.dst_sel, s.dst_unused);
            }
        }
        w.vgpr[d] = out;
    }
    Ok(flow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_extend_and_places_pad_extend_or_preserve() {
        let v = 0x80F1_7F02;
        assert_eq!(select(v, 0, false), 0x02);
        assert_eq!(select(v, 2, true), 0xFFFF_FFF1);
        assert_eq!(select(v, 3, false), 0x80);
        assert_eq!(select(v, 5, true), 0xFFFF_80F1);
        assert_eq!(select(v, 4, false), 0x7F02);
        assert_eq!(select(v, 6, true), v);
        let old = 0x1234_5678;
        assert_eq!(place(old, 0xAB, 1, 0), 0x0000_AB00);
        assert_eq!(place(old, 0xAB, 1, 1), 0xFFFF_AB00);
        assert_eq!(place(old, 0x2B, 1, 1), 0x0000_2B00);
        assert_eq!(place(old, 0xAB, 1, 2), 0x1234_AB78);
        assert_eq!(place(old, 0xBEEF, 5, 2), 0xBEEF_5678);
        assert_eq!(place(old, 0x8001, 4, 1), 0xFFFF_8001);
        assert_eq!(place(old, 0xCAFE_F00D, 6, 2), 0xCAFE_F00D);
    }
}
