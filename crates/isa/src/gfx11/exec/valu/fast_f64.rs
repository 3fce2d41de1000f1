//! Pre-resolved f64 VALU forms: v_fma/mul/add/max/min_f64,
//! v_rcp/rsq/sqrt_f64, v_ldexp_f64, the division helpers (v_div_scale,
//! v_div_fmas, v_div_fixup_f64) and the f32 <-> f64 conversions.
//!
//! The slow path (valu/mod.rs) reads each 64-bit source into a fresh array,
//! applies abs/neg in another, computes a third and splits it into two rows;
//! as `step`'s callee it is also compiled without the dispatch loop's AVX2.
//! These forms read the two source rows in place, apply the same sign-bit
//! and/xor, and call valu/mod.rs's own per-lane functions, so each result is the
//! same host operation on the same value. v_ldexp, v_div_scale and
//! v_div_fixup first test all 32 lanes for their common case (normal
//! operands of moderate exponent), where the per-lane rule provably reduces
//! to exponent-field arithmetic on the high words, s0 with the flag clear,
//! or q with the sign of num * den, and take the per-lane rule otherwise.
//! Lanes outside EXEC do not count in those tests (their results are not
//! written). Under an EXEC of at most [`SPARSE_LANES`] lanes (a workgroup of
//! one work-item, a divergent tail) a form runs lane by lane on the active
//! lanes only, with the same per-lane functions: 32-lane rows cost more
//! than that, and the idle lanes' stale values (zeros, leftovers of earlier
//! waves) would only send the row tests to their per-lane fallbacks.
//! Only instructions without omod, clamp, op_sel or DPP compile; 64-bit
//! constants must be a 32-bit value in the high or the low dword (every f64
//! inline constant but 1/(2*pi) and the f64 literals are). v_div_fmas/v_div_scale read or write VCC / a lane mask
//! and run in wave32 only; the others also run in wave64 (fast/wave64.rs).

use crate::gfx11::exec::operand::{VSrc, vsrc};
use crate::gfx11::exec::valu::{
    add64, div_fixup64, div_scale64, div_scale64_lanes, exponent64, fma_lane64, fma_lanes64,
    fmax64, fmin64, ldexp64, mul64, rcp64, rsq64,
};
use crate::gfx11::inst::{Family, Inst, Mods, Src};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, Lanes, NUM_VGPRS, VCC, Wave, pack_lanes};

/// Most active lanes for which a form runs lane by lane (`run_sparse`).
const SPARSE_LANES: u32 = 8;

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

impl F64Op {
    /// Is it one of the division helpers (v_div_scale, v_div_fmas,
    /// v_div_fixup)?
    #[cfg(all(unix, feature = "llvm-jit"))]
    pub(crate) fn divides(self) -> bool {
        matches!(self, F64Op::DivScale | F64Op::DivFmas | F64Op::DivFixup)
    }
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

pub(crate) fn s64(s: Src) -> Option<S64> {
    Some(match s {
        Src::Vgpr(r) => S64::Vgpr(r),
        Src::Sgpr(r) if r < 128 => S64::Sgpr(r),
        Src::Imm(v) if v as u32 == 0 => S64::Hi((v >> 32) as u32),
        Src::Imm(v) if v >> 32 == 0 => S64::Lo(v as u32),
        _ => return None,
    })
}

/// A 32-bit source in an S64 slot (`Lo` holds its constant).
pub(crate) fn s32(s: Src) -> Option<S64> {
    Some(match vsrc(s)? {
        VSrc::Vgpr(r) => S64::Vgpr(r),
        VSrc::Sgpr(r) => S64::Sgpr(r),
        VSrc::Imm(v) => S64::Lo(v),
    })
}

pub(crate) fn compile(i: &Inst) -> Option<F64> {
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
        // gfx90a+ (AMD CDNA3 ISA guide, V_FMAC_F64): D = S0 * S1 + D, the
        // slow path's fma with the destination pair, unmodified, as `c`.
        VFmacF64 => (F64Op::Fma, 2),
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
    let mut mods = (i.mods.abs & 7) | (i.mods.neg & 7) << 4;
    if i.op == VFmacF64 {
        src[2] = S64::Vgpr(dst);
        mods &= 0x33;
    }
    Some(F64 {
        op,
        dst,
        sdst: i.sdst,
        mods,
        src,
    })
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

const SIGN: u64 = 1 << 63;

/// Source `k` as a low-word and a high-word row, abs/neg applied (they
/// touch only the high word's sign bit).
#[inline(always)]
fn rows(w: &Wave, f: &F64, k: usize) -> (Lanes, Lanes) {
    let and = if f.mods >> k & 1 != 0 {
        0x7FFF_FFFF
    } else {
        u32::MAX
    };
    let xor = ((f.mods >> (4 + k)) as u32 & 1) << 31;
    let (lo, mut hi) = match f.src[k] {
        S64::Vgpr(r) => (
            w.vgpr[r as usize],
            w.vgpr[(r as usize + 1) & (NUM_VGPRS - 1)],
        ),
        S64::Sgpr(r) => {
            let v = w.sgpr64(r as usize);
            ([v as u32; LANES], [(v >> 32) as u32; LANES])
        }
        S64::Hi(v) => ([0; LANES], [v; LANES]),
        S64::Lo(v) => ([v; LANES], [0; LANES]),
    };
    if f.mods & (0x11 << k) != 0 {
        for h in hi.iter_mut() {
            *h = (*h & and) ^ xor;
        }
    }
    (lo, hi)
}

/// The high words of source `k` (its exponent fields; abs/neg do not matter).
#[inline(always)]
fn high(w: &Wave, f: &F64, k: usize) -> Lanes {
    match f.src[k] {
        S64::Vgpr(r) => w.vgpr[(r as usize + 1) & (NUM_VGPRS - 1)],
        S64::Sgpr(r) => [(w.sgpr64(r as usize) >> 32) as u32; LANES],
        S64::Hi(v) => [v; LANES],
        S64::Lo(_) => [0; LANES],
    }
}

/// Any lane of `exec` flagged (`bad` holds 0 or 1 per lane).
#[inline(always)]
fn any(bad: &Lanes, exec: u32) -> bool {
    pack_lanes(bad) & exec != 0
}

/// v_ldexp_f64 where the result is plain exponent arithmetic: `hi` (the
/// high words) with `e` added to each exponent field, or None where a lane
/// of `exec` is not "e == 0, or a normal value and a normal result" (zeros,
/// denormals, inf/NaN, over/underflow: `ldexp64`'s multiplications round
/// or saturate there). On the rest `ldexp64` multiplies by exact powers of
/// two with every intermediate normal (the exponent moves one way from a
/// normal value to a normal result), so the value is exact: the same bits.
#[inline(always)]
fn ldexp_high(hi: &Lanes, e: &Lanes, exec: u32) -> Option<Lanes> {
    let (mut out, mut bad) = ([0u32; LANES], [0u32; LANES]);
    for l in 0..LANES {
        let x = hi[l] >> 20 & 0x7FF;
        let e = (e[l] as i32).clamp(-4096, 4096);
        let n = (x as i32 + e) as u32;
        let ok = (e == 0) | ((x.wrapping_sub(1) < 2046) & (n.wrapping_sub(1) < 2046));
        out[l] = hi[l].wrapping_add((e as u32) << 20);
        bad[l] = !ok as u32;
    }
    (!any(&bad, exec)).then_some(out)
}

/// Is every lane of `exec` in `div_scale64`'s common case (decided from the
/// exponent fields of s1 and s2 alone: result s0, flag clear)?
#[inline(always)]
fn div_scale_plain(h1: &Lanes, h2: &Lanes, exec: u32) -> bool {
    let mut bad = [0u32; LANES];
    for l in 0..LANES {
        let (x1, x2) = ((h1[l] >> 20 & 0x7FF) as i32, (h2[l] >> 20 & 0x7FF) as i32);
        // x1 in 1..=2044, x2 in 54..=2046, x2 - x1 in -1021..768.
        let ok = (((x1 - 1) as u32) < 2044)
            & (((x2 - 54) as u32) < 1993)
            & (((x2 - x1 + 1021) as u32) < 1789);
        bad[l] = !ok as u32;
    }
    !any(&bad, exec)
}

/// `div_fixup64` where num and den are finite and non-zero and q is not a
/// NaN in every lane of `exec` (its last case: q with the sign of num *
/// den); None where such a lane is not.
#[inline(always)]
fn div_fixup_plain(q: &F64s, den: &F64s, num: &F64s, exec: u32) -> Option<F64s> {
    let (mut r, mut bad) = ([0f64; LANES], [0u32; LANES]);
    for l in 0..LANES {
        let finite = |x: f64| (x != 0.0) & (x.abs() < f64::INFINITY);
        let ok = finite(num[l]) & finite(den[l]) & !q[l].is_nan();
        bad[l] = !ok as u32;
        let sign = (num[l].to_bits() ^ den[l].to_bits()) & SIGN;
        r[l] = f64::from_bits((q[l].to_bits() & !SIGN) | sign);
    }
    (!any(&bad, exec)).then_some(r)
}

/// v_cvt_f64_f32 of the raw f32 `a`, abs/neg (src0's) on its 32 bits.
#[inline(always)]
fn cvt_f64_f32(f: &F64, a: u32) -> f64 {
    let and = if f.mods & 1 != 0 {
        0x7FFF_FFFF
    } else {
        u32::MAX
    };
    let xor = ((f.mods >> 4) as u32 & 1) << 31;
    f32::from_bits((a & and) ^ xor) as f64
}

/// Run `f` on the 32 lanes of `w.vgpr` under `exec` (wave32, or one pass of
/// a wave64 wave for the forms without a lane mask).
#[inline(always)]
pub(crate) fn run(w: &mut Wave, f: &F64, exec: u32) {
    if exec.count_ones() <= SPARSE_LANES {
        return run_sparse(w, f, exec);
    }
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
            let (lo, hi) = rows(w, f, 0);
            if let Some(hi) = ldexp_high(&hi, &u32s(w, f, 1), exec) {
                w.write_vgpr(f.dst as usize, &lo, exec);
                w.write_vgpr(f.dst as usize + 1, &hi, exec);
                return;
            }
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
            // Lanes with VCC set undo the scaling of the quotient.
            let mut v = vcc;
            while v != 0 {
                let l = v.trailing_zeros() as usize;
                r[l] = ldexp64(fused[l], if exponent64(c[l]) > 1023 { 128 } else { -128 });
                v &= v - 1;
            }
            r
        }
        F64Op::DivFixup => {
            let (a, b, c) = (f64s(w, f, 0), f64s(w, f, 1), f64s(w, f, 2));
            div_fixup_plain(&a, &b, &c, exec).unwrap_or_else(|| {
                let mut r = [0f64; LANES];
                for l in 0..LANES {
                    r[l] = div_fixup64(a[l], b[l], c[l]);
                }
                r
            })
        }
        F64Op::DivScale => {
            if div_scale_plain(&high(w, f, 1), &high(w, f, 2), exec) {
                let (lo, hi) = rows(w, f, 0);
                w.write_vgpr(f.dst as usize, &lo, exec);
                w.write_vgpr(f.dst as usize + 1, &hi, exec);
                w.set_lane_mask(f.sdst as usize, 0);
                return;
            }
            let (r, m) = div_scale64_lanes(&f64s(w, f, 0), &f64s(w, f, 1), &f64s(w, f, 2));
            w.write_vgpr64(f.dst as usize, &bytemuck::cast(r), exec);
            w.set_lane_mask(f.sdst as usize, m & exec);
            return;
        }
        F64Op::CvtF64F32 => {
            let a = u32s(w, f, 0);
            let mut r = [0f64; LANES];
            for l in 0..LANES {
                r[l] = cvt_f64_f32(f, a[l]);
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

/// Source `k` of `f` in lane `l`, as [`f64s`] reads it.
#[inline(always)]
fn lane64(w: &Wave, f: &F64, k: usize, l: usize) -> f64 {
    let and = if f.mods >> k & 1 != 0 {
        !SIGN
    } else {
        u64::MAX
    };
    let xor = ((f.mods >> (4 + k)) as u64 & 1) << 63;
    let v = match f.src[k] {
        S64::Vgpr(r) => {
            let hi = w.vgpr[(r as usize + 1) & (NUM_VGPRS - 1)][l];
            w.vgpr[r as usize][l] as u64 | (hi as u64) << 32
        }
        S64::Sgpr(r) => w.sgpr64(r as usize),
        S64::Hi(v) => (v as u64) << 32,
        S64::Lo(v) => v as u64,
    };
    f64::from_bits((v & and) ^ xor)
}

/// Source `k` of `f` in lane `l` as 32 raw bits, as [`u32s`] reads it.
#[inline(always)]
fn lane32(w: &Wave, f: &F64, k: usize, l: usize) -> u32 {
    match f.src[k] {
        S64::Vgpr(r) => w.vgpr[r as usize][l],
        S64::Sgpr(r) => w.sgpr[r as usize & 127],
        S64::Hi(v) | S64::Lo(v) => v,
    }
}

/// [`run`] lane by lane over the lanes of `exec` only: each lane's result is
/// the per-lane function the row forms restate or fall back to (the row
/// tests' common cases are proven equal to them), written to that lane.
/// Sources are read per lane just before the lane's result is written,
/// which reads the same values as reading all first: lane `l` writes only
/// lane `l` of its VGPRs, and the SGPRs and VCC it reads are written after
/// the last lane.
fn run_sparse(w: &mut Wave, f: &F64, exec: u32) {
    let (dst, vcc) = (f.dst as usize, w.sgpr[VCC]);
    let mut scaled = 0u32;
    let mut left = exec;
    while left != 0 {
        let l = left.trailing_zeros() as usize;
        left &= left - 1;
        let a = || lane64(w, f, 0, l);
        let b = || lane64(w, f, 1, l);
        let c = || lane64(w, f, 2, l);
        let r = match f.op {
            F64Op::Fma => fma_lane64(a(), b(), c()),
            F64Op::Mul => mul64(a(), b()),
            F64Op::Add => add64(a(), b()),
            F64Op::Max => fmax64(a(), b()),
            F64Op::Min => fmin64(a(), b()),
            F64Op::Rcp => rcp64(a()),
            F64Op::Rsq => rsq64(a()),
            F64Op::Sqrt => a().sqrt(),
            F64Op::Ldexp => ldexp64(a(), lane32(w, f, 1, l) as i32),
            F64Op::DivFmas => {
                let c = c();
                let fused = fma_lane64(a(), b(), c);
                if vcc >> l & 1 != 0 {
                    ldexp64(fused, if exponent64(c) > 1023 { 128 } else { -128 })
                } else {
                    fused
                }
            }
            F64Op::DivFixup => div_fixup64(a(), b(), c()),
            F64Op::DivScale => {
                let (d, s) = div_scale64(a(), b(), c());
                scaled |= (s as u32) << l;
                d
            }
            F64Op::CvtF64F32 => cvt_f64_f32(f, lane32(w, f, 0, l)),
            F64Op::CvtF32F64 => {
                w.vgpr[dst][l] = (a() as f32).to_bits();
                continue;
            }
        };
        let bits = r.to_bits();
        w.vgpr[dst][l] = bits as u32;
        w.vgpr[dst + 1][l] = (bits >> 32) as u32;
    }
    if f.op == F64Op::DivScale {
        w.set_lane_mask(f.sdst as usize, scaled);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfx11::decode::decode;
    use crate::gfx11::exec::fast::tests::{Rng, compare, opcode_words};
    use crate::gfx11::exec::fast::{self, Fast};
    use crate::gfx11::exec::valu::{div_scale64, nan3_64};
    use crate::gfx11::opcodes::{VOP1, VOP3};
    use crate::gfx11::wave::EXEC;

    /// How the lanes of a test wave are drawn: `Plain` keeps every lane on
    /// the fast paths (normal values of moderate exponent, small ldexp
    /// exponents), `Mixed` puts a special value in some lanes (each lane
    /// then may or may not force a chunk or row to its fallback), `Wild`
    /// is special values and raw bits throughout.
    #[derive(Clone, Copy, PartialEq)]
    enum Mode {
        Plain,
        Mixed,
        Wild,
    }

    fn u64(rng: &mut Rng) -> u64 {
        (rng.next() as u64) << 32 | rng.next() as u64
    }

    /// A normal f64 with exponent field `x`, random sign and mantissa.
    fn with_exp(rng: &mut Rng, x: u64) -> u64 {
        (u64(rng) & (SIGN | ((1 << 52) - 1))) | x << 52
    }

    /// f64 bits biased to the cases the forms single out.
    fn value(rng: &mut Rng, mode: Mode) -> u64 {
        let special = match mode {
            Mode::Plain => false,
            Mode::Mixed => rng.below(8) == 0,
            Mode::Wild => rng.below(4) != 0,
        };
        if !special {
            let x = 1023 - 300 + rng.below(600) as u64;
            return with_exp(rng, x);
        }
        let sign = (rng.below(2) as u64) << 63;
        match rng.below(6) {
            // Zeros, infinities, NaNs (quiet and signalling, with payloads).
            0 => {
                [
                    0,
                    0x7FF0_0000_0000_0000,
                    0x7FF8_0000_0000_0000,
                    0x7FF8_0000_0000_00A5,
                    0x7FF0_0000_0000_0001,
                    0x7FF4_0000_1234_0000,
                ][rng.below(6) as usize]
                    | sign
            }
            // Denormals.
            1 => (u64(rng) & ((1 << 52) - 1)) | sign,
            // Exponent fields at the boundaries of the fast paths.
            2 => {
                let x = [
                    1, 2, 53, 54, 55, 1021, 1022, 1023, 1024, 1025, 2043, 2044, 2045, 2046,
                ];
                let x = x[rng.below(x.len() as u32) as usize];
                with_exp(rng, x)
            }
            // Tiny and huge exponents.
            3 => {
                let x = 1 + rng.below(80) as u64;
                with_exp(rng, x)
            }
            4 => {
                let x = 2046 - rng.below(80) as u64;
                with_exp(rng, x)
            }
            _ => u64(rng),
        }
    }

    /// A v_ldexp_f64 exponent (a raw 32-bit source).
    fn exponent(rng: &mut Rng, mode: Mode) -> u32 {
        let small = rng.below(129) as i32 - 64;
        if mode == Mode::Plain || rng.below(2) == 0 {
            return small as u32;
        }
        let e: i32 = match rng.below(5) {
            0 => [0, 128, -128, 1022, -1022, 1074, -1074, 2046, -2046][rng.below(9) as usize],
            1 => [2200, -2200, 2201, -2201, 4096, -4096, 4097, -4097][rng.below(8) as usize],
            2 => [i32::MIN, i32::MAX, i32::MIN + 1][rng.below(3) as usize],
            3 => small * 32,
            _ => rng.next() as i32,
        };
        e as u32
    }

    /// A random wave whose VGPR pairs (v0:1, v2:3, ...) and SGPR pairs hold
    /// f64 values; v200..v215 and s40..s47 hold ldexp exponents.
    fn wave(rng: &mut Rng, mode: Mode) -> Wave {
        let mut w = rng.wave();
        for r in (0..256).step_by(2) {
            for l in 0..LANES {
                let v = value(rng, mode);
                (w.vgpr[r][l], w.vgpr[r + 1][l]) = (v as u32, (v >> 32) as u32);
            }
        }
        for r in 200..216 {
            for l in 0..LANES {
                w.vgpr[r][l] = exponent(rng, mode);
            }
        }
        for r in (0..40).step_by(2) {
            let v = value(rng, mode);
            (w.sgpr[r], w.sgpr[r + 1]) = (v as u32, (v >> 32) as u32);
        }
        for r in 40..48 {
            w.sgpr[r] = exponent(rng, mode);
        }
        w
    }

    /// A 64-bit source code: mostly a VGPR pair, else an SGPR pair, an
    /// inline constant or a literal.
    fn src64(rng: &mut Rng) -> u32 {
        match rng.below(10) {
            0 => 2 * rng.below(20),
            1 => 128 + rng.below(65),
            2 => 240 + rng.below(9),
            3 => 255,
            // An odd-numbered pair now and then.
            4 => 256 + rng.below(256),
            _ => 256 + 2 * rng.below(100),
        }
    }

    /// The second source of v_ldexp_f64: exponents in a VGPR or SGPR, or a constant.
    fn exp_src(rng: &mut Rng) -> u32 {
        match rng.below(6) {
            0 => 40 + rng.below(8),
            1 => 128 + rng.below(65),
            2 => 255,
            _ => 256 + 200 + rng.below(16),
        }
    }

    /// VOP3 (and VOP1) encodings of every f64 op the form covers, with
    /// random sources, abs/neg now and then, destinations that are often
    /// one of the sources.
    fn encodings(rng: &mut Rng) -> Vec<[u32; 3]> {
        let mut out = Vec::new();
        for (n, op) in opcode_words(&VOP3) {
            let name = format!("{op:?}");
            if !(name.contains("F64") && (name.starts_with("VCvt") || !name.contains("Cmp"))) {
                continue;
            }
            for _ in 0..12 {
                let (s0, s2) = (src64(rng), src64(rng));
                let s1 = if op == Op::VLdexpF64 {
                    exp_src(rng)
                } else {
                    src64(rng)
                };
                let dst = match rng.below(3) {
                    0 if s0 >= 256 => s0 - 256,
                    1 if s2 >= 256 => s2 - 256,
                    _ => 2 * rng.below(120),
                };
                let (abs, neg) = if rng.below(3) == 0 {
                    (rng.below(8), rng.below(8))
                } else {
                    (0, 0)
                };
                // VOP3SD (v_div_scale) has sdst where VOP3 has abs.
                let high = if op == Op::VDivScaleF64 {
                    [106, 20, 124][rng.below(3) as usize]
                } else {
                    abs
                };
                let w0 = 0xD400_0000 | n << 16 | high << 8 | dst;
                let w1 = neg << 29 | s2 << 18 | s1 << 9 | s0;
                let lit =
                    [0x4000_0000, 0x3FF0_0000, 0x7FF8_0000, 0x0000_0001][rng.below(4) as usize];
                out.push([w0, w1, lit]);
                // Without src2 (two-source ops only decode that way).
                out.push([w0, w1 & !(0x1FF << 18), lit]);
            }
        }
        for (n, op) in opcode_words(&VOP1) {
            if !format!("{op:?}").contains("F64") {
                continue;
            }
            for _ in 0..6 {
                let w0 = 0x7E00_0000 | (2 * rng.below(120)) << 17 | n << 9 | src64(rng);
                out.push([w0, 0x3FF0_0000, 0]);
            }
        }
        out
    }

    /// Every pre-resolved f64 form against `step`, on waves of f64 values
    /// (the fast paths' common cases, their boundaries, and special values)
    /// under random, full and empty EXEC, in wave32 and wave64.
    #[test]
    fn f64_forms_match_the_slow_path_on_f64_values() {
        let mut rng = Rng::new(0x0DDB_1A5E_5BAD_5EED);
        let mut ops = std::collections::BTreeSet::new();
        let mut checked = 0;
        for round in 0..6 {
            for words in encodings(&mut rng) {
                let Ok(inst) = decode(&words) else { continue };
                let fast = fast::compile(&inst, 0x1000);
                if !matches!(fast, Fast::F64(_)) {
                    continue;
                }
                ops.insert(format!("{:?}", inst.op));
                let mode = [Mode::Plain, Mode::Mixed, Mode::Wild][round % 3];
                let w = wave(&mut rng, mode);
                // Random, full and empty EXEC, and sparse ones (one lane,
                // a few: the lane-by-lane run).
                let one = 1 << rng.below(32);
                let few = rng.next() & rng.next() & rng.next();
                for exec in [rng.next(), u32::MAX, 0, one, few] {
                    let mut w = w.clone();
                    w.sgpr[EXEC] = exec;
                    w.sgpr[VCC] = if rng.below(2) == 0 { 0 } else { rng.next() };
                    compare(&inst, &fast, &w, 0x1000);
                    checked += 1;
                }
                let mut w64 = rng.wave64(&w);
                for r in 0..256 {
                    w64.vgpr_hi[r] = w.vgpr[(r + 2) % 256];
                }
                (w64.sgpr[EXEC], w64.sgpr[EXEC + 1]) = match rng.below(3) {
                    0 => (rng.next(), rng.next()),
                    1 => (1 << rng.below(32), 0),
                    _ => (rng.next() & rng.next() & rng.next(), 1 << rng.below(32)),
                };
                let (mut lds, mut scratch) = ([0u8; 0], [0u8; 0]);
                let mut env = fast::tests::no_env(&mut lds, &mut scratch);
                if fast::run(&mut w64.clone(), &mut env, &fast).is_some() {
                    compare(&inst, &fast, &w64, 0x1000);
                    checked += 1;
                }
            }
        }
        for op in [
            "VFmaF64",
            "VMulF64",
            "VAddF64",
            "VMaxF64",
            "VMinF64",
            "VRcpF64",
            "VRsqF64",
            "VSqrtF64",
            "VLdexpF64",
            "VDivScaleF64",
            "VDivFmasF64",
            "VDivFixupF64",
            "VCvtF64F32",
            "VCvtF32F64",
        ] {
            assert!(ops.contains(op), "{op} never took the fast path: {ops:?}");
        }
        assert!(checked > 1000, "only {checked} checks");
    }

    /// valu/mod.rs's branch-free NaN pick (the fma lane loops' NaN pass)
    /// against the per-lane rule, f64 and f32, on special values and on
    /// results that are the host's own (default NaNs, quieted inputs).
    #[test]
    fn selected_nan_rule_matches_the_per_lane_rule() {
        use crate::gfx11::exec::valu::{nan3_32, nan3_sel32, nan3_sel64};
        let mut rng = Rng::new(0x005E_ED0F_4A4E);
        for round in 0..40_000 {
            let mode = [Mode::Mixed, Mode::Wild][round % 2];
            let [a, b, c, x] = [0; 4].map(|_| f64::from_bits(value(&mut rng, mode)));
            let r = if round % 4 < 2 { a.mul_add(b, c) } else { x };
            let (got, want) = (nan3_sel64(a, b, c, r), nan3_64(a, b, c, r));
            assert_eq!(got.to_bits(), want.to_bits(), "{a:?} {b:?} {c:?} {r:?}");
            // f32: the high words (NaN payloads and quiet bits of their own).
            let h = |x: f64| f32::from_bits((x.to_bits() >> 32) as u32);
            let (a, b, c, x) = (h(a), h(b), h(c), h(x));
            let r = if round % 4 < 2 { a.mul_add(b, c) } else { x };
            let (got, want) = (nan3_sel32(a, b, c, r), nan3_32(a, b, c, r));
            assert_eq!(got.to_bits(), want.to_bits(), "{a:?} {b:?} {c:?} {r:?}");
        }
    }

    /// The exponent-field ldexp against `ldexp64` on every lane where it
    /// answers, and it must answer for plain rows and decline for others.
    #[test]
    fn exponent_field_ldexp_matches_ldexp64() {
        let mut rng = Rng::new(0x1DE4_9F00_0064);
        let (mut some, mut none) = (0, 0);
        for round in 0..3000 {
            let mode = [Mode::Plain, Mode::Mixed, Mode::Wild][round % 3];
            let (mut x, mut e) = ([0u64; LANES], [0u32; LANES]);
            for l in 0..LANES {
                x[l] = value(&mut rng, mode);
                e[l] = exponent(&mut rng, mode);
            }
            let hi = x.map(|v| (v >> 32) as u32);
            // All lanes, or a random EXEC (lanes outside it may be anything).
            let exec = if round % 2 == 0 { u32::MAX } else { rng.next() };
            match ldexp_high(&hi, &e, exec) {
                Some(out) => {
                    some += 1;
                    for l in (0..LANES).filter(|&l| exec >> l & 1 != 0) {
                        let want = ldexp64(f64::from_bits(x[l]), e[l] as i32).to_bits();
                        let got = (out[l] as u64) << 32 | (x[l] & 0xFFFF_FFFF);
                        assert_eq!(got, want, "ldexp {:#x} {}", x[l], e[l] as i32);
                    }
                }
                None => none += 1,
            }
            // One lane at a time: each must be declined or exact.
            for l in 0..LANES {
                if let Some(out) = ldexp_high(&[hi[l]; LANES], &[e[l]; LANES], u32::MAX) {
                    let want = ldexp64(f64::from_bits(x[l]), e[l] as i32).to_bits();
                    assert_eq!((out[0] as u64) << 32 | (x[l] & 0xFFFF_FFFF), want);
                }
            }
        }
        assert!(
            some > 500 && none > 500,
            "{some} rows answered, {none} declined"
        );
    }

    /// Where `div_scale_plain` says the common case, `div_scale64` keeps s0
    /// with the flag clear on every lane (one lane at a time, so each
    /// lane's boundary is tested).
    #[test]
    fn div_scale_common_case_matches_div_scale64() {
        let mut rng = Rng::new(0xD1F5_CA1E);
        let (mut plain, mut other) = (0, 0);
        for round in 0..200_000 {
            let mode = [Mode::Plain, Mode::Mixed, Mode::Wild][round % 3];
            let (s0, s1, s2) = (
                value(&mut rng, mode),
                value(&mut rng, mode),
                value(&mut rng, mode),
            );
            let (h1, h2) = ([(s1 >> 32) as u32; LANES], [(s2 >> 32) as u32; LANES]);
            if div_scale_plain(&h1, &h2, u32::MAX) {
                plain += 1;
                let (d, s) =
                    div_scale64(f64::from_bits(s0), f64::from_bits(s1), f64::from_bits(s2));
                assert_eq!((d.to_bits(), s), (s0, false), "{s0:#x} {s1:#x} {s2:#x}");
            } else {
                other += 1;
            }
        }
        assert!(plain > 1000 && other > 1000, "{plain} plain, {other} not");
    }
}
