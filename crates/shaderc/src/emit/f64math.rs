//! exp, exp2, log, log2, sin, cos, tan and atan of f64 (scalars and
//! vectors), in software: the AMDGPU back end has no f64 instruction for
//! them (only v_fma_f64, v_ldexp_f64, v_frexp_*_f64, v_rndne_f64 and the
//! division and square root sequences). WGSL's other f64 functions are
//! built from these as their f32 versions are (sinh from exp, asin from
//! atan, pow as exp2(y * log2(x)), ...), so they inherit these errors, as
//! the WGSL spec defines their accuracy for f32.
//!
//! Every function is branch-free (selects), so vectors work lane-wise:
//! - exp: k = rint(x / ln 2), r = x - k ln 2 with ln 2 in two parts and
//!   fused multiply-adds (|r| <= ln 2 / 2), e^r by its Taylor polynomial to
//!   degree 13 (truncation below 2^-57 relative), then ldexp(e^r, k).
//!   exp2: k = rint(x), r = (x - k) ln 2, the same polynomial.
//! - log: x = m 2^e with m in [sqrt(1/2), sqrt(2)) (frexp), f = m - 1
//!   (exact), s = f / (2 + f), log(1 + f) = f - s (f - R(s^2)) where
//!   R(z) = 2z/3 + 2z^2/5 + ... + 2z^11/23 (the atanh series of
//!   log((1 + s) / (1 - s)); truncation below 2^-60), plus e ln 2 with
//!   ln 2 = LN2_HI + LN2_LO and LN2_HI of 32 bits (e * LN2_HI is exact).
//!   log2 is e + log(1 + f) log2(e), exact at powers of two.
//! - sin/cos/tan: k = rint(x 2/pi), r = x - k pi/2 with pi/2 in three
//!   33-bit parts and fused multiply-adds (each step rounds once, so r
//!   keeps its relative accuracy for |x| up to about 2^52; the neglected
//!   tail is k * 8.5e-32), sin r and cos r by their Taylor polynomials to
//!   degree 19 and 20 on |r| <= pi/4 (truncation below 2^-70), the
//!   quadrant k mod 4 picking +-sin r or +-cos r; tan = sin/cos.
//! - atan: |x| > tan(3pi/8) → pi/2 + atan(-1/|x|), |x| > tan(pi/8) →
//!   pi/4 + atan((|x| - 1)/(|x| + 1)), then the odd series of atan to
//!   degree 43 on |t| <= tan(pi/8) (truncation below 2^-56), sign of x.
//!
//! Errors against the host's f64 (crates/shaderc/tests/coverage.rs, on
//! gfxsim, 4096 arguments per function: exp over |x| <= 700, exp2 over
//! |x| <= 1050, log and log2 over 2^-1000..2^1000 and 1 +- 0.1, sin, cos
//! and tan over |x| <= 7000 and |x| <= 0.07, atan over |x| <= 7): at most
//! 1 ulp measured for exp, exp2, log, log2, sin and cos (2 asserted), 3
//! for tan (4 asserted), 2 for atan (2 asserted). exp overflows to +inf
//! above 709.78 and underflows to 0 below -745.13 (exp2: 1024, -1075);
//! log of 0 is -inf, of a negative number NaN; NaN gives NaN; sin, cos
//! and tan of an infinity give NaN.

use super::func::{FnEmitter, Val};
use super::types::{mangle, split_vector};

/// ln 2 = LN2_HI + LN2_LO, LN2_HI with 32 significant bits.
const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
/// pi/2 = PIO2_1 + PIO2_2 + PIO2_3 + ~8.5e-32, each part of 33 bits.
const PIO2_1: f64 = f64::from_bits(0x3FF9_21FB_5440_0000);
const PIO2_2: f64 = f64::from_bits(0x3DD0_B461_1A60_0000);
const PIO2_3: f64 = f64::from_bits(0x3BA3_198A_2E00_0000);
/// Above this exp(x) is +inf, below EXP_MIN it is 0.
const EXP_MAX: f64 = 709.782_712_893_384;
const EXP_MIN: f64 = -745.133_219_101_941_2;
/// m below this is doubled in log's reduction.
const SQRT_HALF: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// Which trigonometric function of the reduced argument to build.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trig64 {
    Sin,
    Cos,
    Tan,
}

/// 1/n! for n in 0..=max.
fn inverse_factorials(max: u32) -> Vec<f64> {
    let mut out = Vec::new();
    let mut f = 1.0f64;
    for n in 0..=max {
        if n > 0 {
            f *= f64::from(n);
        }
        out.push(1.0 / f);
    }
    out
}

impl FnEmitter<'_> {
    /// The i32 type with the lanes of `ty`.
    fn int_like(ty: &str) -> String {
        match split_vector(ty).1 {
            Some(n) => format!("<{n} x i32>"),
            None => "i32".into(),
        }
    }

    fn f64_fma(&mut self, a: &Val, b: &Val, c: &Val) -> Val {
        let ty = a.ty.clone();
        self.call_intrinsic("fma", &ty, &[a, b, c])
    }

    /// A constant of `ty`.
    fn f64_k(ty: &str, v: f64) -> Val {
        Val::new(ty, Self::fconst(ty, v))
    }

    /// `a op b` for two values of one type.
    fn f64_op(&mut self, op: &str, a: &Val, b: &Val) -> Val {
        self.defv(&a.ty, &format!("{op} {} {}, {}", a.ty, a.v, b.v))
    }

    /// `select (a pred b), then, else`.
    fn f64_pick(&mut self, pred: &str, a: &Val, b: &str, then: &Val, other: &Val) -> Val {
        let c = self.def(&format!("fcmp {pred} {} {}, {b}", a.ty, a.v));
        self.f64_select(&c, then, other)
    }

    /// `select c, then, else` with `c` of the lanes of `then`.
    fn f64_select(&mut self, c: &str, then: &Val, other: &Val) -> Val {
        let cty = super::expr::bool_ty_like(&then.ty);
        self.defv(
            &then.ty,
            &format!("select {cty} {c}, {}, {}", then.typed(), other.typed()),
        )
    }

    /// Horner's rule: c[0] + x (c[1] + x (c[2] + ...)).
    fn f64_horner(&mut self, x: &Val, c: &[f64]) -> Val {
        let ty = x.ty.clone();
        let mut p = Self::f64_k(&ty, c[c.len() - 1]);
        for &k in c[..c.len() - 1].iter().rev() {
            let k = Self::f64_k(&ty, k);
            p = self.f64_fma(&p, x, &k);
        }
        p
    }

    /// `ldexp(x, n)` with n the i32 lanes of `n`.
    fn f64_ldexp(&mut self, x: &Val, n: &str) -> Val {
        let ty = x.ty.clone();
        let ity = Self::int_like(&ty);
        let full = format!("llvm.ldexp.{}.{}", mangle(&ty), mangle(&ity));
        self.m.declare(format!("declare {ty} @{full}({ty}, {ity})"));
        self.defv(&ty, &format!("call {ty} @{full}({}, {ity} {n})", x.typed()))
    }

    /// `x` to i32 lanes, saturating (x is integral here).
    fn f64_to_i32(&mut self, x: &Val) -> String {
        let ity = Self::int_like(&x.ty);
        let full = format!("llvm.fptosi.sat.{}.{}", mangle(&ity), mangle(&x.ty));
        self.m.declare(format!("declare {ity} @{full}({})", x.ty));
        self.def(&format!("call {ity} @{full}({})", x.typed()))
    }

    /// e^r for |r| <= ln 2 / 2 (and a little beyond).
    fn f64_exp_reduced(&mut self, r: &Val) -> Val {
        let c = inverse_factorials(13);
        self.f64_horner(r, &c)
    }

    /// e^x (f64 or a vector of f64).
    pub(crate) fn f64_exp(&mut self, x: &Val) -> Val {
        let ty = x.ty.clone();
        let scaled = self.f64_op("fmul", x, &Self::f64_k(&ty, std::f64::consts::LOG2_E));
        let k = self.call_intrinsic("rint", &ty, &[&scaled]);
        // Keep k in i32 range for infinities; the selects below decide those.
        let k = self.f64_clamp(&k, -1100.0, 1100.0);
        let nk = self.defv(&ty, &format!("fneg {}", k.typed()));
        let r = self.f64_fma(&nk, &Self::f64_k(&ty, LN2_HI), x);
        let r = self.f64_fma(&nk, &Self::f64_k(&ty, LN2_LO), &r);
        let p = self.f64_exp_reduced(&r);
        let ki = self.f64_to_i32(&k);
        let e = self.f64_ldexp(&p, &ki);
        let inf = Self::f64_k(&ty, f64::INFINITY);
        let zero = Self::f64_k(&ty, 0.0);
        let e = self.f64_pick("ogt", x, &Self::fconst(&ty, EXP_MAX), &inf, &e);
        self.f64_pick("olt", x, &Self::fconst(&ty, EXP_MIN), &zero, &e)
    }

    /// 2^x (f64 or a vector of f64).
    pub(crate) fn f64_exp2(&mut self, x: &Val) -> Val {
        let ty = x.ty.clone();
        let k = self.call_intrinsic("rint", &ty, &[x]);
        let k = self.f64_clamp(&k, -1100.0, 1100.0);
        let f = self.f64_op("fsub", x, &k);
        let r = self.f64_op("fmul", &f, &Self::f64_k(&ty, std::f64::consts::LN_2));
        let p = self.f64_exp_reduced(&r);
        let ki = self.f64_to_i32(&k);
        let e = self.f64_ldexp(&p, &ki);
        let inf = Self::f64_k(&ty, f64::INFINITY);
        let zero = Self::f64_k(&ty, 0.0);
        let e = self.f64_pick("oge", x, &Self::fconst(&ty, 1024.0), &inf, &e);
        self.f64_pick("olt", x, &Self::fconst(&ty, -1075.0), &zero, &e)
    }

    fn f64_clamp(&mut self, x: &Val, lo: f64, hi: f64) -> Val {
        let ty = x.ty.clone();
        let t = self.call_intrinsic("maxnum", &ty, &[x, &Self::f64_k(&ty, lo)]);
        self.call_intrinsic("minnum", &ty, &[&t, &Self::f64_k(&ty, hi)])
    }

    /// (e as f64, log(1 + f)) with x = (1 + f) 2^e, 1 + f in
    /// [sqrt(1/2), sqrt(2)); then the special cases of `x` patched into
    /// the final result by [`FnEmitter::f64_log_special`].
    fn f64_log_parts(&mut self, x: &Val) -> (Val, Val) {
        let ty = x.ty.clone();
        let ity = Self::int_like(&ty);
        let pair = format!("{{ {ty}, {ity} }}");
        let full = format!("llvm.frexp.{}.{}", mangle(&ty), mangle(&ity));
        self.m.declare(format!("declare {pair} @{full}({ty})"));
        let fr = self.def(&format!("call {pair} @{full}({})", x.typed()));
        let m = Val::new(&ty, self.def(&format!("extractvalue {pair} {fr}, 0")));
        let e = self.def(&format!("extractvalue {pair} {fr}, 1"));
        let e = Val::new(&ty, self.def(&format!("sitofp {ity} {e} to {ty}")));
        let m2 = self.f64_op("fadd", &m, &m);
        let e1 = self.f64_op("fsub", &e, &Self::f64_k(&ty, 1.0));
        let small = self.def(&format!(
            "fcmp olt {ty} {}, {}",
            m.v,
            Self::fconst(&ty, SQRT_HALF)
        ));
        let m = self.f64_select(&small, &m2, &m);
        let e = self.f64_select(&small, &e1, &e);
        let one = Self::f64_k(&ty, 1.0);
        let f = self.f64_op("fsub", &m, &one);
        let two = Self::f64_k(&ty, 2.0);
        let d = self.f64_op("fadd", &two, &f);
        let s = self.f64_op("fdiv", &f, &d);
        let z = self.f64_op("fmul", &s, &s);
        let coeffs: Vec<f64> = (1..=11).map(|k| 2.0 / f64::from(2 * k + 1)).collect();
        let q = self.f64_horner(&z, &coeffs);
        let r = self.f64_op("fmul", &z, &q);
        let fr = self.f64_op("fsub", &f, &r);
        let sfr = self.f64_op("fmul", &s, &fr);
        let log1p = self.f64_op("fsub", &f, &sfr);
        (e, log1p)
    }

    /// `result` with log's special cases of `x`: 0 → -inf, negative →
    /// NaN, +inf → +inf (NaN stays NaN through the arithmetic).
    fn f64_log_special(&mut self, x: &Val, result: &Val) -> Val {
        let ty = x.ty.clone();
        let zero = Self::fconst(&ty, 0.0);
        let r = self.f64_pick(
            "oeq",
            x,
            &zero,
            &Self::f64_k(&ty, f64::NEG_INFINITY),
            result,
        );
        let r = self.f64_pick("olt", x, &zero, &Self::f64_k(&ty, f64::NAN), &r);
        let inf = Self::f64_k(&ty, f64::INFINITY);
        self.f64_pick("oeq", x, &Self::fconst(&ty, f64::INFINITY), &inf, &r)
    }

    /// The natural logarithm (f64 or a vector of f64).
    pub(crate) fn f64_log(&mut self, x: &Val) -> Val {
        let ty = x.ty.clone();
        let (e, log1p) = self.f64_log_parts(x);
        let lo = self.f64_fma(&e, &Self::f64_k(&ty, LN2_LO), &log1p);
        let r = self.f64_fma(&e, &Self::f64_k(&ty, LN2_HI), &lo);
        self.f64_log_special(x, &r)
    }

    /// The base-2 logarithm (f64 or a vector of f64).
    pub(crate) fn f64_log2(&mut self, x: &Val) -> Val {
        let ty = x.ty.clone();
        let (e, log1p) = self.f64_log_parts(x);
        let r = self.f64_fma(&log1p, &Self::f64_k(&ty, std::f64::consts::LOG2_E), &e);
        self.f64_log_special(x, &r)
    }

    /// sin, cos or tan (f64 or a vector of f64).
    pub(crate) fn f64_trig(&mut self, which: Trig64, x: &Val) -> Val {
        let ty = x.ty.clone();
        let scaled = self.f64_op("fmul", x, &Self::f64_k(&ty, std::f64::consts::FRAC_2_PI));
        let k = self.call_intrinsic("rint", &ty, &[&scaled]);
        let nk = self.defv(&ty, &format!("fneg {}", k.typed()));
        let mut r = self.f64_fma(&nk, &Self::f64_k(&ty, PIO2_1), x);
        r = self.f64_fma(&nk, &Self::f64_k(&ty, PIO2_2), &r);
        r = self.f64_fma(&nk, &Self::f64_k(&ty, PIO2_3), &r);
        // The quadrant: k mod 4, exact for |k| < 2^53.
        let quarter = self.f64_op("fmul", &k, &Self::f64_k(&ty, 0.25));
        let fl = self.call_intrinsic("floor", &ty, &[&quarter]);
        let q = self.f64_fma(&fl, &Self::f64_k(&ty, -4.0), &k);
        let q = self.f64_to_i32(&q);
        let ity = Self::int_like(&ty);
        let q = match which {
            Trig64::Cos => self.def(&format!("add {ity} {q}, {}", Self::ic_like(&ity, 1))),
            _ => q,
        };
        let z = self.f64_op("fmul", &r, &r);
        // sin r = r + r z P(z), P from -1/3! to 1/19!.
        let f = inverse_factorials(20);
        let sin_c: Vec<f64> = (1..=9)
            .map(|n| {
                if n % 2 == 1 {
                    -f[2 * n + 1]
                } else {
                    f[2 * n + 1]
                }
            })
            .collect();
        let p = self.f64_horner(&z, &sin_c);
        let rz = self.f64_op("fmul", &r, &z);
        let s = self.f64_fma(&rz, &p, &r);
        // cos r = 1 - z/2 + z^2 Q(z), Q from 1/4! to 1/20!, with the
        // rounding of 1 - z/2 carried over.
        let cos_c: Vec<f64> = (2..=10)
            .map(|n| if n % 2 == 0 { f[2 * n] } else { -f[2 * n] })
            .collect();
        let qz = self.f64_horner(&z, &cos_c);
        let hz = self.f64_op("fmul", &z, &Self::f64_k(&ty, 0.5));
        let one = Self::f64_k(&ty, 1.0);
        let w = self.f64_op("fsub", &one, &hz);
        let back = self.f64_op("fsub", &one, &w);
        let err = self.f64_op("fsub", &back, &hz);
        let zz = self.f64_op("fmul", &z, &z);
        let tail = self.f64_fma(&zz, &qz, &err);
        let c = self.f64_op("fadd", &w, &tail);
        let odd = self.def(&format!("and {ity} {q}, {}", Self::ic_like(&ity, 1)));
        let odd = self.def(&format!("icmp ne {ity} {odd}, {}", Self::ic_like(&ity, 0)));
        if which == Trig64::Tan {
            // Even quadrants: sin/cos; odd: -cos/sin.
            let t = self.f64_op("fdiv", &s, &c);
            let nc = self.defv(&ty, &format!("fneg {}", c.typed()));
            let u = self.f64_op("fdiv", &nc, &s);
            return self.f64_select(&odd, &u, &t);
        }
        let base = self.f64_select(&odd, &c, &s);
        let neg = self.def(&format!("and {ity} {q}, {}", Self::ic_like(&ity, 2)));
        let neg = self.def(&format!("icmp ne {ity} {neg}, {}", Self::ic_like(&ity, 0)));
        let nb = self.defv(&ty, &format!("fneg {}", base.typed()));
        self.f64_select(&neg, &nb, &base)
    }

    /// An integer constant of `ity` (i32 or a vector of i32).
    fn ic_like(ity: &str, v: i32) -> String {
        super::expr::splat_const(ity, &v.to_string())
    }

    /// The odd series of atan on |t| <= tan(pi/8): t + t z P(z), P from
    /// -1/3 to 1/43 (`atan` does the reduction for f32 and f64 alike).
    pub(crate) fn f64_atan_reduced(&mut self, t: &Val) -> Val {
        let z = self.f64_op("fmul", t, t);
        let coeffs: Vec<f64> = (1..=21)
            .map(|n| {
                let v = 1.0 / f64::from(2 * n + 1);
                if n % 2 == 1 { -v } else { v }
            })
            .collect();
        let p = self.f64_horner(&z, &coeffs);
        let tz = self.f64_op("fmul", t, &z);
        self.f64_fma(&tz, &p, t)
    }
}
