//! The shape of every dense GFX9 matrix op gfxsim models (gfx90a and
//! gfx942): M (= N), K, the number of blocks and the A and B element types,
//! and where each matrix element lives in the wave's registers.
//!
//! Shapes and layouts follow AMD's matrix instruction calculator
//! (`--detail-instruction`, "Matrix element to register mapping") for the
//! CDNA2 and CDNA3 ISAs, which restates the CDNA3 ISA guide's "Matrix
//! Arithmetic Instructions" chapter. One rule covers them all: with B
//! blocks and `e` = K * M * B / 64 K elements per lane (packed from bit 0
//! of the first register up), A[i][k] of block b is in lane
//! i + M * b + M * B * (k / e), element k % e, and B[k][j] likewise with j.

use crate::gfx11::opcodes::Op;

/// An input element type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Ty {
    F32,
    /// f32 registers read as xf32 (gfx942's `_xf32` ops).
    Xf32,
    F16,
    Bf16,
    I8,
    F64,
    /// 8-bit E4M3 float, gfx942's FNUZ variant.
    Fp8,
    /// 8-bit E5M2 float, gfx942's FNUZ variant.
    Bf8,
}

impl Ty {
    pub(crate) fn bits(self) -> usize {
        match self {
            Ty::F32 | Ty::Xf32 => 32,
            Ty::F16 | Ty::Bf16 => 16,
            Ty::I8 | Ty::Fp8 | Ty::Bf8 => 8,
            Ty::F64 => 64,
        }
    }
}

/// A modelled matrix op.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Form {
    pub m: usize,
    pub k: usize,
    pub blocks: usize,
    pub a: Ty,
    pub b: Ty,
}

impl Form {
    const fn new(m: usize, k: usize, blocks: usize, a: Ty, b: Ty) -> Self {
        Form { m, k, blocks, a, b }
    }

    /// K elements each lane holds.
    pub(crate) fn per_lane(&self) -> usize {
        self.k * self.m * self.blocks / 64
    }

    /// Registers of A (and of B).
    pub(crate) fn in_regs(&self) -> usize {
        (self.per_lane() * self.a.bits()).div_ceil(32)
    }

    /// Registers of C and D.
    pub(crate) fn out_regs(&self) -> usize {
        let words = if self.a == Ty::F64 { 2 } else { 1 };
        self.m * self.m * self.blocks * words / 64
    }

    /// Lane and element of A[i][k] of `block` (B[k][j] with `i` = j).
    pub(crate) fn in_place(&self, i: usize, k: usize, block: usize) -> (usize, usize) {
        let e = self.per_lane();
        (i + self.m * block + self.m * self.blocks * (k / e), k % e)
    }

    /// Register (the first of a pair for f64) and lane of C[i][j] and
    /// D[i][j] of `block`.
    pub(crate) fn out_place(&self, i: usize, j: usize, block: usize) -> (usize, usize) {
        let m = self.m;
        if self.a == Ty::F64 {
            return (2 * (i / 4), j + m * block + 16 * (i % 4));
        }
        match m {
            4 => (i, j + 4 * block),
            16 => (4 * block + i % 4, j + 16 * (i / 4)),
            _ => (16 * block + 4 * (i / 8) + i % 4, j + 32 * (i / 4 % 2)),
        }
    }

    /// Whether CBSZ/ABID apply: the multi-block ops other than f64 (the
    /// calculator's "CBSZ and ABID bits supported").
    pub(crate) fn broadcasts(&self) -> bool {
        self.blocks > 1 && self.a != Ty::F64
    }
}

/// The form of `op`, or `None` for other ops (SMFMAC: `smfmac.rs`).
pub(crate) fn form(op: Op) -> Option<Form> {
    use Op::*;
    use Ty::*;
    Some(match op {
        VMfmaF3232x32x1f32 => Form::new(32, 1, 2, F32, F32),
        VMfmaF3216x16x1f32 => Form::new(16, 1, 4, F32, F32),
        VMfmaF324x4x1f32 => Form::new(4, 1, 16, F32, F32),
        VMfmaF3232x32x2f32 => Form::new(32, 2, 1, F32, F32),
        VMfmaF3216x16x4f32 => Form::new(16, 4, 1, F32, F32),
        VMfmaF3216x16x8Xf32 => Form::new(16, 8, 1, Xf32, Xf32),
        VMfmaF3232x32x4Xf32 => Form::new(32, 4, 1, Xf32, Xf32),
        VMfmaF3232x32x4f16 => Form::new(32, 4, 2, F16, F16),
        VMfmaF3216x16x4f16 => Form::new(16, 4, 4, F16, F16),
        VMfmaF324x4x4f16 => Form::new(4, 4, 16, F16, F16),
        VMfmaF3232x32x8f16 => Form::new(32, 8, 1, F16, F16),
        VMfmaF3216x16x16f16 => Form::new(16, 16, 1, F16, F16),
        VMfmaF3232x32x4bf161k => Form::new(32, 4, 2, Bf16, Bf16),
        VMfmaF3216x16x4bf161k => Form::new(16, 4, 4, Bf16, Bf16),
        VMfmaF324x4x4bf161k => Form::new(4, 4, 16, Bf16, Bf16),
        VMfmaF3232x32x8bf161k => Form::new(32, 8, 1, Bf16, Bf16),
        VMfmaF3216x16x16bf161k => Form::new(16, 16, 1, Bf16, Bf16),
        VMfmaF3232x32x2bf16 => Form::new(32, 2, 2, Bf16, Bf16),
        VMfmaF3216x16x2bf16 => Form::new(16, 2, 4, Bf16, Bf16),
        VMfmaF324x4x2bf16 => Form::new(4, 2, 16, Bf16, Bf16),
        VMfmaF3232x32x4bf16 => Form::new(32, 4, 1, Bf16, Bf16),
        VMfmaF3216x16x8bf16 => Form::new(16, 8, 1, Bf16, Bf16),
        VMfmaI3232x32x4i8 => Form::new(32, 4, 2, I8, I8),
        VMfmaI3216x16x4i8 => Form::new(16, 4, 4, I8, I8),
        VMfmaI324x4x4i8 => Form::new(4, 4, 16, I8, I8),
        VMfmaI3232x32x8i8 => Form::new(32, 8, 1, I8, I8),
        VMfmaI3216x16x16i8 => Form::new(16, 16, 1, I8, I8),
        VMfmaI3232x32x16I8 => Form::new(32, 16, 1, I8, I8),
        VMfmaI3216x16x32I8 => Form::new(16, 32, 1, I8, I8),
        VMfmaF6416x16x4f64 => Form::new(16, 4, 1, F64, F64),
        VMfmaF644x4x4f64 => Form::new(4, 4, 4, F64, F64),
        VMfmaF3216x16x32Bf8Bf8 => Form::new(16, 32, 1, Bf8, Bf8),
        VMfmaF3216x16x32Bf8Fp8 => Form::new(16, 32, 1, Bf8, Fp8),
        VMfmaF3216x16x32Fp8Bf8 => Form::new(16, 32, 1, Fp8, Bf8),
        VMfmaF3216x16x32Fp8Fp8 => Form::new(16, 32, 1, Fp8, Fp8),
        VMfmaF3232x32x16Bf8Bf8 => Form::new(32, 16, 1, Bf8, Bf8),
        VMfmaF3232x32x16Bf8Fp8 => Form::new(32, 16, 1, Bf8, Fp8),
        VMfmaF3232x32x16Fp8Bf8 => Form::new(32, 16, 1, Fp8, Bf8),
        VMfmaF3232x32x16Fp8Fp8 => Form::new(32, 16, 1, Fp8, Fp8),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calculator's mappings at a few points.
    #[test]
    fn layouts() {
        let f = form(Op::VMfmaF3232x32x1f32).unwrap();
        // C/D[i][j].block GPR 16 * block + 4 * (i / 8) + i % 4, lane (32 * (i / 4)) % 64 + j.
        assert_eq!(f.out_place(13, 7, 1), (16 + 4 + 1, 39));
        assert_eq!((f.in_regs(), f.out_regs()), (1, 32));
        assert_eq!(f.in_place(5, 0, 1), (37, 0));
        let f = form(Op::VMfmaF324x4x4f16).unwrap();
        // A lane 4 * block + i, K packed in two registers; D GPR i, lane 4 * block + j.
        assert_eq!(f.in_place(3, 3, 5), (23, 3));
        assert_eq!(f.out_place(2, 1, 9), (2, 37));
        assert_eq!((f.in_regs(), f.out_regs()), (2, 4));
        let f = form(Op::VMfmaF644x4x4f64).unwrap();
        // A lane 4 * block + 16 * k + i; D lane 16 * (i % 4) + 4 * block + j.
        assert_eq!(f.in_place(2, 3, 1), (54, 0));
        assert_eq!(f.out_place(3, 1, 2), (0, 57));
        assert_eq!((f.in_regs(), f.out_regs()), (2, 2));
        let f = form(Op::VMfmaF3216x16x32Fp8Fp8).unwrap();
        // A GPR (k / 4) % 2, byte k % 4, lane 16 * (k / 8) + i.
        assert_eq!(f.in_place(9, 29, 0), (57, 5));
        assert_eq!(f.in_regs(), 2);
        let f = form(Op::VMfmaF3232x32x4Xf32).unwrap();
        assert_eq!(f.in_place(4, 3, 0), (36, 1));
        assert_eq!(f.out_place(13, 7, 0), (5, 39));
        assert!(form(Op::VSmfmacF3216x16x32F16).is_none());
    }
}
