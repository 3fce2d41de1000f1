//! The interpreter's per-lane math as whole-wave IR: v_exp/v_log
//! (valu/transcendental.rs), rcp, rsq, ldexp, frexp, min/max and rndne
//! (valu/mod.rs).
//!
//! Each function performs the same IEEE operations in the same order as
//! the scalar function it stands for (named on each), on `<32 x double>`
//! where the interpreter computes in f64: fpext and fptrunc round exactly
//! as the scalar conversions do, and without fast-math flags LLVM neither
//! reassociates nor fuses them. A lane whose source is special takes the
//! scalar function's special result through a select (the arithmetic on
//! that lane is discarded; exceptions are masked, so it cannot trap).

use super::emit::{D, F, Fx, M, Q, V, splat, splat_f64};
use crate::gfx11::exec::valu::transcendental::{
    EXP2_HI, EXP2_LO, EXP2_POLY, FRACTION, LOG2_NEG_INF, LOG2_NEGATIVE, LOG2_POLY, QUIET32,
    ROUNDER, SQRT2,
};

/// An i64 constant in every lane.
fn splat64(v: u64) -> String {
    format!("splat (i64 {})", v as i64)
}

impl Fx<'_> {
    /// `f` on the lanes of `x` (f32 bits) widened to f64, rounded back.
    pub(super) fn per_f64(&mut self, x: &str, f: impl Fn(&mut Self, &str) -> String) -> String {
        let p = self.fl(x);
        let d = self.ins(format!("fpext {F} {p} to {D}"));
        let r = f(self, &d);
        let r = self.ins(format!("fptrunc {D} {r} to {F}"));
        self.bits(&r)
    }

    /// Lanes of `x` (f32 bits) that are NaNs, and `x` quieted.
    fn nan_lanes(&mut self, x: &str) -> (String, String) {
        let f = self.fl(x);
        let nan = self.ins(format!("fcmp uno {F} {f}, zeroinitializer"));
        let q = self.ins(format!("or {V} {x}, {}", splat(QUIET32)));
        (nan, q)
    }

    /// Horner's rule over `coeffs` (f64 bits, highest degree first) at `t`.
    fn horner(&mut self, coeffs: &[u64], t: &str) -> String {
        let mut p = splat_f64(f64::from_bits(coeffs[0]));
        for &c in &coeffs[1..] {
            let m = self.ins(format!("fmul {D} {p}, {t}"));
            p = self.ins(format!("fadd {D} {m}, {}", splat_f64(f64::from_bits(c))));
        }
        p
    }

    /// transcendental.rs `exp2_f32`.
    pub(super) fn exp2(&mut self, x: &str) -> String {
        let r = self.per_f64(x, |e, d| {
            let (lo, hi) = (splat_f64(EXP2_LO), splat_f64(EXP2_HI));
            let below = e.ins(format!("fcmp olt {D} {d}, {lo}"));
            let d = e.ins(format!("select <32 x i1> {below}, {D} {lo}, {D} {d}"));
            let above = e.ins(format!("fcmp ogt {D} {d}, {hi}"));
            let d = e.ins(format!("select <32 x i1> {above}, {D} {hi}, {D} {d}"));
            let rounder = splat_f64(ROUNDER);
            let t = e.ins(format!("fadd {D} {d}, {rounder}"));
            let n = e.ins(format!("fsub {D} {t}, {rounder}"));
            let r = e.ins(format!("fsub {D} {d}, {n}"));
            let p = e.horner(&EXP2_POLY, &r);
            let k = e.ins(format!("bitcast {D} {t} to {Q}"));
            let bias = splat64(ROUNDER.to_bits().wrapping_sub(1023));
            let k = e.ins(format!("sub {Q} {k}, {bias}"));
            let k = e.ins(format!("shl {Q} {k}, {}", splat64(52)));
            let scale = e.ins(format!("bitcast {Q} {k} to {D}"));
            e.ins(format!("fmul {D} {p}, {scale}"))
        });
        let (nan, q) = self.nan_lanes(x);
        self.ins(format!("select {M} {nan}, {V} {q}, {V} {r}"))
    }

    /// transcendental.rs `log2_f32`.
    pub(super) fn log2(&mut self, x: &str) -> String {
        let r = self.per_f64(x, |e, d| {
            let bits = e.ins(format!("bitcast {D} {d} to {Q}"));
            let m = e.ins(format!("and {Q} {bits}, {}", splat64(FRACTION)));
            let m = e.ins(format!("or {Q} {m}, {}", splat64(1023 << 52)));
            let m = e.ins(format!("bitcast {Q} {m} to {D}"));
            // ((d >> 52) as i64 - 1023) as f64: exact.
            let ex = e.ins(format!("lshr {Q} {bits}, {}", splat64(52)));
            let ex = e.ins(format!("sub {Q} {ex}, {}", splat64(1023)));
            let ex = e.ins(format!("sitofp {Q} {ex} to {D}"));
            let big = e.ins(format!("fcmp ogt {D} {m}, {}", splat_f64(SQRT2)));
            let mh = e.ins(format!("fmul {D} {m}, {}", splat_f64(0.5)));
            let m = e.ins(format!("select <32 x i1> {big}, {D} {mh}, {D} {m}"));
            let one = splat_f64(1.0);
            let ex1 = e.ins(format!("fadd {D} {ex}, {one}"));
            let ex = e.ins(format!("select <32 x i1> {big}, {D} {ex1}, {D} {ex}"));
            let num = e.ins(format!("fsub {D} {m}, {one}"));
            let den = e.ins(format!("fadd {D} {m}, {one}"));
            let s = e.ins(format!("fdiv {D} {num}, {den}"));
            let z = e.ins(format!("fmul {D} {s}, {s}"));
            let q = e.horner(&LOG2_POLY, &z);
            let sq = e.ins(format!("fmul {D} {s}, {q}"));
            e.ins(format!("fadd {D} {ex}, {sq}"))
        });
        let f = self.fl(x);
        // +inf: itself.
        let inf = self.ins(format!("icmp eq {V} {x}, {}", splat(0x7F80_0000)));
        let r = self.ins(format!("select {M} {inf}, {V} {x}, {V} {r}"));
        // Negative (zero excluded): a NaN, -inf its own.
        let neg = self.ins(format!("fcmp olt {F} {f}, zeroinitializer"));
        let ninf = self.ins(format!("icmp eq {V} {x}, {}", splat(0xFF80_0000)));
        let neg_r = self.ins(format!(
            "select {M} {ninf}, {V} {}, {V} {}",
            splat(LOG2_NEG_INF),
            splat(LOG2_NEGATIVE)
        ));
        let r = self.ins(format!("select {M} {neg}, {V} {neg_r}, {V} {r}"));
        // ±0: -inf.
        let zero = self.ins(format!("fcmp oeq {F} {f}, zeroinitializer"));
        let r = self.ins(format!(
            "select {M} {zero}, {V} {}, {V} {r}",
            splat(0xFF80_0000)
        ));
        let (nan, q) = self.nan_lanes(x);
        self.ins(format!("select {M} {nan}, {V} {q}, {V} {r}"))
    }

    /// valu/mod.rs `round_even32`: ties to even, the sign of zero kept, a
    /// NaN returned as it is.
    pub(super) fn rndne(&mut self, x: &str) -> String {
        let f = self.fl(x);
        let r = self.ins(format!("call {F} @llvm.roundeven.v32f32({F} {f})"));
        let r = self.bits(&r);
        let nan = self.ins(format!("fcmp uno {F} {f}, zeroinitializer"));
        self.ins(format!("select {M} {nan}, {V} {x}, {V} {r}"))
    }

    /// valu/mod.rs `ldexp32`: x * 2^h * 2^(e - h) in f64 with e clamped
    /// to [-600, 600] and h = e / 2 (toward zero), rounded once.
    pub(super) fn ldexp(&mut self, x: &str, y: &str) -> String {
        let e = self.ins(format!(
            "call {V} @llvm.smax.v32i32({V} {y}, {V} {})",
            splat(-600i32 as u32)
        ));
        let e = self.ins(format!(
            "call {V} @llvm.smin.v32i32({V} {e}, {V} {})",
            splat(600)
        ));
        let h = self.ins(format!("sdiv {V} {e}, {}", splat(2)));
        let g = self.ins(format!("sub {V} {e}, {h}"));
        let pow2 = |fx: &mut Self, k: &str| {
            let k = fx.ins(format!("add {V} {k}, {}", splat(1023)));
            let k = fx.ins(format!("zext {V} {k} to {Q}"));
            let k = fx.ins(format!("shl {Q} {k}, {}", splat64(52)));
            fx.ins(format!("bitcast {Q} {k} to {D}"))
        };
        let (ph, pg) = (pow2(self, &h), pow2(self, &g));
        self.per_f64(x, |fx, d| {
            let r = fx.ins(format!("fmul {D} {d}, {ph}"));
            fx.ins(format!("fmul {D} {r}, {pg}"))
        })
    }

    /// valu/mod.rs `frexp32`: (mantissa, exponent) lanes.
    pub(super) fn frexp(&mut self, x: &str) -> (String, String) {
        let expf = splat(0xFF << 23);
        let field = self.ins(format!("and {V} {x}, {expf}"));
        let mag = self.ins(format!("and {V} {x}, {}", splat(0x7FFF_FFFF)));
        let is_zero = self.ins(format!("icmp eq {V} {mag}, zeroinitializer"));
        let not_finite = self.ins(format!("icmp eq {V} {field}, {expf}"));
        let special = self.ins(format!("or {M} {is_zero}, {not_finite}"));
        // Subnormal: times 2^32 (exact), 32 off the exponent.
        let subnormal = self.ins(format!("icmp eq {V} {field}, zeroinitializer"));
        let f = self.fl(x);
        let two32 = self.ins(format!("bitcast {V} {} to {F}", splat(0x4F80_0000)));
        let scaled = self.ins(format!("fmul {F} {f}, {two32}"));
        let scaled = self.bits(&scaled);
        let v = self.ins(format!("select {M} {subnormal}, {V} {scaled}, {V} {x}"));
        let m = self.ins(format!("and {V} {v}, {}", splat(!(0xFF << 23))));
        let m = self.ins(format!("or {V} {m}, {}", splat(126 << 23)));
        let mant = self.ins(format!("select {M} {special}, {V} {x}, {V} {m}"));
        let ex = self.ins(format!("lshr {V} {v}, {}", splat(23)));
        let ex = self.ins(format!("and {V} {ex}, {}", splat(0xFF)));
        let ex = self.ins(format!("sub {V} {ex}, {}", splat(126)));
        let adj = self.ins(format!(
            "select {M} {subnormal}, {V} {}, {V} zeroinitializer",
            splat(32)
        ));
        let ex = self.ins(format!("sub {V} {ex}, {adj}"));
        let exp = self.ins(format!(
            "select {M} {special}, {V} zeroinitializer, {V} {ex}"
        ));
        (mant, exp)
    }

    /// valu/mod.rs `fmax32` / `fmin32`: a NaN yields the other source;
    /// equal sources (±0 included) the positive one for max, the negative
    /// one for min (their bits' and / or).
    pub(super) fn minmax(&mut self, x: &str, y: &str, max: bool) -> String {
        let (a, b) = (self.fl(x), self.fl(y));
        let cc = if max { "ogt" } else { "olt" };
        let wins = self.ins(format!("fcmp {cc} {F} {a}, {b}"));
        let r = self.ins(format!("select {M} {wins}, {V} {x}, {V} {y}"));
        let eq = self.ins(format!("fcmp oeq {F} {a}, {b}"));
        let both = if max {
            self.ins(format!("and {V} {x}, {y}"))
        } else {
            self.ins(format!("or {V} {x}, {y}"))
        };
        let r = self.ins(format!("select {M} {eq}, {V} {both}, {V} {r}"));
        let b_nan = self.ins(format!("fcmp uno {F} {b}, zeroinitializer"));
        let r = self.ins(format!("select {M} {b_nan}, {V} {x}, {V} {r}"));
        let a_nan = self.ins(format!("fcmp uno {F} {a}, zeroinitializer"));
        self.ins(format!("select {M} {a_nan}, {V} {y}, {V} {r}"))
    }
}
