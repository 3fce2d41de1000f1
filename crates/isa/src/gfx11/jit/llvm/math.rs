//! The interpreter's per-lane math as whole-wave IR: v_exp/v_log
//! (valu/transcendental.rs), rcp, rsq, ldexp, frexp, min/max and rndne
//! (valu/mod.rs).
//!
//! Each function performs the same IEEE operations in the same order as
//! the scalar function it stands for (named on each), on `<32 x float>`
//! where the interpreter computes in f32 (its fused multiply-adds as
//! `llvm.fma`, correctly rounded like `f32::mul_add`) and on
//! `<32 x double>` where it computes in f64: fpext and fptrunc round
//! exactly as the scalar conversions do, and without fast-math flags LLVM
//! neither reassociates nor fuses them. A lane whose source is special
//! takes the scalar function's special result through a select (the
//! arithmetic on that lane is discarded; exceptions are masked, so it
//! cannot trap).

use super::emit::{D, F, Fx, M, V, splat, splat_f32};
use crate::gfx11::exec::valu::transcendental::{
    EXP2_HI, EXP2_LO, EXP2_POLY, FRACTION, LOG2_K_HI, LOG2_K_LO, LOG2_NEG_INF, LOG2_NEGATIVE,
    LOG2_POLY, QUIET32, ROUNDER, SQRT2, TWO23,
};

impl Fx {
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

    /// `a * b + c`, fused.
    fn fma_f32(&mut self, a: &str, b: &str, c: &str) -> String {
        self.ins(format!(
            "call {F} @llvm.fma.v32f32({F} {a}, {F} {b}, {F} {c})"
        ))
    }

    /// Horner's rule in fused multiply-adds over `coeffs` (f32 bits,
    /// highest degree first) at `t`.
    fn horner_f32(&mut self, coeffs: &[u32], t: &str) -> String {
        let mut p = splat_f32(f32::from_bits(coeffs[0]));
        for &c in &coeffs[1..] {
            p = self.fma_f32(&p, t, &splat_f32(f32::from_bits(c)));
        }
        p
    }

    /// 2^k (k an i32 lane in [-126, 127]) as f32 lanes.
    fn pow2_f32(&mut self, k: &str) -> String {
        // transcendental.rs `pow2_bits`: (k + 127) << 23.
        let b = self.ins(format!("add {V} {k}, {}", splat(127)));
        let b = self.ins(format!("shl {V} {b}, {}", splat(23)));
        self.fl(&b)
    }

    /// transcendental.rs `exp2_f32`, with a shorter path for a wave whose
    /// every lane is in [-126, 126]: the clamps do nothing there, and the
    /// rounded integer n is in [-126, 126], so 2^n is a normal f32 and one
    /// multiply p * 2^n rounds the exact product once, as the interpreter's
    /// exact p * 2^(n - h) and its rounded product with 2^h do. A NaN fails
    /// the range test, so only the full path tests for one.
    pub(super) fn exp2(&mut self, x: &str) -> String {
        let f = self.fl(x);
        let abs = self.ins(format!("and {V} {x}, {}", splat(0x7FFF_FFFF)));
        let abs = self.fl(&abs);
        let ok = self.ins(format!("fcmp ole {F} {abs}, {}", splat_f32(126.0)));
        let rare = self.ins(format!("xor {M} {ok}, splat (i1 true)"));
        let rounder = splat_f32(ROUNDER);
        let t = self.ins(format!("fadd {F} {f}, {rounder}"));
        let n = self.ins(format!("fsub {F} {t}, {rounder}"));
        let r = self.ins(format!("fsub {F} {f}, {n}"));
        let p = self.horner_f32(&EXP2_POLY, &r);
        let p = self.fma_f32(&p, &r, &splat_f32(1.0));
        let k = self.bits(&t);
        let k = self.ins(format!("sub {V} {k}, {}", splat(ROUNDER.to_bits())));
        let s = self.pow2_f32(&k);
        let p = self.ins(format!("fmul {F} {p}, {s}"));
        let quick = self.bits(&p);
        self.unless_rare(rare, quick, |fx| fx.exp2_full(x))
    }

    /// transcendental.rs `exp2_f32` on every lane.
    fn exp2_full(&mut self, x: &str) -> String {
        let f = self.fl(x);
        let (lo, hi) = (splat_f32(EXP2_LO), splat_f32(EXP2_HI));
        let below = self.ins(format!("fcmp olt {F} {f}, {lo}"));
        let d = self.ins(format!("select {M} {below}, {F} {lo}, {F} {f}"));
        let above = self.ins(format!("fcmp ogt {F} {d}, {hi}"));
        let d = self.ins(format!("select {M} {above}, {F} {hi}, {F} {d}"));
        let rounder = splat_f32(ROUNDER);
        let t = self.ins(format!("fadd {F} {d}, {rounder}"));
        let n = self.ins(format!("fsub {F} {t}, {rounder}"));
        let r = self.ins(format!("fsub {F} {d}, {n}"));
        let p = self.horner_f32(&EXP2_POLY, &r);
        let p = self.fma_f32(&p, &r, &splat_f32(1.0));
        let k = self.bits(&t);
        let k = self.ins(format!("sub {V} {k}, {}", splat(ROUNDER.to_bits())));
        let h = self.ins(format!("ashr {V} {k}, {}", splat(1)));
        let g = self.ins(format!("sub {V} {k}, {h}"));
        let sg = self.pow2_f32(&g);
        let sh = self.pow2_f32(&h);
        let p = self.ins(format!("fmul {F} {p}, {sg}"));
        let p = self.ins(format!("fmul {F} {p}, {sh}"));
        let r = self.bits(&p);
        let (nan, q) = self.nan_lanes(x);
        self.ins(format!("select {M} {nan}, {V} {q}, {V} {r}"))
    }

    /// transcendental.rs `log2_f32`.
    pub(super) fn log2(&mut self, x: &str) -> String {
        let f = self.fl(x);
        // Subnormal (and zero, replaced below): times 2^23, 23 off e.
        let subnormal = self.ins(format!("icmp ult {V} {x}, {}", splat(1 << 23)));
        let scaled = self.ins(format!("fmul {F} {f}, {}", splat_f32(TWO23)));
        let a = self.ins(format!("select {M} {subnormal}, {F} {scaled}, {F} {f}"));
        let adjust = self.ins(format!(
            "select {M} {subnormal}, {V} {}, {V} zeroinitializer",
            splat(23)
        ));
        let bits = self.bits(&a);
        let m = self.ins(format!("and {V} {bits}, {}", splat(FRACTION)));
        let m = self.ins(format!("or {V} {m}, {}", splat(127 << 23)));
        let m = self.fl(&m);
        let e = self.ins(format!("lshr {V} {bits}, {}", splat(23)));
        let e = self.ins(format!("sub {V} {e}, {}", splat(127)));
        let e = self.ins(format!("sub {V} {e}, {adjust}"));
        let big = self.ins(format!("fcmp ogt {F} {m}, {}", splat_f32(SQRT2)));
        let mh = self.ins(format!("fmul {F} {m}, {}", splat_f32(0.5)));
        let m = self.ins(format!("select {M} {big}, {F} {mh}, {F} {m}"));
        let e1 = self.ins(format!("add {V} {e}, {}", splat(1)));
        let e = self.ins(format!("select {M} {big}, {V} {e1}, {V} {e}"));
        let one = splat_f32(1.0);
        let two = splat_f32(2.0);
        let fm = self.ins(format!("fsub {F} {m}, {one}"));
        let d_hi = self.ins(format!("fadd {F} {two}, {fm}"));
        let d2 = self.ins(format!("fsub {F} {d_hi}, {two}"));
        let d_lo = self.ins(format!("fsub {F} {fm}, {d2}"));
        let inv = self.ins(format!("fdiv {F} {one}, {d_hi}"));
        let s_hi = self.ins(format!("fmul {F} {fm}, {inv}"));
        let neg_s = self.ins(format!("fneg {F} {s_hi}"));
        let res = self.fma_f32(&neg_s, &d_hi, &fm);
        let res = self.fma_f32(&neg_s, &d_lo, &res);
        let s_lo = self.ins(format!("fmul {F} {res}, {inv}"));
        let z = self.ins(format!("fmul {F} {s_hi}, {s_hi}"));
        let q = self.horner_f32(&LOG2_POLY, &z);
        let sz = self.ins(format!("fmul {F} {s_hi}, {z}"));
        let tail = self.ins(format!("fmul {F} {sz}, {q}"));
        let (k_hi, k_lo) = (
            splat_f32(f32::from_bits(LOG2_K_HI)),
            splat_f32(f32::from_bits(LOG2_K_LO)),
        );
        let hi = self.ins(format!("fmul {F} {k_hi}, {s_hi}"));
        let neg_hi = self.ins(format!("fneg {F} {hi}"));
        let lo = self.fma_f32(&k_hi, &s_hi, &neg_hi);
        let kl = self.ins(format!("fmul {F} {k_lo}, {s_hi}"));
        let ks = self.fma_f32(&k_hi, &s_lo, &kl);
        let lo = self.ins(format!("fadd {F} {lo}, {ks}"));
        let lo = self.ins(format!("fadd {F} {lo}, {tail}"));
        let ef = self.ins(format!("sitofp {V} {e} to {F}"));
        let sum = self.ins(format!("fadd {F} {ef}, {hi}"));
        let back = self.ins(format!("fsub {F} {sum}, {ef}"));
        let err = self.ins(format!("fsub {F} {hi}, {back}"));
        let err = self.ins(format!("fadd {F} {err}, {lo}"));
        let r = self.ins(format!("fadd {F} {sum}, {err}"));
        let r = self.bits(&r);
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

    /// valu/mod.rs `ldexp32`: x * 2^e rounded once (its f64 product is
    /// exact for |e| <= 600 and then rounds to f32), here in f32.
    ///
    /// Beyond |e| = 300 every nonzero finite x overflows (2^-149 * 2^300 is
    /// past the f32 range) or rounds to zero (below 2^128 * 2^-300), as at
    /// 300, so e is clamped there. Two steps then bring e into [-126, 127],
    /// where 2^e is a normal f32, and a last multiply by 2^e rounds once:
    /// - up (e > 127): times 2^127, exact unless it overflows, and then the
    ///   result overflows too;
    /// - down (e < -126): times 2^-102 (musl's `scalbnf` step), exact while
    ///   the product is normal; if it is not, x < 2^-24, the exact result is
    ///   below 2^-150 and rounds to zero, and so does the product, at most
    ///   2^-126, times the 2^-25 or less left.
    ///
    /// Zeros and infinities keep their value and sign through the steps; a
    /// NaN is quieted (the f64 round trip's result).
    ///
    /// A wave whose every exponent is in [-126, 127] (2^e a normal f32) and
    /// whose every x is a number takes one multiply by 2^e, which rounds
    /// the exact product once.
    pub(super) fn ldexp(&mut self, x: &str, y: &str) -> String {
        let f = self.fl(x);
        let t = self.ins(format!("add {V} {y}, {}", splat(126)));
        let out = self.ins(format!("icmp uge {V} {t}, {}", splat(254)));
        let nan = self.ins(format!("fcmp uno {F} {f}, zeroinitializer"));
        let rare = self.ins(format!("or {M} {out}, {nan}"));
        let p = self.pow2_f32(y);
        let r = self.ins(format!("fmul {F} {f}, {p}"));
        let quick = self.bits(&r);
        self.unless_rare(rare, quick, |fx| fx.ldexp_full(x, y))
    }

    /// `quick`, or what `full` emits where a lane of `rare` is set: in a
    /// one-wave function on a side path (`Fx::rarely`); in a pair function,
    /// which takes no branch inside a pass (emit/pair.rs), the active rare
    /// lanes hand both waves to their one-wave functions for the pass, as
    /// a NaN result does.
    fn unless_rare(
        &mut self,
        rare: String,
        quick: String,
        full: impl FnOnce(&mut Fx) -> String,
    ) -> String {
        if self.pair_nans.is_some() {
            let exec = self.exec_mask();
            let rare = self.ins(format!("and {M} {rare}, {exec}"));
            self.note_nan_lanes(rare);
            return quick;
        }
        self.rarely(&rare, V, &quick, full)
    }

    /// valu/mod.rs `ldexp32` on every lane, in the steps above.
    fn ldexp_full(&mut self, x: &str, y: &str) -> String {
        let e = self.ins(format!(
            "call {V} @llvm.smax.v32i32({V} {y}, {V} {})",
            splat(-300i32 as u32)
        ));
        let mut n = self.ins(format!(
            "call {V} @llvm.smin.v32i32({V} {e}, {V} {})",
            splat(300)
        ));
        let mut r = self.fl(x);
        for _ in 0..2 {
            let up = self.ins(format!("icmp sgt {V} {n}, {}", splat(127)));
            let down = self.ins(format!("icmp slt {V} {n}, {}", splat(-126i32 as u32)));
            let s = self.ins(format!(
                "select {M} {down}, {F} {}, {F} {}",
                splat_f32(f32::from_bits(25 << 23)),
                splat_f32(1.0)
            ));
            let s = self.ins(format!(
                "select {M} {up}, {F} {}, {F} {s}",
                splat_f32(f32::from_bits(254 << 23))
            ));
            let d = self.ins(format!(
                "select {M} {down}, {V} {}, {V} zeroinitializer",
                splat(-102i32 as u32)
            ));
            let d = self.ins(format!("select {M} {up}, {V} {}, {V} {d}", splat(127)));
            n = self.ins(format!("sub {V} {n}, {d}"));
            r = self.ins(format!("fmul {F} {r}, {s}"));
        }
        let p = self.pow2_f32(&n);
        let r = self.ins(format!("fmul {F} {r}, {p}"));
        let r = self.bits(&r);
        let (nan, q) = self.nan_lanes(x);
        self.ins(format!("select {M} {nan}, {V} {q}, {V} {r}"))
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
