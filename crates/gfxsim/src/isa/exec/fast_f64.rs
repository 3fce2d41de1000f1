//! Pre-resolved f64 VALU forms (issue #4): v_fma/mul/add/max/min_f64,
//! v_rcp/rsq/sqrt_f64, v_ldexp_f64, the division helpers (v_div_scale,
//! v_div_fmas, v_div_fixup_f64) and the f32 <-> f64 conversions.
//!
//! The slow path (valu.rs) reads each 64-bit source into a fresh array,
//! applies abs/neg in another, computes a third and splits it into two rows;
//! as `step`'s callee it is also compiled without the dispatch loop's AVX2.
//! These forms read the two source rows in place, apply the same sign-bit
//! and/xor, and call valu.rs's own per-lane functions, so each result is the
//! same host operation on the same value. Only instructions without omod,
//! clamp, op_sel or DPP compile; 64-bit constants must be a 32-bit value in
//! the high or the low dword (every f64 inline constant but 1/(2*pi) and the
//! f64 literals are). v_div_fmas/v_div_scale read or write VCC / a lane mask
//! and run in wave32 only; the others also run in wave64 (fast_wave64.rs).

use super::fast::{Fast, VSrc, vsrc};
use super::valu::{
    add64, div_fixup64, div_scale64_lanes, exponent64, fma_lanes64, fmax64, fmin64, ldexp64, mul64,
    rcp64, rsq64,
};
use crate::isa::inst::{Family, Inst, Mods, Src};
use crate::isa::opcodes::Op;
use crate::isa::wave::{LANES, NUM_VGPRS, VCC, Wave};

type F64s = [f64; LANES];

/// The operation of an [`F64`] form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum F64Op {
    Fma,
    Mul,
    Add,
    Max,
    Min,
    Rcp,
    Rsq,
    Sqrt,
    /// a * 2^b, b a raw 32-bit source.
    Ldexp,
    DivFmas,
    DivFixup,
    /// Writes the "scaled" lane mask to `sdst` too.
    DivScale,
    /// f32 source (abs/neg on its 32 bits) to an f64 result.
    CvtF64F32,
    /// f64 source to an f32 result in one VGPR.
    CvtF32F64,
}

/// A 64-bit source: a VGPR or SGPR pair, or a constant given by one dword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum S64 {
    Vgpr(u8),
    Sgpr(u8),
    /// The constant `v << 32`.
    Hi(u32),
    /// The constant `v` (high dword 0).
    Lo(u32),
}

/// One pre-resolved f64 form (a [`Fast::F64`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct F64 {
    pub op: F64Op,
    /// The destination VGPR (pair, below 255, except for CvtF32F64).
    pub dst: u8,
    /// The lane-mask destination of DivScale.
    pub sdst: u8,
    /// abs bits per source in bits 0..2, neg bits in 4..6.
    pub mods: u8,
    pub src: [S64; 3],
}

impl F64 {
    /// Does it read or write a lane mask (VCC, a scalar destination)? Those
    /// have no wave64 run here.
    pub(crate) fn uses_mask(&self) -> bool {
        matches!(self.op, F64Op::DivFmas | F64Op::DivScale)
    }
}

pub(super) fn s64(s: Src) -> Option<S64> {
    Some(match s {
        Src::Vgpr(r) => S64::Vgpr(r),
        Src::Sgpr(r) if r < 128 => S64::Sgpr(r),
        Src::Imm(v) if v as u32 == 0 => S64::Hi((v >> 32) as u32),
        Src::Imm(v) if v >> 32 == 0 => S64::Lo(v as u32),
        _ => return None,
    })
}

/// A 32-bit source in an S64 slot (`Lo` holds its constant).
pub(super) fn s32(s: Src) -> Option<S64> {
    Some(match vsrc(s)? {
        VSrc::Vgpr(r) => S64::Vgpr(r),
        VSrc::Sgpr(r) => S64::Sgpr(r),
        VSrc::Imm(v) => S64::Lo(v),
    })
}

pub(super) fn compile(i: &Inst) -> Option<Fast> {
    use Op::*;
    if i.dpp.is_some() || i.mods.omod != 0 || i.mods.clamp || i.mods.opsel != 0 {
        return None;
    }
    if i.mods.opsel_hi != Mods::default().opsel_hi {
        return None;
    }
    if !matches!(
        i.family,
        Family::Vop1 | Family::Vop2 | Family::Vop3 | Family::Vop3sd
    ) {
        return None;
    }
    let (op, n) = match i.op {
        VFmaF64 => (F64Op::Fma, 3),
        VMulF64 => (F64Op::Mul, 2),
        VAddF64 => (F64Op::Add, 2),
        VMaxF64 => (F64Op::Max, 2),
        VMinF64 => (F64Op::Min, 2),
        VRcpF64 => (F64Op::Rcp, 1),
        VRsqF64 => (F64Op::Rsq, 1),
        VSqrtF64 => (F64Op::Sqrt, 1),
        VLdexpF64 => (F64Op::Ldexp, 2),
        VDivFmasF64 => (F64Op::DivFmas, 3),
        VDivFixupF64 => (F64Op::DivFixup, 3),
        VDivScaleF64 if i.family == Family::Vop3sd => (F64Op::DivScale, 3),
        VCvtF64F32 => (F64Op::CvtF64F32, 1),
        VCvtF32F64 => (F64Op::CvtF32F64, 1),
        _ => return None,
    };
    let dst = u8::try_from(i.dst).ok()?;
    // A pair at v255 wraps to v0 in the slow path's row writes: leave it there.
    if dst == 255 && op != F64Op::CvtF32F64 {
        return None;
    }
    let mut src = [S64::Lo(0); 3];
    for (k, s) in src.iter_mut().enumerate().take(n) {
        let narrow = (op == F64Op::Ldexp && k == 1) || op == F64Op::CvtF64F32;
        *s = if narrow {
            s32(i.src[k].src)?
        } else {
            s64(i.src[k].src)?
        };
    }
    Some(Fast::F64(F64 {
        op,
        dst,
        sdst: i.sdst,
        mods: (i.mods.abs & 7) | (i.mods.neg & 7) << 4,
        src,
    }))
}

/// Source `k` of `f` as the slow path's `f64s` reads it: the 64-bit value
/// with abs clearing and neg flipping the sign bit.
#[inline(always)]
fn f64s(w: &Wave, f: &F64, k: usize) -> F64s {
    let and = if f.mods >> k & 1 != 0 {
        !(1u64 << 63)
    } else {
        u64::MAX
    };
    let xor = ((f.mods >> (4 + k)) as u64 & 1) << 63;
    let splat = |v: u64| [f64::from_bits((v & and) ^ xor); LANES];
    match f.src[k] {
        S64::Vgpr(r) => {
            let lo = &w.vgpr[r as usize];
            let hi = &w.vgpr[(r as usize + 1) & (NUM_VGPRS - 1)];
            let mut out = [0u64; LANES];
            for l in 0..LANES {
                out[l] = lo[l] as u64 | (hi[l] as u64) << 32;
            }
            // Most sources have no modifier: skip the and/xor pass.
            if f.mods & (0x11 << k) != 0 {
                for v in out.iter_mut() {
                    *v = (*v & and) ^ xor;
                }
            }
            bytemuck::cast(out)
        }
        S64::Sgpr(r) => splat(w.sgpr64(r as usize)),
        S64::Hi(v) => splat((v as u64) << 32),
        S64::Lo(v) => splat(v as u64),
    }
}

/// Source `k` as 32 raw bits per lane (`src32`).
#[inline(always)]
fn u32s(w: &Wave, f: &F64, k: usize) -> [u32; LANES] {
    match f.src[k] {
        S64::Vgpr(r) => w.vgpr[r as usize],
        S64::Sgpr(r) => [w.sgpr[r as usize & 127]; LANES],
        S64::Hi(v) | S64::Lo(v) => [v; LANES],
    }
}

#[inline(always)]
fn map1(a: &F64s, g: impl Fn(f64) -> f64) -> F64s {
    let mut r = [0f64; LANES];
    for l in 0..LANES {
        r[l] = g(a[l]);
    }
    r
}

#[inline(always)]
fn map2(a: &F64s, b: &F64s, g: impl Fn(f64, f64) -> f64) -> F64s {
    let mut r = [0f64; LANES];
    for l in 0..LANES {
        r[l] = g(a[l], b[l]);
    }
    r
}

/// Run `f` on the 32 lanes of `w.vgpr` under `exec` (wave32, or one pass of
/// a wave64 wave for the forms without a lane mask).
#[inline(always)]
pub(super) fn run(w: &mut Wave, f: &F64, exec: u32) {
    let r = match f.op {
        F64Op::Fma => fma_lanes64(&f64s(w, f, 0), &f64s(w, f, 1), &f64s(w, f, 2)),
        F64Op::Mul => map2(&f64s(w, f, 0), &f64s(w, f, 1), mul64),
        F64Op::Add => map2(&f64s(w, f, 0), &f64s(w, f, 1), add64),
        F64Op::Max => map2(&f64s(w, f, 0), &f64s(w, f, 1), fmax64),
        F64Op::Min => map2(&f64s(w, f, 0), &f64s(w, f, 1), fmin64),
        F64Op::Rcp => map1(&f64s(w, f, 0), rcp64),
        F64Op::Rsq => map1(&f64s(w, f, 0), rsq64),
        F64Op::Sqrt => map1(&f64s(w, f, 0), f64::sqrt),
        F64Op::Ldexp => {
            let (a, e) = (f64s(w, f, 0), u32s(w, f, 1));
            let mut r = [0f64; LANES];
            for l in 0..LANES {
                r[l] = ldexp64(a[l], e[l] as i32);
            }
            r
        }
        F64Op::DivFmas => {
            let vcc = w.sgpr[VCC];
            let c = f64s(w, f, 2);
            let fused = fma_lanes64(&f64s(w, f, 0), &f64s(w, f, 1), &c);
            let mut r = fused;
            for l in 0..LANES {
                if vcc >> l & 1 != 0 {
                    r[l] = ldexp64(fused[l], if exponent64(c[l]) > 1023 { 128 } else { -128 });
                }
            }
            r
        }
        F64Op::DivFixup => {
            let (a, b, c) = (f64s(w, f, 0), f64s(w, f, 1), f64s(w, f, 2));
            let mut r = [0f64; LANES];
            for l in 0..LANES {
                r[l] = div_fixup64(a[l], b[l], c[l]);
            }
            r
        }
        F64Op::DivScale => {
            let (r, m) = div_scale64_lanes(&f64s(w, f, 0), &f64s(w, f, 1), &f64s(w, f, 2));
            w.write_vgpr64(f.dst as usize, &bytemuck::cast(r), exec);
            w.set_lane_mask(f.sdst as usize, m & exec);
            return;
        }
        F64Op::CvtF64F32 => {
            let and = if f.mods & 1 != 0 {
                0x7FFF_FFFF
            } else {
                u32::MAX
            };
            let xor = ((f.mods >> 4) as u32 & 1) << 31;
            let a = u32s(w, f, 0);
            let mut r = [0f64; LANES];
            for l in 0..LANES {
                r[l] = f32::from_bits((a[l] & and) ^ xor) as f64;
            }
            r
        }
        F64Op::CvtF32F64 => {
            let a = f64s(w, f, 0);
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = (a[l] as f32).to_bits();
            }
            w.write_vgpr(f.dst as usize, &r, exec);
            return;
        }
    };
    w.write_vgpr64(f.dst as usize, &bytemuck::cast(r), exec);
}
