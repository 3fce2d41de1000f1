//! The f32 division helpers inline: v_div_scale_f32, v_div_fmas_f32 and
//! v_div_fixup_f32, the sequence every f32 division the compilers expand
//! runs (valu/fast_fma32.rs `run`; per lane valu/mod.rs `div_scale32`,
//! `ldexp32`, `div_fixup32`).
//!
//! Why: as call-outs they were the hot n-body loop's largest cost.
//!
//! Exactness: each is the interpreter's per-lane rule as whole-wave
//! selects, with branches only around work the common case skips:
//! - v_div_scale: a wave whose active lanes all pass the interpreter's
//!   `div_scale_plain` test (proven there to keep s0 with the flag clear)
//!   takes s0 and an empty mask; any other wave branches to the whole rule,
//!   its tests in the same order, the quotient tests in f64 as there.
//! - v_div_fmas: the fused result with the NaN rule; only a wave with VCC
//!   set on an active lane branches to rescale those lanes by 2^±64
//!   (`ldexp32`, as `Fx::ldexp`).
//! - v_div_fixup: the rule's cases as selects, the last case first.
//!
//! Inactive lanes compute too and are dropped by the EXEC blend (and the
//! mask's EXEC and).

use super::emit::{D, F, Fx, M, V, splat, splat_f64};
use crate::gfx11::exec::valu::fast_fma32::{Fma32, Fma32Op};
use crate::gfx11::wave::{EXEC, VCC};

const SIGN: u32 = 0x8000_0000;
const MAGNITUDE: u32 = 0x7FFF_FFFF;
const INF: u32 = 0x7F80_0000;
/// Rust's `f32::NAN`: what `div_scale32` and `div_fixup32` return for
/// 0 / 0 and inf / inf.
const NAN: u32 = 0x7FC0_0000;
/// The smallest normal f32, 2^-126, as the f64 the rule compares with.
const MIN_NORMAL: f64 = f32::MIN_POSITIVE as f64;

impl Fx {
    /// v_div_scale_f32, v_div_fmas_f32 or v_div_fixup_f32 (`f.op` not Fma).
    pub(super) fn division(&mut self, f: &Fma32) {
        let [x, y, z] = self.fma32_sources(f);
        match f.op {
            Fma32Op::DivScale => {
                let (r, m) = self.div_scale(&x, &y, &z);
                self.set_row(f.dst, r);
                // Wave::set_lane_mask: null stays null; set_mask ands EXEC.
                self.set_mask(f.sdst, &m);
            }
            Fma32Op::DivFmas => {
                let r = self.fma3(f.src, &x, &y, &z);
                let r = self.div_fmas_scale(&r, &z);
                self.set_row(f.dst, r);
            }
            _ => {
                let r = self.div_fixup(&x, &y, &z);
                self.set_row(f.dst, r);
            }
        }
    }

    /// The exponent fields of `x` (f32 bits), as `exponent32`.
    pub(super) fn exponent(&mut self, x: &str) -> String {
        let e = self.ins(format!("lshr {V} {x}, {}", splat(23)));
        self.ins(format!("and {V} {e}, {}", splat(0xFF)))
    }

    /// `|p|` of `<32 x double>` `p` (its sign bit cleared).
    pub(super) fn fabs64(&mut self, p: &str) -> String {
        let i = self.ins(format!("bitcast {D} {p} to <32 x i64>"));
        let i = self.ins(format!("and <32 x i64> {i}, splat (i64 {})", i64::MAX));
        self.ins(format!("bitcast <32 x i64> {i} to {D}"))
    }

    /// Branch on `any` (expected false) to a block whose code `slow` emits;
    /// returns, at the join, a phi per `fast` value (type, value) and the
    /// value `slow` returned in its place.
    pub(super) fn unlikely(
        &mut self,
        any: &str,
        fast: &[(&str, String)],
        slow: impl FnOnce(&mut Self) -> Vec<String>,
    ) -> Vec<String> {
        let any = self.ins(format!("call i1 @llvm.expect.i1(i1 {any}, i1 false)"));
        let (rare, join) = (self.label(), self.label());
        let from = self.current();
        self.line(format!("br i1 {any}, label %{rare}, label %{join}"));
        self.start(&rare);
        let got = slow(self);
        let rare_end = self.current();
        self.line(format!("br label %{join}"));
        self.start(&join);
        fast.iter()
            .zip(got)
            .map(|((ty, v), s)| {
                self.ins(format!("phi {ty} [ {v}, %{from} ], [ {s}, %{rare_end} ]"))
            })
            .collect()
    }

    /// v_div_scale_f32 of s0 `x`, s1 `y` (the denominator), s2 `z` (the
    /// numerator): the result row and the flags' lane mask (all lanes).
    fn div_scale(&mut self, x: &str, y: &str, z: &str) -> (String, String) {
        let e1 = self.exponent(y);
        let e2 = self.exponent(z);
        let gap = self.ins(format!("sub {V} {e2}, {e1}"));
        // fast_fma32.rs `div_scale_plain`: e1 in 1..=252, e2 in 24..=254,
        // e2 - e1 in -125..=95.
        let t1 = self.ins(format!("sub {V} {e1}, {}", splat(1)));
        let ok1 = self.ins(format!("icmp ult {V} {t1}, {}", splat(252)));
        let t2 = self.ins(format!("sub {V} {e2}, {}", splat(24)));
        let ok2 = self.ins(format!("icmp ult {V} {t2}, {}", splat(231)));
        let t3 = self.ins(format!("add {V} {gap}, {}", splat(125)));
        let ok3 = self.ins(format!("icmp ult {V} {t3}, {}", splat(221)));
        let ok = self.ins(format!("and {M} {ok1}, {ok2}"));
        let ok = self.ins(format!("and {M} {ok}, {ok3}"));
        let exec = self.exec_mask();
        let bad = self.ins(format!("xor {M} {ok}, splat (i1 true)"));
        let bad = self.ins(format!("and {M} {bad}, {exec}"));
        let bits = self.ins(format!("bitcast {M} {bad} to i32"));
        let any = self.ins(format!("icmp ne i32 {bits}, 0"));
        let fast = [(V, x.to_owned()), (M, "zeroinitializer".to_owned())];
        let got = self.unlikely(&any, &fast, |fx| {
            let (r, m) = fx.div_scale_rule(x, y, z, &e1, &e2, &gap);
            vec![r, m]
        });
        (got[0].clone(), got[1].clone())
    }

    /// `div_scale32` on every lane (`e1`, `e2` the exponent fields of `y`
    /// and `z`, `gap` their difference).
    fn div_scale_rule(
        &mut self,
        x: &str,
        y: &str,
        z: &str,
        e1: &str,
        e2: &str,
        gap: &str,
    ) -> (String, String) {
        let (fx, fy, fz) = (self.fl(x), self.fl(y), self.fl(z));
        let z0 = self.ins(format!("fcmp oeq {F} {fz}, zeroinitializer"));
        let y0 = self.ins(format!("fcmp oeq {F} {fy}, zeroinitializer"));
        let zero = self.ins(format!("or {M} {z0}, {y0}"));
        // The quotient near overflow.
        let over = self.ins(format!("icmp sge {V} {gap}, {}", splat(96)));
        // |s2 / s1| in f64 below 2^-126 (a NaN or infinity is not).
        let yd = self.ins(format!("fpext {F} {fy} to {D}"));
        let zd = self.ins(format!("fpext {F} {fz} to {D}"));
        let q = self.ins(format!("fdiv {D} {zd}, {yd}"));
        let q = self.fabs64(&q);
        let min = splat_f64(MIN_NORMAL);
        let tiny = self.ins(format!("fcmp olt {D} {q}, {min}"));
        // s1 denormal (s1 is not zero past the first case) or s2's
        // exponent field at most 23.
        let y_sub = self.ins(format!("icmp eq {V} {e1}, zeroinitializer"));
        let z_small = self.ins(format!("icmp ult {V} {e2}, {}", splat(24)));
        let small = self.ins(format!("or {M} {y_sub}, {z_small}"));
        // |1 / s1| in f64 below 2^-126.
        let inv = self.ins(format!("fdiv {D} {}, {yd}", splat_f64(1.0)));
        let inv = self.fabs64(&inv);
        let huge = self.ins(format!("fcmp olt {D} {inv}, {min}"));
        let up = self.ldexp(x, &splat(64));
        let down = self.ldexp(x, &splat(-64i32 as u32));
        let is_y = self.ins(format!("fcmp oeq {F} {fx}, {fy}"));
        let is_z = self.ins(format!("fcmp oeq {F} {fx}, {fz}"));
        // The cases from the last to the first.
        let r = self.ins(format!("select {M} {huge}, {V} {down}, {V} {x}"));
        let r = self.ins(format!("select {M} {small}, {V} {up}, {V} {r}"));
        let rt = self.ins(format!("select {M} {is_z}, {V} {up}, {V} {x}"));
        let r = self.ins(format!("select {M} {tiny}, {V} {rt}, {V} {r}"));
        let ro = self.ins(format!("select {M} {is_y}, {V} {up}, {V} {x}"));
        let r = self.ins(format!("select {M} {over}, {V} {ro}, {V} {r}"));
        let r = self.ins(format!("select {M} {zero}, {V} {}, {V} {r}", splat(NAN)));
        // Flag: not the zero case, and the overflow or denormal-quotient one.
        let flag = self.ins(format!("or {M} {over}, {tiny}"));
        let nonzero = self.ins(format!("xor {M} {zero}, splat (i1 true)"));
        let flag = self.ins(format!("and {M} {flag}, {nonzero}"));
        (r, flag)
    }

    /// v_div_fmas_f32's rescaling of the fused result `r`: lanes with VCC
    /// set take `ldexp32(r, 64)` where s2's (`z`) exponent field is above
    /// 127, else `ldexp32(r, -64)`. The full VCC is read, as the
    /// interpreter does; EXEC decides only whether any written lane needs it.
    /// (Both are the half's words: `Wave::vcc`, `Wave::exec`.)
    fn div_fmas_scale(&mut self, r: &str, z: &str) -> String {
        let vcc = self.sgpr(self.word(VCC as u8));
        let exec = self.sgpr(self.word(EXEC as u8));
        let on = self.ins(format!("and i32 {vcc}, {exec}"));
        let any = self.ins(format!("icmp ne i32 {on}, 0"));
        let fast = [(V, r.to_owned())];
        let got = self.unlikely(&any, &fast, |fx| {
            let e = fx.exponent(z);
            let big = fx.ins(format!("icmp ugt {V} {e}, {}", splat(127)));
            let k = fx.ins(format!(
                "select {M} {big}, {V} {}, {V} {}",
                splat(64),
                splat(-64i32 as u32)
            ));
            let s = fx.ldexp(r, &k);
            let m = fx.mask_of(&vcc);
            vec![fx.ins(format!("select {M} {m}, {V} {s}, {V} {r}"))]
        });
        got[0].clone()
    }

    /// `div_fixup32` of q `x`, den `y`, num `z` on every lane.
    fn div_fixup(&mut self, x: &str, y: &str, z: &str) -> String {
        let sign = self.ins(format!("xor {V} {y}, {z}"));
        let sign = self.ins(format!("and {V} {sign}, {}", splat(SIGN)));
        let inf = self.ins(format!("or {V} {sign}, {}", splat(INF)));
        let mq = self.ins(format!("and {V} {x}, {}", splat(MAGNITUDE)));
        let q = self.ins(format!("or {V} {mq}, {sign}"));
        let (my, mz) = (
            self.ins(format!("and {V} {y}, {}", splat(MAGNITUDE))),
            self.ins(format!("and {V} {z}, {}", splat(MAGNITUDE))),
        );
        let test = |fx: &mut Self, cc: &str, m: &str, k: u32| {
            fx.ins(format!("icmp {cc} {V} {m}, {}", splat(k)))
        };
        let q_nan = test(self, "ugt", &mq, INF);
        let (den_nan, num_nan) = (test(self, "ugt", &my, INF), test(self, "ugt", &mz, INF));
        let (den_inf, num_inf) = (test(self, "eq", &my, INF), test(self, "eq", &mz, INF));
        let (den0, num0) = (test(self, "eq", &my, 0), test(self, "eq", &mz, 0));
        // From the last case to the first: q with the sign of num * den; a
        // NaN q (the scaled quotient overflowed) infinity; den infinite or
        // num zero, zero; den zero or num infinite, infinity; 0 / 0 and
        // inf / inf the NaN; a NaN source itself, den's first.
        let r = self.ins(format!("select {M} {q_nan}, {V} {inf}, {V} {q}"));
        let c = self.ins(format!("or {M} {den_inf}, {num0}"));
        let r = self.ins(format!("select {M} {c}, {V} {sign}, {V} {r}"));
        let c = self.ins(format!("or {M} {den0}, {num_inf}"));
        let r = self.ins(format!("select {M} {c}, {V} {inf}, {V} {r}"));
        let zeros = self.ins(format!("and {M} {den0}, {num0}"));
        let infs = self.ins(format!("and {M} {den_inf}, {num_inf}"));
        let c = self.ins(format!("or {M} {zeros}, {infs}"));
        let r = self.ins(format!("select {M} {c}, {V} {}, {V} {r}", splat(NAN)));
        let pick = self.ins(format!("select {M} {den_nan}, {V} {y}, {V} {z}"));
        let c = self.ins(format!("or {M} {den_nan}, {num_nan}"));
        self.ins(format!("select {M} {c}, {V} {pick}, {V} {r}"))
    }
}
