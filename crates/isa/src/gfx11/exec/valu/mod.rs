//! Vector ALU semantics (VOP1/VOP2/VOP3/VOP3SD/VOP3P/VOPD). Every operation is
//! computed for all 32 lanes from register rows copied out first (so a
//! destination that overlaps a source reads the old value, as hardware does),
//! then written back under EXEC. Floats use host IEEE arithmetic
//! (round-to-nearest-even, denormals kept); rcp, rsq and sqrt go through
//! f64, exp and log are f32 sequences with fused multiply-adds within
//! 1 ULP (transcendental.rs).

pub(crate) mod agpr;
mod byte_ops;
pub(crate) mod cube;
pub(crate) mod dpp;
pub(crate) mod fast;
pub(crate) mod fast_f32;
pub(crate) mod fast_f64;
mod fast_few;
pub(crate) mod fast_fma32;
pub(crate) mod fast_lanes;
pub(crate) mod fast_pair;
pub(crate) mod fast_vcmp;
pub(crate) mod fast_vint;
pub(crate) mod fast_vopd;
mod half_ops;
pub(crate) mod int32;
pub(crate) mod mfma;
mod mfma_form;
mod minifloat;
mod pk_f32;
pub(crate) mod round_once;
pub(crate) mod sdwa;
mod smfmac;
pub(crate) mod transcendental;
mod trig_preop;
pub(crate) mod vcmp;
pub(crate) mod wave64;
mod wmma;

use half::f16;
use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};

use crate::WaveErrorKind;
use crate::gfx11::exec::env::{Env, ExecResult, Flow, illegal};
use crate::gfx11::inst::{Inst, Src};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, Lanes, VCC, Wave, pack_lanes};
use crate::wave_loop::with_avx2_copy;
use int32::{
    add_lshl, add3, alignbit, and_or, ashrrev, lshl_add, lshl_or, lshlrev, lshrrev, mad_u24,
    max_i32, min_i32, mul_hi_i32, mul_hi_u32, mul_u24, or3, subrev, xad, xor3,
};

type R<T> = Result<T, WaveErrorKind>;
type F32s = [f32; LANES];
type F64s = [f64; LANES];
type U64s = [u64; LANES];

/// Raw 32-bit source values for all lanes.
#[inline(always)]
pub(crate) fn src32(w: &Wave, env: &Env, i: &Inst, k: usize) -> R<Lanes> {
    let op = &i.src[k];
    let v = match op.src {
        Src::Vgpr(r) => return Ok(w.vgpr[r as usize]),
        Src::DppRow => return Ok(w.dpp_row),
        Src::Sgpr(r) => w.sgpr[r as usize],
        Src::Imm(v) => v as u32,
        Src::Scc => w.scc as u32,
        Src::Vccz => (w.vcc_mask() == 0) as u32,
        Src::Execz => (w.exec_mask() == 0) as u32,
        Src::Aperture(c) => (env.aperture(c) >> 32) as u32,
        Src::Unsupported(_) => return Err(illegal(i)),
    };
    Ok([v; LANES])
}

#[inline(always)]
pub(crate) fn src64(w: &Wave, env: &Env, i: &Inst, k: usize) -> R<U64s> {
    let op = &i.src[k];
    let v = match op.src {
        Src::Vgpr(r) => return Ok(w.vgpr64(r as usize)),
        // A 64-bit DPP src0 (GFX9's DP ALU ops): both dwords of the permuted
        // lane, which valu/dpp.rs gathers only for such a source.
        Src::DppRow if k == 0 && i.widths[1] >= 2 => {
            let mut out = [0u64; LANES];
            for l in 0..LANES {
                out[l] = w.dpp_row[l] as u64 | (w.dpp_row_hi[l] as u64) << 32;
            }
            return Ok(out);
        }
        Src::DppRow => return Err(illegal(i)),
        Src::Sgpr(r) => w.sgpr64(r as usize),
        Src::Imm(v) => v,
        Src::Scc => w.scc as u64,
        Src::Vccz => (w.vcc_mask() == 0) as u64,
        Src::Execz => (w.exec_mask() == 0) as u64,
        Src::Aperture(c) => env.aperture(c),
        Src::Unsupported(_) => return Err(illegal(i)),
    };
    Ok([v; LANES])
}

#[inline(always)]
fn f32s(w: &Wave, env: &Env, i: &Inst, k: usize) -> R<F32s> {
    let raw = src32(w, env, i, k)?;
    let and = if (i.mods.abs >> k) & 1 != 0 {
        0x7FFF_FFFF
    } else {
        u32::MAX
    };
    let xor = if (i.mods.neg >> k) & 1 != 0 {
        0x8000_0000
    } else {
        0
    };
    let mut out = [0f32; LANES];
    for l in 0..LANES {
        out[l] = f32::from_bits((raw[l] & and) ^ xor);
    }
    Ok(out)
}

#[inline(always)]
fn f64s(w: &Wave, env: &Env, i: &Inst, k: usize) -> R<F64s> {
    let raw = src64(w, env, i, k)?;
    // abs clears and neg flips the sign bit: one and/xor pair per lane, no branches.
    let and = if (i.mods.abs >> k) & 1 != 0 {
        !(1u64 << 63)
    } else {
        u64::MAX
    };
    let xor = ((i.mods.neg >> k) as u64 & 1) << 63;
    let mut out = [0f64; LANES];
    for l in 0..LANES {
        out[l] = f64::from_bits((raw[l] & and) ^ xor);
    }
    Ok(out)
}

/// 16-bit sources: op_sel bit k picks the high half (VOP3), abs/neg apply to f16.
#[inline(always)]
fn h16s(w: &Wave, env: &Env, i: &Inst, k: usize, float: bool) -> R<[u16; LANES]> {
    let raw = src32(w, env, i, k)?;
    let hi = (i.mods.opsel >> k) & 1 != 0;
    let (abs, neg) = (
        (i.mods.abs >> k) & 1 != 0 && float,
        (i.mods.neg >> k) & 1 != 0 && float,
    );
    let mut out = [0u16; LANES];
    for l in 0..LANES {
        let mut b = if hi {
            (raw[l] >> 16) as u16
        } else {
            raw[l] as u16
        };
        if abs {
            b &= 0x7FFF;
        }
        if neg {
            b ^= 0x8000;
        }
        out[l] = b;
    }
    Ok(out)
}

fn omod_clamp32(i: &Inst, v: f32) -> f32 {
    let v = match i.mods.omod {
        1 => v * 2.0,
        2 => v * 4.0,
        3 => v * 0.5,
        _ => v,
    };
    if i.mods.clamp {
        if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
    } else {
        v
    }
}

fn omod_clamp64(i: &Inst, v: f64) -> f64 {
    let v = match i.mods.omod {
        1 => v * 2.0,
        2 => v * 4.0,
        3 => v * 0.5,
        _ => v,
    };
    if i.mods.clamp {
        if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
    } else {
        v
    }
}

struct V<'a, 'b> {
    w: &'a mut Wave,
    env: &'a Env<'b>,
    i: &'a Inst,
    exec: u32,
}

impl V<'_, '_> {
    #[inline(always)]
    fn u(&self, k: usize) -> R<Lanes> {
        src32(self.w, self.env, self.i, k)
    }
    #[inline(always)]
    fn u64(&self, k: usize) -> R<U64s> {
        src64(self.w, self.env, self.i, k)
    }
    #[inline(always)]
    fn f(&self, k: usize) -> R<F32s> {
        f32s(self.w, self.env, self.i, k)
    }
    #[inline(always)]
    fn d(&self, k: usize) -> R<F64s> {
        f64s(self.w, self.env, self.i, k)
    }
    #[inline(always)]
    fn h(&self, k: usize) -> R<[u16; LANES]> {
        h16s(self.w, self.env, self.i, k, true)
    }
    #[inline(always)]
    fn hi16(&self, k: usize) -> R<[u16; LANES]> {
        h16s(self.w, self.env, self.i, k, false)
    }
    #[inline(always)]
    fn put(&mut self, r: &Lanes) {
        self.w.write_vgpr(self.i.dst as usize, r, self.exec);
    }
    #[inline(always)]
    fn put64(&mut self, r: &U64s) {
        self.w.write_vgpr64(self.i.dst as usize, r, self.exec);
    }
    #[inline(always)]
    fn putf(&mut self, r: &F32s) {
        let mut o = [0u32; LANES];
        if self.i.mods.omod == 0 && !self.i.mods.clamp {
            for l in 0..LANES {
                o[l] = r[l].to_bits();
            }
        } else {
            for l in 0..LANES {
                o[l] = omod_clamp32(self.i, r[l]).to_bits();
            }
        }
        self.put(&o);
    }
    #[inline(always)]
    fn putd(&mut self, r: &F64s) {
        let mut o = [0u64; LANES];
        if self.i.mods.omod == 0 && !self.i.mods.clamp {
            for l in 0..LANES {
                o[l] = r[l].to_bits();
            }
        } else {
            for l in 0..LANES {
                o[l] = omod_clamp64(self.i, r[l]).to_bits();
            }
        }
        self.put64(&o);
    }
    /// 16-bit result into the low half (or high half with op_sel[3]); the
    /// other half is kept, or zeroed by a GFX9 op flagged [`Inst::ZERO_HI16`].
    #[inline(always)]
    fn put16(&mut self, r: &[u16; LANES]) {
        let hi = (self.i.mods.opsel >> 3) & 1 != 0;
        let cur = if self.i.flags & Inst::ZERO_HI16 != 0 {
            [0; LANES]
        } else {
            self.w.vgpr[self.i.dst as usize]
        };
        let mut o = [0u32; LANES];
        for l in 0..LANES {
            o[l] = if hi {
                (cur[l] & 0xFFFF) | (r[l] as u32) << 16
            } else {
                (cur[l] & 0xFFFF_0000) | r[l] as u32
            };
        }
        self.put(&o);
    }
    #[inline(always)]
    fn puth(&mut self, r: &[f32; LANES]) {
        let o = if self.i.mods.omod == 0 && !self.i.mods.clamp {
            f32s_to_f16(r)
        } else {
            f32s_to_f16(&r.map(|x| omod_clamp32(self.i, x)))
        };
        self.put16(&o);
    }
    #[inline(always)]
    fn f1(&mut self, f: impl Fn(f32) -> f32) -> R<()> {
        let a = self.f(0)?;
        let mut r = [0f32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l]);
        }
        self.putf(&r);
        Ok(())
    }
    #[inline(always)]
    fn f2(&mut self, f: impl Fn(f32, f32) -> f32) -> R<()> {
        let (a, b) = (self.f(0)?, self.f(1)?);
        let mut r = [0f32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l], b[l]);
        }
        self.putf(&r);
        Ok(())
    }
    #[inline(always)]
    fn f3(&mut self, f: impl Fn(f32, f32, f32) -> f32) -> R<()> {
        let (a, b, c) = (self.f(0)?, self.f(1)?, self.f(2)?);
        let mut r = [0f32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l], b[l], c[l]);
        }
        self.putf(&r);
        Ok(())
    }
    #[inline(always)]
    fn d1(&mut self, f: impl Fn(f64) -> f64) -> R<()> {
        let a = self.d(0)?;
        let mut r = [0f64; LANES];
        for l in 0..LANES {
            r[l] = f(a[l]);
        }
        self.putd(&r);
        Ok(())
    }
    #[inline(always)]
    fn d2(&mut self, f: impl Fn(f64, f64) -> f64) -> R<()> {
        let (a, b) = (self.d(0)?, self.d(1)?);
        let mut r = [0f64; LANES];
        for l in 0..LANES {
            r[l] = f(a[l], b[l]);
        }
        self.putd(&r);
        Ok(())
    }
    #[inline(always)]
    fn d3(&mut self, f: impl Fn(f64, f64, f64) -> f64) -> R<()> {
        let (a, b, c) = (self.d(0)?, self.d(1)?, self.d(2)?);
        let mut r = [0f64; LANES];
        for l in 0..LANES {
            r[l] = f(a[l], b[l], c[l]);
        }
        self.putd(&r);
        Ok(())
    }
    #[inline(always)]
    fn u1(&mut self, f: impl Fn(u32) -> u32) -> R<()> {
        let a = self.u(0)?;
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l]);
        }
        self.put(&r);
        Ok(())
    }
    #[inline(always)]
    fn u2(&mut self, f: impl Fn(u32, u32) -> u32) -> R<()> {
        let (a, b) = (self.u(0)?, self.u(1)?);
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l], b[l]);
        }
        self.put(&r);
        Ok(())
    }
    #[inline(always)]
    fn u3(&mut self, f: impl Fn(u32, u32, u32) -> u32) -> R<()> {
        let (a, b, c) = (self.u(0)?, self.u(1)?, self.u(2)?);
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l], b[l], c[l]);
        }
        self.put(&r);
        Ok(())
    }
    /// f32 → u32-bit-pattern result without omod/clamp (conversions to int).
    #[inline(always)]
    fn fu(&mut self, f: impl Fn(f32) -> u32) -> R<()> {
        let a = self.f(0)?;
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l]);
        }
        self.put(&r);
        Ok(())
    }
    #[inline(always)]
    fn du(&mut self, f: impl Fn(f64) -> u32) -> R<()> {
        let a = self.d(0)?;
        let mut r = [0u32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l]);
        }
        self.put(&r);
        Ok(())
    }
    #[inline(always)]
    fn uf(&mut self, f: impl Fn(u32) -> f32) -> R<()> {
        let a = self.u(0)?;
        let mut r = [0f32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l]);
        }
        self.putf(&r);
        Ok(())
    }
    #[inline(always)]
    fn ud(&mut self, f: impl Fn(u32) -> f64) -> R<()> {
        let a = self.u(0)?;
        let mut r = [0f64; LANES];
        for l in 0..LANES {
            r[l] = f(a[l]);
        }
        self.putd(&r);
        Ok(())
    }
    #[inline(always)]
    fn h2(&mut self, f: impl Fn(f32, f32) -> f32) -> R<()> {
        let (a, b) = (f16s_to_f32(&self.h(0)?), f16s_to_f32(&self.h(1)?));
        let mut r = [0f32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l], b[l]);
        }
        self.puth(&r);
        Ok(())
    }
    #[inline(always)]
    fn h3(&mut self, f: impl Fn(f32, f32, f32) -> f32) -> R<()> {
        let (a, b, c) = (
            f16s_to_f32(&self.h(0)?),
            f16s_to_f32(&self.h(1)?),
            f16s_to_f32(&self.h(2)?),
        );
        let mut r = [0f32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l], b[l], c[l]);
        }
        self.puth(&r);
        Ok(())
    }
    #[inline(always)]
    fn h1(&mut self, f: impl Fn(f32) -> f32) -> R<()> {
        let a = f16s_to_f32(&self.h(0)?);
        let mut r = [0f32; LANES];
        for l in 0..LANES {
            r[l] = f(a[l]);
        }
        self.puth(&r);
        Ok(())
    }
    #[inline(always)]
    fn i2_16(&mut self, f: impl Fn(u16, u16) -> u16) -> R<()> {
        let (a, b) = (self.hi16(0)?, self.hi16(1)?);
        let mut r = [0u16; LANES];
        for l in 0..LANES {
            r[l] = f(a[l], b[l]);
        }
        self.put16(&r);
        Ok(())
    }
    #[inline(always)]
    fn i3_16(&mut self, f: impl Fn(u16, u16, u16) -> u16) -> R<()> {
        let (a, b, c) = (self.hi16(0)?, self.hi16(1)?, self.hi16(2)?);
        let mut r = [0u16; LANES];
        for l in 0..LANES {
            r[l] = f(a[l], b[l], c[l]);
        }
        self.put16(&r);
        Ok(())
    }
    /// Write a per-lane bit mask to the scalar destination `code` (inactive lanes read 0).
    #[inline(always)]
    fn put_mask(&mut self, code: usize, bits: u32) {
        self.w.set_lane_mask(code, bits & self.exec);
    }
}

/// V_MAD_U16: a * b + c in 16 bits, wrapping or (clamp) saturating.
pub(crate) fn mad_u16(a: u16, b: u16, c: u16, clamp: bool) -> u16 {
    let r = u32::from(a) * u32::from(b) + u32::from(c);
    if clamp {
        r.min(0xFFFF) as u16
    } else {
        r as u16
    }
}

/// V_MAD_I16: signed a * b + c in 16 bits, wrapping or (clamp) saturating.
pub(crate) fn mad_i16(a: u16, b: u16, c: u16, clamp: bool) -> u16 {
    let r = i32::from(a as i16) * i32::from(b as i16) + i32::from(c as i16);
    if clamp {
        r.clamp(i16::MIN.into(), i16::MAX.into()) as i16 as u16
    } else {
        r as u16
    }
}

/// V_MAD_U32_U16 / V_MAD_I32_I16: a * b (16-bit, unsigned or signed) + c
/// in 32 bits, wrapping or (clamp) saturating.
pub(crate) fn mad_32_16(a: u16, b: u16, c: u32, signed: bool, clamp: bool) -> u32 {
    if signed {
        let p = i64::from(a as i16) * i64::from(b as i16) + i64::from(c as i32);
        if clamp {
            p.clamp(i32::MIN.into(), i32::MAX.into()) as i32 as u32
        } else {
            p as u32
        }
    } else {
        let p = u64::from(a) * u64::from(b) + u64::from(c);
        if clamp {
            p.min(u32::MAX.into()) as u32
        } else {
            p as u32
        }
    }
}

/// x + y + c (c is 0 or 1) and its carry out, in 32-bit bitwise operations
/// that vectorise without unsigned compares (which baseline x86-64 lacks):
/// the carry out of bit 31 is the majority of x, y and the carry into bit
/// 31, which is `s ^ x ^ y` there, i.e. `(x & y) | ((x | y) & !s)` at bit 31.
#[inline(always)]
pub(crate) fn add_carry(x: u32, y: u32, c: u32) -> (u32, u32) {
    let s = x.wrapping_add(y).wrapping_add(c);
    (s, ((x & y) | ((x | y) & !s)) >> 31)
}

/// x - y - c (c is 0 or 1) and its borrow out (y + c > x), bitwise as
/// [`add_carry`]: the borrow out of bit 31 is `(!x & y) | (!(x ^ y) & d)` there.
#[inline(always)]
pub(crate) fn sub_borrow(x: u32, y: u32, c: u32) -> (u32, u32) {
    let d = x.wrapping_sub(y).wrapping_sub(c);
    (d, ((!x & y) | (!(x ^ y) & d)) >> 31)
}

/// f16 bit patterns to f32, `N` at a time: the host's F16C unit over 8
/// values per step where present (`f16c_convert`), else half's conversion;
/// the same values as converting one by one (half's slice conversion uses
/// the same instructions).
#[inline(always)]
pub(crate) fn f16s_to_f32<const N: usize>(x: &[u16; N]) -> [f32; N] {
    let mut o = [0f32; N];
    #[cfg(target_arch = "x86_64")]
    if N.is_multiple_of(8) && std::arch::is_x86_feature_detected!("f16c") {
        // SAFETY: the CPU has F16C (and so AVX); 8 divides N.
        unsafe { f16c_convert::widen(x, &mut o) };
        return o;
    }
    x.reinterpret_cast::<f16>().convert_to_f32_slice(&mut o);
    o
}

/// f32 to f16 bit patterns (round to nearest even), `N` at a time, as [`f16s_to_f32`].
#[inline(always)]
pub(crate) fn f32s_to_f16<const N: usize>(x: &[f32; N]) -> [u16; N] {
    #[cfg(target_arch = "x86_64")]
    if N.is_multiple_of(8) && std::arch::is_x86_feature_detected!("f16c") {
        let mut o = [0u16; N];
        // SAFETY: as in `f16s_to_f32`.
        unsafe { f16c_convert::narrow(x, &mut o) };
        return o;
    }
    let mut o = [f16::ZERO; N];
    o.convert_from_f32_slice(x);
    o.map(f16::to_bits)
}

/// The F16C conversions in one function per direction, so that a caller's
/// copy for any level runs them without a call per 8 values (half's slice
/// conversion calls its F16C routine per 8 values unless LLVM inlines it,
/// which it does or not from build to build: v_pk_add_f16 through the
/// translator's call-out took about twice the time when it did not).
#[cfg(target_arch = "x86_64")]
mod f16c_convert {
    use std::arch::x86_64::{
        __m128i, _MM_FROUND_TO_NEAREST_INT, _mm_storeu_si128, _mm256_cvtph_ps, _mm256_cvtps_ph,
        _mm256_loadu_ps, _mm256_storeu_ps,
    };

    /// `x`'s f16 patterns as f32s into `o`.
    ///
    /// # Safety
    /// The CPU has F16C; `N` is a multiple of 8.
    #[target_feature(enable = "avx,f16c")]
    pub(super) unsafe fn widen<const N: usize>(x: &[u16; N], o: &mut [f32; N]) {
        for (src, dst) in x.chunks_exact(8).zip(o.chunks_exact_mut(8)) {
            // SAFETY: each chunk holds 8 values: 16 bytes in, 32 bytes out;
            // unaligned loads and stores.
            unsafe {
                let h = std::ptr::read_unaligned(src.as_ptr().cast::<__m128i>());
                _mm256_storeu_ps(dst.as_mut_ptr(), _mm256_cvtph_ps(h));
            }
        }
    }

    /// `x` rounded to nearest even f16 patterns into `o`.
    ///
    /// # Safety
    /// As [`widen`].
    #[target_feature(enable = "avx,f16c")]
    pub(super) unsafe fn narrow<const N: usize>(x: &[f32; N], o: &mut [u16; N]) {
        for (src, dst) in x.chunks_exact(8).zip(o.chunks_exact_mut(8)) {
            // SAFETY: as in `widen`, 32 bytes in, 16 bytes out.
            unsafe {
                let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(src.as_ptr()));
                _mm_storeu_si128(dst.as_mut_ptr().cast::<__m128i>(), h);
            }
        }
    }
}

/// NaN results that do not depend on how the host compiler ordered the
/// operands of a commutative operation: an x86 add, mul or fma returns the
/// NaN of the operand its instruction names first, and LLVM may emit `a + b`
/// as `b + a` or pick any of the three vfmadd forms, so two compilations of
/// the same op (the slow path and a pre-resolved form) could return different
/// NaNs. gfxsim's rule: when an input is NaN the result is the first NaN
/// operand as the instruction names them (src0, src1, src2), quieted; a NaN
/// made from non-NaN inputs (inf - inf, 0 * inf) is the host's default NaN.
/// `nan2_*` applies it to two sources, `nan3_*` to three; the quiet bit is
/// the mantissa's top bit.
macro_rules! nan_rule {
    ($nan2:ident, $nan3:ident, $sel3:ident, $t:ty, $u:ty, $quiet:expr) => {
        #[inline(always)]
        pub(crate) fn $nan2(a: $t, b: $t, r: $t) -> $t {
            if !r.is_nan() {
                r
            } else if a.is_nan() {
                <$t>::from_bits(a.to_bits() | $quiet)
            } else if b.is_nan() {
                <$t>::from_bits(b.to_bits() | $quiet)
            } else {
                r
            }
        }
        #[inline(always)]
        pub(crate) fn $nan3(a: $t, b: $t, c: $t, r: $t) -> $t {
            if r.is_nan() && !a.is_nan() && !b.is_nan() && c.is_nan() {
                <$t>::from_bits(c.to_bits() | $quiet)
            } else {
                $nan2(a, b, r)
            }
        }
        /// The same as the three-source rule, as and/or selects on the bits
        /// (no branch), so that a loop over lanes vectorises.
        #[inline(always)]
        pub(crate) fn $sel3(a: $t, b: $t, c: $t, r: $t) -> $t {
            let m = |x: $t| if x.is_nan() { <$u>::MAX } else { 0 };
            let (ma, mb, mc, mr) = (m(a), m(b), m(c), m(r));
            let q = |x: $t| x.to_bits() | $quiet;
            let rb = r.to_bits();
            // The first NaN source, quieted; none: r (the host's default NaN).
            let pick =
                (q(a) & ma) | (q(b) & !ma & mb) | (q(c) & !ma & !mb & mc) | (rb & !ma & !mb & !mc);
            <$t>::from_bits((pick & mr) | (rb & !mr))
        }
    };
}
nan_rule!(nan2_32, nan3_32, nan3_sel32, f32, u32, 0x0040_0000);
nan_rule!(
    nan2_64,
    nan3_64,
    nan3_sel64,
    f64,
    u64,
    0x0008_0000_0000_0000
);

/// src0 + src1 and src0 * src1 with [`nan2_32`]'s NaN rule (f32 and, widened, f16).
#[inline(always)]
pub(crate) fn add32(a: f32, b: f32) -> f32 {
    nan2_32(a, b, a + b)
}
#[inline(always)]
pub(crate) fn mul32(a: f32, b: f32) -> f32 {
    nan2_32(a, b, a * b)
}
#[inline(always)]
pub(crate) fn add64(a: f64, b: f64) -> f64 {
    nan2_64(a, b, a + b)
}
#[inline(always)]
pub(crate) fn mul64(a: f64, b: f64) -> f64 {
    nan2_64(a, b, a * b)
}

/// The body every fma lane loop shares, expanded inside each caller so that
/// the `target_feature(enable = "fma")` copies compile `mul_add` to the host
/// FMA instruction: one FMA per lane, then one vector pass looks for NaN
/// results, and only then is each lane's NaN picked by the source-order rule.
macro_rules! fma_lanes_body {
    ($a:ident, $b:ident, $c:ident, $zero:expr, $nan3:ident) => {{
        let mut r = [$zero; LANES];
        for l in 0..LANES {
            r[l] = $a[l].mul_add($b[l], $c[l]);
        }
        if r.iter().fold(false, |any, x| any | x.is_nan()) {
            for l in 0..LANES {
                r[l] = $nan3($a[l], $b[l], $c[l], r[l]);
            }
        }
        r
    }};
}

/// Fused multiply-add over all lanes; uses the host FMA unit when present
/// (std's `mul_add` is a libm call per lane without a compile-time FMA target).
/// Always inlined: the feature check then costs no call of its own.
#[inline(always)]
pub(crate) fn fma_lanes(a: &F32s, b: &F32s, c: &F32s) -> F32s {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports FMA (checked just above).
            return unsafe { fma_lanes_x86(a, b, c) };
        }
    }
    fma_lanes_body!(a, b, c, 0f32, nan3_sel32)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
#[inline]
fn fma_lanes_x86(a: &F32s, b: &F32s, c: &F32s) -> F32s {
    fma_lanes_body!(a, b, c, 0f32, nan3_sel32)
}

/// f64 fused multiply-add over all lanes, on the host FMA unit when present
/// (as [`fma_lanes`]; the libm fallback was one call per lane).
#[inline]
pub(crate) fn fma_lanes64(a: &F64s, b: &F64s, c: &F64s) -> F64s {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports FMA (checked just above).
            return unsafe { fma_lanes64_x86(a, b, c) };
        }
    }
    fma_lanes_body!(a, b, c, 0f64, nan3_sel64)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
#[inline]
fn fma_lanes64_x86(a: &F64s, b: &F64s, c: &F64s) -> F64s {
    fma_lanes_body!(a, b, c, 0f64, nan3_sel64)
}

/// One lane of [`fma_lanes64`]: the same host operation on one value.
#[inline]
pub(crate) fn fma_lane64(a: f64, b: f64, c: f64) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports FMA (checked just above).
            return unsafe { fma_lane64_x86(a, b, c) };
        }
    }
    nan3_64(a, b, c, a.mul_add(b, c))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma_lane64_x86(a: f64, b: f64, c: f64) -> f64 {
    nan3_64(a, b, c, a.mul_add(b, c))
}

fn pow2_f64(e: i32) -> f64 {
    // e in [-1022, 1023]: an exact normal power of two.
    f64::from_bits(((e + 1023) as u64) << 52)
}

pub(crate) fn ldexp32(x: f32, e: i32) -> f32 {
    // |e| <= 600 keeps both factors normal in f64; x * 2^e is then exact in
    // f64 and rounds once to f32 (f32 results saturate far inside that range).
    let e = e.clamp(-600, 600);
    let h = e / 2;
    (x as f64 * pow2_f64(h) * pow2_f64(e - h)) as f32
}

pub(crate) fn ldexp64(x: f64, e: i32) -> f64 {
    let e = e.clamp(-2200, 2200);
    let mut r = x;
    let mut left = e;
    while left != 0 {
        let s = left.clamp(-1000, 1000);
        // 2^s is an exact normal power of two for |s| <= 1000 (no powi libm call).
        r *= pow2_f64(s);
        left -= s;
    }
    r
}

#[inline]
pub(crate) fn frexp32(x: f32) -> (f32, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    // Subnormal: scale into the normal range (times 2^32, exact), then
    // adjust; one step, no recursion, so the per-lane callers inline it.
    let (x, scaled) = if (x.to_bits() >> 23) & 0xFF == 0 {
        (x * f32::from_bits(0x4F80_0000), 32)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let exp = ((bits >> 23) & 0xFF) as i32;
    // Mantissa in [0.5, 1): keep sign and fraction, exponent field 126.
    (
        f32::from_bits((bits & !(0xFF << 23)) | (126 << 23)),
        exp - 126 - scaled,
    )
}

#[inline]
fn frexp64(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    // A subnormal times 2^64 is normal (exact): one step, no recursion, so
    // the per-lane callers (div_scale64) inline it.
    let (x, scaled) = if (x.to_bits() >> 52) & 0x7FF == 0 {
        (x * pow2_f64(64), 64)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7FF) as i32;
    let m = f64::from_bits((bits & !(0x7FFu64 << 52)) | (1022u64 << 52));
    (m, exp - 1022 - scaled)
}

pub(crate) fn exponent32(x: f32) -> i32 {
    ((x.to_bits() >> 23) & 0xFF) as i32
}
/// v_exp_f32: 2^a (transcendental.rs, shared with the translator).
pub(crate) fn exp32(a: f32) -> f32 {
    transcendental::exp2_f32(a)
}
/// v_log_f32: log2(a) (transcendental.rs, shared with the translator).
pub(crate) fn log32(a: f32) -> f32 {
    transcendental::log2_f32(a)
}
/// v_rcp_f32 / v_rsq_f32: through f64, rounded once to f32.
pub(crate) fn rcp32(a: f32) -> f32 {
    (1.0 / a as f64) as f32
}
pub(crate) fn rsq32(a: f32) -> f32 {
    (1.0 / (a as f64).sqrt()) as f32
}

/// v_fma_f16 / v_fmac_f16 of f16 bit patterns: product and sum in f64, then
/// rounded once to f16 (and widened exactly to f32 for puth).
///
/// The f64 sum of f16 operands is exact unless their exponents lie over
/// 53 bits apart, and then it is either an addend far under half an f16
/// ulp of the other (the f64 result is within a tiny part of an ulp of an
/// f16 value, not of a tie) or a product past 2^28 (the f16 result is
/// infinite either way): the f64 result rounds to the f16 of the exact one.
pub(crate) fn fma16(a: u16, b: u16, c: u16) -> f32 {
    let (a, b, c) = (
        f16::from_bits(a).to_f64(),
        f16::from_bits(b).to_f64(),
        f16::from_bits(c).to_f64(),
    );
    let x = nan3_64(a, b, c, a * b + c);
    f16::from_bits(round_once::f16_of(x)).to_f32()
}

/// v_rcp_f64 / v_rsq_f64: the correctly rounded reciprocal (of the square root).
pub(crate) fn rcp64(a: f64) -> f64 {
    1.0 / a
}
pub(crate) fn rsq64(a: f64) -> f64 {
    1.0 / a.sqrt()
}

pub(crate) fn exponent64(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7FF) as i32
}

/// IEEE-mode min/max: a NaN input yields the other operand.
pub(crate) fn fmax32(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else if a == b {
        if a.is_sign_negative() { b } else { a }
    } else if a > b {
        a
    } else {
        b
    }
}
pub(crate) fn fmin32(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else if a == b {
        if a.is_sign_negative() { a } else { b }
    } else if a < b {
        a
    } else {
        b
    }
}
pub(crate) fn fmax64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else {
        a.max(b)
    }
}
pub(crate) fn fmin64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else {
        a.min(b)
    }
}

fn med3(a: f32, b: f32, c: f32) -> f32 {
    fmax32(fmin32(a, b), fmin32(fmax32(a, b), c))
}

pub(crate) fn cvt_i32(x: f32) -> u32 {
    (x as i32) as u32
}
pub(crate) fn cvt_u32(x: f32) -> u32 {
    x as u32
}

/// v_floor/v_ceil/v_trunc: the host's rounding, with a NaN source returned
/// quieted (the NaN rule above). The host alone does not fix that: Rust's
/// `floor` is roundss (which quiets) where SSE4.1 is enabled, as in the
/// interpreter's AVX2 loop, and a software routine that returns a signalling
/// NaN unchanged in the baseline loop.
pub(crate) fn floor32(x: f32) -> f32 {
    if x.is_nan() { quiet32(x) } else { x.floor() }
}
pub(crate) fn ceil32(x: f32) -> f32 {
    if x.is_nan() { quiet32(x) } else { x.ceil() }
}
pub(crate) fn trunc32(x: f32) -> f32 {
    if x.is_nan() { quiet32(x) } else { x.trunc() }
}
pub(crate) fn floor64(x: f64) -> f64 {
    if x.is_nan() { quiet64(x) } else { x.floor() }
}
pub(crate) fn ceil64(x: f64) -> f64 {
    if x.is_nan() { quiet64(x) } else { x.ceil() }
}
pub(crate) fn trunc64(x: f64) -> f64 {
    if x.is_nan() { quiet64(x) } else { x.trunc() }
}
fn quiet32(x: f32) -> f32 {
    f32::from_bits(x.to_bits() | 0x0040_0000)
}
fn quiet64(x: f64) -> f64 {
    f64::from_bits(x.to_bits() | 0x0008_0000_0000_0000)
}

/// v_fract: x - floor(x), at most the largest value below 1; a NaN source
/// returned quieted. LLVM emulates gfx7+'s v_fract on gfx6 (whose v_fract
/// is faulty) as `isnan(x) ? x : min(fract(x), the largest value below 1)`
/// (test/CodeGen/AMDGPU/fract.f64.ll, the v_cmp_class with mask 3), so the
/// instruction passes a NaN through rather than returning the clamp, as
/// Rust's `min` would.
fn fract32(x: f32) -> f32 {
    if x.is_nan() {
        return quiet32(x);
    }
    if x.is_infinite() {
        return f32::NAN;
    }
    (x - x.floor()).min(f32::from_bits(0x3F7F_FFFF))
}
fn fract64(x: f64) -> f64 {
    if x.is_nan() {
        return quiet64(x);
    }
    if x.is_infinite() {
        return f64::NAN;
    }
    (x - x.floor()).min(f64::from_bits(0x3FEF_FFFF_FFFF_FFFF))
}

pub(crate) fn round_even32(x: f32) -> f32 {
    // Without SSE4.1 round_ties_even is a libm call per lane. For |x| < 2^23,
    // (|x| + 2^23) - 2^23 rounds to an integer ties-to-even exactly (the host
    // rounds to nearest even); larger values, infinities and NaN are already integral.
    let a = x.abs();
    if a < 8_388_608.0 {
        ((a + 8_388_608.0) - 8_388_608.0).copysign(x)
    } else {
        x
    }
}

/// V_DIV_SCALE_F32 (S0 = value to scale, S1 = denominator, S2 = numerator),
/// after the RDNA3 pseudocode. Both calls of a division sequence see the same
/// (S1, S2), so numerator and denominator are scaled consistently; VCC tells
/// V_DIV_FMAS to undo a scaling of the quotient. The "quotient would be
/// denormal" test is evaluated exactly (in f64) rather than as an f32 division
/// that may underflow to zero.
pub(crate) fn div_scale32(s0: f32, s1: f32, s2: f32) -> (f32, bool) {
    if s2 == 0.0 || s1 == 0.0 {
        return (f32::NAN, false);
    }
    let q = (s2 as f64 / s1 as f64).abs();
    if exponent32(s2) - exponent32(s1) >= 96 {
        // Quotient near overflow: scale the denominator up.
        (if s0 == s1 { ldexp32(s0, 64) } else { s0 }, true)
    } else if q < f32::MIN_POSITIVE as f64 && q.is_finite() {
        // Quotient would be denormal: scale the numerator up.
        (if s0 == s2 { ldexp32(s0, 64) } else { s0 }, true)
    } else if s1.is_subnormal() || exponent32(s2) <= 23 {
        (ldexp32(s0, 64), false)
    } else if (1.0 / s1 as f64).abs() < f32::MIN_POSITIVE as f64 {
        (ldexp32(s0, -64), false)
    } else {
        (s0, false)
    }
}

/// [`div_scale64`] over all lanes: the results and the lane mask of their flags
/// (the slow path and the pre-resolved form share it).
pub(crate) fn div_scale64_lanes(a: &F64s, b: &F64s, c: &F64s) -> (F64s, u32) {
    let mut r = [0f64; LANES];
    let mut m = 0u32;
    for l in 0..LANES {
        let (d, s) = div_scale64(a[l], b[l], c[l]);
        r[l] = d;
        m |= (s as u32) << l;
    }
    (r, m)
}

pub(crate) fn div_scale64(s0: f64, s1: f64, s2: f64) -> (f64, bool) {
    let (x1, x2) = (exponent64(s1), exponent64(s2));
    // The common case, decided from the exponent fields alone: both normal,
    // no overflow or denormal quotient, s2 not tiny, s1 not huge. Every test
    // below is then false (e = field - 1022 for normals), so s0 is kept.
    if (1..=2044).contains(&x1) && (54..=2046).contains(&x2) && (-1021..768).contains(&(x2 - x1)) {
        return (s0, false);
    }
    if s2 == 0.0 || s1 == 0.0 {
        return (f64::NAN, false);
    }
    let (m2, e2) = frexp64(s2);
    let (m1, e1) = frexp64(s1);
    if exponent64(s2) - exponent64(s1) >= 768 {
        (if s0 == s1 { ldexp64(s0, 128) } else { s0 }, true)
    } else if s2.is_finite() && s1.is_finite() && quotient_below_2_pow_1022(m2, e2, m1, e1) {
        (if s0 == s2 { ldexp64(s0, 128) } else { s0 }, true)
    } else if s1.is_subnormal() || exponent64(s2) <= 53 {
        (ldexp64(s0, 128), false)
    } else if e1 > 1022 {
        (ldexp64(s0, -128), false)
    } else {
        (s0, false)
    }
}

/// Is log2|s2 / s1| < -1022, computed as `(e2 - e1) + log2|m2 / m1|` (the
/// frexp parts of finite non-zero s2 and s1)? |m2 / m1| lies in (1/2, 2), so
/// libm's log2 of it lies in [-1, 1] and only an exponent difference of
/// -1022 or -1023 can go either way (the sum then rounds near -1022); any
/// other difference decides the same answer without the per-lane libm call.
fn quotient_below_2_pow_1022(m2: f64, e2: i32, m1: f64, e1: i32) -> bool {
    match e2 - e1 {
        d if d >= -1021 => false,
        d if d <= -1024 => true,
        d => d as f64 + (m2 / m1).abs().log2() < -1022.0,
    }
}

pub(crate) fn div_fixup32(q: f32, den: f32, num: f32) -> f32 {
    let neg = den.is_sign_negative() != num.is_sign_negative();
    let sign = |v: f32| if neg { -v.abs() } else { v.abs() };
    if num.is_nan() || den.is_nan() {
        if den.is_nan() { den } else { num }
    } else if (den == 0.0 && num == 0.0) || (den.is_infinite() && num.is_infinite()) {
        f32::NAN
    } else if den == 0.0 || num.is_infinite() {
        sign(f32::INFINITY)
    } else if den.is_infinite() || num == 0.0 {
        sign(0.0)
    } else if q.is_nan() {
        // The scaled quotient overflowed inside the division sequence.
        sign(f32::INFINITY)
    } else {
        sign(q)
    }
}

pub(crate) fn div_fixup64(q: f64, den: f64, num: f64) -> f64 {
    let neg = den.is_sign_negative() != num.is_sign_negative();
    let sign = |v: f64| if neg { -v.abs() } else { v.abs() };
    if num.is_nan() || den.is_nan() {
        if den.is_nan() { den } else { num }
    } else if (den == 0.0 && num == 0.0) || (den.is_infinite() && num.is_infinite()) {
        f64::NAN
    } else if den == 0.0 || num.is_infinite() {
        sign(f64::INFINITY)
    } else if den.is_infinite() || num == 0.0 {
        sign(0.0)
    } else if q.is_nan() {
        sign(f64::INFINITY)
    } else {
        sign(q)
    }
}

fn perm_byte(a: u32, b: u32, sel: u32) -> u32 {
    // v_perm_b32: bytes 0..3 from S1, 4..7 from S0; 8..11 sign replicate; 12 = 0x00, >=13 = 0xFF.
    let bytes = (b as u64) | (a as u64) << 32;
    let byte = |n: u32| ((bytes >> (8 * n)) & 0xFF) as u32;
    match sel {
        0..=7 => byte(sel),
        8 => {
            if byte(1) & 0x80 != 0 {
                0xFF
            } else {
                0
            }
        }
        9 => {
            if byte(3) & 0x80 != 0 {
                0xFF
            } else {
                0
            }
        }
        10 => {
            if byte(5) & 0x80 != 0 {
                0xFF
            } else {
                0
            }
        }
        11 => {
            if byte(7) & 0x80 != 0 {
                0xFF
            } else {
                0
            }
        }
        12 => 0,
        _ => 0xFF,
    }
}

pub(crate) fn bfe_u(v: u32, off: u32, width: u32) -> u32 {
    let (off, width) = (off & 31, width & 31);
    if width == 0 {
        0
    } else {
        (v >> off) & ((1u64 << width) - 1) as u32
    }
}
pub(crate) fn bfe_i(v: u32, off: u32, width: u32) -> u32 {
    let (off, width) = (off & 31, width & 31);
    if width == 0 {
        return 0;
    }
    let r = ((v as u64) >> off) & ((1u64 << width) - 1);
    ((r << (64 - width)) as i64 >> (64 - width)) as u32
}

/// An f16 (bits) as a signed (snorm16) or unsigned (unorm16) normalized
/// integer: clamped, scaled, rounded to nearest even; NaN is 0.
fn f16_to_norm(bits: u16, signed: bool) -> u16 {
    f64_to_norm(f16::from_bits(bits).to_f64(), signed)
}

/// `x` as snorm16 / unorm16 (see [`f16_to_norm`]).
fn f64_to_norm(x: f64, signed: bool) -> u16 {
    if x.is_nan() {
        return 0;
    }
    if signed {
        (x.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i16 as u16
    } else {
        (x.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u16
    }
}

with_avx2_copy! {
    /// The general path of every VALU instruction (the ones without a
    /// pre-resolved form: VOP3P, DPP, f16, ...), through its AVX2 copy where
    /// the wave loop's level (wave_loop.rs) is AVX2 or above: the lane loops
    /// then take 8 lanes per vector instruction instead of SSE2's 4, and
    /// integer and IEEE float operations give the same bits either way.
    pub(crate) fn valu(w: &mut Wave, env: &Env, i: &Inst) -> ExecResult => valu_here
}

#[inline(always)]
fn valu_here(w: &mut Wave, env: &Env, i: &Inst) -> ExecResult {
    use Op::*;
    let exec = w.exec();
    let mut v = V { w, env, i, exec };
    match i.op {
        VNop | VPipeflush => {}
        VAccvgprReadB32 | VAccvgprWriteB32 | VAccvgprMovB32 => return agpr::moves(v.w, env, i),
        VMovB32 => v.u1(|a| a)?,
        VMovB16 => v.i2_16(|a, _| a).or_else(|_| v.u1(|a| a))?,
        VWmmaF3216x16x16F16
        | VWmmaF3216x16x16Bf16
        | VWmmaF1616x16x16F16
        | VWmmaBf1616x16x16Bf16
        | VWmmaI3216x16x16Iu8
        | VWmmaI3216x16x16Iu4 => return wmma::wmma(v.w, i),
        VReadfirstlaneB32 => {
            let a = v.u(0)?;
            let lane = if exec == 0 {
                0
            } else {
                exec.trailing_zeros() as usize
            };
            v.w.set_sgpr(i.dst as usize, a[lane]);
        }
        VReadlaneB32 => {
            let a = v.u(0)?;
            let lane = crate::gfx11::exec::env::sread(v.w, env, i, 1)? as usize & (LANES - 1);
            v.w.set_sgpr(i.dst as usize, a[lane]);
        }
        VWritelaneB32 => {
            let val = crate::gfx11::exec::env::sread(v.w, env, i, 0)?;
            let lane = crate::gfx11::exec::env::sread(v.w, env, i, 1)? as usize & (LANES - 1);
            v.w.vgpr[i.dst as usize][lane] = val;
        }
        // VGPR-indexed moves: the VGPR number is offset by M0 (movrelsd_2: src by M0[9:0],
        // dst by M0[25:16]).
        VMovrelsB32 | VMovreldB32 | VMovrelsdB32 | VMovrelsd2B32 => {
            let m0 = v.w.sgpr[crate::gfx11::wave::M0] as usize;
            let (src_off, dst_off) = match i.op {
                VMovrelsB32 => (m0, 0),
                VMovreldB32 => (0, m0),
                VMovrelsdB32 => (m0, m0),
                _ => (m0 & 0x3FF, (m0 >> 16) & 0x3FF),
            };
            let val = match i.src[0].src {
                Src::Vgpr(r) => v.w.vgpr[(r as usize + src_off) & 255],
                _ if src_off == 0 => v.u(0)?,
                _ => return Err(illegal(i)),
            };
            v.w.write_vgpr((i.dst as usize + dst_off) & 255, &val, exec);
        }
        // Wave32: no other half to swap with; the lanes pass through (wave64 is in wave64.rs).
        VPermlane64B32 => v.u1(|a| a)?,
        // v_swaprel_b32 offsets the source VGPR by M0[9:0] and the
        // destination by M0[25:16], as v_movrelsd_2.
        VSwapB32 | VSwaprelB32 => {
            let Src::Vgpr(s) = i.src[0].src else {
                return Err(illegal(i));
            };
            let (src_off, dst_off) = if i.op == VSwaprelB32 {
                let m0 = v.w.sgpr[crate::gfx11::wave::M0] as usize;
                (m0 & 0x3FF, (m0 >> 16) & 0x3FF)
            } else {
                (0, 0)
            };
            let (s, d) = (
                (s as usize + src_off) & 255,
                (i.dst as usize + dst_off) & 255,
            );
            let a = v.w.vgpr[s];
            let b = v.w.vgpr[d];
            v.w.write_vgpr(s, &b, exec);
            v.w.write_vgpr(d, &a, exec);
        }
        // ---- f32 arithmetic
        VAddF32 => v.f2(add32)?,
        VSubF32 => v.f2(|a, b| a - b)?,
        VSubrevF32 => v.f2(|a, b| nan2_32(a, b, b - a))?,
        VMulF32 => v.f2(mul32)?,
        VMulDx9ZeroF32 => v.f2(|a, b| {
            if a == 0.0 || b == 0.0 {
                0.0
            } else {
                mul32(a, b)
            }
        })?,
        VMaxF32 => v.f2(fmax32)?,
        VMinF32 => v.f2(fmin32)?,
        VFmaF32 => {
            let r = fma_lanes(&v.f(0)?, &v.f(1)?, &v.f(2)?);
            v.putf(&r)
        }
        VFmaDx9ZeroF32 => v.f3(|a, b, c| {
            if a == 0.0 || b == 0.0 {
                c
            } else {
                nan3_32(a, b, c, a.mul_add(b, c))
            }
        })?,
        VFmacF32 => {
            let (a, b) = (v.f(0)?, v.f(1)?);
            let c = v.w.vgpr[i.dst as usize].map(f32::from_bits);
            let r = fma_lanes(&a, &b, &c);
            v.putf(&r)
        }
        VFmaakF32 => {
            let r = fma_lanes(&v.f(0)?, &v.f(1)?, &v.f(2)?);
            v.putf(&r)
        }
        // GFX9's non-fused multiply-add (AMD CDNA2 ISA guide, V_MAD_F32 and
        // V_MAC_F32: the product rounded, then the sum; these opcodes do not
        // support denormals, so inputs, product and result flush to zero).
        // V_MADMK_F32 (src0 * K + src1) and V_MADAK_F32 (src0 * src1 + K) are
        // the same operation with the literal K (src[2], as for the FMA forms).
        VMadF32 | VMacF32 | VMadmkF32 | VMadakF32 => {
            let (a, b) = match i.op {
                VMadmkF32 => (v.f(0)?, v.f(2)?),
                _ => (v.f(0)?, v.f(1)?),
            };
            let c = match i.op {
                VMacF32 => v.w.vgpr[i.dst as usize].map(f32::from_bits),
                VMadmkF32 => v.f(1)?,
                _ => v.f(2)?,
            };
            let ftz = |x: f32| {
                if x.is_subnormal() {
                    0.0f32.copysign(x)
                } else {
                    x
                }
            };
            let mut r = [0f32; LANES];
            for l in 0..LANES {
                r[l] = ftz(ftz(ftz(a[l]) * ftz(b[l])) + ftz(c[l]));
            }
            v.putf(&r)
        }
        VFmamkF32 => {
            // dst = src0 * K + vsrc1 (K is src[2]).
            let (a, b, k) = (v.f(0)?, v.f(1)?, v.f(2)?);
            let r = fma_lanes(&a, &k, &b);
            v.putf(&r)
        }
        VMax3F32 => v.f3(|a, b, c| fmax32(fmax32(a, b), c))?,
        VMin3F32 => v.f3(|a, b, c| fmin32(fmin32(a, b), c))?,
        VMed3F32 => v.f3(med3)?,
        VCubeidF32 => v.f3(|x, y, z| cube::cube(cube::CubeResult::Id, x, y, z))?,
        VCubescF32 => v.f3(|x, y, z| cube::cube(cube::CubeResult::Sc, x, y, z))?,
        VCubetcF32 => v.f3(|x, y, z| cube::cube(cube::CubeResult::Tc, x, y, z))?,
        VCubemaF32 => v.f3(|x, y, z| cube::cube(cube::CubeResult::Ma, x, y, z))?,
        // Fused pairs (gfx11 VOP3): maxmin = min(max(S0, S1), S2), minmax =
        // max(min(S0, S1), S2), each step with v_max/v_min's IEEE NaN rule.
        VMaxminF32 => v.f3(|a, b, c| fmin32(fmax32(a, b), c))?,
        VMinmaxF32 => v.f3(|a, b, c| fmax32(fmin32(a, b), c))?,
        VLdexpF32 => {
            let (a, e) = (v.f(0)?, v.u(1)?);
            let mut r = [0f32; LANES];
            for l in 0..LANES {
                r[l] = ldexp32(a[l], e[l] as i32);
            }
            v.putf(&r)
        }
        VRcpF32 | VRcpIflagF32 => v.f1(rcp32)?,
        VRsqF32 => v.f1(rsq32)?,
        VSqrtF32 => v.f1(|a| a.sqrt())?,
        VExpF32 => v.f1(exp32)?,
        VLogF32 => v.f1(log32)?,
        VSinF32 => v.f1(|a| {
            if a.is_infinite() {
                f32::NAN
            } else {
                ((a as f64) * std::f64::consts::TAU).sin() as f32
            }
        })?,
        VCosF32 => v.f1(|a| {
            if a.is_infinite() {
                f32::NAN
            } else {
                ((a as f64) * std::f64::consts::TAU).cos() as f32
            }
        })?,
        VFractF32 => v.f1(fract32)?,
        VTruncF32 => v.f1(trunc32)?,
        VCeilF32 => v.f1(ceil32)?,
        VFloorF32 => v.f1(floor32)?,
        VRndneF32 => v.f1(round_even32)?,
        VFrexpMantF32 => v.f1(|a| frexp32(a).0)?,
        VFrexpExpI32F32 => v.fu(|a| frexp32(a).1 as u32)?,
        VCvtI32F32 => v.fu(cvt_i32)?,
        VCvtU32F32 => v.fu(cvt_u32)?,
        VCvtNearestI32F32 => v.fu(|a| cvt_i32((a + 0.5).floor()))?,
        VCvtFloorI32F32 => v.fu(|a| cvt_i32(a.floor()))?,
        VCvtF32I32 => v.uf(|a| a as i32 as f32)?,
        VCvtF32U32 => v.uf(|a| a as f32)?,
        VCvtF32Ubyte0 => v.uf(|a| (a & 0xFF) as f32)?,
        VCvtF32Ubyte1 => v.uf(|a| ((a >> 8) & 0xFF) as f32)?,
        VCvtF32Ubyte2 => v.uf(|a| ((a >> 16) & 0xFF) as f32)?,
        VCvtF32Ubyte3 => v.uf(|a| (a >> 24) as f32)?,
        VCvtF16F32 => {
            let a = v.f(0)?;
            v.puth(&a)
        }
        VCvtF32F16 => {
            let a = v.h(0)?;
            let mut r = [0f32; LANES];
            for l in 0..LANES {
                r[l] = f16::from_bits(a[l]).to_f32();
            }
            v.putf(&r)
        }
        // 16-bit integer <-> f16 (VOP1 / VOP3): int -> f16 rounds to nearest
        // even (u16 values from 65520 up become +inf); f16 -> int truncates,
        // saturates and maps NaN to 0. Integer sources take no neg/abs.
        VCvtF16U16 | VCvtF16I16 => {
            let a = v.hi16(0)?;
            let mut r = [0f32; LANES];
            for l in 0..LANES {
                r[l] = if i.op == VCvtF16I16 {
                    a[l] as i16 as f32
                } else {
                    a[l] as f32
                };
            }
            v.puth(&r)
        }
        VCvtU16F16 | VCvtI16F16 => {
            let a = v.h(0)?;
            let mut r = [0u16; LANES];
            for l in 0..LANES {
                let x = f16::from_bits(a[l]).to_f32();
                r[l] = if i.op == VCvtI16F16 {
                    x as i16 as u16
                } else {
                    x as u16
                };
            }
            v.put16(&r)
        }
        // f16 -> signed/unsigned normalized 16-bit: clamp to [-1, 1] / [0, 1],
        // scale by 32767 / 65535, round to nearest even (the default round
        // mode; the ISA guide gives 0.5 ULP accuracy), NaN -> 0. The packed
        // VOP3 forms convert S0 into the low half and S1 into the high half.
        VCvtNormI16F16 | VCvtNormU16F16 => {
            let a = v.h(0)?;
            let signed = i.op == VCvtNormI16F16;
            let mut r = [0u16; LANES];
            for l in 0..LANES {
                r[l] = f16_to_norm(a[l], signed);
            }
            v.put16(&r)
        }
        VCvtPkNormI16F16 | VCvtPkNormU16F16 => {
            let (a, b) = (v.h(0)?, v.h(1)?);
            let signed = i.op == VCvtPkNormI16F16;
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = f16_to_norm(a[l], signed) as u32 | (f16_to_norm(b[l], signed) as u32) << 16;
            }
            v.put(&r)
        }
        // Packs of two 32-bit sources into 16-bit halves (S0 low, S1 high):
        // normalized from f32 as the f16 forms above, f32 -> i16/u16
        // truncating and saturating (NaN -> 0), i32/u32 saturated.
        VCvtPkNormI16F32 | VCvtPkNormU16F32 | VCvtPkI16F32 | VCvtPkU16F32 => {
            let (a, b) = (v.f(0)?, v.f(1)?);
            let one = |x: f32| -> u16 {
                match i.op {
                    VCvtPkNormI16F32 => f64_to_norm(x as f64, true),
                    VCvtPkNormU16F32 => f64_to_norm(x as f64, false),
                    VCvtPkI16F32 => x as i16 as u16,
                    _ => x as u16,
                }
            };
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = one(a[l]) as u32 | (one(b[l]) as u32) << 16;
            }
            v.put(&r)
        }
        VCvtPkI16I32 | VCvtPkU16U32 => {
            let (a, b) = (v.u(0)?, v.u(1)?);
            let one = |x: u32| -> u32 {
                if i.op == VCvtPkI16I32 {
                    (x as i32).clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u32
                } else {
                    x.min(u16::MAX as u32)
                }
            };
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = one(a[l]) | one(b[l]) << 16;
            }
            v.put(&r)
        }
        // Sign / zero extension of the low 16 bits to 32.
        VCvtI32I16 | VCvtU32U16 => {
            let a = v.hi16(0)?;
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = if i.op == VCvtI32I16 {
                    a[l] as i16 as i32 as u32
                } else {
                    a[l] as u32
                };
            }
            v.put(&r)
        }
        VCvtPkRtzF16F32 => {
            let (a, b) = (v.f(0)?, v.f(1)?);
            let rtz = |x: f32| {
                let h = f16::from_f32(x);
                // Round toward zero: step back one ulp when rounding went away from zero.
                let away = (h.is_finite() && h.to_f32().abs() > x.abs())
                    || (h.is_infinite() && x.is_finite());
                if away {
                    f16::from_bits(h.to_bits() - 1)
                } else {
                    h
                }
            };
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = rtz(a[l]).to_bits() as u32 | (rtz(b[l]).to_bits() as u32) << 16;
            }
            v.put(&r)
        }
        VCvtF64F32 => {
            let a = v.f(0)?;
            let mut r = [0f64; LANES];
            for l in 0..LANES {
                r[l] = a[l] as f64;
            }
            v.putd(&r)
        }
        VCvtF32F64 => {
            let a = v.d(0)?;
            let mut r = [0f32; LANES];
            for l in 0..LANES {
                r[l] = a[l] as f32;
            }
            v.putf(&r)
        }
        VCvtF64I32 => v.ud(|a| a as i32 as f64)?,
        VCvtF64U32 => v.ud(|a| a as f64)?,
        VCvtI32F64 => v.du(|a| (a as i32) as u32)?,
        VCvtU32F64 => v.du(|a| a as u32)?,
        // ---- f64
        VAddF64 => v.d2(add64)?,
        VMulF64 => v.d2(mul64)?,
        VMaxF64 => v.d2(fmax64)?,
        VMinF64 => v.d2(fmin64)?,
        VFmaF64 => {
            let r = fma_lanes64(&v.d(0)?, &v.d(1)?, &v.d(2)?);
            v.putd(&r)
        }
        // GFX9 (gfx90a, gfx942): D = S0 * S1 + D, fused (AMD CDNA3 ISA guide,
        // V_FMAC_F64).
        VFmacF64 => {
            let (a, b) = (v.d(0)?, v.d(1)?);
            let c = v.w.vgpr64(i.dst as usize).map(f64::from_bits);
            let r = fma_lanes64(&a, &b, &c);
            v.putd(&r)
        }
        VRcpF64 => v.d1(rcp64)?,
        VRsqF64 => v.d1(rsq64)?,
        VSqrtF64 => v.d1(f64::sqrt)?,
        VFractF64 => v.d1(fract64)?,
        VTruncF64 => v.d1(trunc64)?,
        VCeilF64 => v.d1(ceil64)?,
        VFloorF64 => v.d1(floor64)?,
        VRndneF64 => v.d1(f64::round_ties_even)?,
        VFrexpMantF64 => v.d1(|a| frexp64(a).0)?,
        VFrexpExpI32F64 => v.du(|a| frexp64(a).1 as u32)?,
        VLdexpF64 => {
            let (a, e) = (v.d(0)?, v.u(1)?);
            let mut r = [0f64; LANES];
            for l in 0..LANES {
                r[l] = ldexp64(a[l], e[l] as i32);
            }
            v.putd(&r)
        }
        VDivFixupF32 => v.f3(div_fixup32)?,
        VDivFixupF64 => v.d3(div_fixup64)?,
        VDivFmasF32 => {
            let vcc = v.w.vcc();
            let (a, b, c) = (v.f(0)?, v.f(1)?, v.f(2)?);
            let fused = fma_lanes(&a, &b, &c);
            let mut r = [0f32; LANES];
            for l in 0..LANES {
                let f = fused[l];
                r[l] = if vcc >> l & 1 != 0 {
                    ldexp32(f, if exponent32(c[l]) > 127 { 64 } else { -64 })
                } else {
                    f
                };
            }
            v.putf(&r)
        }
        VDivFmasF64 => {
            let vcc = v.w.vcc();
            let (a, b, c) = (v.d(0)?, v.d(1)?, v.d(2)?);
            let fused = fma_lanes64(&a, &b, &c);
            let mut r = [0f64; LANES];
            for l in 0..LANES {
                let f = fused[l];
                r[l] = if vcc >> l & 1 != 0 {
                    ldexp64(f, if exponent64(c[l]) > 1023 { 128 } else { -128 })
                } else {
                    f
                };
            }
            v.putd(&r)
        }
        VDivScaleF32 => {
            let (a, b, c) = (v.f(0)?, v.f(1)?, v.f(2)?);
            let mut r = [0f32; LANES];
            let mut m = 0u32;
            for l in 0..LANES {
                let (d, s) = div_scale32(a[l], b[l], c[l]);
                r[l] = d;
                m |= (s as u32) << l;
            }
            v.putf(&r);
            v.put_mask(i.sdst as usize, m);
        }
        VDivScaleF64 => {
            let (r, m) = div_scale64_lanes(&v.d(0)?, &v.d(1)?, &v.d(2)?);
            v.putd(&r);
            v.put_mask(i.sdst as usize, m);
        }
        // ---- f16 (scalar halves)
        VAddF16 => v.h2(add32)?,
        VSubF16 => v.h2(|a, b| a - b)?,
        VSubrevF16 => v.h2(|a, b| nan2_32(a, b, b - a))?,
        VMulF16 => v.h2(mul32)?,
        VMaxF16 => v.h2(fmax32)?,
        VMinF16 => v.h2(fmin32)?,
        // f16 values are exact in f32, so min/max there then back is exact.
        VMaxminF16 => v.h3(|a, b, c| fmin32(fmax32(a, b), c))?,
        VMinmaxF16 => v.h3(|a, b, c| fmax32(fmin32(a, b), c))?,
        VSqrtF16 => v.h1(f32::sqrt)?,
        VRcpF16 => v.h1(|a| 1.0 / a)?,
        // Fused: the f16 product is exact in f64 and the sum is rounded once to f16
        // (then widened exactly, so puth's conversion does not round again).
        VFmaF16 | VFmacF16 => {
            let (a, b) = (v.h(0)?, v.h(1)?);
            let c = if i.op == VFmacF16 {
                // v_fmac_f16 accumulates into the destination half it writes (op_sel[3];
                // LLVM encodes no separate op_sel bit for the tied src2).
                let hi = (i.mods.opsel >> 3) & 1 != 0;
                v.w.vgpr[i.dst as usize].map(|d| if hi { (d >> 16) as u16 } else { d as u16 })
            } else {
                v.h(2)?
            };
            let mut r = [0f32; LANES];
            for l in 0..LANES {
                r[l] = fma16(a[l], b[l], c[l]);
            }
            v.puth(&r)
        }
        // ---- integer
        VAddNcU32 => {
            if i.mods.clamp {
                v.u2(|a, b| a.saturating_add(b))?
            } else {
                v.u2(u32::wrapping_add)?
            }
        }
        VSubNcU32 => {
            if i.mods.clamp {
                v.u2(|a, b| a.saturating_sub(b))?
            } else {
                v.u2(u32::wrapping_sub)?
            }
        }
        VSubrevNcU32 => {
            if i.mods.clamp {
                v.u2(|a, b| b.saturating_sub(a))?
            } else {
                v.u2(subrev)?
            }
        }
        VAddNcI32 => v.u2(|a, b| {
            if i.mods.clamp {
                (a as i32).saturating_add(b as i32) as u32
            } else {
                a.wrapping_add(b)
            }
        })?,
        VSubNcI32 => v.u2(|a, b| {
            if i.mods.clamp {
                (a as i32).saturating_sub(b as i32) as u32
            } else {
                a.wrapping_sub(b)
            }
        })?,
        VAndB32 => v.u2(|a, b| a & b)?,
        VOrB32 => v.u2(|a, b| a | b)?,
        VXorB32 => v.u2(|a, b| a ^ b)?,
        VXnorB32 => v.u2(|a, b| !(a ^ b))?,
        VNotB32 => v.u1(|a| !a)?,
        VBfrevB32 => v.u1(u32::reverse_bits)?,
        VClzI32U32 => v.u1(|a| if a == 0 { u32::MAX } else { a.leading_zeros() })?,
        VCtzI32B32 => v.u1(|a| if a == 0 { u32::MAX } else { a.trailing_zeros() })?,
        VClsI32 => v.u1(|a| {
            if a == 0 || a == u32::MAX {
                u32::MAX
            } else if (a as i32) < 0 {
                (!a).leading_zeros()
            } else {
                a.leading_zeros()
            }
        })?,
        VLshlrevB32 => v.u2(lshlrev)?,
        VLshrrevB32 => v.u2(lshrrev)?,
        VAshrrevI32 => v.u2(ashrrev)?,
        VMaxI32 => v.u2(max_i32)?,
        VMinI32 => v.u2(min_i32)?,
        VMaxU32 => v.u2(u32::max)?,
        VMinU32 => v.u2(u32::min)?,
        VMax3I32 => v.u3(|a, b, c| (a as i32).max(b as i32).max(c as i32) as u32)?,
        VMin3I32 => v.u3(|a, b, c| (a as i32).min(b as i32).min(c as i32) as u32)?,
        VMax3U32 => v.u3(|a, b, c| a.max(b).max(c))?,
        VMin3U32 => v.u3(|a, b, c| a.min(b).min(c))?,
        VMed3I32 => v.u3(|a, b, c| {
            let (a, b, c) = (a as i32, b as i32, c as i32);
            a.min(b).max(a.max(b).min(c)) as u32
        })?,
        VMed3U32 => v.u3(|a, b, c| a.min(b).max(a.max(b).min(c)))?,
        VMaxminI32 => v.u3(|a, b, c| (a as i32).max(b as i32).min(c as i32) as u32)?,
        VMinmaxI32 => v.u3(|a, b, c| (a as i32).min(b as i32).max(c as i32) as u32)?,
        VMaxminU32 => v.u3(|a, b, c| a.max(b).min(c))?,
        VMinmaxU32 => v.u3(|a, b, c| a.min(b).max(c))?,
        VMulLoU32 => v.u2(u32::wrapping_mul)?,
        VMulHiU32 => v.u2(mul_hi_u32)?,
        VMulHiI32 => v.u2(mul_hi_i32)?,
        VMulU32U24 => v.u2(mul_u24)?,
        VMulHiU32U24 => {
            v.u2(|a, b| (((a & 0xFF_FFFF) as u64 * (b & 0xFF_FFFF) as u64) >> 32) as u32)?
        }
        VMulI32I24 => {
            v.u2(|a, b| (((a << 8) as i32 >> 8).wrapping_mul((b << 8) as i32 >> 8)) as u32)?
        }
        VMulHiI32I24 => v.u2(|a, b| {
            ((((a << 8) as i32 >> 8) as i64 * (((b << 8) as i32 >> 8) as i64)) >> 32) as u32
        })?,
        VMadU32U24 => v.u3(mad_u24)?,
        VMadI32I24 => v.u3(|a, b, c| {
            (((a << 8) as i32 >> 8).wrapping_mul((b << 8) as i32 >> 8)).wrapping_add(c as i32)
                as u32
        })?,
        VAdd3U32 => v.u3(add3)?,
        VLshlAddU32 => v.u3(lshl_add)?,
        VAddLshlU32 => v.u3(add_lshl)?,
        VLshlOrB32 => v.u3(lshl_or)?,
        VAndOrB32 => v.u3(and_or)?,
        VOr3B32 => v.u3(or3)?,
        VXor3B32 => v.u3(xor3)?,
        VXadU32 => v.u3(xad)?,
        VBfeU32 => v.u3(bfe_u)?,
        VBfeI32 => v.u3(bfe_i)?,
        VBfiB32 => v.u3(|a, b, c| (a & b) | (!a & c))?,
        VBfmB32 => v.u2(|a, b| (((1u64 << (a & 31)) - 1) as u32) << (b & 31))?,
        VAlignbitB32 => v.u3(alignbit)?,
        VAlignbyteB32 => {
            v.u3(|a, b, c| ((((a as u64) << 32) | b as u64) >> (8 * (c & 3))) as u32)?
        }
        VPermB32 => v.u3(|a, b, c| {
            (0..4).fold(0u32, |acc, n| {
                acc | perm_byte(a, b, (c >> (8 * n)) & 0xFF) << (8 * n)
            })
        })?,
        VBcntU32B32 => v.u2(|a, b| a.count_ones().wrapping_add(b))?,
        // Lane l counts the set bits of the mask below it: mbcnt_lo the bits of word 0,
        // mbcnt_hi those of word 1 (lanes 32..63 exist only in wave64's high half).
        VMbcntLoU32B32 | VMbcntHiU32B32 => {
            let (a, b) = (v.u(0)?, v.u(1)?);
            let own_word = (i.op == VMbcntHiU32B32) as usize == v.w.half;
            let below_word_full = i.op == VMbcntLoU32B32 && v.w.half == 1;
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let below = if own_word {
                    if l == 0 { 0 } else { u32::MAX >> (32 - l) }
                } else if below_word_full {
                    u32::MAX
                } else {
                    0
                };
                r[l] = (a[l] & below).count_ones().wrapping_add(b[l]);
            }
            v.put(&r)
        }
        // Lane selects from s1 (lanes 0..7 of a row) and s2 (8..15); permlanex16 reads the other row.
        VPermlane16B32 | VPermlanex16B32 => {
            let a = v.u(0)?;
            let lo = crate::gfx11::exec::env::sread(v.w, env, i, 1)?;
            let hi = crate::gfx11::exec::env::sread(v.w, env, i, 2)?;
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let idx = l & 15;
                let sel = (if idx < 8 {
                    lo >> (4 * idx)
                } else {
                    hi >> (4 * (idx - 8))
                } & 0xF) as usize;
                let row = if i.op == VPermlanex16B32 {
                    (l & !15) ^ 16
                } else {
                    l & !15
                };
                r[l] = a[row + sel];
            }
            v.put(&r)
        }
        VPackB32F16 => {
            let (a, b) = (v.h(0)?, v.h(1)?);
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = a[l] as u32 | (b[l] as u32) << 16;
            }
            v.put(&r)
        }
        VSadU32 => v.u3(|a, b, c| a.abs_diff(b).wrapping_add(c))?,
        VCndmaskB32 => {
            let mask = match i.family {
                crate::gfx11::inst::Family::Vop3 => {
                    crate::gfx11::exec::env::mask_read(v.w, env, i, 2)?
                }
                _ => v.w.vcc(),
            };
            let (a, b) = (v.u(0)?, v.u(1)?);
            // Float source modifiers apply in the VOP3 form.
            let (a, b) = if i.mods.abs | i.mods.neg != 0 {
                let (fa, fb) = (v.f(0)?, v.f(1)?);
                (fa.map(f32::to_bits), fb.map(f32::to_bits))
            } else {
                (a, b)
            };
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = if mask >> l & 1 != 0 { b[l] } else { a[l] };
            }
            v.put(&r)
        }
        VAddCoU32 | VSubCoU32 | VSubrevCoU32 => {
            let (a, b) = (v.u(0)?, v.u(1)?);
            let (x, y) = if i.op == VSubrevCoU32 {
                (&b, &a)
            } else {
                (&a, &b)
            };
            let mut r = [0u32; LANES];
            let mut co = [0u32; LANES];
            if i.op == VAddCoU32 {
                for l in 0..LANES {
                    r[l] = x[l].wrapping_add(y[l]);
                    co[l] = (r[l] < x[l]) as u32;
                }
            } else {
                for l in 0..LANES {
                    r[l] = x[l].wrapping_sub(y[l]);
                    co[l] = (y[l] > x[l]) as u32;
                }
            }
            let m = pack_lanes(&co);
            let sd = if i.family == crate::gfx11::inst::Family::Vop3sd {
                i.sdst as usize
            } else {
                VCC
            };
            v.put(&r);
            v.put_mask(sd, m);
        }
        VAddCoCiU32 | VSubCoCiU32 | VSubrevCoCiU32 => {
            let vop3 = i.family == crate::gfx11::inst::Family::Vop3sd;
            let cin = if vop3 {
                crate::gfx11::exec::env::mask_read(v.w, env, i, 2)?
            } else {
                v.w.vcc()
            };
            let (a, b) = (v.u(0)?, v.u(1)?);
            let (x, y) = if i.op == VSubrevCoCiU32 {
                (&b, &a)
            } else {
                (&a, &b)
            };
            // Per-lane carries first, the mask after: the op is chosen once and the
            // lane loops vectorise.
            let mut r = [0u32; LANES];
            let mut co = [0u32; LANES];
            if i.op == VAddCoCiU32 {
                for l in 0..LANES {
                    (r[l], co[l]) = add_carry(x[l], y[l], cin >> l & 1);
                }
            } else {
                for l in 0..LANES {
                    (r[l], co[l]) = sub_borrow(x[l], y[l], cin >> l & 1);
                }
            }
            let m = pack_lanes(&co);
            v.put(&r);
            v.put_mask(if vop3 { i.sdst as usize } else { VCC }, m);
        }
        VMadU64U32 | VMadI64I32 => {
            let (a, b, c) = (v.u(0)?, v.u(1)?, v.u64(2)?);
            let mut r = [0u64; LANES];
            let mut o = [0u32; LANES];
            // The 32x32 products are exact in 64 bits; only the add can overflow.
            if i.op == VMadU64U32 {
                for l in 0..LANES {
                    let (s, over) = (a[l] as u64 * b[l] as u64).overflowing_add(c[l]);
                    r[l] = s;
                    o[l] = over as u32;
                }
            } else {
                for l in 0..LANES {
                    let p = a[l] as i32 as i64 * b[l] as i32 as i64;
                    let (s, over) = p.overflowing_add(c[l] as i64);
                    r[l] = s as u64;
                    o[l] = over as u32;
                }
            }
            let m = pack_lanes(&o);
            v.put64(&r);
            v.put_mask(i.sdst as usize, m);
        }
        VLshlrevB64 => {
            let (a, b) = (v.u(0)?, v.u64(1)?);
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                r[l] = b[l] << (a[l] & 63);
            }
            v.put64(&r)
        }
        // gfx942 (AMD CDNA3 ISA guide, "VOP3"/"VOP1"): D = (S0 << S1[2:0]) + S2
        // on 64 bits; a 64-bit move.
        VLshlAddU64 => {
            let (a, b, c) = (v.u64(0)?, v.u(1)?, v.u64(2)?);
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                r[l] = (a[l] << (b[l] & 7)).wrapping_add(c[l]);
            }
            v.put64(&r)
        }
        VMovB64 => {
            let a = v.u64(0)?;
            v.put64(&a)
        }
        VPkFmaF32 | VPkMulF32 | VPkAddF32 => pk_f32::exec(&mut v)?,
        // GFX9 v_pk_mov_b32 (CDNA3 ISA guide, "VOP3P"): the low dword from
        // S0's dword op_sel[0], the high one from S1's dword op_sel[1].
        VPkMovB32 => {
            let (a, b) = (v.u64(0)?, v.u64(1)?);
            let (sa, sb) = (
                32 * (i.mods.opsel & 1) as u32,
                16 * (i.mods.opsel & 2) as u32,
            );
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                r[l] = (a[l] >> sa) & 0xFFFF_FFFF | ((b[l] >> sb) & 0xFFFF_FFFF) << 32;
            }
            v.put64(&r)
        }
        VLshrrevB64 => {
            let (a, b) = (v.u(0)?, v.u64(1)?);
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                r[l] = b[l] >> (a[l] & 63);
            }
            v.put64(&r)
        }
        VAshrrevI64 => {
            let (a, b) = (v.u(0)?, v.u64(1)?);
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                r[l] = ((b[l] as i64) >> (a[l] & 63)) as u64;
            }
            v.put64(&r)
        }
        // ---- 16-bit integer
        VAddNcU16 => v.i2_16(u16::wrapping_add)?,
        VSubNcU16 => v.i2_16(u16::wrapping_sub)?,
        VMulLoU16 => v.i2_16(u16::wrapping_mul)?,
        VLshlrevB16 => v.i2_16(|a, b| b << (a & 15))?,
        VLshrrevB16 => v.i2_16(|a, b| b >> (a & 15))?,
        VAshrrevI16 => v.i2_16(|a, b| ((b as i16) >> (a & 15)) as u16)?,
        VMaxU16 => v.i2_16(u16::max)?,
        VMinU16 => v.i2_16(u16::min)?,
        VMaxI16 => v.i2_16(|a, b| (a as i16).max(b as i16) as u16)?,
        VMinI16 => v.i2_16(|a, b| (a as i16).min(b as i16) as u16)?,
        // D = S0 * S1 + S2 on 16-bit halves (op_sel picks them); clamp
        // saturates instead of wrapping (RDNA3 ISA guide, VOP3 V_MAD_U16/V_MAD_I16).
        VMadU16 => {
            let clamp = i.mods.clamp;
            v.i3_16(|a, b, c| mad_u16(a, b, c, clamp))?
        }
        VMadI16 => {
            let clamp = i.mods.clamp;
            v.i3_16(|a, b, c| mad_i16(a, b, c, clamp))?
        }
        // D.u32 = S0.16 * S1.16 + S2.u32 (V_MAD_U32_U16 / V_MAD_I32_I16).
        VMadU32U16 | VMadI32I16 => {
            let (a, b, c) = (v.hi16(0)?, v.hi16(1)?, v.u(2)?);
            let (signed, clamp) = (i.op == VMadI32I16, i.mods.clamp);
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = mad_32_16(a[l], b[l], c[l], signed, clamp);
            }
            v.put(&r)
        }
        // ---- packed math (VOP3P)
        VPkAddF16 | VPkMulF16 | VPkFmaF16 | VPkMaxF16 | VPkMinF16 | VPkAddU16 | VPkSubU16
        | VPkAddI16 | VPkSubI16 | VPkMulLoU16 | VPkLshlrevB16 | VPkLshrrevB16 | VPkAshrrevI16
        | VPkMaxU16 | VPkMinU16 | VPkMaxI16 | VPkMinI16 | VPkMadU16 | VPkMadI16 => packed(&mut v)?,
        VFmaMixF32 | VFmaMixloF16 | VFmaMixhiF16 => fma_mix(&mut v)?,
        VDot2F32F16 => {
            let (a, b, c) = (v.u(0)?, v.u(1)?, v.f(2)?);
            let mut r = [0f32; LANES];
            for l in 0..LANES {
                let h = |x: u32, s: u32| f16::from_bits((x >> s) as u16).to_f64();
                r[l] = (h(a[l], 0) * h(b[l], 0) + h(a[l], 16) * h(b[l], 16) + c[l] as f64) as f32;
            }
            v.putf(&r)
        }
        VTrigPreopF64 => trig_preop::exec(&mut v)?,
        op => match half_ops::exec(&mut v, env, op).or_else(|| byte_ops::exec(&mut v, op)) {
            Some(done) => done?,
            None => return Err(illegal(i)),
        },
    }
    Ok(Flow::Next)
}

/// Packed 16-bit ops: lane halves selected by op_sel (low result) and op_sel_hi (high result).
/// The selected halves are gathered first (`x[k][h * LANES + l]`: source k's half for
/// result half h of lane l), then each op is one loop over the 64 halves.
fn packed(v: &mut V) -> R<()> {
    use Op::*;
    let i = v.i;
    let n = if i.widths[3] != 0 { 3 } else { 2 };
    let float = matches!(
        i.op,
        VPkAddF16 | VPkMulF16 | VPkFmaF16 | VPkMaxF16 | VPkMinF16
    );
    let mut x = [[0u16; 2 * LANES]; 3];
    for k in 0..n {
        let s = v.u(k)?;
        for h in 0..2 {
            let (sel, negbit) = if h == 1 {
                ((i.mods.opsel_hi >> k) & 1, (i.mods.abs >> k) & 1)
            } else {
                ((i.mods.opsel >> k) & 1, (i.mods.neg >> k) & 1)
            };
            let flip = if float && negbit != 0 { 0x8000 } else { 0 };
            for l in 0..LANES {
                x[k][h * LANES + l] = (s[l] >> (16 * sel)) as u16 ^ flip;
            }
        }
    }
    let (a, b) = (&x[0], &x[1]);
    let mut o = [0u16; 2 * LANES];
    macro_rules! halves {
        (|$e:ident| $body:expr) => {
            for $e in 0..2 * LANES {
                o[$e] = $body;
            }
        };
    }
    let clamp = i.mods.clamp;
    // VOP3P's clamp bit on a float op clamps each half's result to [0, 1]
    // and a NaN to 0, as VOP3's does (RDNA3 ISA guide, VOP3P fields:
    // CLAMP); on the integer ops it saturates instead (below). 0 and 1 are
    // f16 values, so clamping before the rounding to f16 is the same.
    let unit = |x: f64| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    match i.op {
        VPkAddF16 | VPkMulF16 | VPkMaxF16 | VPkMinF16 => {
            let (fa, fb) = (f16s_to_f32(a), f16s_to_f32(b));
            let mut r = [0f32; 2 * LANES];
            for e in 0..2 * LANES {
                r[e] = match i.op {
                    VPkAddF16 => add32(fa[e], fb[e]),
                    VPkMulF16 => mul32(fa[e], fb[e]),
                    VPkMaxF16 => fmax32(fa[e], fb[e]),
                    _ => fmin32(fa[e], fb[e]),
                };
                if clamp {
                    r[e] = unit(r[e] as f64) as f32;
                }
            }
            o = f32s_to_f16(&r);
        }
        VPkFmaF16 => {
            let (fa, fb) = (f16s_to_f32(a), f16s_to_f32(b));
            let fc = f16s_to_f32(&x[2]);
            halves!(|e| {
                // Exact enough in f64 (`fma16`).
                let r = fa[e] as f64 * fb[e] as f64 + fc[e] as f64;
                round_once::f16_of(if clamp { unit(r) } else { r })
            })
        }
        VPkAddU16 if clamp => halves!(|e| a[e].saturating_add(b[e])),
        VPkSubU16 if clamp => halves!(|e| a[e].saturating_sub(b[e])),
        VPkAddI16 if clamp => halves!(|e| (a[e] as i16).saturating_add(b[e] as i16) as u16),
        VPkSubI16 if clamp => halves!(|e| (a[e] as i16).saturating_sub(b[e] as i16) as u16),
        VPkAddU16 | VPkAddI16 => halves!(|e| a[e].wrapping_add(b[e])),
        VPkSubU16 | VPkSubI16 => halves!(|e| a[e].wrapping_sub(b[e])),
        VPkMulLoU16 => halves!(|e| a[e].wrapping_mul(b[e])),
        // a * b + c per half; clamp saturates the 32-bit result to 16 bits.
        VPkMadU16 => halves!(|e| mad_u16(a[e], b[e], x[2][e], clamp)),
        VPkMadI16 => halves!(|e| mad_i16(a[e], b[e], x[2][e], clamp)),
        VPkLshlrevB16 => halves!(|e| b[e] << (a[e] & 15)),
        VPkLshrrevB16 => halves!(|e| b[e] >> (a[e] & 15)),
        VPkAshrrevI16 => halves!(|e| ((b[e] as i16) >> (a[e] & 15)) as u16),
        VPkMaxU16 => halves!(|e| a[e].max(b[e])),
        VPkMinU16 => halves!(|e| a[e].min(b[e])),
        VPkMaxI16 => halves!(|e| (a[e] as i16).max(b[e] as i16) as u16),
        _ => halves!(|e| (a[e] as i16).min(b[e] as i16) as u16),
    }
    let mut r = [0u32; LANES];
    for l in 0..LANES {
        r[l] = o[l] as u32 | (o[LANES + l] as u32) << 16;
    }
    v.put(&r);
    Ok(())
}

/// v_fma_mix*: each source is f32, or f16 when its op_sel_hi bit is set (op_sel
/// then picks the half); neg and neg_hi (as abs) apply; fma in f32.
fn fma_mix(v: &mut V) -> R<()> {
    use Op::*;
    let i = v.i;
    let mut s = [[0u32; LANES]; 3];
    for (k, row) in s.iter_mut().enumerate() {
        *row = v.u(k)?;
    }
    let val = |k: usize, l: usize| -> f32 {
        let raw = s[k][l];
        let mut x = if (i.mods.opsel_hi >> k) & 1 != 0 {
            let h = if (i.mods.opsel >> k) & 1 != 0 {
                raw >> 16
            } else {
                raw & 0xFFFF
            };
            f16::from_bits(h as u16).to_f32()
        } else {
            f32::from_bits(raw)
        };
        if (i.mods.abs >> k) & 1 != 0 {
            x = x.abs();
        }
        if (i.mods.neg >> k) & 1 != 0 {
            x = -x;
        }
        x
    };
    // The product of two f32/f16 values is exact in f64; the sum is the
    // nearest f64 and what its rounding left off, rounded once to the
    // destination (round_once.rs).
    let mut r = [(0f64, 0f64); LANES];
    for (l, o) in r.iter_mut().enumerate() {
        let (a, b, c) = (val(0, l) as f64, val(1, l) as f64, val(2, l) as f64);
        let (s, e) = round_once::two_sum(a * b, c);
        *o = (nan3_64(a, b, c, s), e);
        if i.mods.clamp {
            let x = if o.0.is_nan() {
                0.0
            } else {
                o.0.clamp(0.0, 1.0)
            };
            // A clamped value is exact (1 + tiny clamps to 1 too).
            if x != o.0 || x == 1.0 {
                *o = (x, 0.0);
            }
        }
    }
    match i.op {
        VFmaMixF32 => {
            let bits = r.map(|(s, e)| round_once::f32_nearest(s, e).to_bits());
            v.put(&bits)
        }
        _ => {
            let hi = i.op == VFmaMixhiF16;
            let cur = v.w.vgpr[i.dst as usize];
            let mut o = [0u32; LANES];
            for l in 0..LANES {
                let h = round_once::f16_nearest(r[l].0, r[l].1) as u32;
                o[l] = if hi {
                    (cur[l] & 0xFFFF) | h << 16
                } else {
                    (cur[l] & 0xFFFF_0000) | h
                };
            }
            v.put(&o)
        }
    }
    Ok(())
}

/// VOPD: both halves read all their sources before either writes.
pub(crate) fn vopd(w: &mut Wave, env: &Env, i: &Inst) -> ExecResult {
    let Some(y) = i.dual else {
        return Err(illegal(i));
    };
    let exec = w.exec();
    let x = half_compute(
        w,
        env,
        i,
        i.op,
        i.dst as u8,
        0,
        i.src[1].src,
        Some(&i.src[2]),
    )?;
    let yi = Inst {
        op: y.op,
        src: [y.src0, crate::gfx11::decode::vgpr_src(y.vsrc1), i.src[2]],
        dst: y.dst as u16,
        ..i.clone()
    };
    let yr = half_compute(w, env, &yi, y.op, y.dst, 0, yi.src[1].src, Some(&yi.src[2]))?;
    w.write_vgpr(i.dst as usize, &x, exec);
    w.write_vgpr(y.dst as usize, &yr, exec);
    Ok(Flow::Next)
}

#[allow(clippy::too_many_arguments)]
fn half_compute(
    w: &Wave,
    env: &Env,
    i: &Inst,
    op: Op,
    dst: u8,
    _k: usize,
    _s1: Src,
    _k2: Option<&crate::gfx11::inst::Operand>,
) -> R<Lanes> {
    use Op::*;
    let a = src32(w, env, i, 0)?;
    let b = src32(w, env, i, 1)?;
    let d = w.vgpr[dst as usize];
    let mut r = [0u32; LANES];
    let f = f32::from_bits;
    // One lane loop per op (the op is matched once, so each loop vectorises).
    macro_rules! lanes {
        (|$l:ident| $e:expr) => {
            for $l in 0..LANES {
                r[$l] = $e;
            }
        };
    }
    let fma_rows = |x: &Lanes, y: &Lanes, z: &Lanes| -> Lanes {
        fma_lanes(
            &x.map(f32::from_bits),
            &y.map(f32::from_bits),
            &z.map(f32::from_bits),
        )
        .map(f32::to_bits)
    };
    match op {
        VFmacF32 => r = fma_rows(&a, &b, &d),
        VFmaakF32 => r = fma_rows(&a, &b, &[i.src[2].src.imm32(); LANES]),
        VFmamkF32 => r = fma_rows(&a, &[i.src[2].src.imm32(); LANES], &b),
        VMulF32 => lanes!(|l| mul32(f(a[l]), f(b[l])).to_bits()),
        VAddF32 => lanes!(|l| add32(f(a[l]), f(b[l])).to_bits()),
        VSubF32 => lanes!(|l| (f(a[l]) - f(b[l])).to_bits()),
        VSubrevF32 => lanes!(|l| nan2_32(f(a[l]), f(b[l]), f(b[l]) - f(a[l])).to_bits()),
        VMulDx9ZeroF32 => lanes!(|l| if f(a[l]) == 0.0 || f(b[l]) == 0.0 {
            0
        } else {
            mul32(f(a[l]), f(b[l])).to_bits()
        }),
        VMovB32 => r = a,
        VCndmaskB32 => {
            let vcc = w.vcc();
            lanes!(|l| if vcc >> l & 1 != 0 { b[l] } else { a[l] })
        }
        VMaxF32 => lanes!(|l| fmax32(f(a[l]), f(b[l])).to_bits()),
        VMinF32 => lanes!(|l| fmin32(f(a[l]), f(b[l])).to_bits()),
        VDot2accF32F16 => {
            let h = |x: u32, s: u32| f16::from_bits((x >> s) as u16).to_f64();
            lanes!(
                |l| ((h(a[l], 0) * h(b[l], 0) + h(a[l], 16) * h(b[l], 16) + f(d[l]) as f64) as f32)
                    .to_bits()
            )
        }
        VAddNcU32 => lanes!(|l| a[l].wrapping_add(b[l])),
        VLshlrevB32 => lanes!(|l| lshlrev(a[l], b[l])),
        VAndB32 => lanes!(|l| a[l] & b[l]),
        _ => return Err(illegal(i)),
    }
    Ok(r)
}

impl Src {
    fn imm32(&self) -> u32 {
        match self {
            Src::Imm(v) => *v as u32,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod fast_path_tests {
    use super::*;

    /// floor, ceil, trunc and fract quiet a NaN source (signalling or not, either
    /// sign, payload kept) and round everything else as the host does, so
    /// the interpreter's AVX2 and baseline loops agree.
    #[test]
    fn floor_ceil_trunc_fract_quiet_nans() {
        for bits in [0x7F80_0001u32, 0xFFA0_0042, 0x7FC0_0000, 0xFFC1_2345] {
            let x = f32::from_bits(bits);
            let q = bits | 0x0040_0000;
            assert_eq!(floor32(x).to_bits(), q);
            assert_eq!(fract32(x).to_bits(), q);
            assert_eq!(ceil32(x).to_bits(), q);
            assert_eq!(trunc32(x).to_bits(), q);
            // The f64 NaN of the same class: exponent all ones, the f32
            // fraction widened.
            let wide = ((bits as u64 & 0x8000_0000) << 32)
                | 0x7FF0_0000_0000_0000
                | ((bits as u64 & 0x007F_FFFF) << 29);
            let d = f64::from_bits(wide);
            assert!(d.is_nan());
            let dq = wide | 0x0008_0000_0000_0000;
            assert_eq!(floor64(d).to_bits(), dq);
            assert_eq!(fract64(d).to_bits(), dq);
            assert_eq!(ceil64(d).to_bits(), dq);
            assert_eq!(trunc64(d).to_bits(), dq);
        }
        for x in [
            -2.5f32,
            -0.5,
            -0.0,
            0.0,
            0.5,
            1.5,
            8_388_609.0,
            f32::INFINITY,
        ] {
            assert_eq!(floor32(x).to_bits(), x.floor().to_bits());
            assert_eq!(ceil32(x).to_bits(), x.ceil().to_bits());
            assert_eq!(trunc32(x).to_bits(), x.trunc().to_bits());
            let d = x as f64;
            assert_eq!(floor64(d).to_bits(), d.floor().to_bits());
            assert_eq!(ceil64(d).to_bits(), d.ceil().to_bits());
            assert_eq!(trunc64(d).to_bits(), d.trunc().to_bits());
        }
    }

    /// Two NaN inputs give the first as the instruction names them, quieted,
    /// whichever order the host instruction took them in; one NaN wins over
    /// numbers; a NaN made from numbers is the host's.
    #[test]
    fn nan_results_follow_source_order() {
        let (qa, sb) = (f32::from_bits(0x7FC0_1234), f32::from_bits(0xFF80_0042));
        let quiet = |x: f32| x.to_bits() | 0x0040_0000;
        for (x, y) in [(qa, sb), (sb, qa)] {
            assert_eq!(add32(x, y).to_bits(), quiet(x));
            assert_eq!(mul32(x, y).to_bits(), quiet(x));
            assert_eq!(add32(1.0, y).to_bits(), quiet(y));
            let r = fma_lanes(&[1.0; LANES], &[x; LANES], &[y; LANES]);
            assert!(r.iter().all(|v| v.to_bits() == quiet(x)));
            let r = fma_lanes(&[2.0; LANES], &[3.0; LANES], &[y; LANES]);
            assert!(r.iter().all(|v| v.to_bits() == quiet(y)));
        }
        assert_eq!(
            add32(f32::INFINITY, f32::NEG_INFINITY).to_bits(),
            (f32::INFINITY + f32::NEG_INFINITY).to_bits()
        );
        let (qa, sb) = (
            f64::from_bits(0x7FF8_0000_0000_00A5),
            f64::from_bits(0xFFF0_0000_0000_0007),
        );
        let quiet = |x: f64| x.to_bits() | 0x0008_0000_0000_0000;
        for (x, y) in [(qa, sb), (sb, qa)] {
            assert_eq!(add64(x, y).to_bits(), quiet(x));
            assert_eq!(mul64(x, y).to_bits(), quiet(x));
            let r = fma_lanes64(&[y; LANES], &[x; LANES], &[x; LANES]);
            assert!(r.iter().all(|v| v.to_bits() == quiet(y)));
        }
    }

    /// frexp64 splits subnormals, normals and the extremes into a mantissa
    /// of magnitude in [1/2, 1) with the sign of x and an exponent that
    /// rebuilds x exactly.
    #[test]
    fn frexp64_splits_exactly() {
        for bits in (1u64..1 << 20)
            .step_by(97)
            .chain([
                1,
                2,
                (1 << 52) - 1,
                1 << 52,
                0x7FEF_FFFF_FFFF_FFFF,
                0x3FF0_0000_0000_0001,
            ])
            .chain(
                (0..2048u64)
                    .map(|e| e << 52 | 0x5_5555_5555_5555)
                    .filter(|b| b >> 52 < 2047),
            )
        {
            for x in [f64::from_bits(bits), -f64::from_bits(bits)] {
                let (m, e) = frexp64(x);
                assert!((0.5..1.0).contains(&m.abs()), "{x:e}: mantissa {m:e}");
                assert_eq!(m.is_sign_negative(), x.is_sign_negative(), "{x:e}");
                assert_eq!(ldexp64(m, e).to_bits(), x.to_bits(), "{x:e}: {m:e} * 2^{e}");
            }
        }
    }

    /// div_scale64 (exponent-field shortcut, quotient test without log2)
    /// gives the bits and flag of the formulation it replaced, on operands
    /// of every exponent class (zero, subnormal, normal near the thresholds,
    /// huge, inf, NaN) in every combination, and on random bit patterns.
    #[test]
    fn div_scale64_matches_its_reference() {
        fn reference(s0: f64, s1: f64, s2: f64) -> (f64, bool) {
            if s2 == 0.0 || s1 == 0.0 {
                return (f64::NAN, false);
            }
            let (m2, e2) = frexp64(s2);
            let (m1, e1) = frexp64(s1);
            let log2_q = (e2 - e1) as f64 + (m2 / m1).abs().log2();
            if exponent64(s2) - exponent64(s1) >= 768 {
                (if s0 == s1 { ldexp64(s0, 128) } else { s0 }, true)
            } else if log2_q < -1022.0 && s2.is_finite() && s1.is_finite() {
                (if s0 == s2 { ldexp64(s0, 128) } else { s0 }, true)
            } else if s1.is_subnormal() || exponent64(s2) <= 53 {
                (ldexp64(s0, 128), false)
            } else if e1 > 1022 {
                (ldexp64(s0, -128), false)
            } else {
                (s0, false)
            }
        }
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let fields = [
            0u64, 1, 2, 52, 53, 54, 55, 700, 1000, 1022, 1023, 1024, 1100, 1790, 1791, 1792, 2043,
            2044, 2045, 2046, 2047,
        ];
        let mut values = Vec::new();
        for &e in &fields {
            for frac in [0, 1, (1 << 52) - 1, 1 << 51] {
                let b = e << 52 | frac;
                values.extend([f64::from_bits(b), -f64::from_bits(b)]);
            }
        }
        let check = |s0: f64, s1: f64, s2: f64| {
            let (got, want) = (div_scale64(s0, s1, s2), reference(s0, s1, s2));
            assert_eq!(
                (got.0.to_bits(), got.1),
                (want.0.to_bits(), want.1),
                "div_scale64({s0:e}, {s1:e}, {s2:e})"
            );
        };
        for &s1 in &values {
            for &s2 in &values {
                // The numerator call (s0 = s2), the denominator call (s0 = s1).
                check(s2, s1, s2);
                check(s1, s1, s2);
            }
        }
        for _ in 0..200_000 {
            let (s1, s2) = (f64::from_bits(next()), f64::from_bits(next()));
            check(s1, s1, s2);
            check(s2, s1, s2);
        }
    }

    /// div_scale64's "quotient below 2^-1022" test decided from the exponent
    /// difference gives the answer of the full `(e2 - e1) + log2|m2 / m1|`
    /// formula on frexp parts of every exponent difference from -1030 to
    /// -1015, with edge mantissas (1/2, just below 1) and random ones.
    #[test]
    fn quotient_test_matches_log2_formula() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mantissa = |k: u64, r: u64| {
            let frac = match k % 4 {
                0 => 0,
                1 => (1 << 52) - 1,
                2 => r & 0xF,
                _ => r & ((1 << 52) - 1),
            };
            f64::from_bits(1022 << 52 | frac)
        };
        let mut checked = 0;
        for d in -1030..=-1015 {
            for k in 0..4000u64 {
                let (m2, m1) = (mantissa(k, next()), mantissa(k / 4, next()));
                let (m2, m1) = (if k % 3 == 0 { -m2 } else { m2 }, m1);
                let e1 = (next() % 40) as i32 + 980;
                let e2 = e1 + d;
                let want = (e2 - e1) as f64 + (m2 / m1).abs().log2() < -1022.0;
                assert_eq!(
                    quotient_below_2_pow_1022(m2, e2, m1, e1),
                    want,
                    "{m2:e} * 2^{e2} / {m1:e} * 2^{e1}"
                );
                checked += 1;
            }
        }
        assert!(checked > 60_000);
    }

    /// The bit-level frexp32 and the add-2^23 rounding match the reference
    /// definitions (f64 frexp, std round_ties_even) on a sweep of f32 bit
    /// patterns: subnormals, normals around every exponent, halves, inf, NaN.
    #[test]
    fn frexp32_and_round_even32_match_reference() {
        let reference_frexp = |x: f32| -> (f32, i32) {
            if x == 0.0 || !x.is_finite() {
                return (x, 0);
            }
            let (m, e) = frexp64(x as f64);
            (m as f32, e)
        };
        let mut bits = 0u32;
        loop {
            for x in [f32::from_bits(bits), -f32::from_bits(bits)] {
                let (m, e) = frexp32(x);
                let (rm, re) = reference_frexp(x);
                assert_eq!((m.to_bits(), e), (rm.to_bits(), re), "frexp {x:e}");
                let r = round_even32(x);
                let rr = x.round_ties_even();
                assert!(
                    r.to_bits() == rr.to_bits() || (r.is_nan() && rr.is_nan()),
                    "rndne {x:e}: {r} vs {rr}"
                );
            }
            // Dense near 0 and near the 2^23 boundary, sparse elsewhere.
            bits = match bits.checked_add(if (0x4AFF_F000..0x4B00_1000).contains(&bits) {
                1
            } else {
                0x0000_7FFF
            }) {
                Some(b) if b < 0x7F80_0001 => b,
                _ => break,
            };
        }
        for x in [
            0.5f32,
            1.5,
            2.5,
            -0.5,
            -2.5,
            8_388_607.5,
            f32::INFINITY,
            f32::NAN,
        ] {
            assert!(round_even32(x).to_bits() == x.round_ties_even().to_bits() || x.is_nan());
        }
    }

    /// The 32-bit carry/borrow forms against 64-bit arithmetic, over edge values
    /// (0, 1, the sign boundary, u32::MAX) and a spread of others, both carry-ins.
    #[test]
    fn add_carry_and_sub_borrow_match_wide_math() {
        let mut vals = vec![
            0u32,
            1,
            2,
            0x7FFF_FFFF,
            0x8000_0000,
            0x8000_0001,
            u32::MAX - 1,
            u32::MAX,
        ];
        vals.extend((0..200u32).map(|k| k.wrapping_mul(0x9E37_79B9) ^ (k << 7)));
        for &x in &vals {
            for &y in &vals {
                for c in 0..2u32 {
                    let s = x as u64 + y as u64 + c as u64;
                    assert_eq!(
                        add_carry(x, y, c),
                        (s as u32, (s >> 32) as u32),
                        "{x} + {y} + {c}"
                    );
                    let d = (x as u64).wrapping_sub(y as u64).wrapping_sub(c as u64);
                    let borrow = (y as u64 + c as u64 > x as u64) as u32;
                    assert_eq!(sub_borrow(x, y, c), (d as u32, borrow), "{x} - {y} - {c}");
                }
            }
        }
    }
}
