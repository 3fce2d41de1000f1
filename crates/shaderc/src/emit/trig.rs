//! sin, cos and tan with range reduction, for f32 (and f16 through f32;
//! f64 in `f64math`).
//!
//! The hardware's v_sin/v_cos take revolutions and lose accuracy as the
//! argument grows (x/2pi is rounded first, and only a limited range is
//! valid), so WGSL's sin/cos/tan are computed here instead:
//! - k = roundeven(x * 2/pi); r = x - k*pi/2 with pi/2 split into three
//!   f32 parts C1 + C2 + C3 (C1 = pi/2 rounded to f32) and fused
//!   multiply-adds. x - k*C1 is exact (both are multiples of 2^-23 and the
//!   difference is below 2), so r keeps full relative accuracy; the
//!   neglected tail k*(pi/2 - C1 - C2 - C3) is about k * 1e-23.
//! - sin r and cos r on [-pi/4, pi/4] (slightly beyond when k was rounded)
//!   by the minimax polynomials of Cephes' sinf/cosf.
//! - the quadrant k mod 4 picks +-sin r or +-cos r; cos x = sin(x + pi/2)
//!   uses quadrant k + 1; tan = sin/cos of the same r.
//!
//! Bounds, tested against the f64 host on gfxsim over 2048 arguments with
//! 1e-3 <= |x| <= 1e5 and the f32 values nearest multiples of pi/2
//! (crates/shaderc/tests/exec_math.rs): sin and cos within 2 ulp of the
//! result plus 2^-30 absolute (measured 1.25 ulp), tan within 4 ulp
//! (measured 2.2). Accuracy degrades slowly beyond |x| = 1e5 (the
//! neglected tail grows with k). Infinities and NaN give NaN.

use super::func::{FnEmitter, Val};
use super::types::split_vector;

/// pi/2 = C1 + C2 + C3 + ~1.06e-23 (C1 = pi/2 rounded to f32).
const PIO2_1: f64 = 1.570_796_370_506_286_6;
const PIO2_2: f64 = -4.371_138_828_673_793e-8;
const PIO2_3: f64 = -1.715_124_510_005_881_9e-15;
const TWO_OVER_PI: f64 = 0.636_619_746_685_028_1;

/// Which function of the reduced argument to build.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trig {
    Sin,
    Cos,
    Tan,
}

impl FnEmitter<'_> {
    /// sin/cos/tan of a float, half or vector of them.
    pub(crate) fn trig(&mut self, which: Trig, x: &Val) -> Val {
        let (elem, n) = split_vector(&x.ty);
        if elem == "double" {
            let which = match which {
                Trig::Sin => super::f64math::Trig64::Sin,
                Trig::Cos => super::f64math::Trig64::Cos,
                Trig::Tan => super::f64math::Trig64::Tan,
            };
            return self.f64_trig(which, x);
        }
        if elem == "half" {
            let fty = match n {
                Some(n) => format!("<{n} x float>"),
                None => "float".into(),
            };
            let wide = self.defv(&fty, &format!("fpext {} to {fty}", x.typed()));
            let r = self.trig(which, &wide);
            return self.defv(&x.ty, &format!("fptrunc {} to {}", r.typed(), x.ty));
        }
        let ty = x.ty.clone();
        let ity = match n {
            Some(n) => format!("<{n} x i32>"),
            None => "i32".into(),
        };
        let fma = |e: &mut Self, a: &Val, b: &str, c: &Val| {
            let b = Val::new(&ty, b);
            e.call_intrinsic("fma", &ty, &[a, &b, c])
        };
        // Reduction.
        let scaled = self.defv(
            &ty,
            &format!("fmul {ty} {}, {}", x.v, Self::fconst(&ty, TWO_OVER_PI)),
        );
        let k = self.call_intrinsic("roundeven", &ty, &[&scaled]);
        let neg_k = self.defv(&ty, &format!("fneg {}", k.typed()));
        let r = fma(self, &neg_k, &Self::fconst(&ty, PIO2_1), x);
        let r = fma(self, &neg_k, &Self::fconst(&ty, PIO2_2), &r);
        let r = fma(self, &neg_k, &Self::fconst(&ty, PIO2_3), &r);
        // Quadrant (saturating conversion: NaN and infinities give 0, and
        // the result is NaN through r anyway).
        let sat = format!(
            "llvm.fptosi.sat.{}.{}",
            super::types::mangle(&ity),
            super::types::mangle(&ty)
        );
        self.m.declare(format!("declare {ity} @{sat}({ty})"));
        let q = self.def(&format!("call {ity} @{sat}({})", k.typed()));
        // Polynomials on the reduced argument.
        let z = self.defv(&ty, &format!("fmul {ty} {}, {}", r.v, r.v));
        let s = {
            // r + r*z*((s3*z + s2)*z + s1)
            let p = fma(
                self,
                &z,
                &Self::fconst(&ty, -1.951_529_589_1e-4),
                &Val::new(&ty, Self::fconst(&ty, 8.332_160_873_6e-3)),
            );
            let p = fma(
                self,
                &p,
                &z.v,
                &Val::new(&ty, Self::fconst(&ty, -1.666_665_461_1e-1)),
            );
            let rz = self.defv(&ty, &format!("fmul {ty} {}, {}", r.v, z.v));
            fma(self, &rz, &p.v, &r)
        };
        let c = {
            // 1 - z/2 + z*z*((c3*z + c2)*z + c1)
            let p = fma(
                self,
                &z,
                &Self::fconst(&ty, 2.443_315_711_809_948e-5),
                &Val::new(&ty, Self::fconst(&ty, -1.388_731_625_493_765e-3)),
            );
            let p = fma(
                self,
                &p,
                &z.v,
                &Val::new(&ty, Self::fconst(&ty, 4.166_664_568_298_827e-2)),
            );
            let zz = self.defv(&ty, &format!("fmul {ty} {}, {}", z.v, z.v));
            let half = fma(
                self,
                &z,
                &Self::fconst(&ty, -0.5),
                &Val::new(&ty, Self::fconst(&ty, 1.0)),
            );
            fma(self, &zz, &p.v, &half)
        };
        let one = super::expr::splat_const(&ity, "1");
        let two = super::expr::splat_const(&ity, "2");
        let zero = super::expr::splat_const(&ity, "0");
        let cty = super::expr::bool_ty_like(&ity);
        match which {
            Trig::Tan => {
                let odd_bit = self.def(&format!("and {ity} {q}, {one}"));
                let odd = self.def(&format!("icmp ne {ity} {odd_bit}, {zero}"));
                // q even: s/c; q odd: -c/s.
                let num = self.def(&format!("select {cty} {odd}, {ty} {}, {ty} {}", c.v, s.v));
                let den = self.def(&format!("select {cty} {odd}, {ty} {}, {ty} {}", s.v, c.v));
                let t = self.defv(&ty, &format!("fdiv {ty} {num}, {den}"));
                let nt = self.def(&format!("fneg {}", t.typed()));
                self.defv(&ty, &format!("select {cty} {odd}, {ty} {nt}, {ty} {}", t.v))
            }
            Trig::Sin | Trig::Cos => {
                let q = if which == Trig::Cos {
                    self.def(&format!("add {ity} {q}, {one}"))
                } else {
                    q
                };
                let odd_bit = self.def(&format!("and {ity} {q}, {one}"));
                let odd = self.def(&format!("icmp ne {ity} {odd_bit}, {zero}"));
                let neg_bit = self.def(&format!("and {ity} {q}, {two}"));
                let neg = self.def(&format!("icmp ne {ity} {neg_bit}, {zero}"));
                let v = self.def(&format!("select {cty} {odd}, {ty} {}, {ty} {}", c.v, s.v));
                let nv = self.def(&format!("fneg {ty} {v}"));
                self.defv(&ty, &format!("select {cty} {neg}, {ty} {nv}, {ty} {v}"))
            }
        }
    }
}
