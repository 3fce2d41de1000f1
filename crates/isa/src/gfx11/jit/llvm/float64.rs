//! f64 arithmetic inline (valu/fast_f64.rs `Fast::F64`): v_fma, v_fmac,
//! v_mul and v_add_f64, v_rcp, v_rsq and v_sqrt_f64, v_ldexp_f64 and the
//! f32 <-> f64 conversions; and the f64 compares (`Fast::Fcmp` of kind
//! F64). The division helpers, v_max/v_min_f64 and the f64 class test stay
//! call-outs.
//!
//! Why: a block of f64 math (an FMA chain, a Newton step) had every f64
//! entry called out, so no such block paid for its translation.
//!
//! Exactness: each op is the IEEE operation the interpreter performs
//! (valu/mod.rs `fma_lanes64`, `mul64`, `add64`, `rcp64` as 1 / a, `rsq64`
//! as 1 / sqrt(a), `f64::sqrt`, `ldexp64` as its chain of exact
//! power-of-two multiplies, Rust's `as` conversions, rounding to nearest
//! even), then the NaN the host gives, made explicit per lane so it does
//! not depend on LLVM's NaN choices: the first NaN source quieted, else x86's
//! default NaN 0xFFF8_0000_0000_0000 (Intel SDM vol. 1, 4.8.3.7), which is
//! also what the host's divide and square root give (1 / a and sqrt(a) of
//! a NaN a return it quieted; sqrt of a negative gives the default NaN). A
//! conversion of a NaN keeps its sign and payload, quieted, as x86's
//! CVTSS2SD and CVTSD2SS do (Intel SDM vol. 1, 4.8.3.5). Sources read as
//! fast_f64.rs `f64s` does: a VGPR pair (the high row wrapping at v255), an
//! SGPR pair (no s128: 0), a constant in one dword; abs clears and neg then
//! flips bit 63.

use super::emit::{D, Fx, M, V, real_sgpr, splat};
use super::footprint::Footprint;
use super::lanes::FCMP_PREDICATES;
use super::wide::Q;
use crate::gfx11::exec::valu::fast_f64::{F64, F64Op, S64};
use crate::gfx11::exec::valu::fast_vcmp::Fcmp;
use crate::gfx11::wave::{EXEC, VCC};

/// The f64 quiet bit.
const QUIET64: u64 = 0x0008_0000_0000_0000;
/// x86's default f64 NaN.
const DEFAULT_NAN64: u64 = 0xFFF8_0000_0000_0000;

/// An i64 constant in every lane.
fn splat64(v: u64) -> String {
    format!("splat (i64 {})", v as i64)
}

/// What [`Fx::div_scale_rule64`] gives: each lane's result (bits), the
/// lanes whose flag it sets, and the lanes on the edge it leaves to the
/// interpreter.
struct ScaleRule {
    value: String,
    flag: String,
    edge: String,
}

impl Fx {
    /// Source `s` (source `k` of modifiers `mods`: abs in bit k, neg in bit
    /// 4 + k) as 64 bits per lane.
    pub(super) fn bits64(&mut self, s: S64, mods: u8, k: usize) -> String {
        let (lo, hi) = match s {
            S64::Vgpr(r) => (self.row(r), self.row(r.wrapping_add(1))),
            S64::Sgpr(r) => {
                let lo = self.sgpr(r);
                let lo = self.splat_value(&lo);
                let hi = if r < 127 {
                    let h = self.sgpr(r + 1);
                    self.splat_value(&h)
                } else {
                    splat(0)
                };
                (lo, hi)
            }
            S64::Hi(v) => (splat(0), splat(v)),
            S64::Lo(v) => (splat(v), splat(0)),
        };
        let mut x = self.join64(&lo, &hi);
        if mods >> k & 1 != 0 {
            x = self.ins(format!("and {Q} {x}, {}", splat64(!(1 << 63))));
        }
        if mods >> (4 + k) & 1 != 0 {
            x = self.ins(format!("xor {Q} {x}, {}", splat64(1 << 63)));
        }
        x
    }

    /// A 32-bit source in an S64 slot, raw (fast_f64.rs `u32s`).
    fn bits32(&mut self, s: S64) -> String {
        match s {
            S64::Vgpr(r) => self.row(r),
            S64::Sgpr(r) => {
                let v = self.sgpr(r);
                self.splat_value(&v)
            }
            S64::Hi(v) | S64::Lo(v) => splat(v),
        }
    }

    fn dbl(&mut self, bits: &str) -> String {
        self.ins(format!("bitcast {Q} {bits} to {D}"))
    }

    /// `bits` as f64 lanes with the lanes outside EXEC zero, for an
    /// arithmetic source: an inactive lane's stale bits are often a
    /// denormal (a small integer in the low dword), and each x86 vector op
    /// with a denormal operand or result takes a microcode assist of some
    /// hundred cycles, so a one-lane wave paid for 31 garbage lanes. Zero
    /// makes no NaN either, so the NaN rule's test sees only active lanes.
    fn active_dbl(&mut self, bits: &str) -> String {
        let d = self.dbl(bits);
        self.zero_inactive(D, &d)
    }

    fn bits_of(&mut self, d: &str) -> String {
        self.ins(format!("bitcast {D} {d} to {Q}"))
    }

    /// Is each lane of `bits` (as an f64) a NaN?
    fn is_nan64(&mut self, bits: &str) -> String {
        let abs = self.ins(format!("and {Q} {bits}, {}", splat64(!(1 << 63))));
        self.ins(format!(
            "icmp ugt {Q} {abs}, {}",
            splat64(0x7FF0_0000_0000_0000)
        ))
    }

    /// The host's NaN on result `r` (a `D`) of sources `srcs` (their bits):
    /// a NaN lane becomes the first NaN source quieted, or the default NaN.
    /// Returns the result's bits. NaN results are rare: one test of the
    /// whole result, and the per-source selects only on a wave that
    /// produced one (as lanes.rs `nan_rule` does for f32).
    fn nan_rule64(&mut self, srcs: &[&str], r: &str) -> String {
        let r = self.bits_of(r);
        let bad = self.is_nan64(&r);
        self.rarely(&bad, Q, &r, |fx| {
            let mut pick = splat64(DEFAULT_NAN64);
            for s in srcs.iter().rev() {
                let nan = fx.is_nan64(s);
                let q = fx.ins(format!("or {Q} {s}, {}", splat64(QUIET64)));
                pick = fx.ins(format!("select {M} {nan}, {Q} {q}, {Q} {pick}"));
            }
            fx.ins(format!("select {M} {bad}, {Q} {pick}, {Q} {r}"))
        })
    }

    /// Emit f64 form `f` inline; false (nothing emitted) for the forms that
    /// stay call-outs.
    pub(super) fn float64(&mut self, f: &F64) -> bool {
        let arity = match f.op {
            F64Op::Fma => 3,
            F64Op::Mul | F64Op::Add => 2,
            F64Op::Rcp | F64Op::Rsq | F64Op::Sqrt => 1,
            F64Op::Ldexp => return self.ldexp64(f),
            F64Op::CvtF64F32 => return self.cvt_f64_f32(f),
            F64Op::CvtF32F64 => return self.cvt_f32_f64(f),
            F64Op::Max | F64Op::Min | F64Op::DivFmas | F64Op::DivFixup | F64Op::DivScale => {
                return false;
            }
        };
        let s: Vec<String> = (0..arity)
            .map(|k| self.bits64(f.src[k], f.mods, k))
            .collect();
        let d: Vec<String> = s.iter().map(|b| self.active_dbl(b)).collect();
        let r = match f.op {
            F64Op::Fma => self.ins(format!(
                "call {D} @llvm.fma.v32f64({D} {}, {D} {}, {D} {})",
                d[0], d[1], d[2]
            )),
            F64Op::Mul => self.ins(format!("fmul {D} {}, {}", d[0], d[1])),
            F64Op::Add => self.ins(format!("fadd {D} {}, {}", d[0], d[1])),
            F64Op::Sqrt => self.ins(format!("call {D} @llvm.sqrt.v32f64({D} {})", d[0])),
            F64Op::Rcp => self.ins(format!("fdiv {D} splat (double 1.0), {}", d[0])),
            _ => {
                let root = self.ins(format!("call {D} @llvm.sqrt.v32f64({D} {})", d[0]));
                self.ins(format!("fdiv {D} splat (double 1.0), {root}"))
            }
        };
        let srcs: Vec<&str> = s.iter().map(String::as_str).collect();
        let bits = self.nan_rule64(&srcs, &r);
        self.set_rows64(f.dst, &bits);
        true
    }

    /// Does a lane of EXEC have `ok` (a mask) false?
    fn any_active_not(&mut self, ok: &str) -> String {
        let exec = self.exec_mask();
        let bad = self.ins(format!("xor {M} {ok}, splat (i1 true)"));
        let bad = self.ins(format!("and {M} {bad}, {exec}"));
        let bits = self.ins(format!("bitcast {M} {bad} to i32"));
        self.ins(format!("icmp ne i32 {bits}, 0"))
    }

    /// The f64 division helpers (wave32; fast_f64.rs `run`): each wave
    /// whose active lanes are all in the common case the interpreter
    /// tests for first runs that case inline, any other wave the entry's
    /// call-out (`Fx::inline_unless`), where the interpreter applies the
    /// per-lane rule (valu/mod.rs `div_scale64`, `div_fixup64`, `ldexp64`).
    /// - v_div_scale: the exponent fields of s1 and s2 in
    ///   `div_scale_plain`'s ranges: s0, and the flag mask 0; a wave with
    ///   other lanes takes the whole rule for them on a side path
    ///   (`div_scale_rule64`), and calls out only for a lane whose
    ///   quotient sits at 2^-1022 (where the interpreter takes a log2);
    /// - v_div_fmas: no lane of EXEC with VCC set: the fused result;
    /// - v_div_fixup: num and den finite and non-zero and q not a NaN
    ///   (`div_fixup_plain`): q with the sign of num * den.
    ///
    /// False (a call-out) for v_div_scale writing EXEC.
    pub(super) fn division64(&mut self, f: &F64, at: (u32, u32, &Footprint)) -> bool {
        let pair = [f.dst, f.dst + 1];
        match f.op {
            F64Op::DivScale => {
                if f.sdst as usize == EXEC {
                    return false;
                }
                // The flag mask's register, unless it goes nowhere (null:
                // `set_sgpr` drops it, as `Wave::set_lane_mask` does).
                let flag_to: &[u8] = if real_sgpr(f.sdst) { &[f.sdst] } else { &[] };
                let x = self.bits64(f.src[0], f.mods, 0);
                // The exponent fields (the sign modifiers leave them).
                let field = |fx: &mut Self, k: usize| {
                    let b = fx.bits64(f.src[k], f.mods, k);
                    let e = fx.ins(format!("lshr {Q} {b}, {}", splat64(52)));
                    let e = fx.ins(format!("trunc {Q} {e} to {V}"));
                    fx.ins(format!("and {V} {e}, {}", splat(0x7FF)))
                };
                let (x1, x2) = (field(self, 1), field(self, 2));
                // x1 in 1..=2044, x2 in 54..=2046, x2 - x1 in -1021..768.
                let in_range = |fx: &mut Self, v: &str, low: i32, count: u32| {
                    let t = fx.ins(format!("sub {V} {v}, {}", splat(low as u32)));
                    fx.ins(format!("icmp ult {V} {t}, {}", splat(count)))
                };
                let ok1 = in_range(self, &x1, 1, 2044);
                let ok2 = in_range(self, &x2, 54, 1993);
                let gap = self.ins(format!("sub {V} {x2}, {x1}"));
                let ok3 = in_range(self, &gap, -1021, 1789);
                let ok = self.ins(format!("and {M} {ok1}, {ok2}"));
                let ok = self.ins(format!("and {M} {ok}, {ok3}"));
                // Lanes of EXEC outside the common case take the whole rule
                // (`div_scale_rule`) on a side path; a wave with a lane on its
                // one undecided edge calls out.
                let exec = self.exec_mask();
                let other = self.ins(format!("xor {M} {ok}, splat (i1 true)"));
                let other = self.ins(format!("and {M} {other}, {exec}"));
                let (y, z) = (
                    self.bits64(f.src[1], f.mods, 1),
                    self.bits64(f.src[2], f.mods, 2),
                );
                let srcs = [x.as_str(), y.as_str(), z.as_str()];
                let rare = self.rarely(&other, "i1", "false", |fx| {
                    let rule = fx.div_scale_rule64(srcs, &x1, &x2);
                    let edge = fx.ins(format!("and {M} {}, {other}", rule.edge));
                    let bits = fx.ins(format!("bitcast {M} {edge} to i32"));
                    fx.ins(format!("icmp ne i32 {bits}, 0"))
                });
                let bits = self.ins(format!("bitcast {M} {other} to i32"));
                let any_other = self.ins(format!("icmp ne i32 {bits}, 0"));
                self.inline_unless(&rare, at, &pair, flag_to, |fx| {
                    let kept = [(Q, x.clone()), ("i32", "0".to_owned())];
                    let got = fx.unlikely(&any_other, &kept, |fx| {
                        let rule = fx.div_scale_rule64(srcs, &x1, &x2);
                        let r = fx.ins(format!("select {M} {ok}, {Q} {x}, {Q} {}", rule.value));
                        let flag = fx.ins(format!("and {M} {}, {other}", rule.flag));
                        vec![r, fx.ins(format!("bitcast {M} {flag} to i32"))]
                    });
                    fx.set_rows64(f.dst, &got[0]);
                    fx.set_sgpr(f.sdst, got[1].clone());
                });
            }
            F64Op::DivFmas => {
                let vcc = self.sgpr(VCC as u8);
                let exec = self.sgpr(EXEC as u8);
                let on = self.ins(format!("and i32 {vcc}, {exec}"));
                let rare = self.ins(format!("icmp ne i32 {on}, 0"));
                let fma = F64 {
                    op: F64Op::Fma,
                    ..*f
                };
                self.inline_unless(&rare, at, &pair, &[], |fx| {
                    fx.float64(&fma);
                });
            }
            _ => {
                let s: Vec<String> = (0..3).map(|k| self.bits64(f.src[k], f.mods, k)).collect();
                let (q, den, num) = (&s[0], &s[1], &s[2]);
                let abs = |fx: &mut Self, v: &str| {
                    fx.ins(format!("and {Q} {v}, {}", splat64(!(1 << 63))))
                };
                let finite = |fx: &mut Self, v: &str| {
                    let a = abs(fx, v);
                    let nonzero = fx.ins(format!("icmp ne {Q} {a}, zeroinitializer"));
                    let below = fx.ins(format!(
                        "icmp ult {Q} {a}, {}",
                        splat64(0x7FF0_0000_0000_0000)
                    ));
                    fx.ins(format!("and {M} {nonzero}, {below}"))
                };
                let (ok_num, ok_den) = (finite(self, num), finite(self, den));
                let q_abs = abs(self, q);
                let ok_q = self.ins(format!(
                    "icmp ule {Q} {q_abs}, {}",
                    splat64(0x7FF0_0000_0000_0000)
                ));
                let ok = self.ins(format!("and {M} {ok_num}, {ok_den}"));
                let ok = self.ins(format!("and {M} {ok}, {ok_q}"));
                let rare = self.any_active_not(&ok);
                let sign = self.ins(format!("xor {Q} {num}, {den}"));
                let sign = self.ins(format!("and {Q} {sign}, {}", splat64(1 << 63)));
                let r = self.ins(format!("or {Q} {q_abs}, {sign}"));
                self.inline_unless(&rare, at, &pair, &[], |fx| fx.set_rows64(f.dst, &r));
            }
        }
        true
    }

    /// valu/mod.rs `div_scale64` past its common case, on every lane:
    /// sources `[s0, s1, s2]` (bits, modifiers applied) and the exponent
    /// fields `x1`, `x2` of s1 and s2. The tests in the interpreter's order:
    /// - s1 or s2 zero: the default NaN 0x7FF8_0000_0000_0000 (Rust's
    ///   `f64::NAN`), flag clear;
    /// - `x2 - x1 >= 768`: s0, times 2^128 where s0 == s1, flag set;
    /// - both finite and the quotient below 2^-1022, decided from the frexp
    ///   exponents' difference d (subnormals scaled by 2^64 first, as
    ///   `frexp64` does): d <= -1024 yes, d >= -1021 no; d of -1022 or
    ///   -1023 needs the interpreter's log2 (`edge`, for a call-out);
    ///   yes gives s0, times 2^128 where s0 == s2, flag set;
    /// - s1 subnormal or `x2 <= 53`: s0 times 2^128;
    /// - s1's frexp exponent above 1022 (`x1` of 2045 or 2046): s0 times
    ///   2^-128;
    /// - else s0.
    ///
    /// The products are the host's multiply by an exact power of two, as
    /// `ldexp64`'s is.
    fn div_scale_rule64(&mut self, [s0, s1, s2]: [&str; 3], x1: &str, x2: &str) -> ScaleRule {
        let magnitude =
            |fx: &mut Self, b: &str| fx.ins(format!("and {Q} {b}, {}", splat64(!(1 << 63))));
        let (a1, a2) = (magnitude(self, s1), magnitude(self, s2));
        let z1 = self.ins(format!("icmp eq {Q} {a1}, zeroinitializer"));
        let z2 = self.ins(format!("icmp eq {Q} {a2}, zeroinitializer"));
        let zero = self.ins(format!("or {M} {z1}, {z2}"));
        let gap = self.ins(format!("sub {V} {x2}, {x1}"));
        let big = self.ins(format!("icmp sge {V} {gap}, {}", splat(768)));
        let f1 = self.ins(format!("icmp ne {V} {x1}, {}", splat(2047)));
        let f2 = self.ins(format!("icmp ne {V} {x2}, {}", splat(2047)));
        let finite = self.ins(format!("and {M} {f1}, {f2}"));
        // frexp64's exponent: field - 1022 for a normal, that of the value
        // times 2^64 less 64 for a subnormal.
        let frexp = |fx: &mut Self, a: &str, x: &str| {
            let d = fx.dbl(a);
            let scaled = fx.ins(format!("fmul {D} {d}, splat (double 0x43F0000000000000)"));
            let scaled = fx.bits_of(&scaled);
            let field = fx.ins(format!("lshr {Q} {scaled}, {}", splat64(52)));
            let field = fx.ins(format!("trunc {Q} {field} to {V}"));
            let sub = fx.ins(format!(
                "add {V} {field}, {}",
                splat((-1022i32 - 64) as u32)
            ));
            let normal = fx.ins(format!("add {V} {x}, {}", splat(-1022i32 as u32)));
            let tiny = fx.ins(format!("icmp eq {V} {x}, zeroinitializer"));
            fx.ins(format!("select {M} {tiny}, {V} {sub}, {V} {normal}"))
        };
        let (e1, e2) = (frexp(self, &a1, x1), frexp(self, &a2, x2));
        let d = self.ins(format!("sub {V} {e2}, {e1}"));
        let below = self.ins(format!("icmp sle {V} {d}, {}", splat(-1024i32 as u32)));
        let quotient = self.ins(format!("and {M} {finite}, {below}"));
        let near = self.ins(format!("add {V} {d}, {}", splat(1023)));
        let near = self.ins(format!("icmp ult {V} {near}, {}", splat(2)));
        let near = self.ins(format!("and {M} {finite}, {near}"));
        let sub1 = self.ins(format!("icmp eq {V} {x1}, zeroinitializer"));
        let small2 = self.ins(format!("icmp ule {V} {x2}, {}", splat(53)));
        let up = self.ins(format!("or {M} {sub1}, {small2}"));
        let top = self.ins(format!("add {V} {x1}, {}", splat(-2045i32 as u32)));
        let down = self.ins(format!("icmp ult {V} {top}, {}", splat(2)));
        let (d0, d1, d2) = (self.dbl(s0), self.dbl(s1), self.dbl(s2));
        let scale = |fx: &mut Self, by: &str| {
            let m = fx.ins(format!("fmul {D} {d0}, splat (double {by})"));
            fx.bits_of(&m)
        };
        let raised = scale(self, "0x47F0000000000000");
        let lowered = scale(self, "0x37F0000000000000");
        let eq1 = self.ins(format!("fcmp oeq {D} {d0}, {d1}"));
        let eq2 = self.ins(format!("fcmp oeq {D} {d0}, {d2}"));
        let r = self.ins(format!("select {M} {down}, {Q} {lowered}, {Q} {s0}"));
        let r = self.ins(format!("select {M} {up}, {Q} {raised}, {Q} {r}"));
        let by2 = self.ins(format!("select {M} {eq2}, {Q} {raised}, {Q} {s0}"));
        let r = self.ins(format!("select {M} {quotient}, {Q} {by2}, {Q} {r}"));
        let by1 = self.ins(format!("select {M} {eq1}, {Q} {raised}, {Q} {s0}"));
        let r = self.ins(format!("select {M} {big}, {Q} {by1}, {Q} {r}"));
        let value = self.ins(format!(
            "select {M} {zero}, {Q} {}, {Q} {r}",
            splat64(f64::NAN.to_bits())
        ));
        let set = self.ins(format!("or {M} {big}, {quotient}"));
        let nonzero = self.ins(format!("xor {M} {zero}, splat (i1 true)"));
        let flag = self.ins(format!("and {M} {set}, {nonzero}"));
        let undecided = self.ins(format!("or {M} {zero}, {big}"));
        let undecided = self.ins(format!("xor {M} {undecided}, splat (i1 true)"));
        let edge = self.ins(format!("and {M} {near}, {undecided}"));
        ScaleRule { value, flag, edge }
    }

    /// valu/mod.rs `ldexp64`: e clamped to +-2200, then x times 2^s for
    /// steps s of at most 1000 until e is used up (none when e is 0, so a
    /// signalling NaN stays signalling); 2^s is exact and normal.
    fn ldexp64(&mut self, f: &F64) -> bool {
        let x = self.bits64(f.src[0], f.mods, 0);
        let e = self.bits32(f.src[1]);
        let clamp = |fx: &mut Self, v: &str, lim: u32| {
            let v = fx.ins(format!(
                "call {V} @llvm.smax.v32i32({V} {v}, {V} {})",
                splat(lim.wrapping_neg())
            ));
            fx.ins(format!(
                "call {V} @llvm.smin.v32i32({V} {v}, {V} {})",
                splat(lim)
            ))
        };
        let mut left = clamp(self, &e, 2200);
        let mut r = self.zero_inactive(Q, &x);
        // 2200 = 1000 + 1000 + 200: three steps at most.
        for _ in 0..3 {
            let s = clamp(self, &left, 1000);
            let biased = self.ins(format!("add {V} {s}, {}", splat(1023)));
            let wide = self.ins(format!("zext {V} {biased} to {Q}"));
            let p = self.ins(format!("shl {Q} {wide}, {}", splat64(52)));
            let (rd, pd) = (self.dbl(&r), self.dbl(&p));
            let m = self.ins(format!("fmul {D} {rd}, {pd}"));
            let m = self.bits_of(&m);
            let step = self.ins(format!("icmp ne {V} {left}, zeroinitializer"));
            r = self.ins(format!("select {M} {step}, {Q} {m}, {Q} {r}"));
            left = self.ins(format!("sub {V} {left}, {s}"));
        }
        // A multiplied NaN is the source quieted (the multipliers are not NaNs).
        let nan = self.is_nan64(&x);
        let moved = self.ins(format!("icmp ne {V} {e}, zeroinitializer"));
        let fix = self.ins(format!("and {M} {nan}, {moved}"));
        let q = self.ins(format!("or {Q} {x}, {}", splat64(QUIET64)));
        let r = self.ins(format!("select {M} {fix}, {Q} {q}, {Q} {r}"));
        self.set_rows64(f.dst, &r);
        true
    }

    /// v_cvt_f64_f32 (fast_f64.rs `cvt_f64_f32`): abs/neg on the f32's 32
    /// bits, then widened; a NaN keeps sign and payload, quieted.
    fn cvt_f64_f32(&mut self, f: &F64) -> bool {
        let mut x = self.bits32(f.src[0]);
        if f.mods & 1 != 0 {
            x = self.ins(format!("and {V} {x}, {}", splat(0x7FFF_FFFF)));
        }
        if f.mods >> 4 & 1 != 0 {
            x = self.ins(format!("xor {V} {x}, {}", splat(0x8000_0000)));
        }
        let fx = self.fl(&x);
        let fx = self.zero_inactive(super::emit::F, &fx);
        let wide = self.ins(format!("fpext <32 x float> {fx} to {D}"));
        let wide = self.bits_of(&wide);
        // sign << 63 | exponent all ones | (payload | quiet) << 29.
        let w = self.ins(format!("zext {V} {x} to {Q}"));
        let sign = self.ins(format!("lshr {Q} {w}, {}", splat64(31)));
        let sign = self.ins(format!("shl {Q} {sign}, {}", splat64(63)));
        let pay = self.ins(format!("and {Q} {w}, {}", splat64(0x7F_FFFF)));
        let pay = self.ins(format!("or {Q} {pay}, {}", splat64(0x40_0000)));
        let pay = self.ins(format!("shl {Q} {pay}, {}", splat64(29)));
        let nan = self.ins(format!("or {Q} {sign}, {pay}"));
        let nan = self.ins(format!("or {Q} {nan}, {}", splat64(0x7FF0_0000_0000_0000)));
        let abs = self.ins(format!("and {V} {x}, {}", splat(0x7FFF_FFFF)));
        let is_nan = self.ins(format!("icmp ugt {V} {abs}, {}", splat(0x7F80_0000)));
        let r = self.ins(format!("select {M} {is_nan}, {Q} {nan}, {Q} {wide}"));
        self.set_rows64(f.dst, &r);
        true
    }

    /// v_cvt_f32_f64: rounded to nearest even; a NaN keeps sign and the
    /// payload's top bits, quieted.
    fn cvt_f32_f64(&mut self, f: &F64) -> bool {
        let x = self.bits64(f.src[0], f.mods, 0);
        let d = self.active_dbl(&x);
        let n = self.ins(format!("fptrunc {D} {d} to <32 x float>"));
        let n = self.bits(&n);
        // sign << 31 | exponent all ones | quiet | payload >> 29.
        let sign = self.ins(format!("lshr {Q} {x}, {}", splat64(63)));
        let sign = self.ins(format!("trunc {Q} {sign} to {V}"));
        let sign = self.ins(format!("shl {V} {sign}, {}", splat(31)));
        let pay = self.ins(format!("lshr {Q} {x}, {}", splat64(29)));
        let pay = self.ins(format!("trunc {Q} {pay} to {V}"));
        let pay = self.ins(format!("and {V} {pay}, {}", splat(0x7F_FFFF)));
        let nan = self.ins(format!("or {V} {sign}, {pay}"));
        let nan = self.ins(format!("or {V} {nan}, {}", splat(0x7FC0_0000)));
        let is_nan = self.is_nan64(&x);
        let r = self.ins(format!("select {M} {is_nan}, {V} {nan}, {V} {n}"));
        self.set_row(f.dst, r);
        true
    }

    /// An f64 compare (valu/fast_vcmp.rs `run`, kind F64): the relation of
    /// the two modified sources against the condition's mask.
    pub(super) fn fcmp64(&mut self, c: &Fcmp) {
        let (x, y) = (self.bits64(c.a, c.mods, 0), self.bits64(c.b, c.mods, 1));
        let (p, q) = (self.dbl(&x), self.dbl(&y));
        let pred = FCMP_PREDICATES[(c.cond & 15) as usize];
        let h = self.ins(format!("fcmp {pred} {D} {p}, {q}"));
        self.set_mask(c.dst, &h);
    }
}
