//! GFX9 matrix fused multiply-add (MFMA, gfx90a and gfx942): D = A * B + C
//! over the whole wave64, for every dense form LLVM emits from
//! `__builtin_amdgcn_mfma_*` on these targets: f32 (1, 2 and 4 blocks
//! and 16-block 4x4), xf32, f16, bf16 (the `_1k` forms and gfx90a's older
//! ones), i8, f64 and gfx942's fp8/bf8 (AMD CDNA3 ISA guide, "Matrix
//! Arithmetic Instructions"). A, B, C and D are VGPRs or AGPRs as the acc
//! bits say. Shapes and register layouts are in `mfma_form.rs`, the
//! narrow float formats in `minifloat.rs`.
//!
//! Modifiers (same chapter; AMD's matrix instruction calculator):
//! - CBSZ/ABID (multi-block ops other than f64): block b reads its A from
//!   block (b / 2^CBSZ) * 2^CBSZ + ABID; CBSZ past log2(blocks) or ABID
//!   at or past 2^CBSZ has no documented result and is refused by name,
//!   as is either field on an op they do not apply to;
//! - BLGP moves the lane B is read from (1: lanes 0-31 to all, 2: lanes
//!   32-63, 3: rotated down by 16, 4-7: one 16-lane group to all); on
//!   gfx942's f64 ops it negates A (bit 0), B (bit 1) and C (bit 2)
//!   instead, and gfx90a's f64 ops refuse it (undocumented there).
//!
//! Precision and order rest on assumption (the guide does not specify
//! them): non-f64 float products are exact and summed in f64 in block k
//! order, then C is added and the sum rounded once to f32 (round to
//! nearest even, denormals kept); the f64 ops are a chain of f64 FMAs in k
//! order starting from C; i8 sums wrap in 32 bits. Integer-valued inputs
//! give the same result under any order.
//!
//! Not modelled (refused by name): a partial EXEC and a non-zero constant
//! C (the guide does not say what the matrix core does with either). The
//! sparse SMFMAC ops are in `smfmac.rs`.

use half::{bf16, f16};

use crate::WaveErrorKind;
use crate::gfx11::exec::env::{ExecResult, Flow, illegal, unmodelled};
use crate::gfx11::exec::valu::agpr;
use crate::gfx11::exec::valu::mfma_form::{Form, Ty, form};
use crate::gfx11::exec::valu::minifloat;
use crate::gfx11::exec::valu::smfmac;
use crate::gfx11::inst::{Inst, Src};
use crate::gfx11::wave::{LANES, NUM_VGPRS, Wave};

/// Lanes of a GFX9 wave.
const WAVE: usize = 2 * LANES;

/// `n` registers from `first` of the VGPR or (`acc`) AGPR file, all 64 lanes.
pub(super) fn rows(
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
pub(super) fn element(regs: &[[u32; WAVE]], lane: usize, e: usize, bits: usize) -> u64 {
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

/// Input element raw bits as f64 (float types).
pub(super) fn widen(ty: Ty, x: u64) -> f64 {
    match ty {
        Ty::F32 => f64::from(f32::from_bits(x as u32)),
        Ty::Xf32 => minifloat::xf32(x as u32),
        Ty::F16 => f16::from_bits(x as u16).to_f64(),
        Ty::Bf16 => bf16::from_bits(x as u16).to_f64(),
        Ty::I8 => f64::from(x as u8 as i8),
        Ty::F64 => f64::from_bits(x),
        Ty::Fp8 => minifloat::fp8(x as u8),
        Ty::Bf8 => minifloat::bf8(x as u8),
    }
}

/// The block whose A block `block` reads under CBSZ/ABID.
fn a_block(block: usize, cbsz: u8, abid: u8) -> usize {
    let group = 1usize << cbsz;
    block / group * group + usize::from(abid)
}

/// Refuse CBSZ/ABID values without a documented result.
fn check_broadcast(f: &Form, i: &Inst, cbsz: u8, abid: u8) -> Result<(), WaveErrorKind> {
    if cbsz == 0 && abid == 0 {
        return Ok(());
    }
    if !f.broadcasts() {
        return Err(unmodelled(
            i,
            "CBSZ/ABID on an op without blocks to broadcast",
        ));
    }
    if 1usize << cbsz > f.blocks || usize::from(abid) >= 1usize << cbsz {
        return Err(unmodelled(i, "CBSZ/ABID out of the op's block range"));
    }
    Ok(())
}

/// Execute matrix op `i` for the whole wave.
pub(crate) fn exec(w: &mut Wave, i: &Inst) -> ExecResult {
    let Some(mai) = i.mai else {
        return Err(illegal(i));
    };
    let Some(f) = form(i.op) else {
        return smfmac::exec(w, i, mai).unwrap_or_else(|| Err(unmodelled(i, "matrix op")));
    };
    check_broadcast(&f, i, mai.cbsz, mai.abid)?;
    if w.exec_mask() != u64::MAX {
        return Err(unmodelled(i, "matrix op under a partial EXEC"));
    }
    let (in_regs, out_regs) = (f.in_regs(), f.out_regs());
    let (a, b, c) = (
        source(w, i, 0, in_regs)?,
        source(w, i, 1, in_regs)?,
        source(w, i, 2, out_regs)?,
    );
    let f64_op = f.a == Ty::F64;
    // CDNA2's f64 ops take no BLGP (the calculator's "BLGP bits supported:
    // False"; LLVM prints it raw there, as neg:[..] on gfx942). gfx90a's
    // LLVM mnemonics are the ones without the `_f64` suffix.
    if f64_op && mai.blgp != 0 && !i.mnemonic.ends_with("_f64") {
        return Err(unmodelled(i, "BLGP on a gfx90a f64 matrix op"));
    }
    let (neg_a, neg_b, neg_c, blgp) = if f64_op {
        (mai.blgp & 1 != 0, mai.blgp & 2 != 0, mai.blgp & 4 != 0, 0)
    } else {
        (false, false, false, mai.blgp)
    };
    let a_at = |row: usize, k: usize, blk: usize| {
        let (lane, e) = f.in_place(row, k, a_block(blk, mai.cbsz, mai.abid));
        element(&a, lane, e, f.a.bits())
    };
    let b_at = |k: usize, col: usize, blk: usize| {
        let (lane, e) = f.in_place(col, k, blk);
        element(&b, blgp_lane(lane, blgp), e, f.b.bits())
    };
    let mut d = c.clone();
    for blk in 0..f.blocks {
        for row in 0..f.m {
            for col in 0..f.m {
                let (reg, lane) = f.out_place(row, col, blk);
                match f.a {
                    Ty::I8 => {
                        let mut acc = c[reg][lane] as i32;
                        for k in 0..f.k {
                            let x = a_at(row, k, blk) as u8 as i8 as i32;
                            let y = b_at(k, col, blk) as u8 as i8 as i32;
                            acc = acc.wrapping_add(x * y);
                        }
                        d[reg][lane] = acc as u32;
                    }
                    Ty::F64 => {
                        let (lo, hi) = (c[reg][lane], c[reg + 1][lane]);
                        let cv = f64::from_bits(u64::from(lo) | u64::from(hi) << 32);
                        let mut acc = if neg_c { -cv } else { cv };
                        for k in 0..f.k {
                            let x = widen(f.a, a_at(row, k, blk));
                            let y = widen(f.b, b_at(k, col, blk));
                            let x = if neg_a { -x } else { x };
                            let y = if neg_b { -y } else { y };
                            acc = x.mul_add(y, acc);
                        }
                        let bits = acc.to_bits();
                        d[reg][lane] = bits as u32;
                        d[reg + 1][lane] = (bits >> 32) as u32;
                    }
                    _ => {
                        let mut sum = 0f64;
                        for k in 0..f.k {
                            sum += widen(f.a, a_at(row, k, blk)) * widen(f.b, b_at(k, col, blk));
                        }
                        let cv = f64::from(f32::from_bits(c[reg][lane]));
                        d[reg][lane] = ((sum + cv) as f32).to_bits();
                    }
                }
            }
        }
    }
    write_d(w, i, &d)
}

/// Write D's registers to the destination VGPRs or (acc) AGPRs.
pub(super) fn write_d(w: &mut Wave, i: &Inst, d: &[[u32; WAVE]]) -> ExecResult {
    let acc = i.acc & Inst::ACC_DST != 0;
    let first = i.dst as usize;
    if acc {
        agpr::check(w, i, first, d.len())?;
    } else if first + d.len() > NUM_VGPRS {
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

    #[test]
    fn lane_moves() {
        assert_eq!(blgp_lane(40, 1), 8);
        assert_eq!(blgp_lane(8, 2), 40);
        assert_eq!(blgp_lane(56, 3), 8);
        assert_eq!(blgp_lane(37, 6), 37);
        assert_eq!(blgp_lane(3, 7), 51);
        // CBSZ 2, ABID 1: blocks 4-7 read block 5's A.
        assert_eq!(a_block(6, 2, 1), 5);
        assert_eq!(a_block(3, 0, 0), 3);
        assert_eq!(a_block(15, 4, 9), 9);
    }
}
