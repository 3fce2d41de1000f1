//! gfx942's sparse matrix ops (SMFMAC): D += A * B with A 4:2 structurally
//! sparse. Of each four consecutive K elements of a row of A, the
//! registers hold two; a 2-bit index per stored element, in the VGPR that
//! src2 names, says which of the four it is (AMD's matrix instruction
//! calculator, "Example of Printing Compression Index Information for a
//! Sparse Matrix Instruction", and its CDNA3 mappings; AMD CDNA3 ISA
//! guide, "Matrix Arithmetic Instructions"). vdst is both C and D.
//!
//! Layout, with `e` = K * M / 64 dense K elements per lane: B[k][j] is in
//! lane j + M * (k / e), element k % e, as for the dense ops; the lane
//! holding A[i][k] is i + M * (k / e), and within it group g = (k % e) / 4
//! keeps its two stored elements as packed elements 2g and 2g + 1, their
//! indices in bits [4g+1:4g] and [4g+3:4g+2] of the index VGPR, shifted up
//! by ABID * e bits (ABID picks one of the index sets; the calculator).
//!
//! Refused by name: CBSZ (its sparse meaning is not documented beyond
//! index-set selection), an ABID past the register's index sets, BLGP (the
//! calculator: "BLGP bits supported: False"), and an index pair that is
//! not increasing (what two entries naming one position, or named out of
//! order, produce is not documented). Summation as in `mfma.rs`.

use crate::gfx11::exec::env::{ExecResult, unmodelled};
use crate::gfx11::exec::valu::mfma::{element, rows, widen, write_d};
use crate::gfx11::exec::valu::mfma_form::Ty;
use crate::gfx11::inst::{Inst, Mai, Src};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::Wave;

/// M (= N), K and the A and B types of a sparse op.
fn shape(op: Op) -> Option<(usize, usize, Ty, Ty)> {
    use Op::*;
    use Ty::*;
    Some(match op {
        VSmfmacF3216x16x32F16 => (16, 32, F16, F16),
        VSmfmacF3232x32x16F16 => (32, 16, F16, F16),
        VSmfmacF3216x16x32Bf16 => (16, 32, Bf16, Bf16),
        VSmfmacF3232x32x16Bf16 => (32, 16, Bf16, Bf16),
        VSmfmacI3216x16x64I8 => (16, 64, I8, I8),
        VSmfmacI3232x32x32I8 => (32, 32, I8, I8),
        VSmfmacF3216x16x64Bf8Bf8 => (16, 64, Bf8, Bf8),
        VSmfmacF3216x16x64Bf8Fp8 => (16, 64, Bf8, Fp8),
        VSmfmacF3216x16x64Fp8Bf8 => (16, 64, Fp8, Bf8),
        VSmfmacF3216x16x64Fp8Fp8 => (16, 64, Fp8, Fp8),
        VSmfmacF3232x32x32Bf8Bf8 => (32, 32, Bf8, Bf8),
        VSmfmacF3232x32x32Bf8Fp8 => (32, 32, Bf8, Fp8),
        VSmfmacF3232x32x32Fp8Bf8 => (32, 32, Fp8, Bf8),
        VSmfmacF3232x32x32Fp8Fp8 => (32, 32, Fp8, Fp8),
        _ => return None,
    })
}

/// Register and lane of C/D[i][j] (one block).
fn out_place(m: usize, i: usize, j: usize) -> (usize, usize) {
    if m == 16 {
        (i % 4, j + 16 * (i / 4))
    } else {
        (4 * (i / 8) + i % 4, j + 32 * (i / 4 % 2))
    }
}

/// Execute sparse matrix op `i`, or `None` when `i` is not one.
pub(crate) fn exec(w: &mut Wave, i: &Inst, mai: Mai) -> Option<ExecResult> {
    let (m, k, ta, tb) = shape(i.op)?;
    Some(run(w, i, mai, m, k, ta, tb))
}

fn run(w: &mut Wave, i: &Inst, mai: Mai, m: usize, k: usize, ta: Ty, tb: Ty) -> ExecResult {
    let e = k * m / 64;
    if mai.cbsz != 0 || usize::from(mai.abid) >= 32 / e {
        return Err(unmodelled(i, "CBSZ/ABID on a sparse matrix op"));
    }
    if mai.blgp != 0 {
        return Err(unmodelled(i, "BLGP on a sparse matrix op"));
    }
    if w.exec_mask() != u64::MAX {
        return Err(unmodelled(i, "matrix op under a partial EXEC"));
    }
    let acc = |bit: u8| i.acc & bit != 0;
    let Src::Vgpr(ra) = i.src[0].src else {
        return Err(unmodelled(i, "matrix source other than registers"));
    };
    let Src::Vgpr(rb) = i.src[1].src else {
        return Err(unmodelled(i, "matrix source other than registers"));
    };
    // The index is always an ArchVGPR (the calculator).
    let Src::Vgpr(rx) = i.src[2].src else {
        return Err(unmodelled(i, "sparse index other than a VGPR"));
    };
    let out_regs = m * m / 64;
    let a = rows(w, i, acc(Inst::ACC_SRC0), ra as usize, 2)?;
    let b = rows(w, i, acc(Inst::ACC_SRC1), rb as usize, 4)?;
    let idx = rows(w, i, false, rx as usize, 1)?;
    let c = rows(w, i, acc(Inst::ACC_DST), i.dst as usize, out_regs)?;
    let shift = usize::from(mai.abid) * e;
    // Each lane's index pairs must name increasing positions.
    for lane in 0..64 {
        for g in 0..e / 4 {
            let f = idx[0][lane] >> (shift + 4 * g);
            if f & 3 >= (f >> 2) & 3 {
                return Err(unmodelled(i, "sparse index pair not increasing"));
            }
        }
    }
    let mut d = c.clone();
    for row in 0..m {
        for col in 0..m {
            let (reg, lane) = out_place(m, row, col);
            let mut sum = 0f64;
            let mut isum = c[reg][lane] as i32;
            for q in 0..k / e {
                let al = row + m * q;
                for g in 0..e / 4 {
                    let f = idx[0][al] >> (shift + 4 * g);
                    for t in 0..2 {
                        let kk = q * e + 4 * g + ((f >> (2 * t)) & 3) as usize;
                        let x = element(&a, al, 2 * g + t, ta.bits());
                        let y = element(&b, col + m * (kk / e), kk % e, tb.bits());
                        if ta == Ty::I8 {
                            let p = i32::from(x as u8 as i8) * i32::from(y as u8 as i8);
                            isum = isum.wrapping_add(p);
                        } else {
                            sum += widen(ta, x) * widen(tb, y);
                        }
                    }
                }
            }
            d[reg][lane] = if ta == Ty::I8 {
                isum as u32
            } else {
                let cv = f64::from(f32::from_bits(c[reg][lane]));
                ((sum + cv) as f32).to_bits()
            };
        }
    }
    write_d(w, i, &d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calculator's D mapping at two points.
    #[test]
    fn d_layout() {
        assert_eq!(out_place(16, 5, 3), (1, 19));
        assert_eq!(out_place(32, 13, 7), (5, 39));
        assert!(shape(Op::VMfmaF3216x16x4f32).is_none());
    }
}
