//! GFX9 matrix fused multiply-add (MFMA, gfx90a and gfx942): D = A * B + C
//! over the whole wave64, for the single-block forms
//! v_mfma_f32_{32x32x2,16x16x4}_f32, v_mfma_f32_{32x32x8,16x16x16}_f16,
//! v_mfma_f32_{32x32x8,16x16x16}_bf16 (the `_1k` forms),
//! v_mfma_i32_16x16x16_i8 (gfx90a), v_mfma_i32_16x16x32_i8 (gfx942) and
//! v_mfma_f64_16x16x4_f64 (AMD CDNA3 ISA guide, "Matrix Arithmetic
//! Instructions"). A, B, C and D are VGPRs or AGPRs as the acc bits say.
//!
//! Register layouts (the guide's matrix chapter; AMD's matrix instruction
//! calculator, `--register-layout`), for an M x N x K op whose lanes hold
//! `e` = K * M / 64 consecutive K elements each (packed from bit 0 of the
//! first register up):
//! - A[i][k]: lane i + M * (k / e), element k % e;
//! - B[k][j]: lane j + M * (k / e), element k % e, the lane then moved by
//!   BLGP (1: lanes 0-31 to all, 2: lanes 32-63, 3: rotated down by 16,
//!   4-7: one 16-lane group to all);
//! - C, D (32-bit): M = 16, register i % 4, lane j + 16 * (i / 4); M = 32,
//!   register i % 4 + 4 * (i / 8), lane j + 32 * (i / 4 % 2);
//! - C, D of the f64 op: register pair i / 4, lane j + 16 * (i % 4); its
//!   BLGP field negates A (bit 0), B (bit 1) and C (bit 2).
//!
//! Precision and order rest on assumption (the guide does not specify
//! them): f32, f16 and bf16 products are exact and summed in f64 in k
//! order, then C is added and the sum rounded once to f32 (round to
//! nearest even, denormals kept); the f64 op is a chain of f64 FMAs in k
//! order starting from C; i8 sums wrap in 32 bits. Integer-valued inputs
//! give the same result under any order.
//!
//! Not modelled (refused by name): CBSZ/ABID broadcasts (these forms have
//! one block), a partial EXEC, a non-zero constant C, other matrix ops.

use half::{bf16, f16};

use crate::WaveErrorKind;
use crate::gfx11::exec::env::{ExecResult, Flow, illegal, unmodelled};
use crate::gfx11::exec::valu::agpr;
use crate::gfx11::inst::{Inst, Src};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, NUM_VGPRS, Wave};

/// Lanes of a GFX9 wave.
const WAVE: usize = 2 * LANES;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ty {
    F32,
    F16,
    Bf16,
    I8,
    F64,
}

impl Ty {
    fn bits(self) -> usize {
        match self {
            Ty::F32 => 32,
            Ty::F16 | Ty::Bf16 => 16,
            Ty::I8 => 8,
            Ty::F64 => 64,
        }
    }
}

/// M (= N), K and the input type of a modelled op.
fn shape(op: Op) -> Option<(usize, usize, Ty)> {
    use Op::*;
    Some(match op {
        VMfmaF3232x32x2f32 => (32, 2, Ty::F32),
        VMfmaF3216x16x4f32 => (16, 4, Ty::F32),
        VMfmaF3232x32x8f16 => (32, 8, Ty::F16),
        VMfmaF3216x16x16f16 => (16, 16, Ty::F16),
        VMfmaF3232x32x8bf161k => (32, 8, Ty::Bf16),
        VMfmaF3216x16x16bf161k => (16, 16, Ty::Bf16),
        VMfmaI3216x16x16i8 => (16, 16, Ty::I8),
        VMfmaI3216x16x32I8 => (16, 32, Ty::I8),
        VMfmaF6416x16x4f64 => (16, 4, Ty::F64),
        _ => return None,
    })
}

/// `n` registers from `first` of the VGPR or (`acc`) AGPR file, all 64 lanes.
fn rows(
    w: &Wave,
    i: &Inst,
    acc: bool,
    first: usize,
    n: usize,
) -> Result<Vec<[u32; WAVE]>, WaveErrorKind> {
    if acc {
        agpr::check(w, i, first, n)?;
    } else if first + n > NUM_VGPRS {
        return Err(illegal(i));
    }
    Ok((first..first + n)
        .map(|r| {
            let (lo, hi) = if acc {
                (&w.agpr[r], &w.agpr_hi[r])
            } else {
                (&w.vgpr[r], &w.vgpr_hi[r])
            };
            let mut row = [0u32; WAVE];
            row[..LANES].copy_from_slice(lo);
            row[LANES..].copy_from_slice(hi);
            row
        })
        .collect())
}

/// A matrix operand's registers (sources A, B, C: `k` = 0, 1, 2).
fn source(w: &Wave, i: &Inst, k: usize, n: usize) -> Result<Vec<[u32; WAVE]>, WaveErrorKind> {
    let acc = i.acc & (Inst::ACC_SRC0 << k) != 0;
    match i.src[k].src {
        Src::Vgpr(r) => rows(w, i, acc, r as usize, n),
        Src::Imm(0) if k == 2 => Ok(vec![[0; WAVE]; n]),
        _ => Err(unmodelled(i, "matrix source other than registers or C = 0")),
    }
}

/// Element `e` (of `bits` bits) of lane `lane` in `regs`, as raw bits.
fn element(regs: &[[u32; WAVE]], lane: usize, e: usize, bits: usize) -> u64 {
    let at = e * bits;
    if bits == 64 {
        let r = at / 32;
        return u64::from(regs[r][lane]) | u64::from(regs[r + 1][lane]) << 32;
    }
    let v = regs[at / 32][lane] >> (at % 32);
    u64::from(v) & ((1u64 << bits) - 1)
}

/// The lane B's value comes from under BLGP.
fn blgp_lane(lane: usize, blgp: u8) -> usize {
    match blgp {
        1 => lane % 32,
        2 => lane % 32 + 32,
        3 => (lane + 16) % 64,
        4..=7 => lane % 16 + 16 * (blgp as usize - 4),
        _ => lane,
    }
}

/// Register and lane of D[i][j] (32-bit results; the f64 op's pair index).
fn d_place(m: usize, ty: Ty, i: usize, j: usize) -> (usize, usize) {
    match (m, ty) {
        (_, Ty::F64) => (i / 4, j + 16 * (i % 4)),
        (16, _) => (i % 4, j + 16 * (i / 4)),
        _ => (i % 4 + 4 * (i / 8), j + 32 * (i / 4 % 2)),
    }
}

/// Execute matrix op `i` for the whole wave.
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> ExecResult {
    let Some(mai) = i.mai else {
        return Err(illegal(i));
    };
    let Some((m, kdim, ty)) = shape(i.op) else {
        return Err(unmodelled(i, "matrix op"));
    };
    if mai.cbsz != 0 || mai.abid != 0 {
        return Err(unmodelled(i, "CBSZ/ABID broadcast"));
    }
    if w.exec_mask() != u64::MAX {
        return Err(unmodelled(i, "matrix op under a partial EXEC"));
    }
    let e = kdim * m / WAVE;
    let in_regs = (e * ty.bits()).div_ceil(32);
    let out_regs = if ty == Ty::F64 {
        m * m * 2 / WAVE
    } else {
        m * m / WAVE
    };
    let (a, b, c) = (
        source(w, i, 0, in_regs)?,
        source(w, i, 1, in_regs)?,
        source(w, i, 2, out_regs)?,
    );
    let (neg_a, neg_b, neg_c, blgp) = if ty == Ty::F64 {
        (mai.blgp & 1 != 0, mai.blgp & 2 != 0, mai.blgp & 4 != 0, 0)
    } else {
        (false, false, false, mai.blgp)
    };
    let a_at = |r: usize, k: usize| element(&a, r + m * (k / e), k % e, ty.bits());
    let b_at =
        |k: usize, col: usize| element(&b, blgp_lane(col + m * (k / e), blgp), k % e, ty.bits());
    let as_f64 = |x: u64| match ty {
        Ty::F32 => f64::from(f32::from_bits(x as u32)),
        Ty::F16 => f16::from_bits(x as u16).to_f64(),
        Ty::Bf16 => bf16::from_bits(x as u16).to_f64(),
        Ty::I8 => f64::from(x as u8 as i8),
        Ty::F64 => f64::from_bits(x),
    };
    let mut d = c.clone();
    for row in 0..m {
        for col in 0..m {
            let (reg, lane) = d_place(m, ty, row, col);
            match ty {
                Ty::I8 => {
                    let mut acc = c[reg][lane] as i32;
                    for k in 0..kdim {
                        let p =
                            (a_at(row, k) as u8 as i8 as i32) * (b_at(k, col) as u8 as i8 as i32);
                        acc = acc.wrapping_add(p);
                    }
                    d[reg][lane] = acc as u32;
                }
                Ty::F64 => {
                    let (lo, hi) = (c[2 * reg][lane], c[2 * reg + 1][lane]);
                    let cv = f64::from_bits(u64::from(lo) | u64::from(hi) << 32);
                    let mut acc = if neg_c { -cv } else { cv };
                    for k in 0..kdim {
                        let x = as_f64(a_at(row, k));
                        let y = as_f64(b_at(k, col));
                        let x = if neg_a { -x } else { x };
                        let y = if neg_b { -y } else { y };
                        acc = x.mul_add(y, acc);
                    }
                    let bits = acc.to_bits();
                    d[2 * reg][lane] = bits as u32;
                    d[2 * reg + 1][lane] = (bits >> 32) as u32;
                }
                _ => {
                    let mut sum = 0f64;
                    for k in 0..kdim {
                        sum += as_f64(a_at(row, k)) * as_f64(b_at(k, col));
                    }
                    let cv = f64::from(f32::from_bits(c[reg][lane]));
                    d[reg][lane] = ((sum + cv) as f32).to_bits();
                }
            }
        }
    }
    let acc = i.acc & Inst::ACC_DST != 0;
    let first = i.dst as usize;
    if acc {
        agpr::check(w, i, first, out_regs)?;
    } else if first + out_regs > NUM_VGPRS {
        return Err(illegal(i));
    }
    for (k, row) in d.iter().enumerate() {
        let r = first + k;
        let (lo, hi) = if acc {
            (&mut w.agpr[r], &mut w.agpr_hi[r])
        } else {
            (&mut w.vgpr[r], &mut w.vgpr_hi[r])
        };
        lo.copy_from_slice(&row[..LANES]);
        hi.copy_from_slice(&row[LANES..]);
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calculator's layouts at a few points: 16x16 f32 D[5][3] is v1
    /// lane 19; 32x32 D[13][7] is v5 lane 39; f64 D[6][2] is pair 1 lane 34.
    #[test]
    fn d_layouts() {
        assert_eq!(d_place(16, Ty::F32, 5, 3), (1, 19));
        assert_eq!(d_place(32, Ty::F32, 13, 7), (5, 39));
        assert_eq!(d_place(16, Ty::F64, 6, 2), (1, 34));
        assert_eq!(blgp_lane(40, 1), 8);
        assert_eq!(blgp_lane(8, 2), 40);
        assert_eq!(blgp_lane(56, 3), 8);
        assert_eq!(blgp_lane(37, 6), 37);
        assert_eq!(blgp_lane(3, 7), 51);
    }
}
