//! The lane helpers of lane_math.rs as inline vector code on one 4-lane
//! chunk, so a lane-local run keeps its values in registers through
//! transcendentals, ldexp, frexp and min/max instead of passing each chunk
//! through memory to a scalar loop.
//!
//! Each function here performs the same IEEE operations, in the same order,
//! as the interpreter's scalar function it stands for (named on each), so
//! the results are equal bit for bit: f64 work runs as two f64x2 halves of
//! the chunk (cvtps2pd and cvtpd2ps round exactly as the scalar
//! conversions do), integer steps use SSE2 operations only, and a lane
//! whose source is special takes the scalar function's special result
//! through a select (the arithmetic on that lane is discarded; exceptions
//! are masked, so it cannot trap). exp and log compute in f32 with fused
//! multiply-adds (vfmadd, correctly rounded like `f32::mul_add`): on a
//! host without FMA they stay helper calls.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{ConstantData, Endianness, InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::FunctionBuilder;

use super::lane_math::LaneFn;
use crate::gfx11::exec::valu::transcendental::{
    EXP2_HI, EXP2_LO, EXP2_POLY, FRACTION, LOG2_K_HI, LOG2_K_LO, LOG2_NEG_INF, LOG2_NEGATIVE,
    LOG2_POLY, QUIET32, ROUNDER, SQRT2, TWO23,
};

/// Inline code for helper `f` on the chunk sources `x` (and `y`), I32X4
/// lane bits with modifiers applied; None where the helper stays a call.
/// `fma`: the host has fused multiply-add (exp and log need it).
pub(crate) fn emit(
    b: &mut FunctionBuilder,
    f: LaneFn,
    x: Value,
    y: Value,
    fma: bool,
) -> Option<Value> {
    let mut e = Emit { b };
    Some(match f {
        LaneFn::Rcp => e.per_half(x, |e, d| {
            let one = e.f64s(1.0);
            e.b.ins().fdiv(one, d)
        }),
        LaneFn::Rsq => e.per_half(x, |e, d| {
            let one = e.f64s(1.0);
            let r = e.b.ins().sqrt(d);
            e.b.ins().fdiv(one, r)
        }),
        LaneFn::Exp if fma => e.exp2(x),
        LaneFn::Log if fma => e.log2(x),
        LaneFn::Ldexp => e.ldexp(x, y),
        LaneFn::FrexpMant => e.frexp(x).0,
        LaneFn::FrexpExp => e.frexp(x).1,
        LaneFn::Max => e.minmax(x, y, true),
        LaneFn::Min => e.minmax(x, y, false),
        LaneFn::Exp
        | LaneFn::Log
        | LaneFn::Rndne
        | LaneFn::CvtI32F32
        | LaneFn::CvtU32F32
        | LaneFn::CvtF32I32
        | LaneFn::CvtF32U32 => return None,
    })
}

fn lanes_le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// Shuffle masks (byte indices into a ++ b) Cranelift's x86-64 back end
/// lowers to one unpack instruction each.
const LOW_QWORDS: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
const HIGH_QWORDS: [u8; 16] = [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31];
const LOW_DWORDS: [u8; 16] = [0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23];
const HIGH_DWORDS: [u8; 16] = [8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31];

struct Emit<'a, 'f> {
    b: &'a mut FunctionBuilder<'f>,
}

impl Emit<'_, '_> {
    fn cast(&mut self, ty: types::Type, v: Value) -> Value {
        if self.b.func.dfg.value_type(v) == ty {
            v
        } else {
            self.b.ins().bitcast(ty, lanes_le(), v)
        }
    }

    fn constant(&mut self, ty: types::Type, bytes: Vec<u8>) -> Value {
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(ty, c)
    }

    fn i32s(&mut self, v: u32) -> Value {
        self.constant(types::I32X4, v.to_le_bytes().repeat(4))
    }

    fn f64s(&mut self, v: f64) -> Value {
        self.constant(types::F64X2, v.to_bits().to_le_bytes().repeat(2))
    }

    fn shuffle(&mut self, a: Value, b: Value, mask: [u8; 16]) -> Value {
        let (a, b) = (self.cast(types::I8X16, a), self.cast(types::I8X16, b));
        let m = self
            .b
            .func
            .dfg
            .immediates
            .push(ConstantData::from(mask.to_vec()));
        self.b.ins().shuffle(a, b, m)
    }

    /// `bits ? x : y` per bit (lane masks are all ones or all zeros).
    fn pick(&mut self, mask: Value, x: Value, y: Value) -> Value {
        let ty = self.b.func.dfg.value_type(y);
        let (m, x) = (self.cast(ty, mask), self.cast(ty, x));
        self.b.ins().bitselect(m, x, y)
    }

    /// The chunk's lanes (I32X4 bits of f32) as two f64x2 halves.
    fn promote(&mut self, x: Value) -> (Value, Value) {
        let f = self.cast(types::F32X4, x);
        let lo = self.b.ins().fvpromote_low(f);
        let high = self.shuffle(x, x, HIGH_QWORDS);
        let high = self.cast(types::F32X4, high);
        let hi = self.b.ins().fvpromote_low(high);
        (lo, hi)
    }

    /// Two f64x2 halves rounded to f32, as one I32X4 chunk.
    fn demote(&mut self, lo: Value, hi: Value) -> Value {
        let (l, h) = (self.b.ins().fvdemote(lo), self.b.ins().fvdemote(hi));
        let r = self.shuffle(l, h, LOW_QWORDS);
        self.cast(types::I32X4, r)
    }

    /// `f` on each f64 half of chunk `x`, rounded back to f32.
    fn per_half(&mut self, x: Value, f: impl Fn(&mut Self, Value) -> Value) -> Value {
        let (lo, hi) = self.promote(x);
        let (lo, hi) = (f(self, lo), f(self, hi));
        self.demote(lo, hi)
    }

    /// Lanes of `x` (f32 bits) that are NaNs, and `x` quieted.
    fn nan_lanes(&mut self, x: Value) -> (Value, Value) {
        let f = self.cast(types::F32X4, x);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
        let q = self.i32s(QUIET32);
        let quiet = self.b.ins().bor(x, q);
        (nan, quiet)
    }

    fn f32s(&mut self, v: f32) -> Value {
        let c = self.i32s(v.to_bits());
        self.cast(types::F32X4, c)
    }

    /// Horner's rule in fused multiply-adds over `coeffs` (f32 bits,
    /// highest degree first) at `t`.
    fn horner_f32(&mut self, coeffs: &[u32], t: Value) -> Value {
        let mut p = self.f32s(f32::from_bits(coeffs[0]));
        for &c in &coeffs[1..] {
            let c = self.f32s(f32::from_bits(c));
            p = self.b.ins().fma(p, t, c);
        }
        p
    }

    /// 2^k (k an I32X4 lane in [-126, 127]) as F32X4 lanes.
    fn pow2_f32(&mut self, k: Value) -> Value {
        // transcendental.rs `pow2_bits`: (k + 127) << 23.
        let bias = self.i32s(127);
        let b = self.b.ins().iadd(k, bias);
        let b = self.b.ins().ishl_imm_u(b, 23);
        self.cast(types::F32X4, b)
    }

    /// transcendental.rs `exp2_f32`.
    fn exp2(&mut self, x: Value) -> Value {
        let f = self.cast(types::F32X4, x);
        let lo = self.f32s(EXP2_LO);
        let below = self.b.ins().fcmp(FloatCC::LessThan, f, lo);
        let d = self.pick(below, lo, f);
        let hi = self.f32s(EXP2_HI);
        let above = self.b.ins().fcmp(FloatCC::GreaterThan, d, hi);
        let d = self.pick(above, hi, d);
        let rounder = self.f32s(ROUNDER);
        let t = self.b.ins().fadd(d, rounder);
        let n = self.b.ins().fsub(t, rounder);
        let r = self.b.ins().fsub(d, n);
        let p = self.horner_f32(&EXP2_POLY, r);
        let one = self.f32s(1.0);
        let p = self.b.ins().fma(p, r, one);
        let k = self.cast(types::I32X4, t);
        let rb = self.i32s(ROUNDER.to_bits());
        let k = self.b.ins().isub(k, rb);
        let h = self.b.ins().sshr_imm_u(k, 1);
        let g = self.b.ins().isub(k, h);
        let sg = self.pow2_f32(g);
        let sh = self.pow2_f32(h);
        let p = self.b.ins().fmul(p, sg);
        let p = self.b.ins().fmul(p, sh);
        let r = self.cast(types::I32X4, p);
        let (nan, quiet) = self.nan_lanes(x);
        self.pick(nan, quiet, r)
    }

    /// transcendental.rs `log2_f32`.
    fn log2(&mut self, x: Value) -> Value {
        let f = self.cast(types::F32X4, x);
        // Subnormal (zero and negatives are replaced below): times 2^23,
        // 23 off e.
        let expf = self.i32s(0xFF << 23);
        let field = self.b.ins().band(x, expf);
        let zero_i = self.i32s(0);
        let subnormal = self.b.ins().icmp(IntCC::Equal, field, zero_i);
        let two23 = self.f32s(TWO23);
        let scaled = self.b.ins().fmul(f, two23);
        let a = self.pick(subnormal, scaled, f);
        let twenty_three = self.i32s(23);
        let adjust = self.b.ins().band(subnormal, twenty_three);
        let bits = self.cast(types::I32X4, a);
        let frac = self.i32s(FRACTION);
        let m = self.b.ins().band(bits, frac);
        let one_bits = self.i32s(127 << 23);
        let m = self.b.ins().bor(m, one_bits);
        let m = self.cast(types::F32X4, m);
        let e = self.b.ins().ushr_imm_u(bits, 23);
        let bias = self.i32s(127);
        let e = self.b.ins().isub(e, bias);
        let e = self.b.ins().isub(e, adjust);
        let sqrt2 = self.f32s(SQRT2);
        let big = self.b.ins().fcmp(FloatCC::GreaterThan, m, sqrt2);
        let half = self.f32s(0.5);
        let mh = self.b.ins().fmul(m, half);
        let m = self.pick(big, mh, m);
        let one_i = self.i32s(1);
        let e1 = self.b.ins().iadd(e, one_i);
        let e = self.pick(big, e1, e);
        let one = self.f32s(1.0);
        let two = self.f32s(2.0);
        let fm = self.b.ins().fsub(m, one);
        let d_hi = self.b.ins().fadd(two, fm);
        let d2 = self.b.ins().fsub(d_hi, two);
        let d_lo = self.b.ins().fsub(fm, d2);
        let inv = self.b.ins().fdiv(one, d_hi);
        let s_hi = self.b.ins().fmul(fm, inv);
        let neg_s = self.b.ins().fneg(s_hi);
        let res = self.b.ins().fma(neg_s, d_hi, fm);
        let res = self.b.ins().fma(neg_s, d_lo, res);
        let s_lo = self.b.ins().fmul(res, inv);
        let z = self.b.ins().fmul(s_hi, s_hi);
        let q = self.horner_f32(&LOG2_POLY, z);
        let sz = self.b.ins().fmul(s_hi, z);
        let tail = self.b.ins().fmul(sz, q);
        let k_hi = self.f32s(f32::from_bits(LOG2_K_HI));
        let k_lo = self.f32s(f32::from_bits(LOG2_K_LO));
        let hi = self.b.ins().fmul(k_hi, s_hi);
        let neg_hi = self.b.ins().fneg(hi);
        let lo = self.b.ins().fma(k_hi, s_hi, neg_hi);
        let kl = self.b.ins().fmul(k_lo, s_hi);
        let ks = self.b.ins().fma(k_hi, s_lo, kl);
        let lo = self.b.ins().fadd(lo, ks);
        let lo = self.b.ins().fadd(lo, tail);
        let ef = self.b.ins().fcvt_from_sint(types::F32X4, e);
        let sum = self.b.ins().fadd(ef, hi);
        let back = self.b.ins().fsub(sum, ef);
        let err = self.b.ins().fsub(hi, back);
        let err = self.b.ins().fadd(err, lo);
        let r = self.b.ins().fadd(sum, err);
        let r = self.cast(types::I32X4, r);
        let zero = self.f32s(0.0);
        // +inf: itself.
        let inf = self.i32s(0x7F80_0000);
        let is_inf = self.b.ins().icmp(IntCC::Equal, x, inf);
        let r = self.pick(is_inf, x, r);
        // Negative (zero excluded): a NaN, -inf its own.
        let neg = self.b.ins().fcmp(FloatCC::LessThan, f, zero);
        let ninf = self.i32s(0xFF80_0000);
        let is_ninf = self.b.ins().icmp(IntCC::Equal, x, ninf);
        let (nn, ni) = (self.i32s(LOG2_NEGATIVE), self.i32s(LOG2_NEG_INF));
        let neg_r = self.pick(is_ninf, ni, nn);
        let r = self.pick(neg, neg_r, r);
        // ±0: -inf.
        let is_zero = self.b.ins().fcmp(FloatCC::Equal, f, zero);
        let r = self.pick(is_zero, ninf, r);
        let (nan, quiet) = self.nan_lanes(x);
        self.pick(nan, quiet, r)
    }

    /// valu/mod.rs `ldexp32`: x * 2^h * 2^(e - h) in f64 with e clamped
    /// to [-600, 600] and h = e / 2 (toward zero), rounded once.
    fn ldexp(&mut self, x: Value, y: Value) -> Value {
        let (lo, hi) = (self.i32s(-600i32 as u32), self.i32s(600));
        let below = self.b.ins().icmp(IntCC::SignedLessThan, y, lo);
        let y = self.pick(below, lo, y);
        let above = self.b.ins().icmp(IntCC::SignedGreaterThan, y, hi);
        let y = self.pick(above, hi, y);
        let sign = self.b.ins().ushr_imm_u(y, 31);
        let h = self.b.ins().iadd(y, sign);
        let h = self.b.ins().sshr_imm_u(h, 1);
        let g = self.b.ins().isub(y, h);
        // 2^k as f64 bits: (k + 1023) << 52, i.e. (k + 1023) << 20 in the
        // high dword of each qword and zero in the low one.
        let pow2_high = |e: &mut Self, k: Value| {
            let bias = e.i32s(1023);
            let k = e.b.ins().iadd(k, bias);
            e.b.ins().ishl_imm_u(k, 20)
        };
        let (ph, pg) = (pow2_high(self, h), pow2_high(self, g));
        let z = self.i32s(0);
        let (lo_x, hi_x) = self.promote(x);
        let scale = |e: &mut Self, d: Value, mask: [u8; 16]| {
            let a = e.shuffle(z, ph, mask);
            let a = e.cast(types::F64X2, a);
            let b = e.shuffle(z, pg, mask);
            let b = e.cast(types::F64X2, b);
            let r = e.b.ins().fmul(d, a);
            e.b.ins().fmul(r, b)
        };
        let lo_r = scale(self, lo_x, LOW_DWORDS);
        let hi_r = scale(self, hi_x, HIGH_DWORDS);
        self.demote(lo_r, hi_r)
    }

    /// valu/mod.rs `frexp32`: (mantissa, exponent) lanes.
    fn frexp(&mut self, x: Value) -> (Value, Value) {
        let expf = self.i32s(0xFF << 23);
        let field = self.b.ins().band(x, expf);
        let zero = self.i32s(0);
        let magnitude = self.i32s(0x7FFF_FFFF);
        let mag = self.b.ins().band(x, magnitude);
        let is_zero = self.b.ins().icmp(IntCC::Equal, mag, zero);
        let not_finite = self.b.ins().icmp(IntCC::Equal, field, expf);
        let special = self.b.ins().bor(is_zero, not_finite);
        // Subnormal: times 2^32 (exact), 32 off the exponent.
        let subnormal = self.b.ins().icmp(IntCC::Equal, field, zero);
        let f = self.cast(types::F32X4, x);
        let two32 = self.i32s(0x4F80_0000);
        let two32 = self.cast(types::F32X4, two32);
        let scaled = self.b.ins().fmul(f, two32);
        let scaled = self.cast(types::I32X4, scaled);
        let v = self.pick(subnormal, scaled, x);
        let keep = self.i32s(!(0xFF << 23));
        let m = self.b.ins().band(v, keep);
        let e126 = self.i32s(126 << 23);
        let m = self.b.ins().bor(m, e126);
        let mant = self.pick(special, x, m);
        let ex = self.b.ins().ushr_imm_u(v, 23);
        let ff = self.i32s(0xFF);
        let ex = self.b.ins().band(ex, ff);
        let bias = self.i32s(126);
        let ex = self.b.ins().isub(ex, bias);
        let thirty_two = self.i32s(32);
        let adj = self.b.ins().band(subnormal, thirty_two);
        let ex = self.b.ins().isub(ex, adj);
        let exp = self.pick(special, zero, ex);
        (mant, exp)
    }

    /// valu/mod.rs `fmax32` / `fmin32`: a NaN yields the other source;
    /// equal sources (±0 included) the positive one for max, the negative
    /// one for min (their bits' and / or).
    fn minmax(&mut self, x: Value, y: Value, max: bool) -> Value {
        let (a, b) = (self.cast(types::F32X4, x), self.cast(types::F32X4, y));
        let cc = if max {
            FloatCC::GreaterThan
        } else {
            FloatCC::LessThan
        };
        let wins = self.b.ins().fcmp(cc, a, b);
        let r = self.pick(wins, x, y);
        let eq = self.b.ins().fcmp(FloatCC::Equal, a, b);
        let both = if max {
            self.b.ins().band(x, y)
        } else {
            self.b.ins().bor(x, y)
        };
        let r = self.pick(eq, both, r);
        let b_nan = self.b.ins().fcmp(FloatCC::Unordered, b, b);
        let r = self.pick(b_nan, x, r);
        let a_nan = self.b.ins().fcmp(FloatCC::Unordered, a, a);
        self.pick(a_nan, y, r)
    }
}
