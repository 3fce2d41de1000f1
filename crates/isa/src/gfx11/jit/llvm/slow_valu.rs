//! VALU ops that have no pre-resolved form (`Fast::Slow`: the interpreter
//! runs them through valu/mod.rs's per-opcode match) and that the LLVM
//! back end emits inline: bit counts and bitfield ops, three-source
//! min/max/median, byte permutes, 24-bit multiplies, the 16-bit integer
//! ops on register halves, f32 floor/ceil and the f32/integer conversions
//! with abs/neg, integers to f64 and f16 to f32.
//!
//! Why: each was a call-out, and a call-out (the wave's rows written back,
//! the interpreter's per-opcode dispatch, the rows read again) cost more
//! than the rest of its block: kernels that count bits, convert or mix
//! 16-bit integers ran one call-out per wave at 1.3x-1.6x the interpreter
//! (`cargo bench --bench corpus -- --settle`, bitops, convert_f32,
//! hip_templates, hip_stencil_lds).
//!
//! Exactness: each op is the per-lane function valu/mod.rs applies (named
//! on each arm), on the same source values: `vsrc` operands as `src32`
//! reads them; for the f32 ops, abs and neg on the bits as `f32s` applies
//! them; for the 16-bit integer ops, the half op_sel picks (`h16s`, no
//! modifiers on integers) and the result put into one half of the
//! destination as `put16` does. Forms with clamp, omod, DPP, SDWA or
//! accumulation registers stay call-outs, and so do integer ops with
//! abs/neg bits set.

use super::emit::{D, F, Fx, M, V, splat};
use crate::gfx11::decode::is_vop3_compare;
use crate::gfx11::exec::operand::{VSrc, vsrc};
use crate::gfx11::inst::{Family, Inst, Mods};
use crate::gfx11::opcodes::Op;

/// The intrinsics this file's code adds to emit.rs `DECLARATIONS`.
pub(crate) const DECLARATIONS: &str = "\
declare <32 x i32> @llvm.ctlz.v32i32(<32 x i32>, i1)
declare <32 x i32> @llvm.cttz.v32i32(<32 x i32>, i1)
declare <32 x float> @llvm.floor.v32f32(<32 x float>)
declare <32 x float> @llvm.ceil.v32f32(<32 x float>)
";

/// One op of this file, with its operands.
#[derive(Clone, Copy, Debug)]
pub(super) struct SlowValu {
    op: Op,
    dst: u8,
    src: [VSrc; 3],
    /// abs bits per source in bits 0..2, neg bits in 4..6 (f32 sources).
    mods: u8,
    /// op_sel: the high half of source k (bit k) and of the destination
    /// (bit 3), for the 16-bit ops.
    opsel: u8,
    /// A GFX9 16-bit op that zeroes the destination's other half.
    zero_hi: bool,
}

/// How many sources `op` reads and whether they take f32 modifiers; None
/// for the ops this file does not emit.
fn shape(op: Op) -> Option<(usize, Kind)> {
    use Op::*;
    Some(match op {
        VNotB32 | VClzI32U32 | VCtzI32B32 | VClsI32 | VCvtF32U32 | VCvtF32I32 | VCvtF64U32
        | VCvtF64I32 => (1, Kind::Int),
        VCvtF32Ubyte0 | VCvtF32Ubyte1 | VCvtF32Ubyte2 | VCvtF32Ubyte3 => (1, Kind::Int),
        VFloorF32 | VCeilF32 | VCvtU32F32 | VCvtI32F32 => (1, Kind::F32),
        VCvtF32F16 => (1, Kind::F16),
        VBcntU32B32 | VBfmB32 | VXnorB32 | VMulHiU32U24 | VMulI32I24 | VMulHiI32I24 => {
            (2, Kind::Int)
        }
        VMed3I32 | VMed3U32 | VMax3I32 | VMin3I32 | VMax3U32 | VMin3U32 | VMaxminI32
        | VMinmaxI32 | VMaxminU32 | VMinmaxU32 | VBfiB32 | VAlignbyteB32 | VPermB32
        | VMadI32I24 => (3, Kind::Int),
        VAddNcU16 | VSubNcU16 | VMulLoU16 | VLshlrevB16 | VLshrrevB16 | VAshrrevI16 | VMaxU16
        | VMinU16 | VMaxI16 | VMinI16 => (2, Kind::Half),
        VMadU16 | VMadI16 | VMadU32U16 | VMadI32I16 => (3, Kind::Half),
        _ => return None,
    })
}

/// How an op reads its sources.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// 32-bit integers, no modifiers.
    Int,
    /// f32 with abs/neg.
    F32,
    /// The low f16 half, no modifiers (F16C widens it).
    F16,
    /// 16-bit integer halves picked by op_sel.
    Half,
}

/// `i` as an op of this file, if it is one in a form emitted inline for a
/// target that has F16C or not (`f16c`).
pub(super) fn slow_valu(i: &Inst, f16c: bool) -> Option<SlowValu> {
    let (n, kind) = shape(i.op)?;
    if !matches!(i.family, Family::Vop1 | Family::Vop2 | Family::Vop3)
        || (i.family == Family::Vop3 && is_vop3_compare(i))
        || i.dpp.is_some()
        || i.sdwa.is_some()
        || i.acc != 0
        || i.mods.clamp
        || i.mods.omod != 0
        || i.mods.opsel_hi != Mods::default().opsel_hi
    {
        return None;
    }
    let signs = i.mods.abs | i.mods.neg;
    match kind {
        Kind::F32 => {}
        _ if signs != 0 => return None,
        _ => {}
    }
    if kind != Kind::Half && i.mods.opsel != 0 {
        return None;
    }
    if kind == Kind::F16 && !f16c {
        return None;
    }
    let dst = u8::try_from(i.dst).ok()?;
    // A 64-bit result needs its pair inside the file.
    if matches!(i.op, Op::VCvtF64U32 | Op::VCvtF64I32) && dst == u8::MAX {
        return None;
    }
    let mut src = [VSrc::Imm(0); 3];
    for (k, s) in src.iter_mut().enumerate().take(n) {
        *s = vsrc(i.src[k].src)?;
    }
    Some(SlowValu {
        op: i.op,
        dst,
        src,
        mods: (i.mods.abs & 7) | (i.mods.neg & 7) << 4,
        opsel: i.mods.opsel,
        zero_hi: i.flags & Inst::ZERO_HI16 != 0,
    })
}

impl Fx {
    /// Emit `s` (from [`slow_valu`]).
    pub(super) fn slow_valu(&mut self, s: &SlowValu) {
        use Op::*;
        let (n, kind) = shape(s.op).expect("slow_valu admits only ops with a shape");
        if kind == Kind::Half {
            return self.half16(s, n);
        }
        let x: Vec<String> = (0..n)
            .map(|k| {
                let v = self.src(s.src[k]);
                self.modify(s.mods, k, v)
            })
            .collect();
        let r = match s.op {
            // `!a`.
            VNotB32 => self.ins(format!("xor {V} {}, {}", x[0], splat(u32::MAX))),
            // leading / trailing zeros, u32::MAX for 0.
            VClzI32U32 | VCtzI32B32 => {
                let f = if s.op == VClzI32U32 { "ctlz" } else { "cttz" };
                let c = self.ins(format!("call {V} @llvm.{f}.v32i32({V} {}, i1 false)", x[0]));
                self.all_ones_if(&c, 32)
            }
            // The leading bits equal to the sign, past it; u32::MAX for 0
            // and u32::MAX: the leading zeros of a ^ (a >> 31).
            VClsI32 => {
                let sign = self.ins(format!("ashr {V} {}, {}", x[0], splat(31)));
                let t = self.ins(format!("xor {V} {}, {sign}", x[0]));
                let c = self.ins(format!("call {V} @llvm.ctlz.v32i32({V} {t}, i1 false)"));
                self.all_ones_if(&c, 32)
            }
            // `a as f32`, `a as i32 as f32`, a byte's value.
            VCvtF32U32 | VCvtF32I32 => {
                let conv = if s.op == VCvtF32U32 {
                    "uitofp"
                } else {
                    "sitofp"
                };
                let f = self.ins(format!("{conv} {V} {} to {F}", x[0]));
                self.bits(&f)
            }
            VCvtF32Ubyte0 | VCvtF32Ubyte1 | VCvtF32Ubyte2 | VCvtF32Ubyte3 => {
                let k = match s.op {
                    VCvtF32Ubyte0 => 0,
                    VCvtF32Ubyte1 => 1,
                    VCvtF32Ubyte2 => 2,
                    _ => 3,
                };
                let b = self.ins(format!("lshr {V} {}, {}", x[0], splat(8 * k)));
                let b = self.ins(format!("and {V} {b}, {}", splat(0xFF)));
                let f = self.ins(format!("uitofp {V} {b} to {F}"));
                self.bits(&f)
            }
            // `a as f64` (exact), to the pair.
            VCvtF64U32 | VCvtF64I32 => {
                let conv = if s.op == VCvtF64U32 {
                    "uitofp"
                } else {
                    "sitofp"
                };
                let d = self.ins(format!("{conv} {V} {} to {D}", x[0]));
                let q = self.ins(format!("bitcast {D} {d} to <32 x i64>"));
                self.set_rows64(s.dst, &q);
                return;
            }
            // `floor32` / `ceil32`: the host's rounding, a NaN quieted.
            VFloorF32 | VCeilF32 => {
                let f = if s.op == VFloorF32 { "floor" } else { "ceil" };
                let p = self.fl(&x[0]);
                let r = self.ins(format!("call {F} @llvm.{f}.v32f32({F} {p})"));
                let r = self.bits(&r);
                self.nan_rule(&[s.src[0]], &[&x[0]], &r)
            }
            VCvtU32F32 => self.cvt_u32(&x[0]),
            VCvtI32F32 => self.cvt_i32(&x[0]),
            // `f16::to_f32` of the low half (F16C's widening).
            VCvtF32F16 => self.widen16(&x[0]),
            // popcount(a) + b.
            VBcntU32B32 => {
                let c = self.ins(format!("call {V} @llvm.ctpop.v32i32({V} {})", x[0]));
                self.ins(format!("add {V} {c}, {}", x[1]))
            }
            // ((1 << (a & 31)) - 1) << (b & 31).
            VBfmB32 => {
                let a = self.ins(format!("and {V} {}, {}", x[0], splat(31)));
                let b = self.ins(format!("and {V} {}, {}", x[1], splat(31)));
                let m = self.ins(format!("shl {V} {}, {a}", splat(1)));
                let m = self.ins(format!("sub {V} {m}, {}", splat(1)));
                self.ins(format!("shl {V} {m}, {b}"))
            }
            VXnorB32 => {
                let t = self.ins(format!("xor {V} {}, {}", x[0], x[1]));
                self.ins(format!("xor {V} {t}, {}", splat(u32::MAX)))
            }
            // The 24-bit products: the high dword of the unsigned one, the
            // low and high dwords of the signed one.
            VMulHiU32U24 | VMulHiI32I24 => {
                let (ext, lo) = if s.op == VMulHiU32U24 {
                    ("zext", self.low24(&x[0], &x[1], false))
                } else {
                    ("sext", self.low24(&x[0], &x[1], true))
                };
                let a = self.ins(format!("{ext} {V} {} to <32 x i64>", lo.0));
                let b = self.ins(format!("{ext} {V} {} to <32 x i64>", lo.1));
                let p = self.ins(format!("mul <32 x i64> {a}, {b}"));
                let p = self.ins(format!("lshr <32 x i64> {p}, splat (i64 32)"));
                self.ins(format!("trunc <32 x i64> {p} to {V}"))
            }
            VMulI32I24 => {
                let (a, b) = self.low24(&x[0], &x[1], true);
                self.ins(format!("mul {V} {a}, {b}"))
            }
            VMadI32I24 => {
                let (a, b) = self.low24(&x[0], &x[1], true);
                let p = self.ins(format!("mul {V} {a}, {b}"));
                self.ins(format!("add {V} {p}, {}", x[2]))
            }
            // Three-source min/max: max3/min3 of all three, maxmin and
            // minmax of the first two then with the third, med3 as
            // max(min(a, b), min(max(a, b), c)).
            VMax3I32 | VMin3I32 | VMax3U32 | VMin3U32 | VMaxminI32 | VMinmaxI32 | VMaxminU32
            | VMinmaxU32 | VMed3I32 | VMed3U32 => {
                let (lo, hi) = match s.op {
                    VMax3I32 | VMin3I32 | VMaxminI32 | VMinmaxI32 | VMed3I32 => ("smin", "smax"),
                    _ => ("umin", "umax"),
                };
                let call = |fx: &mut Self, f: &str, a: &str, b: &str| {
                    fx.ins(format!("call {V} @llvm.{f}.v32i32({V} {a}, {V} {b})"))
                };
                let (a, b, c) = (&x[0], &x[1], &x[2]);
                match s.op {
                    VMax3I32 | VMax3U32 => {
                        let t = call(self, hi, a, b);
                        call(self, hi, &t, c)
                    }
                    VMin3I32 | VMin3U32 => {
                        let t = call(self, lo, a, b);
                        call(self, lo, &t, c)
                    }
                    VMaxminI32 | VMaxminU32 => {
                        let t = call(self, hi, a, b);
                        call(self, lo, &t, c)
                    }
                    VMinmaxI32 | VMinmaxU32 => {
                        let t = call(self, lo, a, b);
                        call(self, hi, &t, c)
                    }
                    _ => {
                        let small = call(self, lo, a, b);
                        let big = call(self, hi, a, b);
                        let t = call(self, lo, &big, c);
                        call(self, hi, &small, &t)
                    }
                }
            }
            // (a & b) | (!a & c).
            VBfiB32 => {
                let ab = self.ins(format!("and {V} {}, {}", x[0], x[1]));
                let na = self.ins(format!("xor {V} {}, {}", x[0], splat(u32::MAX)));
                let nc = self.ins(format!("and {V} {na}, {}", x[2]));
                self.ins(format!("or {V} {ab}, {nc}"))
            }
            // (a:b) >> (8 * (c & 3)), the low dword.
            VAlignbyteB32 => {
                let c = self.ins(format!("and {V} {}, {}", x[2], splat(3)));
                let c = self.ins(format!("shl {V} {c}, {}", splat(3)));
                self.ins(format!(
                    "call {V} @llvm.fshr.v32i32({V} {}, {V} {}, {V} {c})",
                    x[0], x[1]
                ))
            }
            VPermB32 => self.perm(&x[0], &x[1], &x[2]),
            _ => unreachable!("shape admits only the ops above"),
        };
        self.set_row(s.dst, r);
    }

    /// `u32::MAX` where `c` equals `at`, else `c`.
    fn all_ones_if(&mut self, c: &str, at: u32) -> String {
        let hit = self.ins(format!("icmp eq {V} {c}, {}", splat(at)));
        self.ins(format!(
            "select {M} {hit}, {V} {}, {V} {c}",
            splat(u32::MAX)
        ))
    }

    /// The low 24 bits of `a` and `b`, sign-extended if `signed`
    /// (`(a << 8) as i32 >> 8`), else zero-extended (`a & 0xFF_FFFF`).
    fn low24(&mut self, a: &str, b: &str, signed: bool) -> (String, String) {
        let mut one = |v: &str| {
            if signed {
                let t = self.ins(format!("shl {V} {v}, {}", splat(8)));
                self.ins(format!("ashr {V} {t}, {}", splat(8)))
            } else {
                self.ins(format!("and {V} {v}, {}", splat(0xFF_FFFF)))
            }
        };
        (one(a), one(b))
    }

    /// valu/mod.rs `perm_byte` for each byte n of the result, selector
    /// `(c >> 8n) & 0xFF` over the bytes of `b | a << 32`: 0..=7 a byte,
    /// 8..=11 the sign of byte 1, 3, 5 or 7 spread over the byte, 12 zero,
    /// 13 and up 0xFF.
    fn perm(&mut self, a: &str, b: &str, c: &str) -> String {
        const Q: &str = "<32 x i64>";
        let lo = self.ins(format!("zext {V} {b} to {Q}"));
        let hi = self.ins(format!("zext {V} {a} to {Q}"));
        let hi = self.ins(format!("shl {Q} {hi}, splat (i64 32)"));
        let bytes = self.ins(format!("or {Q} {hi}, {lo}"));
        let mut r = splat(0);
        for n in 0..4 {
            let sel = self.ins(format!("lshr {V} {c}, {}", splat(8 * n)));
            let sel = self.ins(format!("and {V} {sel}, {}", splat(0xFF)));
            // A byte: bytes >> 8 * (sel & 7).
            let shift = self.ins(format!("and {V} {sel}, {}", splat(7)));
            let shift = self.ins(format!("shl {V} {shift}, {}", splat(3)));
            let shift = self.ins(format!("zext {V} {shift} to {Q}"));
            let byte = self.ins(format!("lshr {Q} {bytes}, {shift}"));
            let byte = self.ins(format!("trunc {Q} {byte} to {V}"));
            let byte = self.ins(format!("and {V} {byte}, {}", splat(0xFF)));
            // A sign: bit 16 * (sel & 3) + 15 of the bytes.
            let at = self.ins(format!("and {V} {sel}, {}", splat(3)));
            let at = self.ins(format!("shl {V} {at}, {}", splat(4)));
            let at = self.ins(format!("add {V} {at}, {}", splat(15)));
            let at = self.ins(format!("zext {V} {at} to {Q}"));
            let bit = self.ins(format!("lshr {Q} {bytes}, {at}"));
            let bit = self.ins(format!("trunc {Q} {bit} to {V}"));
            let bit = self.ins(format!("and {V} {bit}, {}", splat(1)));
            let sign = self.ins(format!("mul {V} {bit}, {}", splat(0xFF)));
            let is_byte = self.ins(format!("icmp ult {V} {sel}, {}", splat(8)));
            let is_sign = self.ins(format!("icmp ult {V} {sel}, {}", splat(12)));
            let is_zero = self.ins(format!("icmp eq {V} {sel}, {}", splat(12)));
            let v = self.ins(format!(
                "select {M} {is_zero}, {V} zeroinitializer, {V} {}",
                splat(0xFF)
            ));
            let v = self.ins(format!("select {M} {is_sign}, {V} {sign}, {V} {v}"));
            let v = self.ins(format!("select {M} {is_byte}, {V} {byte}, {V} {v}"));
            let v = self.ins(format!("shl {V} {v}, {}", splat(8 * n)));
            r = self.ins(format!("or {V} {r}, {v}"));
        }
        r
    }

    /// The 16-bit integer ops (valu/mod.rs `i2_16`, `i3_16` and
    /// V_MAD_U32_U16 / V_MAD_I32_I16) on the halves op_sel picks, in 32-bit
    /// lanes: the result's low 16 bits are the 16-bit op's.
    fn half16(&mut self, s: &SlowValu, n: usize) {
        use Op::*;
        let signed = matches!(s.op, VAshrrevI16 | VMaxI16 | VMinI16 | VMadI16 | VMadI32I16);
        let wide = matches!(s.op, VMadU32U16 | VMadI32I16);
        // Sources as 16-bit values, zero- or sign-extended (a 32-bit c for
        // the wide forms).
        let x: Vec<String> = (0..n)
            .map(|k| {
                let v = self.src(s.src[k]);
                if wide && k == 2 {
                    return v;
                }
                let v = if s.opsel >> k & 1 != 0 {
                    self.ins(format!("lshr {V} {v}, {}", splat(16)))
                } else {
                    v
                };
                let t = self.ins(format!("shl {V} {v}, {}", splat(16)));
                let ext = if signed { "ashr" } else { "lshr" };
                self.ins(format!("{ext} {V} {t}, {}", splat(16)))
            })
            .collect();
        let two = |fx: &mut Self, inst: &str| fx.ins(format!("{inst} {V} {}, {}", x[0], x[1]));
        let r = match s.op {
            VAddNcU16 => two(self, "add"),
            VSubNcU16 => two(self, "sub"),
            VMulLoU16 => two(self, "mul"),
            // b shifted by a & 15 (b in the second source).
            VLshlrevB16 | VLshrrevB16 | VAshrrevI16 => {
                let amount = self.ins(format!("and {V} {}, {}", x[0], splat(15)));
                let inst = match s.op {
                    VLshlrevB16 => "shl",
                    VLshrrevB16 => "lshr",
                    _ => "ashr",
                };
                self.ins(format!("{inst} {V} {}, {amount}", x[1]))
            }
            VMaxU16 | VMinU16 | VMaxI16 | VMinI16 => {
                let f = match s.op {
                    VMaxU16 => "umax",
                    VMinU16 => "umin",
                    VMaxI16 => "smax",
                    _ => "smin",
                };
                self.ins(format!(
                    "call {V} @llvm.{f}.v32i32({V} {}, {V} {})",
                    x[0], x[1]
                ))
            }
            // a * b + c: the low 16 bits (mad_u16, mad_i16), or all 32
            // (mad_32_16), wrapping.
            _ => {
                let p = two(self, "mul");
                self.ins(format!("add {V} {p}, {}", x[2]))
            }
        };
        if wide {
            self.set_row(s.dst, r);
            return;
        }
        let r = self.ins(format!("and {V} {r}, {}", splat(0xFFFF)));
        // `put16`: into the half op_sel[3] picks, the other half kept (or
        // zeroed on GFX9).
        let (r, keep) = if s.opsel >> 3 & 1 != 0 {
            (self.ins(format!("shl {V} {r}, {}", splat(16))), 0xFFFF)
        } else {
            (r, 0xFFFF_0000)
        };
        let r = if s.zero_hi {
            r
        } else {
            let cur = self.row(s.dst);
            let kept = self.ins(format!("and {V} {cur}, {}", splat(keep)));
            self.ins(format!("or {V} {kept}, {r}"))
        };
        self.set_row(s.dst, r);
    }
}
