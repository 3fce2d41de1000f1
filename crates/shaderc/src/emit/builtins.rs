//! WGSL numeric builtins. There is no device library: each builtin is an
//! LLVM intrinsic (fabs, minnum, fma, floor, roundeven, sqrt, exp2, log2,
//! sin, cos, ctpop, bitreverse, frexp, ldexp, ...) or a short expansion in
//! IR (atan by range reduction and a polynomial, pow = exp2(y*log2 x),
//! extractBits/insertBits with WGSL's offset/count clamping, pack/unpack).

use naga::{Expression, Handle, MathFunction as F, ScalarKind, TypeInner};

use super::consts::{f16_text, f32_text, f64_text};
use super::expr::{bool_ty_like, matrix_shape, splat_const};
use super::func::{FnEmitter, Val};
use super::trig::Trig;
use super::types::split_vector;
use crate::error::{EmitResult, unsupported};

impl FnEmitter<'_> {
    /// A float constant of type `ty` (splatted for vectors).
    pub(crate) fn fconst(ty: &str, x: f64) -> String {
        let (elem, _) = split_vector(ty);
        let text = match elem.as_str() {
            "half" => f16_text(half::f16::from_f64(x).to_bits()),
            "double" => f64_text(x),
            _ => f32_text(x as f32),
        };
        splat_const(ty, &text)
    }

    /// `op ty a, b`.
    fn bin(&mut self, op: &str, a: &Val, b: &str) -> Val {
        self.defv(&a.ty, &format!("{op} {} {}, {b}", a.ty, a.v))
    }

    /// `a op constant`.
    fn binc(&mut self, op: &str, a: &Val, c: f64) -> Val {
        let k = Self::fconst(&a.ty, c);
        self.bin(op, a, &k)
    }

    fn select(&mut self, cond: &str, a: &str, b: &str, ty: &str) -> Val {
        let cty = bool_ty_like(ty);
        self.defv(ty, &format!("select {cty} {cond}, {ty} {a}, {ty} {b}"))
    }

    /// atan(x) (cephes-style: reduce to |x| <= tan(pi/8), odd polynomial).
    fn atan(&mut self, x: &Val) -> Val {
        let ty = x.ty.clone();
        let ax = self.call_intrinsic("fabs", &ty, &[x]);
        let big = self.def(&format!(
            "fcmp ogt {ty} {}, {}",
            ax.v,
            Self::fconst(&ty, 2.414_213_562_373_095)
        ));
        let mid = self.def(&format!(
            "fcmp ogt {ty} {}, {}",
            ax.v,
            Self::fconst(&ty, 0.414_213_562_373_095)
        ));
        // big: -1/|x|, mid: (|x|-1)/(|x|+1)
        let inv = self.defv(
            &ty,
            &format!("fdiv {ty} {}, {}", Self::fconst(&ty, -1.0), ax.v),
        );
        let num = self.binc("fsub", &ax, 1.0);
        let den = self.binc("fadd", &ax, 1.0);
        let red = self.bin("fdiv", &num, &den.v);
        let t1 = self.select(&mid, &red.v, &ax.v, &ty);
        let t = self.select(&big, &inv.v, &t1.v, &ty);
        let y1 = self.select(
            &mid,
            &Self::fconst(&ty, std::f64::consts::FRAC_PI_4),
            &Self::fconst(&ty, 0.0),
            &ty,
        );
        let y0 = self.select(
            &big,
            &Self::fconst(&ty, std::f64::consts::FRAC_PI_2),
            &y1.v,
            &ty,
        );
        if split_vector(&ty).0 == "double" {
            let p = self.f64_atan_reduced(&t);
            let r = self.bin("fadd", &y0, &p.v);
            return self.call_intrinsic("copysign", &ty, &[&r, x]);
        }
        let z = self.bin("fmul", &t, &t.v);
        let mut p = self.binc("fmul", &z, 8.053_744_495_38e-2);
        p = self.binc("fadd", &p, -1.387_768_560_32e-1);
        p = self.bin("fmul", &p, &z.v);
        p = self.binc("fadd", &p, 1.997_771_064_78e-1);
        p = self.bin("fmul", &p, &z.v);
        p = self.binc("fadd", &p, -3.333_294_915_39e-1);
        p = self.bin("fmul", &p, &z.v);
        p = self.bin("fmul", &p, &t.v);
        p = self.bin("fadd", &p, &t.v);
        let r = self.bin("fadd", &y0, &p.v);
        // restore the sign of x
        let neg = self.def(&format!(
            "fcmp olt {ty} {}, {}",
            x.v,
            Self::fconst(&ty, 0.0)
        ));
        let nr = self.defv(&ty, &format!("fneg {ty} {}", r.v));
        self.select(&neg, &nr.v, &r.v, &ty)
    }

    /// e^x: an LLVM intrinsic, in software for f64 (`f64math`).
    fn float_exp(&mut self, x: &Val) -> Val {
        if split_vector(&x.ty).0 == "double" {
            return self.f64_exp(x);
        }
        self.call_intrinsic("exp", &x.ty.clone(), &[x])
    }

    /// 2^x: an LLVM intrinsic, in software for f64 (`f64math`).
    fn float_exp2(&mut self, x: &Val) -> Val {
        if split_vector(&x.ty).0 == "double" {
            return self.f64_exp2(x);
        }
        self.call_intrinsic("exp2", &x.ty.clone(), &[x])
    }

    /// ln x: an LLVM intrinsic, in software for f64 (`f64math`).
    fn float_log(&mut self, x: &Val) -> Val {
        if split_vector(&x.ty).0 == "double" {
            return self.f64_log(x);
        }
        self.call_intrinsic("log", &x.ty.clone(), &[x])
    }

    /// log2 x: an LLVM intrinsic, in software for f64 (`f64math`).
    fn float_log2(&mut self, x: &Val) -> Val {
        if split_vector(&x.ty).0 == "double" {
            return self.f64_log2(x);
        }
        self.call_intrinsic("log2", &x.ty.clone(), &[x])
    }

    /// atan2(y, x) with the quadrant rules.
    fn atan2(&mut self, y: &Val, x: &Val) -> Val {
        let ty = y.ty.clone();
        let q = self.bin("fdiv", y, &x.v);
        let base = self.atan(&q);
        let zero = Self::fconst(&ty, 0.0);
        let pi = Self::fconst(&ty, std::f64::consts::PI);
        let xneg = self.def(&format!("fcmp olt {ty} {}, {zero}", x.v));
        let yneg = self.def(&format!("fcmp olt {ty} {}, {zero}", y.v));
        let plus = self.bin("fadd", &base, &pi);
        let minus = self.bin("fsub", &base, &pi);
        let adj = self.select(&yneg, &minus.v, &plus.v, &ty);
        let r = self.select(&xneg, &adj.v, &base.v, &ty);
        // x == 0: ±pi/2 (or 0 when y == 0)
        let xzero = self.def(&format!("fcmp oeq {ty} {}, {zero}", x.v));
        let yzero = self.def(&format!("fcmp oeq {ty} {}, {zero}", y.v));
        let half_pi = Self::fconst(&ty, std::f64::consts::FRAC_PI_2);
        let neg_half_pi = Self::fconst(&ty, -std::f64::consts::FRAC_PI_2);
        let vert = self.select(&yneg, &neg_half_pi, &half_pi, &ty);
        let vert = self.select(&yzero, &zero, &vert.v, &ty);
        self.select(&xzero, &vert.v, &r.v, &ty)
    }

    fn sqrt(&mut self, x: &Val) -> Val {
        self.call_intrinsic("sqrt", &x.ty.clone(), &[x])
    }

    fn length(&mut self, x: &Val) -> Val {
        match split_vector(&x.ty).1 {
            None => self.call_intrinsic("fabs", &x.ty.clone(), &[x]),
            Some(_) => {
                let d = self.dot(x, x);
                self.sqrt(&d)
            }
        }
    }

    /// Integer constant splatted to `ty`.
    fn ic(ty: &str, v: i64) -> String {
        splat_const(ty, &v.to_string())
    }

    pub(crate) fn math(
        &mut self,
        h: Handle<Expression>,
        fun: F,
        arg: Handle<Expression>,
        arg1: Option<Handle<Expression>>,
        arg2: Option<Handle<Expression>>,
        arg3: Option<Handle<Expression>>,
    ) -> EmitResult<Val> {
        let span = self.span_of(h);
        let a = self.val(arg)?;
        let b = match arg1 {
            Some(x) => Some(self.val(x)?),
            None => None,
        };
        let c = match arg2 {
            Some(x) => Some(self.val(x)?),
            None => None,
        };
        let _ = arg3;
        let inner = self.inner_of(arg).clone();
        let Some(scalar) = FnEmitter::scalar_of(&inner) else {
            return unsupported(format!("{fun:?} on this type"), span);
        };
        let kind = scalar.kind;
        let float = kind == ScalarKind::Float;
        let signed = kind == ScalarKind::Sint;
        let ty = a.ty.clone();
        let rty = self.ty_of(h)?;
        let need = |v: &Option<Val>| -> EmitResult<Val> {
            match v {
                Some(v) => Ok(v.clone()),
                None => unsupported(format!("{fun:?} without its arguments"), span),
            }
        };
        let r = match fun {
            F::Abs if float => self.call_intrinsic("fabs", &ty, &[&a]),
            F::Abs if signed => self.call_intrinsic("abs", &ty, &[&a, &Val::new("i1", "false")]),
            F::Abs => a,
            F::Min | F::Max => {
                let b = need(&b)?;
                let name = match (fun, kind) {
                    (F::Min, ScalarKind::Float) => "minnum",
                    (F::Max, ScalarKind::Float) => "maxnum",
                    (F::Min, ScalarKind::Sint) => "smin",
                    (F::Max, ScalarKind::Sint) => "smax",
                    (F::Min, _) => "umin",
                    _ => "umax",
                };
                self.call_intrinsic(name, &ty, &[&a, &b])
            }
            F::Clamp => {
                let (lo, hi) = (need(&b)?, need(&c)?);
                let (mx, mn) = match kind {
                    ScalarKind::Float => ("maxnum", "minnum"),
                    ScalarKind::Sint => ("smax", "smin"),
                    _ => ("umax", "umin"),
                };
                let t = self.call_intrinsic(mx, &ty, &[&a, &lo]);
                self.call_intrinsic(mn, &ty, &[&t, &hi])
            }
            F::Saturate => {
                let lo = Val::new(&ty, Self::fconst(&ty, 0.0));
                let hi = Val::new(&ty, Self::fconst(&ty, 1.0));
                let t = self.call_intrinsic("maxnum", &ty, &[&a, &lo]);
                self.call_intrinsic("minnum", &ty, &[&t, &hi])
            }
            F::Sin => self.trig(Trig::Sin, &a),
            F::Cos => self.trig(Trig::Cos, &a),
            F::Tan => self.trig(Trig::Tan, &a),
            F::Sinh | F::Cosh => {
                let e = self.float_exp(&a);
                let n = self.defv(&ty, &format!("fneg {ty} {}", a.v));
                let en = self.float_exp(&n);
                let s = if fun == F::Sinh {
                    self.bin("fsub", &e, &en.v)
                } else {
                    self.bin("fadd", &e, &en.v)
                };
                self.binc("fmul", &s, 0.5)
            }
            F::Tanh => {
                let two = self.binc("fmul", &a, 2.0);
                let e = self.float_exp(&two);
                let d = self.binc("fadd", &e, 1.0);
                let q = self.defv(
                    &ty,
                    &format!("fdiv {ty} {}, {}", Self::fconst(&ty, 2.0), d.v),
                );
                self.defv(
                    &ty,
                    &format!("fsub {ty} {}, {}", Self::fconst(&ty, 1.0), q.v),
                )
            }
            F::Atan => self.atan(&a),
            F::Atan2 => {
                let b = need(&b)?;
                self.atan2(&a, &b)
            }
            F::Asin | F::Acos => {
                // sqrt(1 - x^2) as sqrt((1 - |x|)(1 + |x|)): 1 - |x| is exact
                // for |x| >= 1/2, so there is no cancellation near +-1.
                let ax = self.call_intrinsic("fabs", &ty, &[&a]);
                let below = self.defv(
                    &ty,
                    &format!("fsub {ty} {}, {}", Self::fconst(&ty, 1.0), ax.v),
                );
                let above = self.binc("fadd", &ax, 1.0);
                let om = self.bin("fmul", &below, &above.v);
                let root = self.sqrt(&om);
                if fun == F::Asin {
                    self.atan2(&a, &root)
                } else {
                    self.atan2(&root, &a)
                }
            }
            F::Asinh => {
                let ax = self.call_intrinsic("fabs", &ty, &[&a]);
                let sq = self.bin("fmul", &ax, &ax.v);
                let p1 = self.binc("fadd", &sq, 1.0);
                let root = self.sqrt(&p1);
                let s = self.bin("fadd", &ax, &root.v);
                let l = self.float_log(&s);
                self.call_intrinsic("copysign", &ty, &[&l, &a])
            }
            F::Acosh => {
                let sq = self.bin("fmul", &a, &a.v);
                let m1 = self.binc("fsub", &sq, 1.0);
                let root = self.sqrt(&m1);
                let s = self.bin("fadd", &a, &root.v);
                self.float_log(&s)
            }
            F::Atanh => {
                let num = self.binc("fadd", &a, 1.0);
                let den = self.defv(
                    &ty,
                    &format!("fsub {ty} {}, {}", Self::fconst(&ty, 1.0), a.v),
                );
                let q = self.bin("fdiv", &num, &den.v);
                let l = self.float_log(&q);
                self.binc("fmul", &l, 0.5)
            }
            F::Radians => self.binc("fmul", &a, std::f64::consts::PI / 180.0),
            F::Degrees => self.binc("fmul", &a, 180.0 / std::f64::consts::PI),
            F::Ceil => self.call_intrinsic("ceil", &ty, &[&a]),
            F::Floor => self.call_intrinsic("floor", &ty, &[&a]),
            F::Trunc => self.call_intrinsic("trunc", &ty, &[&a]),
            F::Round => self.call_intrinsic("roundeven", &ty, &[&a]),
            F::Fract => {
                let f = self.call_intrinsic("floor", &ty, &[&a]);
                self.bin("fsub", &a, &f.v)
            }
            F::Modf => {
                let whole = self.call_intrinsic("trunc", &ty, &[&a]);
                let fract = self.bin("fsub", &a, &whole.v);
                let s = self.defv(
                    &rty,
                    &format!("insertvalue {rty} poison, {}, 0", fract.typed()),
                );
                self.defv(
                    &rty,
                    &format!("insertvalue {}, {}, 1", s.typed(), whole.typed()),
                )
            }
            F::Frexp => {
                let ity = match split_vector(&ty).1 {
                    Some(n) => format!("<{n} x i32>"),
                    None => "i32".into(),
                };
                let full = format!(
                    "llvm.frexp.{}.{}",
                    super::types::mangle(&ty),
                    super::types::mangle(&ity)
                );
                // LLVM's result is { T, i32 lanes }; naga's exponent is as
                // wide as the float (i16 for f16, i64 for f64), so it is
                // converted into naga's struct.
                let pair = format!("{{ {ty}, {ity} }}");
                self.m.declare(format!("declare {pair} @{full}({ty})"));
                let r = self.defv(&pair, &format!("call {pair} @{full}({})", a.typed()));
                let naga_exp = rty
                    .trim_start_matches('{')
                    .trim_end_matches('}')
                    .rsplit_once(", ")
                    .map(|(_, e)| e.trim().to_string())
                    .unwrap_or_else(|| ity.clone());
                if naga_exp == ity {
                    r
                } else {
                    let cast = match split_vector(&naga_exp).0.as_str() {
                        "i64" => "sext",
                        _ => "trunc",
                    };
                    let fract = self.def(&format!("extractvalue {}, 0", r.typed()));
                    let exp = self.def(&format!("extractvalue {}, 1", r.typed()));
                    let exp = self.def(&format!("{cast} {ity} {exp} to {naga_exp}"));
                    let s = self.defv(&rty, &format!("insertvalue {rty} poison, {ty} {fract}, 0"));
                    self.defv(
                        &rty,
                        &format!("insertvalue {}, {naga_exp} {exp}, 1", s.typed()),
                    )
                }
            }
            F::Ldexp => {
                let b = need(&b)?;
                let full = format!(
                    "llvm.ldexp.{}.{}",
                    super::types::mangle(&ty),
                    super::types::mangle(&b.ty)
                );
                self.m
                    .declare(format!("declare {ty} @{full}({ty}, {})", b.ty));
                self.defv(
                    &ty,
                    &format!("call {ty} @{full}({}, {})", a.typed(), b.typed()),
                )
            }
            F::Exp => self.float_exp(&a),
            F::Exp2 => self.float_exp2(&a),
            F::Log => self.float_log(&a),
            F::Log2 => self.float_log2(&a),
            F::Pow => {
                let b = need(&b)?;
                let l = self.float_log2(&a);
                let m = self.bin("fmul", &b, &l.v);
                self.float_exp2(&m)
            }
            F::Dot => {
                let b = need(&b)?;
                self.dot(&a, &b)
            }
            F::Dot4I8Packed | F::Dot4U8Packed => {
                let b = need(&b)?;
                let mut acc = "0".to_string();
                for i in 0..4 {
                    let ea = self.byte_of(&a, i, fun == F::Dot4I8Packed);
                    let eb = self.byte_of(&b, i, fun == F::Dot4I8Packed);
                    let p = self.def(&format!("mul i32 {ea}, {eb}"));
                    acc = self.def(&format!("add i32 {acc}, {p}"));
                }
                Val::new("i32", acc)
            }
            F::Cross => {
                let b = need(&b)?;
                let sh = |e: &mut Self, v: &Val, m: &str| -> Val {
                    e.defv(
                        &v.ty,
                        &format!(
                            "shufflevector {}, {} poison, <3 x i32> <{m}>",
                            v.typed(),
                            v.ty
                        ),
                    )
                };
                let yzx = "i32 1, i32 2, i32 0";
                let zxy = "i32 2, i32 0, i32 1";
                let a1 = sh(self, &a, yzx);
                let b1 = sh(self, &b, zxy);
                let a2 = sh(self, &a, zxy);
                let b2 = sh(self, &b, yzx);
                let p1 = self.bin("fmul", &a1, &b1.v);
                let p2 = self.bin("fmul", &a2, &b2.v);
                self.bin("fsub", &p1, &p2.v)
            }
            F::Distance => {
                let b = need(&b)?;
                let d = self.bin("fsub", &a, &b.v);
                self.length(&d)
            }
            F::Length => self.length(&a),
            F::Normalize => {
                let l = self.length(&a);
                let n = split_vector(&ty).1.unwrap_or(1);
                let s = self.splat(&l, n);
                self.bin("fdiv", &a, &s.v)
            }
            F::FaceForward => {
                let (b, c) = (need(&b)?, need(&c)?);
                let d = self.dot(&b, &c);
                let (elem, _) = split_vector(&ty);
                let neg = self.def(&format!(
                    "fcmp olt {elem} {}, {}",
                    d.v,
                    Self::fconst(&elem, 0.0)
                ));
                let na = self.defv(&ty, &format!("fneg {ty} {}", a.v));
                self.defv(
                    &ty,
                    &format!("select i1 {neg}, {}, {}", a.typed(), na.typed()),
                )
            }
            F::Reflect => {
                let b = need(&b)?;
                let d = self.dot(&b, &a);
                let d2 = self.binc("fmul", &d, 2.0);
                let n = split_vector(&ty).1.unwrap_or(1);
                let s = self.splat(&d2, n);
                let p = self.bin("fmul", &s, &b.v);
                self.bin("fsub", &a, &p.v)
            }
            F::Refract => {
                let (b, eta) = (need(&b)?, need(&c)?);
                let n = split_vector(&ty).1.unwrap_or(1);
                let d = self.dot(&b, &a);
                let dd = self.bin("fmul", &d, &d.v);
                let om = self.defv(
                    &eta.ty,
                    &format!("fsub {} {}, {}", eta.ty, Self::fconst(&eta.ty, 1.0), dd.v),
                );
                let e2 = self.bin("fmul", &eta, &eta.v);
                let t = self.bin("fmul", &e2, &om.v);
                let k = self.defv(
                    &eta.ty,
                    &format!("fsub {} {}, {}", eta.ty, Self::fconst(&eta.ty, 1.0), t.v),
                );
                let ed = self.bin("fmul", &eta, &d.v);
                let sk = self.sqrt(&k);
                let coef = self.bin("fadd", &ed, &sk.v);
                let es = self.splat(&eta, n);
                let cs = self.splat(&coef, n);
                let p1 = self.bin("fmul", &es, &a.v);
                let p2 = self.bin("fmul", &cs, &b.v);
                let res = self.bin("fsub", &p1, &p2.v);
                let neg = self.def(&format!(
                    "fcmp olt {} {}, {}",
                    eta.ty,
                    k.v,
                    Self::fconst(&eta.ty, 0.0)
                ));
                self.defv(
                    &ty,
                    &format!("select i1 {neg}, {ty} zeroinitializer, {}", res.typed()),
                )
            }
            F::Sign if float => {
                let zero = Self::fconst(&ty, 0.0);
                let pos = self.def(&format!("fcmp ogt {ty} {}, {zero}", a.v));
                let neg = self.def(&format!("fcmp olt {ty} {}, {zero}", a.v));
                let t = self.select(&neg, &Self::fconst(&ty, -1.0), &zero, &ty);
                self.select(&pos, &Self::fconst(&ty, 1.0), &t.v, &ty)
            }
            F::Sign => {
                let one = Val::new(&ty, Self::ic(&ty, 1));
                let m1 = Val::new(&ty, Self::ic(&ty, -1));
                let t = self.call_intrinsic("smin", &ty, &[&a, &one]);
                self.call_intrinsic("smax", &ty, &[&t, &m1])
            }
            F::Fma => {
                let (b, c) = (need(&b)?, need(&c)?);
                self.call_intrinsic("fma", &ty, &[&a, &b, &c])
            }
            F::Mix => {
                let (b, c) = (need(&b)?, need(&c)?);
                let c = self.splat_like(c, &ty);
                let om = self.defv(
                    &ty,
                    &format!("fsub {ty} {}, {}", Self::fconst(&ty, 1.0), c.v),
                );
                let p1 = self.bin("fmul", &a, &om.v);
                let p2 = self.bin("fmul", &b, &c.v);
                self.bin("fadd", &p1, &p2.v)
            }
            F::Step => {
                let b = need(&b)?;
                let a = self.splat_like(a, &b.ty);
                let le = self.def(&format!("fcmp ole {} {}, {}", b.ty, a.v, b.v));
                self.select(
                    &le,
                    &Self::fconst(&b.ty, 1.0),
                    &Self::fconst(&b.ty, 0.0),
                    &b.ty,
                )
            }
            F::SmoothStep => {
                let (b, x) = (need(&b)?, need(&c)?);
                let a = self.splat_like(a, &x.ty);
                let b = self.splat_like(b, &x.ty);
                let num = self.bin("fsub", &x, &a.v);
                let den = self.bin("fsub", &b, &a.v);
                let q = self.bin("fdiv", &num, &den.v);
                let lo = Val::new(&x.ty, Self::fconst(&x.ty, 0.0));
                let hi = Val::new(&x.ty, Self::fconst(&x.ty, 1.0));
                let t = self.call_intrinsic("maxnum", &x.ty, &[&q, &lo]);
                let t = self.call_intrinsic("minnum", &x.ty, &[&t, &hi]);
                let two_t = self.binc("fmul", &t, 2.0);
                let k = self.defv(
                    &x.ty,
                    &format!("fsub {} {}, {}", x.ty, Self::fconst(&x.ty, 3.0), two_t.v),
                );
                let tt = self.bin("fmul", &t, &t.v);
                self.bin("fmul", &tt, &k.v)
            }
            F::Sqrt => self.sqrt(&a),
            F::InverseSqrt => {
                let s = self.sqrt(&a);
                self.defv(
                    &ty,
                    &format!("fdiv {ty} {}, {}", Self::fconst(&ty, 1.0), s.v),
                )
            }
            F::Transpose => {
                let (cols, col_ty) = matrix_shape(&ty);
                let rows = split_vector(&col_ty).1.unwrap_or(1);
                let (_, out_col_ty) = matrix_shape(&rty);
                let mut acc = Val::new(&rty, "poison");
                for r in 0..rows {
                    let mut col = Val::new(&out_col_ty, "poison");
                    for cc in 0..cols {
                        let colv = self.def(&format!("extractvalue {}, {cc}", a.typed()));
                        let x = self.def(&format!("extractelement {col_ty} {colv}, i32 {r}"));
                        col = self.defv(
                            &out_col_ty,
                            &format!(
                                "insertelement {}, {} {x}, i32 {cc}",
                                col.typed(),
                                split_vector(&out_col_ty).0
                            ),
                        );
                    }
                    acc = self.defv(
                        &rty,
                        &format!("insertvalue {}, {}, {r}", acc.typed(), col.typed()),
                    );
                }
                acc
            }
            F::Determinant => {
                let (n, col_ty) = matrix_shape(&ty);
                let (elem, _) = split_vector(&col_ty);
                // m[c][r]
                let mut m = Vec::new();
                for cc in 0..n {
                    let colv = self.def(&format!("extractvalue {}, {cc}", a.typed()));
                    let mut col = Vec::new();
                    for r in 0..n {
                        col.push(self.def(&format!("extractelement {col_ty} {colv}, i32 {r}")));
                    }
                    m.push(col);
                }
                let d = self.det(&elem, &m);
                Val::new(elem, d)
            }
            F::QuantizeToF16 => {
                let hty = match split_vector(&ty).1 {
                    Some(n) => format!("<{n} x half>"),
                    None => "half".into(),
                };
                let t = self.def(&format!("fptrunc {} to {hty}", a.typed()));
                self.defv(&ty, &format!("fpext {hty} {t} to {ty}"))
            }
            F::CountTrailingZeros => {
                self.call_intrinsic("cttz", &ty, &[&a, &Val::new("i1", "false")])
            }
            F::CountLeadingZeros => {
                self.call_intrinsic("ctlz", &ty, &[&a, &Val::new("i1", "false")])
            }
            F::CountOneBits => self.call_intrinsic("ctpop", &ty, &[&a]),
            F::ReverseBits => self.call_intrinsic("bitreverse", &ty, &[&a]),
            F::FirstTrailingBit => {
                let tz = self.call_intrinsic("cttz", &ty, &[&a, &Val::new("i1", "false")]);
                let z = self.def(&format!("icmp eq {ty} {}, zeroinitializer", a.v));
                self.select(&z, &Self::ic(&ty, -1), &tz.v, &ty)
            }
            F::FirstLeadingBit => {
                let bits = i64::from(scalar.width) * 8;
                let v = if signed {
                    let neg = self.def(&format!("icmp slt {ty} {}, zeroinitializer", a.v));
                    let inv = self.def(&format!("xor {ty} {}, {}", a.v, Self::ic(&ty, -1)));
                    self.select(&neg, &inv, &a.v, &ty)
                } else {
                    a.clone()
                };
                let lz = self.call_intrinsic("ctlz", &ty, &[&v, &Val::new("i1", "false")]);
                let idx = self.defv(
                    &ty,
                    &format!("sub {ty} {}, {}", Self::ic(&ty, bits - 1), lz.v),
                );
                let z = self.def(&format!("icmp eq {ty} {}, zeroinitializer", v.v));
                self.select(&z, &Self::ic(&ty, -1), &idx.v, &ty)
            }
            F::ExtractBits => self.extract_bits(&a, &need(&b)?, &need(&c)?, signed, scalar.width),
            F::InsertBits => {
                let d = match arg3 {
                    Some(x) => self.val(x)?,
                    None => return unsupported("insertBits without its count", span),
                };
                self.insert_bits(&a, &need(&b)?, &need(&c)?, &d, scalar.width)
            }
            F::Pack4x8snorm | F::Pack4x8unorm | F::Pack2x16snorm | F::Pack2x16unorm => {
                let (n, scale, lo): (u32, f64, f64) = match fun {
                    F::Pack4x8snorm => (4, 127.0, -1.0),
                    F::Pack4x8unorm => (4, 255.0, 0.0),
                    F::Pack2x16snorm => (2, 32767.0, -1.0),
                    _ => (2, 65535.0, 0.0),
                };
                let bits = 32 / n;
                let lo_v = Val::new(&ty, Self::fconst(&ty, lo));
                let hi_v = Val::new(&ty, Self::fconst(&ty, 1.0));
                let t = self.call_intrinsic("maxnum", &ty, &[&a, &lo_v]);
                let t = self.call_intrinsic("minnum", &ty, &[&t, &hi_v]);
                let t = self.binc("fmul", &t, scale);
                let t = self.binc("fadd", &t, 0.5);
                let t = self.call_intrinsic("floor", &ty, &[&t]);
                let ity = format!("<{n} x i32>");
                let iv = self.def(&format!("fptosi {} to {ity}", t.typed()));
                let mask = (1i64 << bits) - 1;
                self.pack_lanes(&ity, &iv, n, bits, mask)
            }
            F::Pack2x16float => {
                let hv = self.def(&format!("fptrunc {} to <2 x half>", a.typed()));
                self.defv("i32", &format!("bitcast <2 x half> {hv} to i32"))
            }
            F::Pack4xI8 | F::Pack4xU8 => self.pack_lanes(&ty, &a.v, 4, 8, 0xff),
            F::Pack4xI8Clamp | F::Pack4xU8Clamp => {
                let (lo, hi, mn, mx) = if fun == F::Pack4xI8Clamp {
                    (-128, 127, "smin", "smax")
                } else {
                    (0, 255, "umin", "umax")
                };
                let lo_v = Val::new(&ty, Self::ic(&ty, lo));
                let hi_v = Val::new(&ty, Self::ic(&ty, hi));
                let t = self.call_intrinsic(mx, &ty, &[&a, &lo_v]);
                let t = self.call_intrinsic(mn, &ty, &[&t, &hi_v]);
                self.pack_lanes(&ty, &t.v, 4, 8, 0xff)
            }
            F::Unpack4x8snorm | F::Unpack4x8unorm | F::Unpack2x16snorm | F::Unpack2x16unorm => {
                let (n, scale, signed_lanes): (u32, f64, bool) = match fun {
                    F::Unpack4x8snorm => (4, 127.0, true),
                    F::Unpack4x8unorm => (4, 255.0, false),
                    F::Unpack2x16snorm => (2, 32767.0, true),
                    _ => (2, 65535.0, false),
                };
                let ity = format!("<{n} x i32>");
                let lanes = self.unpack_lanes(&a.v, n, signed_lanes);
                let conv = if signed_lanes { "sitofp" } else { "uitofp" };
                let f = self.defv(&rty, &format!("{conv} {ity} {lanes} to {rty}"));
                let q = self.binc("fdiv", &f, scale);
                if signed_lanes {
                    let lo = Val::new(&rty, Self::fconst(&rty, -1.0));
                    self.call_intrinsic("maxnum", &rty, &[&q, &lo])
                } else {
                    q
                }
            }
            F::Unpack2x16float => {
                let hv = self.def(&format!("bitcast i32 {} to <2 x half>", a.v));
                self.defv(&rty, &format!("fpext <2 x half> {hv} to {rty}"))
            }
            F::Unpack4xI8 | F::Unpack4xU8 => {
                let lanes = self.unpack_lanes(&a.v, 4, fun == F::Unpack4xI8);
                Val::new(&rty, lanes)
            }
            other => return unsupported(format!("the builtin {other:?}"), span),
        };
        if matches!(inner, TypeInner::Scalar(_) | TypeInner::Vector { .. }) && r.ty != rty {
            return unsupported(
                format!("internal: {fun:?} produced {} instead of {rty}", r.ty),
                span,
            );
        }
        Ok(r)
    }

    /// Byte `i` of an i32 value, sign- or zero-extended.
    fn byte_of(&mut self, v: &Val, i: u32, signed: bool) -> String {
        if signed {
            let s = self.def(&format!("shl i32 {}, {}", v.v, 24 - 8 * i));
            self.def(&format!("ashr i32 {s}, 24"))
        } else {
            let s = self.def(&format!("lshr i32 {}, {}", v.v, 8 * i));
            self.def(&format!("and i32 {s}, 255"))
        }
    }

    /// OR together `(lane[i] & mask) << (i * bits)` of an `<n x i32>`.
    fn pack_lanes(&mut self, ity: &str, v: &str, n: u32, bits: u32, mask: i64) -> Val {
        let mut acc = "0".to_string();
        for i in 0..n {
            let e = self.def(&format!("extractelement {ity} {v}, i32 {i}"));
            let m = self.def(&format!("and i32 {e}, {mask}"));
            let s = self.def(&format!("shl i32 {m}, {}", i * bits));
            acc = self.def(&format!("or i32 {acc}, {s}"));
        }
        Val::new("i32", acc)
    }

    /// Split an i32 into `n` lanes of `32/n` bits (sign- or zero-extended).
    fn unpack_lanes(&mut self, v: &str, n: u32, signed: bool) -> String {
        let bits = 32 / n;
        let ity = format!("<{n} x i32>");
        let mut acc = "poison".to_string();
        for i in 0..n {
            let lane = if signed {
                let s = self.def(&format!("shl i32 {v}, {}", 32 - bits * (i + 1)));
                self.def(&format!("ashr i32 {s}, {}", 32 - bits))
            } else {
                let s = self.def(&format!("lshr i32 {v}, {}", bits * i));
                self.def(&format!("and i32 {s}, {}", (1u64 << bits) - 1))
            };
            acc = self.def(&format!("insertelement {ity} {acc}, i32 {lane}, i32 {i}"));
        }
        acc
    }

    /// extractBits(e, offset, count) with o = min(offset, w), c = min(count, w - o).
    fn extract_bits(&mut self, e: &Val, offset: &Val, count: &Val, signed: bool, width: u8) -> Val {
        let ty = e.ty.clone();
        let w = i64::from(width) * 8;
        let (o, c) = self.clamp_bit_range(offset, count, w);
        let (o, c) = self.widen_bit_range(o, c, width);
        let o = self.splat_like(o, &ty);
        let c = self.splat_like(c, &ty);
        let czero = self.def(&format!("icmp eq {ty} {}, zeroinitializer", c.v));
        // shift left so the field's top bit is the word's top bit, then shift
        // right by w - c (sign or zero filling). Amounts stay below w when c > 0.
        let wmoc = self.def(&format!("sub {ty} {}, {}", Self::ic(&ty, w), o.v));
        let up = self.def(&format!("sub {ty} {wmoc}, {}", c.v));
        let up_m = self.def(&format!("and {ty} {up}, {}", Self::ic(&ty, w - 1)));
        let shl = self.def(&format!("shl {ty} {}, {up_m}", e.v));
        let down = self.def(&format!("sub {ty} {}, {}", Self::ic(&ty, w), c.v));
        let down_m = self.def(&format!("and {ty} {down}, {}", Self::ic(&ty, w - 1)));
        let op = if signed { "ashr" } else { "lshr" };
        let r = self.def(&format!("{op} {ty} {shl}, {down_m}"));
        self.select(&czero, "zeroinitializer", &r, &ty)
    }

    /// insertBits(e, newbits, offset, count).
    fn insert_bits(&mut self, e: &Val, newbits: &Val, offset: &Val, count: &Val, width: u8) -> Val {
        let ty = e.ty.clone();
        let w = i64::from(width) * 8;
        let (o, c) = self.clamp_bit_range(offset, count, w);
        let (o, c) = self.widen_bit_range(o, c, width);
        let o = self.splat_like(o, &ty);
        let c = self.splat_like(c, &ty);
        // mask = (c == w) ? ~0 : ((1 << c) - 1); then << o (masked amounts)
        let cm = self.def(&format!("and {ty} {}, {}", c.v, Self::ic(&ty, w - 1)));
        let one_shl = self.def(&format!("shl {ty} {}, {cm}", Self::ic(&ty, 1)));
        let low = self.def(&format!("sub {ty} {one_shl}, {}", Self::ic(&ty, 1)));
        let full = self.def(&format!("icmp eq {ty} {}, {}", c.v, Self::ic(&ty, w)));
        let low = self.select(&full, &Self::ic(&ty, -1), &low, &ty);
        let om = self.def(&format!("and {ty} {}, {}", o.v, Self::ic(&ty, w - 1)));
        let mask = self.def(&format!("shl {ty} {}, {om}", low.v));
        let czero = self.def(&format!("icmp eq {ty} {}, zeroinitializer", c.v));
        let mask = self.select(&czero, "zeroinitializer", &mask, &ty);
        let nb = self.def(&format!("shl {ty} {}, {om}", newbits.v));
        let nbm = self.def(&format!("and {ty} {nb}, {}", mask.v));
        let inv = self.def(&format!("xor {ty} {}, {}", mask.v, Self::ic(&ty, -1)));
        let keep = self.def(&format!("and {ty} {}, {inv}", e.v));
        self.defv(&ty, &format!("or {ty} {keep}, {nbm}"))
    }

    /// The clamped i32 offset and count as values of the element width
    /// (zero-extended for 64-bit elements).
    fn widen_bit_range(&mut self, o: String, c: String, width: u8) -> (Val, Val) {
        if width == 8 {
            let o = self.defv("i64", &format!("zext i32 {o} to i64"));
            let c = self.defv("i64", &format!("zext i32 {c} to i64"));
            (o, c)
        } else {
            (Val::new("i32", o), Val::new("i32", c))
        }
    }

    /// (min(offset, w), min(count, w - o)) as i32 texts.
    fn clamp_bit_range(&mut self, offset: &Val, count: &Val, w: i64) -> (String, String) {
        self.m
            .declare("declare i32 @llvm.umin.i32(i32, i32)".into());
        let o = self.def(&format!(
            "call i32 @llvm.umin.i32({}, i32 {w})",
            offset.typed()
        ));
        let room = self.def(&format!("sub i32 {w}, {o}"));
        let c = self.def(&format!(
            "call i32 @llvm.umin.i32({}, i32 {room})",
            count.typed()
        ));
        (o, c)
    }

    /// Determinant by cofactor expansion along the first column (n <= 4).
    fn det(&mut self, elem: &str, m: &[Vec<String>]) -> String {
        let n = m.len();
        if n == 1 {
            return m[0][0].clone();
        }
        if n == 2 {
            let ad = self.def(&format!("fmul {elem} {}, {}", m[0][0], m[1][1]));
            let bc = self.def(&format!("fmul {elem} {}, {}", m[1][0], m[0][1]));
            return self.def(&format!("fsub {elem} {ad}, {bc}"));
        }
        let mut acc: Option<String> = None;
        for r in 0..n {
            // minor without column 0 and row r
            let minor: Vec<Vec<String>> = m[1..]
                .iter()
                .map(|col| {
                    col.iter()
                        .enumerate()
                        .filter(|(i, _)| *i != r)
                        .map(|(_, x)| x.clone())
                        .collect()
                })
                .collect();
            let d = self.det(elem, &minor);
            let t = self.def(&format!("fmul {elem} {}, {d}", m[0][r]));
            acc = Some(match acc {
                None => t,
                Some(a) if r % 2 == 1 => self.def(&format!("fsub {elem} {a}, {t}")),
                Some(a) => self.def(&format!("fadd {elem} {a}, {t}")),
            });
        }
        acc.unwrap_or_else(|| "0.0".into())
    }
}
