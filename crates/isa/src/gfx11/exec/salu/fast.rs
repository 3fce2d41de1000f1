//! Pre-resolved scalar forms: the 32-bit SOP1/SOP2/SOPC operations ([`SOp`]),
//! the 64-bit ones, the saveexec family (32 and 64 bits),
//! s_getpc/s_setpc/s_swappc and the SOPK immediates.
//!
//! Each form is the slow path's computation (salu/mod.rs sop1/sop2/sopc/sopk)
//! with its operands already resolved: a 64-bit source is an SGPR pair read
//! like `Wave::sgpr64` or a constant already widened the way `sread64` widens
//! it, results go through `Wave::set_sgpr64` / `set_sgpr`, and SCC is set by
//! the same rule. Scalar forms run the same in wave32 and wave64 (EXEC is the
//! exec pair only for the b64 forms, as in the slow path). Anything else
//! (aperture, SCC or VCCZ sources, rarely used ops) stays on the slow path.

use crate::gfx11::exec::env::Flow;
use crate::gfx11::exec::operand::put_sgpr;
use crate::gfx11::exec::salu::{SOp, call_target, sop32};
use crate::gfx11::inst::{Family, Inst, Mods, Src};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{EXEC, Wave};

/// A 64-bit scalar source: the SGPR pair starting at `n` (0..=127), or a
/// constant (low, high dwords) as `sread64` produces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src64 {
    Reg(u8),
    Imm(u32, u32),
}

/// 64-bit SOP1/SOP2/SOPC operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op64 {
    Mov,
    Cmov,
    Not,
    And,
    Or,
    Xor,
    AndNot1,
    OrNot1,
    Nand,
    Nor,
    Xnor,
    Lshl,
    Lshr,
    Ashr,
    Cselect,
    CmpEq,
    CmpLg,
}

/// The saveexec family's EXEC update, f(S0, EXEC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SaveOp {
    And,
    Or,
    Xor,
    Nand,
    Nor,
    Xnor,
    AndNot0,
    AndNot1,
    OrNot0,
    OrNot1,
}

/// SOPK operations on SGPR `dst` and the sign-extended 16-bit immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KOp {
    Movk,
    Addk,
    Mulk,
    /// Compare the register with the immediate: (relation 1 less, 2 equal,
    /// 4 greater, as a mask; 5 not equal), signed or zero-extended.
    Cmpk {
        rel: u8,
        signed: bool,
    },
}

/// One pre-resolved scalar form (a `Fast::Scalar`, fast/form.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// `op` on a and b: the pair at `dst` and SCC as sop1/sop2/sopc set them
    /// (compares write no register).
    Op64 {
        op: Op64,
        dst: u8,
        a: Src64,
        b: Src64,
    },
    /// D = EXEC (or the new EXEC for `wr`); EXEC = f(S0, EXEC); SCC = EXEC != 0.
    /// `wide`: the b64 form on the exec pair.
    Saveexec {
        op: SaveOp,
        wide: bool,
        wr: bool,
        dst: u8,
        a: Src64,
    },
    /// s_getpc_b64 (`jump` None) or s_swappc_b64: the pair at `dst` = `ret`.
    /// s_setpc_b64 is a swappc whose `dst` is none (≥ 128), s_call_b64 one
    /// whose source is its constant target.
    Pc {
        dst: u8,
        ret: u64,
        jump: Option<Src64>,
    },
    Sopk {
        op: KOp,
        dst: u8,
        simm: i32,
    },
    /// s_ctz_i32_b64 (GFX9's s_ff1_i32_b64): SGPR `dst` = the index of the
    /// lowest set bit of `a`, -1 for none; SCC unchanged.
    Ctz64 {
        dst: u8,
        a: Src64,
    },
}

/// A 64-bit source as `sread64` reads it (SGPR pairs and constants only).
fn src64(s: Src) -> Option<Src64> {
    match s {
        Src::Sgpr(r) if r < 128 => Some(Src64::Reg(r)),
        Src::Imm(v) => Some(Src64::Imm(v as u32, (v >> 32) as u32)),
        _ => None,
    }
}

/// A 32-bit source as `sread` reads it, widened to 64 bits (high dword 0).
fn src32(s: Src) -> Option<Src64> {
    match s {
        // One SGPR, not a pair: only usable where the high dword is unused
        // (the shift amounts below), so callers pick between src32 and src64.
        Src::Sgpr(r) if r < 128 => Some(Src64::Reg(r)),
        Src::Imm(v) => Some(Src64::Imm(v as u32, 0)),
        _ => None,
    }
}

/// The pre-resolved [`Scalar`] form of a scalar instruction that the
/// [`SOp`] forms leave to the slow path, if it has one (fast/form.rs runs
/// the SOPK waits as no-ops before asking).
pub(crate) fn compile(i: &Inst, pc: u64) -> Option<Scalar> {
    if i.dpp.is_some() || i.mods != Mods::default() {
        return None;
    }
    use Op::*;
    let dst = u8::try_from(i.dst).ok();
    let a = || src64(i.src[0].src);
    match i.family {
        Family::Sop1 => {
            let ret = pc.wrapping_add(4 * i.len as u64);
            let save = |op, wide, wr| {
                // The b32 forms read a 32-bit source: a constant's low dword.
                let a = if wide { a()? } else { src32(i.src[0].src)? };
                Some(Scalar::Saveexec {
                    op,
                    wide,
                    wr,
                    dst: dst?,
                    a,
                })
            };
            let op64 = |op| {
                Some(Scalar::Op64 {
                    op,
                    dst: dst?,
                    a: a()?,
                    b: Src64::Imm(0, 0),
                })
            };
            match i.op {
                SMovB64 => op64(Op64::Mov),
                SCmovB64 => op64(Op64::Cmov),
                SNotB64 => op64(Op64::Not),
                SCtzI32B64 => Some(Scalar::Ctz64 { dst: dst?, a: a()? }),
                SGetpcB64 => Some(Scalar::Pc {
                    dst: dst?,
                    ret,
                    jump: None,
                }),
                SSetpcB64 => Some(Scalar::Pc {
                    dst: u8::MAX,
                    ret,
                    jump: Some(a()?),
                }),
                SSwappcB64 => Some(Scalar::Pc {
                    dst: dst?,
                    ret,
                    jump: Some(a()?),
                }),
                SAndSaveexecB32 => save(SaveOp::And, false, false),
                SOrSaveexecB32 => save(SaveOp::Or, false, false),
                SXorSaveexecB32 => save(SaveOp::Xor, false, false),
                SNandSaveexecB32 => save(SaveOp::Nand, false, false),
                SNorSaveexecB32 => save(SaveOp::Nor, false, false),
                SXnorSaveexecB32 => save(SaveOp::Xnor, false, false),
                SAndNot0SaveexecB32 => save(SaveOp::AndNot0, false, false),
                SAndNot1SaveexecB32 => save(SaveOp::AndNot1, false, false),
                SOrNot0SaveexecB32 => save(SaveOp::OrNot0, false, false),
                SOrNot1SaveexecB32 => save(SaveOp::OrNot1, false, false),
                SAndNot0WrexecB32 => save(SaveOp::AndNot0, false, true),
                SAndNot1WrexecB32 => save(SaveOp::AndNot1, false, true),
                SAndSaveexecB64 => save(SaveOp::And, true, false),
                SOrSaveexecB64 => save(SaveOp::Or, true, false),
                SXorSaveexecB64 => save(SaveOp::Xor, true, false),
                SNandSaveexecB64 => save(SaveOp::Nand, true, false),
                SNorSaveexecB64 => save(SaveOp::Nor, true, false),
                SXnorSaveexecB64 => save(SaveOp::Xnor, true, false),
                SAndNot0SaveexecB64 => save(SaveOp::AndNot0, true, false),
                SAndNot1SaveexecB64 => save(SaveOp::AndNot1, true, false),
                SOrNot0SaveexecB64 => save(SaveOp::OrNot0, true, false),
                SOrNot1SaveexecB64 => save(SaveOp::OrNot1, true, false),
                SAndNot0WrexecB64 => save(SaveOp::AndNot0, true, true),
                SAndNot1WrexecB64 => save(SaveOp::AndNot1, true, true),
                _ => None,
            }
        }
        // sop2 takes its 64-bit path when src0 or dst is a pair.
        Family::Sop2 if i.widths[0] == 2 || i.widths[1] == 2 => {
            let (op, shift) = match i.op {
                SAndB64 => (Op64::And, false),
                SOrB64 => (Op64::Or, false),
                SXorB64 => (Op64::Xor, false),
                SAndNot1B64 => (Op64::AndNot1, false),
                SOrNot1B64 => (Op64::OrNot1, false),
                SNandB64 => (Op64::Nand, false),
                SNorB64 => (Op64::Nor, false),
                SXnorB64 => (Op64::Xnor, false),
                SCselectB64 => (Op64::Cselect, false),
                SLshlB64 => (Op64::Lshl, true),
                SLshrB64 => (Op64::Lshr, true),
                SAshrI64 => (Op64::Ashr, true),
                _ => return None,
            };
            let b = match (i.widths[2], shift) {
                (2, _) => src64(i.src[1].src)?,
                // A 32-bit shift amount: only its low 6 bits are used, which a
                // register's low dword gives either way.
                (_, true) => src32(i.src[1].src)?,
                _ => return None,
            };
            Some(Scalar::Op64 {
                op,
                dst: dst?,
                a: a()?,
                b,
            })
        }
        Family::Sopc if matches!(i.op, SCmpEqU64 | SCmpLgU64) => Some(Scalar::Op64 {
            op: if i.op == SCmpEqU64 {
                Op64::CmpEq
            } else {
                Op64::CmpLg
            },
            dst: u8::MAX,
            a: a()?,
            b: src64(i.src[1].src)?,
        }),
        Family::Sopk => {
            let k = |rel, signed| KOp::Cmpk { rel, signed };
            let op = match i.op {
                // s_call_b64: the pair = the next instruction's address,
                // then a jump by the signed dword offset from there
                // (salu/mod.rs `sopk`): a swappc to a constant.
                SCallB64 => {
                    let ret = pc.wrapping_add(4 * i.len as u64);
                    let target = call_target(ret, i.imm);
                    return Some(Scalar::Pc {
                        dst: dst?,
                        ret,
                        jump: Some(Src64::Imm(target as u32, (target >> 32) as u32)),
                    });
                }
                SMovkI32 => KOp::Movk,
                SAddkI32 => KOp::Addk,
                SMulkI32 => KOp::Mulk,
                SCmpkEqI32 => k(2, true),
                SCmpkLgI32 => k(5, true),
                SCmpkGtI32 => k(4, true),
                SCmpkGeI32 => k(6, true),
                SCmpkLtI32 => k(1, true),
                SCmpkLeI32 => k(3, true),
                SCmpkEqU32 => k(2, false),
                SCmpkLgU32 => k(5, false),
                SCmpkGtU32 => k(4, false),
                SCmpkGeU32 => k(6, false),
                SCmpkLtU32 => k(1, false),
                SCmpkLeU32 => k(3, false),
                _ => return None,
            };
            Some(Scalar::Sopk {
                op,
                dst: dst?,
                simm: i.imm,
            })
        }
        _ => None,
    }
}

#[inline(always)]
fn read64(w: &Wave, s: Src64) -> u64 {
    match s {
        Src64::Reg(r) => w.sgpr64(r as usize),
        Src64::Imm(lo, hi) => lo as u64 | (hi as u64) << 32,
    }
}

/// Run a pre-resolved scalar form.
#[inline(always)]
pub(crate) fn run(w: &mut Wave, s: &Scalar) -> Flow {
    match *s {
        Scalar::Op64 { op, dst, a, b } => {
            let (a, b) = (read64(w, a), read64(w, b));
            let d = dst as usize;
            // (result, SCC); None SCC: result != 0.
            let (r, scc): (u64, Option<bool>) = match op {
                Op64::Mov => {
                    w.set_sgpr64(d, a);
                    return Flow::Next;
                }
                Op64::Cmov => {
                    if w.scc {
                        w.set_sgpr64(d, a);
                    }
                    return Flow::Next;
                }
                Op64::CmpEq | Op64::CmpLg => {
                    w.scc = (a == b) == (op == Op64::CmpEq);
                    return Flow::Next;
                }
                Op64::Not => (!a, None),
                Op64::And => (a & b, None),
                Op64::Or => (a | b, None),
                Op64::Xor => (a ^ b, None),
                Op64::AndNot1 => (a & !b, None),
                Op64::OrNot1 => (a | !b, None),
                Op64::Nand => (!(a & b), None),
                Op64::Nor => (!(a | b), None),
                Op64::Xnor => (!(a ^ b), None),
                Op64::Lshl => (a << (b & 63), None),
                Op64::Lshr => (a >> (b & 63), None),
                Op64::Ashr => (((a as i64) >> (b & 63)) as u64, None),
                Op64::Cselect => (if w.scc { a } else { b }, Some(w.scc)),
            };
            w.scc = scc.unwrap_or(r != 0);
            w.set_sgpr64(d, r);
        }
        Scalar::Saveexec {
            op,
            wide,
            wr,
            dst,
            a,
        } => {
            let d = dst as usize;
            // The bitwise f on 64 bits, truncated for b32, is the b32 f.
            let s = read64(w, a);
            if wide {
                let exec = w.sgpr64(EXEC);
                let new = save_op(op, s, exec);
                w.set_sgpr64(EXEC, new);
                w.set_sgpr64(d, if wr { new } else { exec });
                w.scc = new != 0;
            } else {
                let exec = w.sgpr[EXEC];
                let new = save_op(op, s, exec as u64) as u32;
                w.sgpr[EXEC] = new;
                w.set_sgpr(d, if wr { new } else { exec });
                w.scc = new != 0;
            }
        }
        Scalar::Pc { dst, ret, jump } => {
            // The target is read before the return address is written (swappc
            // may overwrite its own source pair).
            let target = jump.map(|a| read64(w, a));
            w.set_sgpr64(dst as usize, ret);
            if let Some(t) = target {
                return Flow::Jump(t);
            }
        }
        // AMD CDNA3 ISA guide, S_FF1_I32_B64 (RDNA3: S_CTZ_I32_B64): "if no
        // bits are set, return -1"; written by `set_sgpr` as sop1 does.
        Scalar::Ctz64 { dst, a } => {
            let a = read64(w, a);
            w.set_sgpr(
                dst as usize,
                if a == 0 { u32::MAX } else { a.trailing_zeros() },
            );
        }
        Scalar::Sopk { op, dst, simm } => {
            let d = dst as usize;
            let cur = if d < 128 { w.sgpr[d] } else { 0 };
            match op {
                KOp::Movk => w.set_sgpr(d, simm as u32),
                KOp::Addk => {
                    let (r, o) = (cur as i32).overflowing_add(simm);
                    w.scc = o;
                    w.set_sgpr(d, r as u32);
                }
                KOp::Mulk => w.set_sgpr(d, (cur as i32).wrapping_mul(simm) as u32),
                KOp::Cmpk { rel, signed } => {
                    let ord = if signed {
                        (cur as i32).cmp(&simm)
                    } else {
                        cur.cmp(&(simm as u16 as u32))
                    };
                    let bit = match ord {
                        std::cmp::Ordering::Less => 1,
                        std::cmp::Ordering::Equal => 2,
                        std::cmp::Ordering::Greater => 4,
                    };
                    w.scc = rel & bit != 0;
                }
            }
        }
    }
    Flow::Next
}

#[inline(always)]
fn save_op(op: SaveOp, s: u64, e: u64) -> u64 {
    match op {
        SaveOp::And => s & e,
        SaveOp::Or => s | e,
        SaveOp::Xor => s ^ e,
        SaveOp::Nand => !(s & e),
        SaveOp::Nor => !(s | e),
        SaveOp::Xnor => !(s ^ e),
        SaveOp::AndNot0 => !s & e,
        SaveOp::AndNot1 => s & !e,
        SaveOp::OrNot0 => !s | e,
        SaveOp::OrNot1 => s | !e,
    }
}

/// A [`SOp`] form: `dst` (an SGPR code, or NULL for compares) and SCC, by
/// the slow path's own [`sop32`].
#[inline(always)]
pub(crate) fn salu(w: &mut Wave, op: SOp, dst: u8, a: u32, b: u32) {
    let (r, scc) = sop32(op, a, b, w.scc);
    w.scc = scc;
    if let Some(r) = r {
        put_sgpr(w, dst, r);
    }
}
