//! The entries the LLVM back end runs inline, as whole-wave vector IR:
//! integer VALU ops, compares (v_cmp_class_f32 too), cndmask, f32
//! arithmetic with abs/neg, the conversions, VOPD pairs and the inline
//! SALU ops, and dispatches to the f32 division helpers (`divide.rs`), the
//! 64-bit SALU forms (`scalar64.rs`), the carry chain and 64-bit integer
//! forms (`wide.rs`) and f64 arithmetic and compares (`float64.rs`).
//! Everything else is a call-out ([`Fx::entry`] returns false and emits
//! nothing).
//!
//! Exactness: integer ops are the interpreter's (shift amounts masked to
//! five bits as `int32.rs` does); f32 add/sub/mul/fma/sqrt are the plain
//! IEEE instructions (no fast-math or `contract` flags and no
//! `llvm.fmuladd`, so nothing is fused or reassociated) followed by
//! gfxsim's NaN rule as explicit per-lane selects that do not depend on
//! which operand the host instruction returns: where the result is a NaN,
//! the first NaN source quieted, else x86's default NaN 0xFFC00000 (Intel
//! SDM vol. 1, 4.8.3.7 "QNaN Floating-Point Indefinite"), which is what the
//! interpreter gets from the host when no source is a NaN (valu/mod.rs
//! `nan_rule!`).

use super::emit::{D, F, Fx, M, V, real_sgpr, splat, splat_f32};
use super::footprint::Footprint;
use super::slow_valu::slow_valu;
use super::wide::{Carry, Q};
use crate::gfx11::code_cache::{Block, Compiled};
use crate::gfx11::decode::vgpr_src;
use crate::gfx11::exec::fast::Fast;
use crate::gfx11::exec::operand::{SSrc, VSrc, sdst, ssrc, vsrc};
use crate::gfx11::exec::salu::SOp;
use crate::gfx11::exec::salu::fast::Scalar;
use crate::gfx11::exec::valu::fast::VOp;
use crate::gfx11::exec::valu::fast_f32::{Flt, FltOp};
use crate::gfx11::exec::valu::fast_f64::S64;
use crate::gfx11::exec::valu::fast_fma32::{Fma32, Fma32Op};
use crate::gfx11::exec::valu::fast_lanes::Lane;
use crate::gfx11::exec::valu::fast_vcmp::{Fcmp, FcmpKind};
use crate::gfx11::exec::valu::fast_vopd::{self, DualOp, Half};
use crate::gfx11::inst::{Family, Inst, Mods, Src};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{EXEC, VCC};

/// The f32 quiet bit.
const QUIET: u32 = 0x0040_0000;
/// x86's default NaN (the "QNaN floating-point indefinite").
const DEFAULT_NAN: u32 = 0xFFC0_0000;

/// The LLVM fcmp predicate of each relation mask of a float compare
/// (valu/fast_vcmp.rs `Fcmp::cond`: 1 less, 2 equal, 4 greater, 8 unordered).
pub(super) const FCMP_PREDICATES: [&str; 16] = [
    "false", "olt", "oeq", "ole", "ogt", "one", "oge", "ord", "uno", "ult", "ueq", "ule", "ugt",
    "une", "uge", "true",
];

/// One half of a VOPD pair.
#[derive(Clone, Copy)]
pub(super) enum DualHalf {
    /// A half `fast_vopd` resolves.
    Op(Half),
    /// v_dual_fmac_f32: `dst` = a * VGPR `b` + `dst`.
    Fmac { dst: u8, a: VSrc, b: u8 },
}

impl DualHalf {
    fn new(op: Op, dst: u8, a: Src, b: Src) -> Option<Self> {
        if op == Op::VFmacF32 {
            let Src::Vgpr(b) = b else { return None };
            return Some(DualHalf::Fmac {
                dst,
                a: vsrc(a)?,
                b,
            });
        }
        fast_vopd::half(op, dst, a, b).map(DualHalf::Op)
    }

    fn dst(&self) -> u8 {
        match self {
            DualHalf::Op(h) => h.dst,
            DualHalf::Fmac { dst, .. } => *dst,
        }
    }
}

/// Is `op` a SALU op [`Fx::salu`] emits inline?
fn salu_inline(op: SOp) -> bool {
    use SOp::*;
    matches!(
        op,
        CmpEq
            | CmpLg
            | CmpGtI
            | CmpGeI
            | CmpLtI
            | CmpLeI
            | CmpGtU
            | CmpGeU
            | CmpLtU
            | CmpLeU
            | Mov
            | AddU32
            | SubU32
            | AddcU32
            | SubbU32
            | AddI32
            | SubI32
            | MinI32
            | MinU32
            | MaxI32
            | MaxU32
            | Cselect
            | And
            | Or
            | Xor
            | AndNot1
            | OrNot1
            | Lshl
            | Lshr
            | Ashr
            | MulI32
            | Ctz
    )
}

/// Is `op` a VALU op [`Fx::valu`] emits inline?
fn valu_inline(op: VOp) -> bool {
    use VOp::*;
    matches!(
        op,
        Mov | AddU32
            | SubU32
            | SubrevU32
            | And
            | Or
            | Xor
            | MaxU32
            | MinU32
            | MaxI32
            | MinI32
            | MulLo
            | Add3
            | Or3
            | Xor3
            | AndOr
            | CvtF32U32
            | CvtU32F32
            | Lshlrev
            | Lshrrev
            | Ashrrev
            | LshlOr
            | LshlAdd
            | AddLshl
            | MulHiU32
            | MulHiI32
            | MulU24
            | MadU24
            | Xad
            | BfeU32
            | BfeI32
            | Alignbit
    )
}

/// The VOP1 ops without a pre-resolved form that run inline.
pub(super) fn slow_unary(i: &Inst) -> bool {
    i.family == Family::Vop1
        && i.dpp.is_none()
        && i.mods == Mods::default()
        && matches!(
            i.op,
            Op::VExpF32
                | Op::VLogF32
                | Op::VRndneF32
                | Op::VCvtI32F32
                | Op::VCvtF32I32
                | Op::VBfrevB32
        )
}

/// The SOP1 ops without a pre-resolved form that run inline (salu/mod.rs
/// `scalar`): their destination and source.
pub(super) fn slow_scalar_unary(i: &Inst) -> Option<(u8, SSrc)> {
    if i.family != Family::Sop1
        || !matches!(
            i.op,
            Op::SNotB32 | Op::SBrevB32 | Op::SBcnt0I32B32 | Op::SBcnt1I32B32 | Op::SAbsI32
        )
    {
        return None;
    }
    Some((sdst(i.dst)?, ssrc(i.src[0].src)?))
}

/// A packed f16 op that runs inline (valu/mod.rs `packed`): v_pk_add,
/// v_pk_mul, v_pk_max or v_pk_min_f16 of two register sources, or
/// v_pk_fma_f16 of three ([`Fx::pk_fma16`]), no clamp.
pub(super) struct PackedF16 {
    op: Op,
    dst: u8,
    /// The sources (the third is v_pk_fma_f16's alone).
    src: [VSrc; 3],
    /// Per source: the half each result half takes (op_sel for the low,
    /// op_sel_hi for the high) and whether it is negated (neg, neg_hi).
    sel: [u8; 2],
    neg: [u8; 2],
}

pub(super) fn slow_packed_f16(i: &Inst) -> Option<PackedF16> {
    if i.family != Family::Vop3p
        || i.dpp.is_some()
        || i.mods.clamp
        || !matches!(
            i.op,
            Op::VPkAddF16 | Op::VPkMulF16 | Op::VPkMaxF16 | Op::VPkMinF16 | Op::VPkFmaF16
        )
    {
        return None;
    }
    let reg = |s: Src| match s {
        Src::Vgpr(r) => Some(VSrc::Vgpr(r)),
        Src::Sgpr(r) if r < 128 => Some(VSrc::Sgpr(r)),
        _ => None,
    };
    Some(PackedF16 {
        op: i.op,
        dst: u8::try_from(i.dst).ok()?,
        src: [
            reg(i.src[0].src)?,
            reg(i.src[1].src)?,
            if i.op == Op::VPkFmaF16 {
                reg(i.src[2].src)?
            } else {
                VSrc::Imm(0)
            },
        ],
        sel: [i.mods.opsel, i.mods.opsel_hi],
        // VOP3P keeps neg_hi in the abs field.
        neg: [i.mods.neg, i.mods.abs],
    })
}

/// v_permlane16_b32 / v_permlanex16_b32 without op_sel bits or modifiers
/// (`shuffle.rs`): (whether it crosses rows, dst, the source, the selects).
fn slow_permlane(i: &Inst) -> Option<(bool, u8, VSrc, SSrc, SSrc)> {
    let cross = match i.op {
        Op::VPermlane16B32 => false,
        Op::VPermlanex16B32 => true,
        _ => return None,
    };
    if i.family != Family::Vop3 || i.dpp.is_some() || i.mods != Mods::default() {
        return None;
    }
    Some((
        cross,
        u8::try_from(i.dst).ok()?,
        vsrc(i.src[0].src)?,
        ssrc(i.src[1].src)?,
        ssrc(i.src[2].src)?,
    ))
}

/// The halves of a VOPD pair without a pre-resolved form, if both run inline.
pub(super) fn slow_dual(i: &Inst) -> Option<(DualHalf, DualHalf)> {
    if i.dpp.is_some() || i.mods != Mods::default() {
        return None;
    }
    let y = i.dual?;
    let x = DualHalf::new(i.op, u8::try_from(i.dst).ok()?, i.src[0].src, i.src[1].src)?;
    let y = DualHalf::new(y.op, y.dst, y.src0.src, vgpr_src(y.vsrc1).src)?;
    Some((x, y))
}

impl Fx {
    /// Emit entry `c` inline if it is a form this back end covers; false
    /// (nothing emitted) if it must be a call-out.
    pub(super) fn entry(&mut self, block: &Block, c: &Compiled) -> bool {
        match c.fast {
            Fast::Valu { op, dst, a, b, c } if valu_inline(op) => self.valu(op, dst, a, b, c),
            Fast::Cndmask { dst, a, b, mask } => {
                let take = self.mask_src(mask);
                let (x, y) = (self.src(a), self.src(b));
                let r = self.ins(format!("select {M} {take}, {V} {y}, {V} {x}"));
                self.set_row(dst, r);
            }
            Fast::Vcmp { cmp, dst, a, b } => {
                // valu/fast.rs `compare`: 1 less, 2 equal, 3 less-or-equal,
                // 4 greater, 5 not equal, else greater-or-equal.
                let cc = match (cmp.cond, cmp.signed) {
                    (1, true) => "slt",
                    (1, false) => "ult",
                    (2, _) => "eq",
                    (3, true) => "sle",
                    (3, false) => "ule",
                    (4, true) => "sgt",
                    (4, false) => "ugt",
                    (5, _) => "ne",
                    (_, true) => "sge",
                    (_, false) => "uge",
                };
                let (mut x, mut y) = (self.src(a), self.src(b));
                if cmp.bits16 {
                    // The low halves, extended as the compare's sign says.
                    let ext = if cmp.signed { "ashr" } else { "lshr" };
                    for v in [&mut x, &mut y] {
                        let up = self.ins(format!("shl {V} {v}, {}", splat(16)));
                        *v = self.ins(format!("{ext} {V} {up}, {}", splat(16)));
                    }
                }
                let h = self.ins(format!("icmp {cc} {V} {x}, {y}"));
                self.set_mask(dst, &h);
            }
            Fast::AddCo {
                sub,
                rev,
                dst,
                sdst,
                a,
                b,
            } if sdst as usize != EXEC => self.carry(Carry {
                sub,
                rev,
                dst,
                sdst,
                a,
                b,
                cin: None,
            }),
            Fast::AddCoCi {
                sub,
                rev,
                dst,
                sdst,
                a,
                b,
                cin,
            } if sdst as usize != EXEC => self.carry(Carry {
                sub,
                rev,
                dst,
                sdst,
                a,
                b,
                cin: Some(cin),
            }),
            Fast::AddPair(ref p) if p.sdst as usize != EXEC => self.add_pair(p),
            Fast::LshlrevB64 { dst, a, b } => self.lshlrev_b64(dst, a, b),
            Fast::MadU64 { dst, sdst, a, b, c } if sdst as usize != EXEC => {
                self.mad_u64(dst, sdst, a, b, c)
            }
            Fast::FmaF32 { dst, a, b, c } => {
                let (x, y, z) = (self.src(a), self.src(b), self.src(c));
                let r = self.fma3([a, b, c], &x, &y, &z);
                self.set_row(dst, r);
            }
            Fast::Fma32(f) if f.op == Fma32Op::Fma => self.fma32(&f),
            Fast::Fma32(f) => self.division(&f),
            Fast::Scalar(Scalar::Op64 { op, dst, a, b }) => self.op64(op, dst, a, b),
            Fast::Scalar(Scalar::Ctz64 { dst, a }) => self.ctz64(dst, a),
            Fast::Scalar(Scalar::Sopk { op, dst, simm }) => self.sopk(op, dst, simm),
            // s_getpc_b64: the next instruction's address, a constant of
            // the block (salu/fast.rs `Scalar::Pc` without a jump).
            Fast::Scalar(Scalar::Pc {
                dst,
                ret,
                jump: None,
            }) => {
                self.set_sgpr(dst, format!("{}", ret as u32 as i32));
                self.set_sgpr(dst + 1, format!("{}", (ret >> 32) as u32 as i32));
            }
            Fast::Scalar(Scalar::Saveexec {
                op,
                wide,
                wr,
                dst,
                a,
            }) => self.saveexec(op, wide, wr, dst, a),
            Fast::Fcmp(f) if f.kind == FcmpKind::F32 => self.fcmp(&f),
            Fast::Fcmp(f) if f.kind == FcmpKind::F64 => self.fcmp64(&f),
            Fast::F64(f) if !f.uses_mask() => return self.float64(&f),
            Fast::Fcmp(f) if f.kind == FcmpKind::Class32 => self.class32(&f),
            Fast::Fcmp(f) if f.kind == FcmpKind::Class64 => self.class64(&f),
            Fast::Flt(f) => return self.flt(&f),
            Fast::Vint(v) => return self.vint(&v),
            Fast::Vopd(v) => {
                self.dual(DualHalf::Op(v.x), DualHalf::Op(v.y));
            }
            Fast::Salu { op, dst, a, b } if salu_inline(op) => self.salu(op, dst, a, b),
            Fast::Readlane { dst, a, lane } => self.readlane(dst, a, lane),
            Fast::Lane(Lane::Write { dst, val, lane }) => self.writelane(dst, val, lane),
            Fast::Lane(Lane::ReadFirst { dst, a }) => self.readfirstlane(dst, a),
            Fast::DsShuffle(ref d) => return self.shuffle(d),
            Fast::Slow => {
                let i = &block.insts[c.index as usize];
                if i.family == Family::Vopd {
                    let Some((x, y)) = slow_dual(i) else {
                        return false;
                    };
                    self.dual(x, y);
                    return true;
                }
                if let Some((dst, a)) = slow_scalar_unary(i) {
                    self.scalar_unary(i.op, dst, a);
                    return true;
                }
                if let Some(p) = slow_packed_f16(i) {
                    return self.packed_f16(&p);
                }
                if let Some((cross, dst, a, s1, s2)) = slow_permlane(i) {
                    self.permlane(cross, dst, a, s1, s2);
                    return true;
                }
                if !slow_unary(i) {
                    let Some(s) = slow_valu(i, self.target.has_f16c()) else {
                        return false;
                    };
                    self.slow_valu(&s);
                    return true;
                }
                let (Ok(dst), Some(a)) = (u8::try_from(i.dst), vsrc(i.src[0].src)) else {
                    return false;
                };
                let x = self.src(a);
                let r = match i.op {
                    Op::VExpF32 => self.exp2(&x),
                    Op::VLogF32 => self.log2(&x),
                    Op::VRndneF32 => self.rndne(&x),
                    Op::VCvtI32F32 => self.cvt_i32(&x),
                    Op::VBfrevB32 => self.ins(format!("call {V} @llvm.bitreverse.v32i32({V} {x})")),
                    _ => {
                        let f = self.ins(format!("sitofp {V} {x} to {F}"));
                        self.bits(&f)
                    }
                };
                self.set_row(dst, r);
            }
            _ => return false,
        }
        true
    }

    /// s_not, s_brev, s_bcnt0, s_bcnt1 and s_abs of 32 bits (salu/mod.rs
    /// `scalar`): SCC is the result's being non-zero, except for s_brev,
    /// which keeps it.
    fn scalar_unary(&mut self, op: Op, dst: u8, a: SSrc) {
        let x = self.sread(a);
        let r = match op {
            Op::SNotB32 => self.ins(format!("xor i32 {x}, -1")),
            Op::SBrevB32 => self.ins(format!("call i32 @llvm.bitreverse.i32(i32 {x})")),
            Op::SBcnt1I32B32 => self.ins(format!("call i32 @llvm.ctpop.i32(i32 {x})")),
            Op::SBcnt0I32B32 => {
                let n = self.ins(format!("xor i32 {x}, -1"));
                self.ins(format!("call i32 @llvm.ctpop.i32(i32 {n})"))
            }
            _ => self.ins(format!("call i32 @llvm.abs.i32(i32 {x}, i1 false)")),
        };
        if op != Op::SBrevB32 {
            let nz = self.ins(format!("icmp ne i32 {r}, 0"));
            self.set_scc(nz);
        }
        self.set_sgpr(dst, r);
    }

    fn valu(&mut self, op: VOp, dst: u8, a: VSrc, b: VSrc, c: VSrc) {
        let two = |fx: &mut Self, inst: &str| {
            let (x, y) = (fx.src(a), fx.src(b));
            fx.ins(format!("{inst} {V} {x}, {y}"))
        };
        let min_max = |fx: &mut Self, f: &str| {
            let (x, y) = (fx.src(a), fx.src(b));
            fx.ins(format!("call {V} @llvm.{f}.v32i32({V} {x}, {V} {y})"))
        };
        // int32.rs: shift amounts are taken mod 32.
        let amount = |fx: &mut Self, s: VSrc| {
            let n = fx.src(s);
            fx.ins(format!("and {V} {n}, {}", splat(31)))
        };
        let r = match op {
            VOp::Mov => self.src(a),
            VOp::AddU32 => two(self, "add"),
            VOp::SubU32 => two(self, "sub"),
            VOp::SubrevU32 => {
                let (x, y) = (self.src(a), self.src(b));
                self.ins(format!("sub {V} {y}, {x}"))
            }
            VOp::And => two(self, "and"),
            VOp::Or => two(self, "or"),
            VOp::Xor => two(self, "xor"),
            VOp::MulLo => two(self, "mul"),
            VOp::MaxU32 => min_max(self, "umax"),
            VOp::MinU32 => min_max(self, "umin"),
            VOp::MaxI32 => min_max(self, "smax"),
            VOp::MinI32 => min_max(self, "smin"),
            VOp::Lshlrev | VOp::Lshrrev | VOp::Ashrrev => {
                let n = amount(self, a);
                let y = self.src(b);
                let inst = match op {
                    VOp::Lshlrev => "shl",
                    VOp::Lshrrev => "lshr",
                    _ => "ashr",
                };
                self.ins(format!("{inst} {V} {y}, {n}"))
            }
            VOp::Add3 | VOp::Or3 | VOp::Xor3 | VOp::AndOr => {
                let (x, y, z) = (self.src(a), self.src(b), self.src(c));
                let (first, second) = match op {
                    VOp::Add3 => ("add", "add"),
                    VOp::Or3 => ("or", "or"),
                    VOp::Xor3 => ("xor", "xor"),
                    _ => ("and", "or"),
                };
                let xy = self.ins(format!("{first} {V} {x}, {y}"));
                self.ins(format!("{second} {V} {xy}, {z}"))
            }
            VOp::LshlOr | VOp::LshlAdd => {
                let n = amount(self, b);
                let (x, z) = (self.src(a), self.src(c));
                let s = self.ins(format!("shl {V} {x}, {n}"));
                let inst = if op == VOp::LshlOr { "or" } else { "add" };
                self.ins(format!("{inst} {V} {s}, {z}"))
            }
            VOp::AddLshl => {
                let n = amount(self, c);
                let (x, y) = (self.src(a), self.src(b));
                let s = self.ins(format!("add {V} {x}, {y}"));
                self.ins(format!("shl {V} {s}, {n}"))
            }
            VOp::MulHiU32 | VOp::MulHiI32 => {
                // int32.rs: the high dword of the 64-bit product.
                let ext = if op == VOp::MulHiU32 { "zext" } else { "sext" };
                let (x, y) = (self.src(a), self.src(b));
                let x = self.ins(format!("{ext} {V} {x} to <32 x i64>"));
                let y = self.ins(format!("{ext} {V} {y} to <32 x i64>"));
                let p = self.ins(format!("mul <32 x i64> {x}, {y}"));
                let h = self.ins(format!("lshr <32 x i64> {p}, splat (i64 32)"));
                self.ins(format!("trunc <32 x i64> {h} to {V}"))
            }
            VOp::MulU24 | VOp::MadU24 => {
                // int32.rs `mul_u24`: the low 24 bits of each, wrapping.
                let (x, y) = (self.src(a), self.src(b));
                let x = self.ins(format!("and {V} {x}, {}", splat(0xFF_FFFF)));
                let y = self.ins(format!("and {V} {y}, {}", splat(0xFF_FFFF)));
                let p = self.ins(format!("mul {V} {x}, {y}"));
                if op == VOp::MadU24 {
                    let z = self.src(c);
                    self.ins(format!("add {V} {p}, {z}"))
                } else {
                    p
                }
            }
            VOp::Xad => {
                let (x, y, z) = (self.src(a), self.src(b), self.src(c));
                let xy = self.ins(format!("xor {V} {x}, {y}"));
                self.ins(format!("add {V} {xy}, {z}"))
            }
            VOp::BfeU32 | VOp::BfeI32 => {
                // valu/mod.rs `bfe_u`/`bfe_i`: offset and width mod 32, width
                // 0 gives 0 (the mask (1 << 0) - 1 is 0, and the sign shift
                // (32 - 0) & 31 is 0).
                let (x, off, width) = (self.src(a), amount(self, b), amount(self, c));
                let v = self.ins(format!("lshr {V} {x}, {off}"));
                let one = self.ins(format!("shl {V} {}, {width}", splat(1)));
                let mask = self.ins(format!("sub {V} {one}, {}", splat(1)));
                let field = self.ins(format!("and {V} {v}, {mask}"));
                if op == VOp::BfeU32 {
                    field
                } else {
                    let up = self.ins(format!("sub {V} {}, {width}", splat(32)));
                    let up = self.ins(format!("and {V} {up}, {}", splat(31)));
                    let s = self.ins(format!("shl {V} {field}, {up}"));
                    self.ins(format!("ashr {V} {s}, {up}"))
                }
            }
            VOp::Alignbit => {
                // int32.rs `alignbit`: bits `c & 31` up of the pair a:b (the
                // funnel shift takes its amount mod 32).
                let (x, y, n) = (self.src(a), self.src(b), self.src(c));
                self.ins(format!(
                    "call {V} @llvm.fshr.v32i32({V} {x}, {V} {y}, {V} {n})"
                ))
            }
            VOp::CvtF32U32 => {
                // `u32 as f32`: one rounding, to nearest even.
                let x = self.src(a);
                let f = self.ins(format!("uitofp {V} {x} to {F}"));
                self.bits(&f)
            }
            _ => {
                let x = self.src(a);
                self.cvt_u32(&x)
            }
        };
        self.set_row(dst, r);
    }

    /// Rust's `f32 as i32` (valu/mod.rs `cvt_i32`): toward zero, saturating,
    /// NaN to 0. The out-of-range lanes are selected around a plain
    /// conversion (LLVM scalarises its saturating conversion intrinsic).
    pub(super) fn cvt_i32(&mut self, x: &str) -> String {
        let f = self.fl(x);
        let two31 = format!("splat (float 0x{:016X})", 2147483648f64.to_bits());
        let ntwo31 = format!("splat (float 0x{:016X})", (-2147483648f64).to_bits());
        let nan = self.ins(format!("fcmp uno {F} {f}, zeroinitializer"));
        let big = self.ins(format!("fcmp oge {F} {f}, {two31}"));
        let small = self.ins(format!("fcmp olt {F} {f}, {ntwo31}"));
        let out = self.ins(format!("or {M} {nan}, {big}"));
        let out = self.ins(format!("or {M} {out}, {small}"));
        let safe = self.ins(format!("select {M} {out}, {F} zeroinitializer, {F} {f}"));
        let i = self.ins(format!("fptosi {F} {safe} to {V}"));
        let i = self.ins(format!(
            "select {M} {big}, {V} {}, {V} {i}",
            splat(i32::MAX as u32)
        ));
        self.ins(format!(
            "select {M} {small}, {V} {}, {V} {i}",
            splat(i32::MIN as u32)
        ))
    }

    /// Rust's `f32 as u32` (valu/mod.rs `cvt_u32`): toward zero,
    /// saturating, NaN and negative values to 0.
    pub(super) fn cvt_u32(&mut self, x: &str) -> String {
        let f = self.fl(x);
        let two32 = format!("splat (float 0x{:016X})", 4294967296f64.to_bits());
        let low = self.ins(format!("fcmp ult {F} {f}, zeroinitializer"));
        let big = self.ins(format!("fcmp oge {F} {f}, {two32}"));
        let out = self.ins(format!("or {M} {low}, {big}"));
        let safe = self.ins(format!("select {M} {out}, {F} zeroinitializer, {F} {f}"));
        let i = self.ins(format!("fptoui {F} {safe} to {V}"));
        let i = self.ins(format!(
            "select {M} {big}, {V} {}, {V} {i}",
            splat(u32::MAX)
        ));
        self.ins(format!("select {M} {low}, {V} zeroinitializer, {V} {i}"))
    }

    // f32.

    /// gfxsim's NaN rule on a host result `r` of sources `srcs` (bits;
    /// `kinds` their operands): a NaN result becomes the first NaN source
    /// quieted, or the default NaN when no source is one. A constant that
    /// is not a NaN needs no test.
    ///
    /// NaN results are rare, so the rule is a branch around it: one test of
    /// the whole result, and the per-source selects only on waves that
    /// produced a NaN.
    pub(super) fn nan_rule(&mut self, kinds: &[VSrc], srcs: &[&str], r: &str) -> String {
        if self.defers_result() {
            return r.to_owned();
        }
        let fr = self.fl(r);
        if self.pair_nans.is_some() {
            self.note_pair_nans(&fr);
            return r.to_owned();
        }
        let bad = self.ins(format!("fcmp uno {F} {fr}, zeroinitializer"));
        self.rarely(&bad, V, r, |fx| fx.nan_rule_lanes(kinds, srcs, &bad, r))
    }

    /// The rule's per-lane selects, on lanes `bad` (the NaN results).
    fn nan_rule_lanes(&mut self, kinds: &[VSrc], srcs: &[&str], bad: &str, r: &str) -> String {
        let mut pick = splat(DEFAULT_NAN);
        for k in (0..srcs.len()).rev() {
            if let VSrc::Imm(v) = kinds[k]
                && !f32::from_bits(v).is_nan()
            {
                continue;
            }
            let f = self.fl(srcs[k]);
            let nan = self.ins(format!("fcmp uno {F} {f}, zeroinitializer"));
            let q = self.ins(format!("or {V} {}, {}", srcs[k], splat(QUIET)));
            pick = self.ins(format!("select {M} {nan}, {V} {q}, {V} {pick}"));
        }
        self.ins(format!("select {M} {bad}, {V} {pick}, {V} {r}"))
    }

    /// v_fma_f32: the fused result, then the NaN rule.
    pub(super) fn fma3(&mut self, kinds: [VSrc; 3], x: &str, y: &str, z: &str) -> String {
        let (fx, fy, fz) = (self.fl(x), self.fl(y), self.fl(z));
        let r = self.ins(format!(
            "call {F} @llvm.fma.v32f32({F} {fx}, {F} {fy}, {F} {fz})"
        ));
        let r = self.bits(&r);
        self.nan_rule(&kinds, &[x, y, z], &r)
    }

    /// `x` with source `k`'s abs (bit k of `mods`) and neg (bit 4 + k).
    pub(super) fn modify(&mut self, mods: u8, k: usize, x: String) -> String {
        let x = if mods >> k & 1 != 0 {
            self.ins(format!("and {V} {x}, {}", splat(0x7FFF_FFFF)))
        } else {
            x
        };
        if mods >> (4 + k) & 1 != 0 {
            self.ins(format!("xor {V} {x}, {}", splat(0x8000_0000)))
        } else {
            x
        }
    }

    /// A two-source f32 op (`add`, `sub`, `mul`; `rev` swaps) with the NaN rule.
    fn arith(&mut self, inst: &str, rev: bool, kinds: [VSrc; 2], x: &str, y: &str) -> String {
        let (p, q) = (self.fl(x), self.fl(y));
        let r = if rev {
            self.ins(format!("{inst} {F} {q}, {p}"))
        } else {
            self.ins(format!("{inst} {F} {p}, {q}"))
        };
        let r = self.bits(&r);
        self.nan_rule(&kinds, &[x, y], &r)
    }

    /// The f32 forms of [`Flt`] (f16 ones are call-outs).
    fn flt(&mut self, f: &Flt) -> bool {
        use FltOp::*;
        if matches!(
            f.op,
            AddF16 | SubF16 | SubrevF16 | MulF16 | MaxF16 | MinF16 | PackF16
        ) {
            return self.flt16(f);
        }
        if !matches!(
            f.op,
            Add | Sub
                | Subrev
                | Mul
                | Sqrt
                | Max
                | Min
                | Ldexp
                | Rcp
                | Rsq
                | FrexpMant
                | FrexpExp
                | Trunc
        ) {
            return false;
        }
        let x = self.src(f.a);
        let x = self.modify(f.mods, 0, x);
        let r = match f.op {
            Trunc => {
                // valu/mod.rs `trunc32`: toward zero, a NaN quieted (what
                // the NaN rule gives for its one source).
                let p = self.fl(&x);
                let r = self.ins(format!("call {F} @llvm.trunc.v32f32({F} {p})"));
                let r = self.bits(&r);
                self.nan_rule(&[f.a], &[&x], &r)
            }
            Sqrt => {
                // f32::sqrt, the host's correctly rounded square root.
                let p = self.fl(&x);
                let r = self.ins(format!("call {F} @llvm.sqrt.v32f32({F} {p})"));
                let r = self.bits(&r);
                self.nan_rule(&[f.a], &[&x], &r)
            }
            // The interpreter's `rcp32` divides in f64 and rounds to f32;
            // dividing in f32 gives the same bits, since rounding a quotient
            // of p-bit numbers first to 2p + 2 or more bits is innocuous
            // (Figueroa, "When is double rounding innocuous?", 1995: 53 ≥ 50),
            // and it takes half the host vector operations.
            Rcp => {
                let p = self.fl(&x);
                let r = self.ins(format!("fdiv {F} {}, {p}", splat_f32(1.0)));
                self.bits(&r)
            }
            Rsq => self.per_f64(&x, |m, d| {
                let s = m.ins(format!("call {D} @llvm.sqrt.v32f64({D} {d})"));
                m.ins(format!("fdiv {D} {}, {s}", super::emit::splat_f64(1.0)))
            }),
            FrexpMant => self.frexp(&x).0,
            FrexpExp => self.frexp(&x).1,
            Ldexp => {
                // The exponent is a raw integer (no modifiers).
                let y = self.src(f.b);
                self.ldexp(&x, &y)
            }
            _ => {
                let y = self.src(f.b);
                let y = self.modify(f.mods, 1, y);
                match f.op {
                    Max => self.minmax(&x, &y, true),
                    Min => self.minmax(&x, &y, false),
                    Add => self.arith("fadd", false, [f.a, f.b], &x, &y),
                    Sub => self.arith("fsub", false, [f.a, f.b], &x, &y),
                    Subrev => self.arith("fsub", true, [f.a, f.b], &x, &y),
                    _ => self.arith("fmul", false, [f.a, f.b], &x, &y),
                }
            }
        };
        self.set_row(f.dst, r);
        true
    }

    /// The f16 forms on the low halves (valu/fast_f32.rs `run`): each
    /// source's low half with the f16 abs/neg (`h16s`), widened to f32 by
    /// F16C (`f16s_to_f32`), the f32 op with its NaN rule as for f32, then
    /// rounded to nearest even f16 by F16C (`f32s_to_f16`) into the low half,
    /// the destination's high half kept (GFX9: zeroed); v_pack_b32_f16 the two modified
    /// halves. LLVM's half conversions are F16C's instructions on a host
    /// that has it, as the interpreter's are; elsewhere the forms stay
    /// call-outs (false). v_fmac_f16 is [`Fx::fmac16`].
    fn flt16(&mut self, f: &Flt) -> bool {
        use FltOp::*;
        if !self.target.has_f16c() {
            return false;
        }
        let (a, b) = (self.half_source(f, 0, f.a), self.half_source(f, 1, f.b));
        if f.op == PackF16 {
            let lo = self.ins(format!("and {V} {a}, {}", splat(0xFFFF)));
            let hi = self.ins(format!("shl {V} {b}, {}", splat(16)));
            let r = self.ins(format!("or {V} {lo}, {hi}"));
            self.set_row(f.dst, r);
            return true;
        }
        let (x, y) = (self.widen16(&a), self.widen16(&b));
        // The widened values are not the sources' bits: no constant source
        // is known not to be a NaN.
        let kinds = [VSrc::Vgpr(0), VSrc::Vgpr(0)];
        let r = match f.op {
            MaxF16 => self.minmax(&x, &y, true),
            MinF16 => self.minmax(&x, &y, false),
            AddF16 => self.arith("fadd", false, kinds, &x, &y),
            SubF16 => self.arith("fsub", false, kinds, &x, &y),
            SubrevF16 => self.arith("fsub", true, kinds, &x, &y),
            _ => self.arith("fmul", false, kinds, &x, &y),
        };
        let h = self.narrow16(&r);
        // GFX9's f16 ops zero the high half (valu/fast_f32.rs `zero_hi`).
        if f.zero_hi {
            self.set_row(f.dst, h);
            return true;
        }
        let cur = self.row(f.dst);
        let keep = self.ins(format!("and {V} {cur}, {}", splat(0xFFFF_0000)));
        let r = self.ins(format!("or {V} {keep}, {h}"));
        self.set_row(f.dst, r);
        true
    }

    /// Source `k` (`s`) of f16 form `f` with its abs/neg on the low half's
    /// sign bit (valu/fast_f32.rs `h16s`; the high half as read).
    fn half_source(&mut self, f: &Flt, k: usize, s: VSrc) -> String {
        let mut x = self.src(s);
        if f.mods >> k & 1 != 0 {
            x = self.ins(format!("and {V} {x}, {}", splat(!0x8000)));
        }
        if f.mods >> (4 + k) & 1 != 0 {
            x = self.ins(format!("xor {V} {x}, {}", splat(0x8000)));
        }
        x
    }

    /// v_fmac_f16 (valu/mod.rs `fma16`; wave64 once per 32-lane half): the low halves of the
    /// sources (with abs/neg) and of the destination widened exactly to
    /// f64, `a * b + c` there (a multiply, then an add, each rounded to
    /// f64 as the interpreter's are), then rounded once to f16 as
    /// exec/valu/round_once.rs does: to odd in f32 (toward zero, the last
    /// bit set when inexact), then to nearest even f16 by F16C, the high
    /// half kept. A wave with a NaN among its active lanes' results (a NaN
    /// source, inf * 0, inf - inf) calls out, where the interpreter picks
    /// its NaN through `half`'s conversions. False (a call-out) without
    /// F16C.
    pub(super) fn fmac16(&mut self, f: &Flt, at: (u32, u32, &Footprint)) -> bool {
        if !self.target.has_f16c() {
            return false;
        }
        let (a, b) = (self.half_source(f, 0, f.a), self.half_source(f, 1, f.b));
        let cur = self.row(f.dst);
        let wide = |fx: &mut Self, x: &str| {
            let t = fx.ins(format!("trunc {V} {x} to <32 x i16>"));
            let h = fx.ins(format!("bitcast <32 x i16> {t} to <32 x half>"));
            fx.ins(format!("fpext <32 x half> {h} to {D}"))
        };
        let (x, y, z) = (wide(self, &a), wide(self, &b), wide(self, &cur));
        let p = self.ins(format!("fmul {D} {x}, {y}"));
        let sum = self.ins(format!("fadd {D} {p}, {z}"));
        let nan = self.ins(format!("fcmp uno {D} {sum}, {sum}"));
        let rare = self.any_active(&nan);
        self.inline_unless(&rare, at, &[f.dst], &[], |fx| {
            let r = fx.odd32(&sum);
            let h = fx.narrow16(&r);
            let keep = fx.ins(format!("and {V} {cur}, {}", splat(0xFFFF_0000)));
            let r = fx.ins(format!("or {V} {keep}, {h}"));
            fx.set_row(f.dst, r);
        });
        true
    }

    /// f64 lanes `x` (no NaN) rounded to odd in f32 (round_once.rs
    /// `odd32` with no error term), as f32 bits: the nearest f32, one step
    /// toward zero where that is past `x` in magnitude (infinity becomes
    /// the greatest finite), the last bit set where it is not `x`.
    fn odd32(&mut self, x: &str) -> String {
        let near = self.ins(format!("fptrunc {D} {x} to {F}"));
        let back = self.ins(format!("fpext {F} {near} to {D}"));
        let (m_back, m_x) = (self.fabs64(&back), self.fabs64(x));
        let past = self.ins(format!("fcmp ogt {D} {m_back}, {m_x}"));
        let step = self.ins(format!("zext {M} {past} to {V}"));
        let bits = self.bits(&near);
        let t = self.ins(format!("sub {V} {bits}, {step}"));
        let inexact = self.ins(format!("fcmp une {D} {back}, {x}"));
        let odd = self.ins(format!("zext {M} {inexact} to {V}"));
        self.ins(format!("or {V} {t}, {odd}"))
    }

    /// Does a lane of EXEC have mask `m` set?
    fn any_active(&mut self, m: &str) -> String {
        let exec = self.exec_mask();
        let on = self.ins(format!("and {M} {m}, {exec}"));
        let bits = self.ins(format!("bitcast {M} {on} to i32"));
        self.ins(format!("icmp ne i32 {bits}, 0"))
    }

    /// The f16 in the low half of each lane of `x` widened to f32 bits
    /// as F16C does (`f16s_to_f32`). F16C's widening quiets a signalling
    /// NaN (its payload shifted up). LLVM's fpext leaves NaN bits
    /// unspecified, and folds a conversion back of a value picked between
    /// widened sources (max, min) into a pick of the sources, so the quiet
    /// bit is set as an integer op, which also keeps LLVM from folding.
    /// The NaN test is on the f16 bits: LLVM turns a float test of the
    /// widened value into one of the f16 value, which x86 without
    /// AVX512-FP16 runs lane by lane.
    pub(super) fn widen16(&mut self, x: &str) -> String {
        let t = self.ins(format!("trunc {V} {x} to <32 x i16>"));
        let h = self.ins(format!("bitcast <32 x i16> {t} to <32 x half>"));
        let w = self.ins(format!("fpext <32 x half> {h} to {F}"));
        let magnitude = self.ins(format!("and {V} {x}, {}", splat(0x7FFF)));
        let nan = self.ins(format!("icmp ugt {V} {magnitude}, {}", splat(0x7C00)));
        let bits = self.bits(&w);
        let quiet = self.ins(format!("or {V} {bits}, {}", splat(0x40_0000)));
        self.ins(format!("select {M} {nan}, {V} {quiet}, {V} {bits}"))
    }

    /// f32 bits `r` rounded to nearest even f16 as F16C does
    /// (`f32s_to_f16`), in the low half of each lane (the high half 0).
    fn narrow16(&mut self, r: &str) -> String {
        let p = self.fl(r);
        let h = self.ins(format!("fptrunc {F} {p} to <32 x half>"));
        let h = self.ins(format!("bitcast <32 x half> {h} to <32 x i16>"));
        self.ins(format!("zext <32 x i16> {h} to {V}"))
    }

    /// v_pk_add/mul/max/min_f16 (valu/mod.rs `packed`): for each result
    /// half, each source's half op_sel (low) or op_sel_hi (high) picks,
    /// negated by neg (low) or neg_hi (high), widened and computed as the
    /// f16 forms are (`flt16`); false (a call-out) without F16C.
    fn packed_f16(&mut self, p: &PackedF16) -> bool {
        if !self.target.has_f16c() {
            return false;
        }
        let mut out = Vec::new();
        for h in 0..2 {
            let x = self.packed_sources(p, h, 2);
            let kinds = [VSrc::Vgpr(0), VSrc::Vgpr(0)];
            let r = match p.op {
                Op::VPkMaxF16 => self.minmax(&x[0], &x[1], true),
                Op::VPkMinF16 => self.minmax(&x[0], &x[1], false),
                Op::VPkAddF16 => self.arith("fadd", false, kinds, &x[0], &x[1]),
                Op::VPkMulF16 => self.arith("fmul", false, kinds, &x[0], &x[1]),
                // v_pk_fma_f16 is `pk_fma16`'s (a call-out here).
                _ => return false,
            };
            out.push(self.narrow16(&r));
        }
        let hi = self.ins(format!("shl {V} {}, {}", out[1], splat(16)));
        let r = self.ins(format!("or {V} {}, {hi}", out[0]));
        self.set_row(p.dst, r);
        true
    }

    /// The first `n` sources of `p` for result half `h`: the half op_sel
    /// (low) or op_sel_hi (high) picks, negated by neg (low) or neg_hi
    /// (high), widened to f32 bits as F16C does (`widen16`).
    fn packed_sources(&mut self, p: &PackedF16, h: usize, n: usize) -> Vec<String> {
        let mut x = Vec::new();
        for k in 0..n {
            let mut v = self.src(p.src[k]);
            if p.sel[h] >> k & 1 != 0 {
                v = self.ins(format!("lshr {V} {v}, {}", splat(16)));
            }
            if p.neg[h] >> k & 1 != 0 {
                v = self.ins(format!("xor {V} {v}, {}", splat(0x8000)));
            }
            x.push(self.widen16(&v));
        }
        x
    }

    /// v_pk_fma_f16 (valu/mod.rs `packed`; wave64 once per 32-lane half): for each result half
    /// the three sources' halves as `packed_f16` picks them, widened to
    /// f64, `a * b + c` there (a multiply, then an add, as the
    /// interpreter's), then rounded once to f16 as `fmac16` does (to odd
    /// in f32, then nearest even by F16C). A wave with a NaN among its
    /// active lanes' results calls out, where the interpreter picks its
    /// NaN through `half`'s conversions. False (a call-out) without F16C.
    pub(super) fn pk_fma16(&mut self, p: &PackedF16, at: (u32, u32, &Footprint)) -> bool {
        if !self.target.has_f16c() {
            return false;
        }
        let mut sums = Vec::new();
        let mut nan = String::from("zeroinitializer");
        for h in 0..2 {
            let x = self.packed_sources(p, h, 3);
            let d: Vec<String> = x
                .iter()
                .map(|v| {
                    let f = self.fl(v);
                    self.ins(format!("fpext {F} {f} to {D}"))
                })
                .collect();
            let prod = self.ins(format!("fmul {D} {}, {}", d[0], d[1]));
            let sum = self.ins(format!("fadd {D} {prod}, {}", d[2]));
            let un = self.ins(format!("fcmp uno {D} {sum}, {sum}"));
            nan = self.ins(format!("or {M} {nan}, {un}"));
            sums.push(sum);
        }
        let rare = self.any_active(&nan);
        self.inline_unless(&rare, at, &[p.dst], &[], |fx| {
            let halves: Vec<String> = sums
                .iter()
                .map(|s| {
                    let r = fx.odd32(s);
                    fx.narrow16(&r)
                })
                .collect();
            let hi = fx.ins(format!("shl {V} {}, {}", halves[1], splat(16)));
            let r = fx.ins(format!("or {V} {}, {hi}", halves[0]));
            fx.set_row(p.dst, r);
        });
        true
    }

    /// v_fma_f32 with abs/neg.
    fn fma32(&mut self, f: &Fma32) {
        let [x, y, z] = self.fma32_sources(f);
        let r = self.fma3(f.src, &x, &y, &z);
        self.set_row(f.dst, r);
    }

    /// The three sources of a three-source f32 op, abs/neg applied.
    pub(super) fn fma32_sources(&mut self, f: &Fma32) -> [String; 3] {
        let mut out = [String::new(), String::new(), String::new()];
        for (k, (o, &s)) in out.iter_mut().zip(&f.src).enumerate() {
            let v = self.src(s);
            *o = self.modify(f.mods, k, v);
        }
        out
    }

    /// An f32 compare: the relations of `cond` (1 less, 2 equal, 4
    /// greater, 8 unordered) that hold, as one LLVM predicate.
    fn fcmp(&mut self, c: &Fcmp) {
        let (x, y) = (self.fcmp_src(c.a, c.mods, 0), self.fcmp_src(c.b, c.mods, 1));
        let (p, q) = (self.fl(&x), self.fl(&y));
        let pred = FCMP_PREDICATES[(c.cond & 15) as usize];
        let h = self.ins(format!("fcmp {pred} {F} {p}, {q}"));
        self.set_mask(c.dst, &h);
    }

    /// A compare's 32-bit source `s` (valu/fast_vcmp.rs `lanes32`) with
    /// source `k`'s modifiers of `mods`.
    fn fcmp_src(&mut self, s: S64, mods: u8, k: usize) -> String {
        let x = match s {
            S64::Vgpr(r) => self.row(r),
            S64::Sgpr(r) => self.src(VSrc::Sgpr(r)),
            S64::Lo(v) => splat(v),
            // The low dword of `v << 32`.
            S64::Hi(_) => splat(0),
        };
        self.modify(mods, k, x)
    }

    /// v_cmp_class_f32 (valu/fast_vcmp.rs `run` and `class_bit`): the
    /// class of source a (abs/neg applied) as a bit number, 0 sNaN, 1 qNaN,
    /// 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal,
    /// 9 +inf, tested in source b (unmodified).
    fn class32(&mut self, c: &Fcmp) {
        let x = self.fcmp_src(c.a, c.mods, 0);
        let e = self.exponent(&x);
        let m = self.ins(format!("and {V} {x}, {}", splat(0x7F_FFFF)));
        let max_exp = self.ins(format!("icmp eq {V} {e}, {}", splat(0xFF)));
        let some_exp = self.ins(format!("icmp ne {V} {e}, zeroinitializer"));
        let some_mant = self.ins(format!("icmp ne {V} {m}, zeroinitializer"));
        let neg = self.ins(format!("icmp slt {V} {x}, zeroinitializer"));
        let quiet = self.ins(format!("lshr {V} {m}, {}", splat(22)));
        self.class_test(c, [max_exp, some_exp, some_mant, neg], &quiet);
    }

    /// v_cmp_class_f64: `class32` on the f64 fields of source a (a 64-bit
    /// source, abs/neg applied), tested in source b (32 bits, unmodified).
    fn class64(&mut self, c: &Fcmp) {
        let x = self.bits64(c.a, c.mods, 0);
        let e = self.ins(format!("lshr {Q} {x}, splat (i64 52)"));
        let e = self.ins(format!("and {Q} {e}, splat (i64 2047)"));
        let m = self.ins(format!("and {Q} {x}, splat (i64 {})", (1u64 << 52) - 1));
        let max_exp = self.ins(format!("icmp eq {Q} {e}, splat (i64 2047)"));
        let some_exp = self.ins(format!("icmp ne {Q} {e}, zeroinitializer"));
        let some_mant = self.ins(format!("icmp ne {Q} {m}, zeroinitializer"));
        let neg = self.ins(format!("icmp slt {Q} {x}, zeroinitializer"));
        let quiet = self.ins(format!("lshr {Q} {m}, splat (i64 51)"));
        let quiet = self.ins(format!("trunc {Q} {quiet} to {V}"));
        self.class_test(c, [max_exp, some_exp, some_mant, neg], &quiet);
    }

    /// The class tests' common end (`class_bit`): from the masks of a
    /// source whose exponent is all ones, is not zero, whose mantissa is
    /// not zero and whose sign is set, and its quiet bit (0 or 1 per
    /// lane), the class's bit number, tested in source b into `c.dst`.
    fn class_test(
        &mut self,
        c: &Fcmp,
        [max_exp, some_exp, some_mant, neg]: [String; 4],
        quiet: &str,
    ) {
        let mask = self.fcmp_src(c.b, 0, 1);
        // +0 6, +denormal 7, +normal 8, +inf 9; a negative one 11 minus that.
        let nonzero = self.ins(format!("or {M} {some_exp}, {some_mant}"));
        let pos = self.ins(format!("zext {M} {nonzero} to {V}"));
        let pos = self.ins(format!("add {V} {pos}, {}", splat(6)));
        let b = self.ins(format!("zext {M} {some_exp} to {V}"));
        let pos = self.ins(format!("add {V} {pos}, {b}"));
        let b = self.ins(format!("zext {M} {max_exp} to {V}"));
        let pos = self.ins(format!("add {V} {pos}, {b}"));
        let flip = self.ins(format!("sub {V} {}, {pos}", splat(11)));
        let signed = self.ins(format!("select {M} {neg}, {V} {flip}, {V} {pos}"));
        // A NaN: 1 when quiet, else 0.
        let nan = self.ins(format!("and {M} {max_exp}, {some_mant}"));
        let bit = self.ins(format!("select {M} {nan}, {V} {quiet}, {V} {signed}"));
        let hit = self.ins(format!("lshr {V} {mask}, {bit}"));
        let hit = self.ins(format!("trunc {V} {hit} to {M}"));
        self.set_mask(c.dst, &hit);
    }

    /// A VOPD pair: both halves read their sources before either writes.
    fn dual(&mut self, x: DualHalf, y: DualHalf) {
        let rx = self.dual_half(&x);
        let ry = self.dual_half(&y);
        self.set_row(x.dst(), rx);
        self.set_row(y.dst(), ry);
    }

    fn dual_half(&mut self, h: &DualHalf) -> String {
        let h = match *h {
            DualHalf::Op(h) => h,
            DualHalf::Fmac { dst, a, b } => {
                // valu/mod.rs half_compute: fma_lanes(a, b, dst).
                let (x, y, z) = (self.src(a), self.row(b), self.row(dst));
                return self.fma3([a, VSrc::Vgpr(b), VSrc::Vgpr(dst)], &x, &y, &z);
            }
        };
        if h.op == DualOp::Lshlrev {
            let n = self.src(h.a);
            let n = self.ins(format!("and {V} {n}, {}", splat(31)));
            let b = self.row(h.b);
            return self.ins(format!("shl {V} {b}, {n}"));
        }
        let (a, b) = (self.src(h.a), self.row(h.b));
        let kinds = [h.a, VSrc::Vgpr(h.b)];
        match h.op {
            DualOp::Mov => a,
            DualOp::Cndmask => {
                let take = self.mask_src(SSrc::Reg(VCC as u8));
                self.ins(format!("select {M} {take}, {V} {b}, {V} {a}"))
            }
            DualOp::Add => self.ins(format!("add {V} {a}, {b}")),
            DualOp::And => self.ins(format!("and {V} {a}, {b}")),
            DualOp::MaxF32 => self.minmax(&a, &b, true),
            DualOp::MinF32 => self.minmax(&a, &b, false),
            DualOp::MulF32 => self.arith("fmul", false, kinds, &a, &b),
            DualOp::AddF32 => self.arith("fadd", false, kinds, &a, &b),
            DualOp::SubF32 => self.arith("fsub", false, kinds, &a, &b),
            _ => self.arith("fsub", true, kinds, &a, &b),
        }
    }

    /// The inline SALU ops (salu/mod.rs `sop32`'s results and SCC).
    fn salu(&mut self, op: SOp, dst: u8, a: SSrc, b: SSrc) {
        use SOp::*;
        let compare = match op {
            CmpEq => Some("eq"),
            CmpLg => Some("ne"),
            CmpGtI => Some("sgt"),
            CmpGeI => Some("sge"),
            CmpLtI => Some("slt"),
            CmpLeI => Some("sle"),
            CmpGtU => Some("ugt"),
            CmpGeU => Some("uge"),
            CmpLtU => Some("ult"),
            CmpLeU => Some("ule"),
            _ => None,
        };
        let (x, y) = (self.sread(a), self.sread(b));
        if let Some(cc) = compare {
            let s = self.ins(format!("icmp {cc} i32 {x}, {y}"));
            self.set_scc(s);
            return;
        }
        let overflow = |fx: &mut Self, f: &str| {
            let p = fx.ins(format!(
                "call {{i32, i1}} @llvm.{f}.with.overflow.i32(i32 {x}, i32 {y})"
            ));
            let r = fx.ins(format!("extractvalue {{i32, i1}} {p}, 0"));
            let o = fx.ins(format!("extractvalue {{i32, i1}} {p}, 1"));
            (r, Some(o))
        };
        let min_max = |fx: &mut Self, f: &str, cc: &str| {
            let r = fx.ins(format!("call i32 @llvm.{f}.i32(i32 {x}, i32 {y})"));
            let s = fx.ins(format!("icmp {cc} i32 {x}, {y}"));
            (r, Some(s))
        };
        // (result, SCC; None: result != 0).
        let (r, scc): (String, Option<String>) = match op {
            Mov => {
                let s = self.scc();
                (x.clone(), Some(s))
            }
            AddU32 => {
                let r = self.ins(format!("add i32 {x}, {y}"));
                let c = self.ins(format!("icmp ult i32 {r}, {x}"));
                (r, Some(c))
            }
            SubU32 => {
                let r = self.ins(format!("sub i32 {x}, {y}"));
                let c = self.ins(format!("icmp ult i32 {x}, {y}"));
                (r, Some(c))
            }
            AddcU32 | SubbU32 => {
                // salu/mod.rs: in 64 bits with SCC as the carry (borrow) in;
                // SCC out is the carry out (b + SCC > a for the borrow).
                let c = self.scc();
                let c = self.ins(format!("zext i1 {c} to i64"));
                let x64 = self.ins(format!("zext i32 {x} to i64"));
                let y64 = self.ins(format!("zext i32 {y} to i64"));
                let yc = self.ins(format!("add i64 {y64}, {c}"));
                if op == AddcU32 {
                    let sum = self.ins(format!("add i64 {x64}, {yc}"));
                    let r = self.ins(format!("trunc i64 {sum} to i32"));
                    let carry = self.ins(format!("icmp ugt i64 {sum}, 4294967295"));
                    (r, Some(carry))
                } else {
                    let diff = self.ins(format!("sub i64 {x64}, {yc}"));
                    let r = self.ins(format!("trunc i64 {diff} to i32"));
                    let borrow = self.ins(format!("icmp ugt i64 {yc}, {x64}"));
                    (r, Some(borrow))
                }
            }
            AddI32 => overflow(self, "sadd"),
            SubI32 => overflow(self, "ssub"),
            MinI32 => min_max(self, "smin", "slt"),
            MinU32 => min_max(self, "umin", "ult"),
            MaxI32 => min_max(self, "smax", "sgt"),
            MaxU32 => min_max(self, "umax", "ugt"),
            Cselect => {
                let s = self.scc();
                let r = self.ins(format!("select i1 {s}, i32 {x}, i32 {y}"));
                (r, Some(s))
            }
            And | Or | Xor => {
                let inst = match op {
                    And => "and",
                    Or => "or",
                    _ => "xor",
                };
                let r = self.ins(format!("{inst} i32 {x}, {y}"));
                self.bitwise_mask(&r, inst, &x, &y, [false, false]);
                (r, None)
            }
            AndNot1 | OrNot1 => {
                let n = self.ins(format!("xor i32 {y}, -1"));
                let inst = if op == AndNot1 { "and" } else { "or" };
                let r = self.ins(format!("{inst} i32 {x}, {n}"));
                self.bitwise_mask(&r, inst, &x, &y, [false, true]);
                (r, None)
            }
            Lshl | Lshr | Ashr => {
                // salu/mod.rs: the amount is b & 31.
                let n = self.ins(format!("and i32 {y}, 31"));
                let inst = match op {
                    Lshl => "shl",
                    Lshr => "lshr",
                    _ => "ashr",
                };
                (self.ins(format!("{inst} i32 {x}, {n}")), None)
            }
            Ctz => {
                // salu/mod.rs `sop32`: -1 for zero; SCC kept.
                let t = self.ins(format!("call i32 @llvm.cttz.i32(i32 {x}, i1 false)"));
                let z = self.ins(format!("icmp eq i32 {x}, 0"));
                let r = self.ins(format!("select i1 {z}, i32 -1, i32 {t}"));
                let s = self.scc();
                (r, Some(s))
            }
            _ => {
                // MulI32 keeps SCC.
                let r = self.ins(format!("mul i32 {x}, {y}"));
                let s = self.scc();
                (r, Some(s))
            }
        };
        let scc = match scc {
            Some(s) => s,
            None => self.ins(format!("icmp ne i32 {r}, 0")),
        };
        self.set_scc(scc);
        if real_sgpr(dst) {
            self.set_sgpr(dst, r);
        }
    }
}
