//! WMMA: v_wmma_{f32,f16,bf16,i32}_16x16x16_* (D = A x B + C on 16x16
//! tiles), with the RDNA3 wave32 register layout:
//! - A (16 x K): lane m (0..15) holds row m, K packed in its VGPRs (two f16 /
//!   bf16, four 8-bit or eight 4-bit values per VGPR, low bits first); lanes
//!   16..31 carry a copy that the hardware ignores. B (K x 16): lane n holds
//!   column n in the same packing.
//! - C and D: VGPR r of lane l is element (row 2r + l/16, column l%16); the
//!   f16/bf16 forms keep it in the low half (op_sel[2] = 0) or the high half
//!   (op_sel[2] = 1) and leave the other half unchanged.
//!
//! Modifiers: f16/bf16 forms take neg_lo[0..2] as negation of A, B, C and
//! neg_hi[2] as |C|; the integer forms take neg_lo[0] / neg_lo[1] as "A / B
//! signed" and clamp saturates the i32 sum. Products are summed exactly (f64 /
//! i64) and rounded once; hardware's internal rounding may differ in the last
//! bit for float sums that are not exact. Wave64 WMMA is a typed error.

use half::{bf16, f16};

use super::{ExecResult, Flow, illegal, unmodelled};
use crate::isa::WaveErrorKind;
use crate::isa::inst::{Inst, Src};
use crate::isa::opcodes::Op;
use crate::isa::wave::{LANES, Wave};

/// Element type of the A/B inputs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum In {
    F16,
    Bf16,
    Iu8,
    Iu4,
}

/// Element type of C/D.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Out {
    F32,
    F16,
    Bf16,
    I32,
}

fn vgpr(i: &Inst, k: usize) -> Result<usize, WaveErrorKind> {
    match i.src[k].src {
        Src::Vgpr(r) => Ok(r as usize),
        _ => Err(illegal(i)),
    }
}

/// Element k (0..16) of lane `lane`'s A row / B column, starting at VGPR `base`.
fn element(w: &Wave, base: usize, lane: usize, k: usize, ty: In, signed: bool) -> f64 {
    let (per, bits) = match ty {
        In::F16 | In::Bf16 => (2, 16),
        In::Iu8 => (4, 8),
        In::Iu4 => (8, 4),
    };
    let word = w.vgpr[(base + k / per) & 255][lane];
    let raw = (word >> (bits * (k % per))) & ((1u32 << bits) - 1);
    match ty {
        In::F16 => f16::from_bits(raw as u16).to_f64(),
        In::Bf16 => bf16::from_bits(raw as u16).to_f64(),
        _ if signed => ((raw << (32 - bits)) as i32 >> (32 - bits)) as f64,
        _ => raw as f64,
    }
}

pub(super) fn wmma(w: &mut Wave, i: &Inst) -> ExecResult {
    use Op::*;
    if w.wave64 {
        return Err(unmodelled(i, "wave64 WMMA layout not modelled"));
    }
    let (ty, out) = match i.op {
        VWmmaF3216x16x16F16 => (In::F16, Out::F32),
        VWmmaF3216x16x16Bf16 => (In::Bf16, Out::F32),
        VWmmaF1616x16x16F16 => (In::F16, Out::F16),
        VWmmaBf1616x16x16Bf16 => (In::Bf16, Out::Bf16),
        VWmmaI3216x16x16Iu8 => (In::Iu8, Out::I32),
        VWmmaI3216x16x16Iu4 => (In::Iu4, Out::I32),
        _ => return Err(illegal(i)),
    };
    let (a, b, c, d) = (vgpr(i, 0)?, vgpr(i, 1)?, vgpr(i, 2)?, i.dst as usize);
    let int = out == Out::I32;
    let neg = |bit: u8| !int && (i.mods.neg >> bit) & 1 != 0;
    let (a_signed, b_signed) = (int && i.mods.neg & 1 != 0, int && i.mods.neg & 2 != 0);
    let hi = (i.mods.opsel >> 2) & 1 != 0;
    // The signs neg_lo[0] / neg_lo[1] put on A and B (float forms).
    let (sa, sb) = (
        if neg(0) { -1.0 } else { 1.0 },
        if neg(1) { -1.0 } else { 1.0 },
    );
    // Read everything before writing (D may overlap A, B or C).
    let mut am = [[0f64; 16]; 16];
    let mut bm = [[0f64; 16]; 16];
    for m in 0..16 {
        for k in 0..16 {
            am[m][k] = element(w, a, m, k, ty, a_signed);
            bm[k][m] = element(w, b, m, k, ty, b_signed);
        }
    }
    let exec = w.exec();
    let c_rows: [[u32; LANES]; 8] = std::array::from_fn(|r| w.vgpr[(c + r) & 255]);
    let d_rows: [[u32; LANES]; 8] = std::array::from_fn(|r| w.vgpr[(d + r) & 255]);
    let mut result = [[0u32; LANES]; 8];
    for r in 0..8 {
        let cur = c_rows[r];
        let old_d = d_rows[r];
        let mut row = [0u32; LANES];
        for l in 0..LANES {
            let (m, n) = (2 * r + l / 16, l % 16);
            let half = if hi { cur[l] >> 16 } else { cur[l] } as u16;
            let mut cv = match out {
                Out::F32 => f32::from_bits(cur[l]) as f64,
                Out::I32 => cur[l] as i32 as f64,
                Out::F16 => f16::from_bits(half).to_f64(),
                Out::Bf16 => bf16::from_bits(half).to_f64(),
            };
            if !int && (i.mods.abs >> 2) & 1 != 0 {
                cv = cv.abs();
            }
            if neg(2) {
                cv = -cv;
            }
            let v = if int {
                let dot: i64 = (0..16).map(|k| am[m][k] as i64 * bm[k][n] as i64).sum();
                let s = dot + cv as i64;
                let s = if i.mods.clamp {
                    s.clamp(i32::MIN as i64, i32::MAX as i64)
                } else {
                    s
                };
                s as u32
            } else {
                let dot: f64 = (0..16).map(|k| sa * am[m][k] * sb * bm[k][n]).sum();
                let s = dot + cv;
                let put = |h: u16| {
                    if hi {
                        (old_d[l] & 0xFFFF) | (h as u32) << 16
                    } else {
                        (old_d[l] & 0xFFFF_0000) | h as u32
                    }
                };
                match out {
                    Out::F32 => (s as f32).to_bits(),
                    Out::F16 => put(f16::from_f64(s).to_bits()),
                    _ => put(bf16::from_f64(s).to_bits()),
                }
            };
            row[l] = v;
        }
        result[r] = row;
    }
    for (r, row) in result.iter().enumerate() {
        w.write_vgpr(d + r, row, exec);
    }
    Ok(Flow::Next)
}
