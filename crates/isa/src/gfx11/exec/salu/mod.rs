//! Scalar ALU semantics (SOP1/SOP2/SOPK/SOPC/SOPP), SCC and EXEC handling,
//! branches. EXEC is exec_lo in wave32 and the exec pair in wave64 (execz /
//! vccz branches test the whole mask); the *_b64 saveexec forms act on the
//! exec pair as the ISA defines them.

pub(crate) mod fast;

use crate::WaveErrorKind;
use crate::gfx11::exec::env::{Env, ExecResult, Flow, illegal, sread, sread64, unmodelled};
use crate::gfx11::inst::Inst;
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{EXEC, M0, Wave};

fn bfe32(v: u32, ctl: u32, signed: bool) -> u32 {
    let off = ctl & 31;
    let width = ((ctl >> 16) & 0x7F).min(32);
    if width == 0 {
        return 0;
    }
    let r = ((v as u64) >> off) & ((1u64 << width) - 1);
    if signed {
        ((r << (64 - width)) as i64 >> (64 - width)) as u32
    } else {
        r as u32
    }
}

fn bfe64(v: u64, ctl: u32, signed: bool) -> u64 {
    let off = ctl & 63;
    let width = (ctl >> 16) & 0x7F;
    if width == 0 {
        return 0;
    }
    if width >= 64 {
        return if signed {
            (v as i64 >> off) as u64
        } else {
            v >> off
        };
    }
    let mask = (1u64 << width) - 1;
    let r = (v >> off) & mask;
    if signed && (r >> (width - 1)) & 1 != 0 {
        r | !mask
    } else {
        r
    }
}

pub(crate) fn sop2(w: &mut Wave, env: &Env, i: &Inst) -> ExecResult {
    use Op::*;
    let d = i.dst as usize;
    let wide = i.widths[1] == 2 || i.widths[0] == 2;
    if wide {
        let a = sread64(w, env, i, 0)?;
        let b = if i.widths[2] == 2 {
            sread64(w, env, i, 1)?
        } else {
            sread(w, env, i, 1)? as u64
        };
        let (r, scc): (u64, Option<bool>) = match i.op {
            SAndB64 => (a & b, None),
            SOrB64 => (a | b, None),
            SXorB64 => (a ^ b, None),
            SAndNot1B64 => (a & !b, None),
            SOrNot1B64 => (a | !b, None),
            SNandB64 => (!(a & b), None),
            SNorB64 => (!(a | b), None),
            SXnorB64 => (!(a ^ b), None),
            SLshlB64 => (a << (b & 63), None),
            SLshrB64 => (a >> (b & 63), None),
            SAshrI64 => (((a as i64) >> (b & 63)) as u64, None),
            SBfeU64 => (bfe64(a, b as u32, false), None),
            SBfeI64 => (bfe64(a, b as u32, true), None),
            SCselectB64 => (if w.scc { a } else { b }, Some(w.scc)),
            _ => {
                // s_bfm_b64 has 32-bit sources and a 64-bit result.
                if i.op == SBfmB64 {
                    let a = sread(w, env, i, 0)? as u64;
                    let r = ((1u64 << (a & 63)).wrapping_sub(1)) << (b & 63);
                    w.set_sgpr64(d, r);
                    return Ok(Flow::Next);
                }
                return Err(illegal(i));
            }
        };
        w.scc = scc.unwrap_or(r != 0);
        w.set_sgpr64(d, r);
        return Ok(Flow::Next);
    }
    let a = sread(w, env, i, 0)?;
    let b = sread(w, env, i, 1)?;
    let Some(op) = SOp::of(i.op) else {
        return Err(illegal(i));
    };
    let (r, scc) = sop32(op, a, b, w.scc);
    w.scc = scc;
    if let Some(r) = r {
        w.set_sgpr(d, r);
    }
    Ok(Flow::Next)
}

/// The 32-bit SOP1/SOP2/SOPC operations [`sop32`] computes, for the slow
/// path and the pre-resolved forms (salu/fast.rs) alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SOp {
    Mov,
    Ctz,
    AddU32,
    SubU32,
    AddI32,
    SubI32,
    AddcU32,
    SubbU32,
    MinI32,
    MinU32,
    MaxI32,
    MaxU32,
    Cselect,
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
    Lshl1Add,
    Lshl2Add,
    Lshl3Add,
    Lshl4Add,
    Bfm,
    MulI32,
    MulHiU32,
    MulHiI32,
    BfeU32,
    BfeI32,
    Absdiff,
    PackLl,
    PackLh,
    PackHh,
    PackHl,
    CmpEq,
    CmpLg,
    CmpGtI,
    CmpGeI,
    CmpLtI,
    CmpLeI,
    CmpGtU,
    CmpGeU,
    CmpLtU,
    CmpLeU,
    Bitcmp0,
    Bitcmp1,
}

impl SOp {
    /// The operation of a 32-bit scalar opcode (s_mov_b32, s_ctz_i32_b32,
    /// the SOP2 and SOPC ones); None for every other opcode.
    pub(crate) fn of(op: Op) -> Option<SOp> {
        use Op::*;
        Some(match op {
            SMovB32 => SOp::Mov,
            SCtzI32B32 => SOp::Ctz,
            SAddU32 => SOp::AddU32,
            SSubU32 => SOp::SubU32,
            SAddI32 => SOp::AddI32,
            SSubI32 => SOp::SubI32,
            SAddcU32 => SOp::AddcU32,
            SSubbU32 => SOp::SubbU32,
            SMinI32 => SOp::MinI32,
            SMinU32 => SOp::MinU32,
            SMaxI32 => SOp::MaxI32,
            SMaxU32 => SOp::MaxU32,
            SCselectB32 => SOp::Cselect,
            SAndB32 => SOp::And,
            SOrB32 => SOp::Or,
            SXorB32 => SOp::Xor,
            SAndNot1B32 => SOp::AndNot1,
            SOrNot1B32 => SOp::OrNot1,
            SNandB32 => SOp::Nand,
            SNorB32 => SOp::Nor,
            SXnorB32 => SOp::Xnor,
            SLshlB32 => SOp::Lshl,
            SLshrB32 => SOp::Lshr,
            SAshrI32 => SOp::Ashr,
            SLshl1AddU32 => SOp::Lshl1Add,
            SLshl2AddU32 => SOp::Lshl2Add,
            SLshl3AddU32 => SOp::Lshl3Add,
            SLshl4AddU32 => SOp::Lshl4Add,
            SBfmB32 => SOp::Bfm,
            SMulI32 => SOp::MulI32,
            SMulHiU32 => SOp::MulHiU32,
            SMulHiI32 => SOp::MulHiI32,
            SBfeU32 => SOp::BfeU32,
            SBfeI32 => SOp::BfeI32,
            SAbsdiffI32 => SOp::Absdiff,
            SPackLlB32B16 => SOp::PackLl,
            SPackLhB32B16 => SOp::PackLh,
            SPackHhB32B16 => SOp::PackHh,
            SPackHlB32B16 => SOp::PackHl,
            SCmpEqI32 | SCmpEqU32 => SOp::CmpEq,
            SCmpLgI32 | SCmpLgU32 => SOp::CmpLg,
            SCmpGtI32 => SOp::CmpGtI,
            SCmpGeI32 => SOp::CmpGeI,
            SCmpLtI32 => SOp::CmpLtI,
            SCmpLeI32 => SOp::CmpLeI,
            SCmpGtU32 => SOp::CmpGtU,
            SCmpGeU32 => SOp::CmpGeU,
            SCmpLtU32 => SOp::CmpLtU,
            SCmpLeU32 => SOp::CmpLeU,
            SBitcmp0B32 => SOp::Bitcmp0,
            SBitcmp1B32 => SOp::Bitcmp1,
            _ => return None,
        })
    }
}

/// `op` on `a` and `b` with SCC `scc`: the result (None for a compare,
/// which writes SCC only) and SCC after it.
#[inline(always)]
pub(crate) fn sop32(op: SOp, a: u32, b: u32, scc: bool) -> (Option<u32>, bool) {
    let (ai, bi) = (a as i32, b as i32);
    // (result, SCC); None SCC: result != 0.
    let (r, c): (u32, Option<bool>) = match op {
        SOp::Mov => (a, Some(scc)),
        SOp::Ctz => (
            if a == 0 { u32::MAX } else { a.trailing_zeros() },
            Some(scc),
        ),
        SOp::AddU32 => {
            let (r, c) = a.overflowing_add(b);
            (r, Some(c))
        }
        SOp::SubU32 => {
            let (r, c) = a.overflowing_sub(b);
            (r, Some(c))
        }
        SOp::AddI32 => {
            let (r, o) = ai.overflowing_add(bi);
            (r as u32, Some(o))
        }
        SOp::SubI32 => {
            let (r, o) = ai.overflowing_sub(bi);
            (r as u32, Some(o))
        }
        SOp::AddcU32 => {
            let s = a as u64 + b as u64 + scc as u64;
            (s as u32, Some(s >> 32 != 0))
        }
        SOp::SubbU32 => {
            let s = (a as u64).wrapping_sub(b as u64).wrapping_sub(scc as u64);
            (s as u32, Some((b as u64 + scc as u64) > a as u64))
        }
        SOp::MinI32 => (ai.min(bi) as u32, Some(ai < bi)),
        SOp::MinU32 => (a.min(b), Some(a < b)),
        SOp::MaxI32 => (ai.max(bi) as u32, Some(ai > bi)),
        SOp::MaxU32 => (a.max(b), Some(a > b)),
        SOp::Cselect => (if scc { a } else { b }, Some(scc)),
        SOp::And => (a & b, None),
        SOp::Or => (a | b, None),
        SOp::Xor => (a ^ b, None),
        SOp::AndNot1 => (a & !b, None),
        SOp::OrNot1 => (a | !b, None),
        SOp::Nand => (!(a & b), None),
        SOp::Nor => (!(a | b), None),
        SOp::Xnor => (!(a ^ b), None),
        SOp::Lshl => (a << (b & 31), None),
        SOp::Lshr => (a >> (b & 31), None),
        SOp::Ashr => ((ai >> (b & 31)) as u32, None),
        SOp::Lshl1Add | SOp::Lshl2Add | SOp::Lshl3Add | SOp::Lshl4Add => {
            let sh = match op {
                SOp::Lshl1Add => 1,
                SOp::Lshl2Add => 2,
                SOp::Lshl3Add => 3,
                _ => 4,
            };
            let s = ((a as u64) << sh) + b as u64;
            (s as u32, Some(s >> 32 != 0))
        }
        SOp::Bfm => ((((1u64 << (a & 31)) - 1) as u32) << (b & 31), Some(scc)),
        SOp::MulI32 => (ai.wrapping_mul(bi) as u32, Some(scc)),
        SOp::MulHiU32 => (((a as u64 * b as u64) >> 32) as u32, Some(scc)),
        SOp::MulHiI32 => (((ai as i64 * bi as i64) >> 32) as u32, Some(scc)),
        SOp::BfeU32 => (bfe32(a, b, false), None),
        SOp::BfeI32 => (bfe32(a, b, true), None),
        SOp::Absdiff => (ai.wrapping_sub(bi).unsigned_abs(), None),
        SOp::PackLl => ((a & 0xFFFF) | (b << 16), Some(scc)),
        SOp::PackLh => ((a & 0xFFFF) | (b & 0xFFFF_0000), Some(scc)),
        SOp::PackHh => ((a >> 16) | (b & 0xFFFF_0000), Some(scc)),
        SOp::PackHl => ((a >> 16) | (b << 16), Some(scc)),
        SOp::CmpEq => return (None, a == b),
        SOp::CmpLg => return (None, a != b),
        SOp::CmpGtI => return (None, ai > bi),
        SOp::CmpGeI => return (None, ai >= bi),
        SOp::CmpLtI => return (None, ai < bi),
        SOp::CmpLeI => return (None, ai <= bi),
        SOp::CmpGtU => return (None, a > b),
        SOp::CmpGeU => return (None, a >= b),
        SOp::CmpLtU => return (None, a < b),
        SOp::CmpLeU => return (None, a <= b),
        SOp::Bitcmp0 => return (None, (a >> (b & 31)) & 1 == 0),
        SOp::Bitcmp1 => return (None, (a >> (b & 31)) & 1 == 1),
    };
    (Some(r), c.unwrap_or(r != 0))
}

pub(crate) fn sop1(w: &mut Wave, env: &Env, i: &Inst) -> ExecResult {
    use Op::*;
    let d = i.dst as usize;
    let exec = w.exec();
    // saveexec family: D = EXEC; EXEC = f(S0, EXEC); SCC = EXEC != 0.
    let save = |f: fn(u32, u32) -> u32, wr: bool, w: &mut Wave, s: u32| {
        let new = f(s, exec);
        w.sgpr[EXEC] = new;
        w.set_sgpr(d, if wr { new } else { exec });
        w.scc = new != 0;
    };
    // The b64 forms act on the exec pair (wave64 code; in wave32 exec_hi is whatever was written).
    let save64 = |f: fn(u64, u64) -> u64, wr: bool, w: &mut Wave, s: u64| {
        let exec = w.sgpr64(EXEC);
        let new = f(s, exec);
        w.set_sgpr64(EXEC, new);
        w.set_sgpr64(d, if wr { new } else { exec });
        w.scc = new != 0;
    };
    match i.op {
        SMovB32 => {
            let v = sread(w, env, i, 0)?;
            w.set_sgpr(d, v)
        }
        SSendmsgRtnB32 | SSendmsgRtnB64 => {
            let v = sendmsg_rtn(i)?;
            if i.op == SSendmsgRtnB32 {
                w.set_sgpr(d, v as u32)
            } else {
                w.set_sgpr64(d, v)
            }
        }
        SMovB64 => {
            let v = sread64(w, env, i, 0)?;
            w.set_sgpr64(d, v)
        }
        SCmovB32 => {
            let v = sread(w, env, i, 0)?;
            if w.scc {
                w.set_sgpr(d, v)
            }
        }
        SCmovB64 => {
            let v = sread64(w, env, i, 0)?;
            if w.scc {
                w.set_sgpr64(d, v)
            }
        }
        SAndSaveexecB32 => save(|s, e| s & e, false, w, sread(w, env, i, 0)?),
        SOrSaveexecB32 => save(|s, e| s | e, false, w, sread(w, env, i, 0)?),
        SXorSaveexecB32 => save(|s, e| s ^ e, false, w, sread(w, env, i, 0)?),
        SNandSaveexecB32 => save(|s, e| !(s & e), false, w, sread(w, env, i, 0)?),
        SNorSaveexecB32 => save(|s, e| !(s | e), false, w, sread(w, env, i, 0)?),
        SXnorSaveexecB32 => save(|s, e| !(s ^ e), false, w, sread(w, env, i, 0)?),
        SAndNot0SaveexecB32 => save(|s, e| !s & e, false, w, sread(w, env, i, 0)?),
        SAndNot1SaveexecB32 => save(|s, e| s & !e, false, w, sread(w, env, i, 0)?),
        SOrNot0SaveexecB32 => save(|s, e| !s | e, false, w, sread(w, env, i, 0)?),
        SOrNot1SaveexecB32 => save(|s, e| s | !e, false, w, sread(w, env, i, 0)?),
        SAndNot0WrexecB32 => save(|s, e| !s & e, true, w, sread(w, env, i, 0)?),
        SAndNot1WrexecB32 => save(|s, e| s & !e, true, w, sread(w, env, i, 0)?),
        SAndSaveexecB64 => save64(|s, e| s & e, false, w, sread64(w, env, i, 0)?),
        SOrSaveexecB64 => save64(|s, e| s | e, false, w, sread64(w, env, i, 0)?),
        SXorSaveexecB64 => save64(|s, e| s ^ e, false, w, sread64(w, env, i, 0)?),
        SNandSaveexecB64 => save64(|s, e| !(s & e), false, w, sread64(w, env, i, 0)?),
        SNorSaveexecB64 => save64(|s, e| !(s | e), false, w, sread64(w, env, i, 0)?),
        SXnorSaveexecB64 => save64(|s, e| !(s ^ e), false, w, sread64(w, env, i, 0)?),
        SAndNot0SaveexecB64 => save64(|s, e| !s & e, false, w, sread64(w, env, i, 0)?),
        SAndNot1SaveexecB64 => save64(|s, e| s & !e, false, w, sread64(w, env, i, 0)?),
        SOrNot0SaveexecB64 => save64(|s, e| !s | e, false, w, sread64(w, env, i, 0)?),
        SOrNot1SaveexecB64 => save64(|s, e| s | !e, false, w, sread64(w, env, i, 0)?),
        SAndNot0WrexecB64 => save64(|s, e| !s & e, true, w, sread64(w, env, i, 0)?),
        SAndNot1WrexecB64 => save64(|s, e| s & !e, true, w, sread64(w, env, i, 0)?),
        SNotB32 | SWqmB32 | SBrevB32 | SBcnt0I32B32 | SBcnt1I32B32 | SAbsI32 | SQuadmaskB32 => {
            let a = sread(w, env, i, 0)?;
            let r = match i.op {
                SNotB32 => !a,
                SWqmB32 => (0..8).fold(0, |acc, q| {
                    if (a >> (q * 4)) & 0xF != 0 {
                        acc | 0xF << (q * 4)
                    } else {
                        acc
                    }
                }),
                SBrevB32 => a.reverse_bits(),
                SBcnt0I32B32 => a.count_zeros(),
                SBcnt1I32B32 => a.count_ones(),
                SAbsI32 => (a as i32).unsigned_abs(),
                _ => (0..8).fold(0, |acc, q| {
                    if (a >> (q * 4)) & 0xF != 0 {
                        acc | 1 << q
                    } else {
                        acc
                    }
                }),
            };
            if i.op != SBrevB32 {
                w.scc = r != 0;
            }
            w.set_sgpr(d, r)
        }
        SNotB64 | SBrevB64 | SBcnt0I32B64 | SBcnt1I32B64 => {
            let a = sread64(w, env, i, 0)?;
            match i.op {
                SNotB64 => {
                    w.scc = !a != 0;
                    w.set_sgpr64(d, !a)
                }
                SBrevB64 => w.set_sgpr64(d, a.reverse_bits()),
                SBcnt0I32B64 => {
                    w.scc = a.count_zeros() != 0;
                    w.set_sgpr(d, a.count_zeros())
                }
                _ => {
                    w.scc = a.count_ones() != 0;
                    w.set_sgpr(d, a.count_ones())
                }
            }
        }
        SCtzI32B32 => {
            let (r, _) = sop32(SOp::Ctz, sread(w, env, i, 0)?, 0, w.scc);
            w.set_sgpr(d, r.unwrap_or(0))
        }
        SClzI32U32 => {
            let a = sread(w, env, i, 0)?;
            w.set_sgpr(d, if a == 0 { u32::MAX } else { a.leading_zeros() })
        }
        SClsI32 => {
            let a = sread(w, env, i, 0)?;
            let r = if a == 0 || a == u32::MAX {
                u32::MAX
            } else if (a as i32) < 0 {
                (!a).leading_zeros()
            } else {
                a.leading_zeros()
            };
            w.set_sgpr(d, r)
        }
        SCtzI32B64 => {
            let a = sread64(w, env, i, 0)?;
            w.set_sgpr(d, if a == 0 { u32::MAX } else { a.trailing_zeros() })
        }
        SClzI32U64 => {
            let a = sread64(w, env, i, 0)?;
            w.set_sgpr(d, if a == 0 { u32::MAX } else { a.leading_zeros() })
        }
        SSextI32I8 => {
            let a = sread(w, env, i, 0)?;
            w.set_sgpr(d, a as i8 as i32 as u32)
        }
        SSextI32I16 => {
            let a = sread(w, env, i, 0)?;
            w.set_sgpr(d, a as i16 as i32 as u32)
        }
        SBitset0B32 | SBitset1B32 => {
            let b = sread(w, env, i, 0)? & 31;
            let cur = w.sgpr[d.min(127)];
            w.set_sgpr(
                d,
                if i.op == SBitset1B32 {
                    cur | 1 << b
                } else {
                    cur & !(1 << b)
                },
            )
        }
        SGetpcB64 => w.set_sgpr64(d, w.pc + 4 * i.len as u64),
        SSetpcB64 => return Ok(Flow::Jump(sread64(w, env, i, 0)?)),
        SSwappcB64 => {
            let target = sread64(w, env, i, 0)?;
            w.set_sgpr64(d, w.pc + 4 * i.len as u64);
            return Ok(Flow::Jump(target));
        }
        SMovrelsB32 => {
            let idx = i.src[0].code as usize + w.sgpr[M0] as usize;
            let v = if idx < 128 { w.sgpr[idx] } else { 0 };
            w.set_sgpr(d, v)
        }
        SMovreldB32 => {
            let v = sread(w, env, i, 0)?;
            w.set_sgpr(d + w.sgpr[M0] as usize, v)
        }
        // RDNA3 ISA, SOP1: the 64-bit forms of the bit and relative-move
        // operations above.
        SClsI32I64 => {
            let a = sread64(w, env, i, 0)?;
            let r = if a == 0 || a == u64::MAX {
                u32::MAX
            } else if (a as i64) < 0 {
                (!a).leading_zeros()
            } else {
                a.leading_zeros()
            };
            w.set_sgpr(d, r)
        }
        SBitset0B64 | SBitset1B64 => {
            let b = sread(w, env, i, 0)? & 63;
            let cur = w.sgpr64(d.min(126));
            let r = if i.op == SBitset1B64 {
                cur | 1 << b
            } else {
                cur & !(1 << b)
            };
            w.set_sgpr64(d, r)
        }
        // Each bit of S0 twice: bit n goes to bits 2n and 2n + 1.
        SBitreplicateB64B32 => {
            let a = sread(w, env, i, 0)?;
            let r = (0..32).fold(0u64, |acc, n| {
                if (a >> n) & 1 != 0 {
                    acc | 3 << (2 * n)
                } else {
                    acc
                }
            });
            w.set_sgpr64(d, r)
        }
        SQuadmaskB64 | SWqmB64 => {
            let a = sread64(w, env, i, 0)?;
            let r = (0..16).fold(0u64, |acc, q| match ((a >> (q * 4)) & 0xF != 0, i.op) {
                (false, _) => acc,
                (true, SQuadmaskB64) => acc | 1 << q,
                (true, _) => acc | 0xF << (q * 4),
            });
            w.scc = r != 0;
            w.set_sgpr64(d, r)
        }
        SMovrelsB64 => {
            let idx = i.src[0].code as usize + w.sgpr[M0] as usize;
            let v = if idx < 127 { w.sgpr64(idx) } else { 0 };
            w.set_sgpr64(d, v)
        }
        SMovreldB64 => {
            let v = sread64(w, env, i, 0)?;
            w.set_sgpr64(d + w.sgpr[M0] as usize, v)
        }
        // Source offset by M0[9:0], destination by M0[25:16].
        SMovrelsd2B32 => {
            let m0 = w.sgpr[M0] as usize;
            let idx = i.src[0].code as usize + (m0 & 0x3FF);
            let v = if idx < 128 { w.sgpr[idx] } else { 0 };
            w.set_sgpr(d + ((m0 >> 16) & 0x3FF), v)
        }
        // Trap handler only: no trap handler runs on gfxsim.
        SRfeB64 => return Err(unmodelled(i, "returns from a trap handler")),
        _ => return Err(illegal(i)),
    }
    Ok(Flow::Next)
}

pub(crate) fn sopk(w: &mut Wave, i: &Inst) -> ExecResult {
    use Op::*;
    let d = i.dst as usize;
    let simm = i.imm;
    let cur = if d < 128 { w.sgpr[d] } else { 0 };
    let zext = simm as u16 as u32;
    match i.op {
        SMovkI32 => w.set_sgpr(d, simm as u32),
        SCmovkI32 => {
            if w.scc {
                w.set_sgpr(d, simm as u32)
            }
        }
        SCmpkEqI32 => w.scc = cur as i32 == simm,
        SCmpkLgI32 => w.scc = cur as i32 != simm,
        SCmpkGtI32 => w.scc = cur as i32 > simm,
        SCmpkGeI32 => w.scc = cur as i32 >= simm,
        SCmpkLtI32 => w.scc = (cur as i32) < simm,
        SCmpkLeI32 => w.scc = cur as i32 <= simm,
        SCmpkEqU32 => w.scc = cur == zext,
        SCmpkLgU32 => w.scc = cur != zext,
        SCmpkGtU32 => w.scc = cur > zext,
        SCmpkGeU32 => w.scc = cur >= zext,
        SCmpkLtU32 => w.scc = cur < zext,
        SCmpkLeU32 => w.scc = cur <= zext,
        SAddkI32 => {
            let (r, o) = (cur as i32).overflowing_add(simm);
            w.scc = o;
            w.set_sgpr(d, r as u32)
        }
        SMulkI32 => w.set_sgpr(d, (cur as i32).wrapping_mul(simm) as u32),
        SCallB64 => {
            let ret = w.pc + 4;
            w.set_sgpr64(d, ret);
            return Ok(Flow::Jump(call_target(ret, simm)));
        }
        SGetregB32 => {
            let id = zext & 0x3F;
            let off = (zext >> 6) & 31;
            let size = ((zext >> 11) & 31) + 1;
            let value = if i.flags & Inst::GFX9_HWREG != 0 {
                // GFX9 ids (gfx9/exec_form.rs admits only these two).
                match id {
                    HW_REG_MODE => w.mode,
                    GFX9_HW_REG_XCC_ID => w.xcc_id,
                    _ => return Err(unmodelled(i, &format!("hwreg({id})"))),
                }
            } else {
                match id {
                    HW_REG_MODE => w.mode,
                    HW_REG_SHADER_CYCLES => shader_cycles(),
                    _ => return Err(unmodelled(i, &format!("hwreg({id})"))),
                }
            };
            let mask = if size >= 32 {
                u32::MAX
            } else {
                (1 << size) - 1
            };
            w.set_sgpr(d, (value >> off) & mask)
        }
        SSetregB32 | SSetregImm32B32 => {
            let id = zext & 0x3F;
            let off = (zext >> 6) & 31;
            let size = ((zext >> 11) & 31) + 1;
            if id != HW_REG_MODE {
                return Err(unmodelled(
                    i,
                    &format!("hwreg({id}): only MODE is writable here"),
                ));
            }
            let v = if i.op == SSetregB32 {
                cur
            } else {
                i.literal.unwrap_or(0)
            };
            let mask = if size >= 32 {
                u32::MAX
            } else {
                ((1u32 << size) - 1) << off
            };
            w.mode = (w.mode & !mask) | ((v << off) & mask);
        }
        op if sopk_is_nop(op) => {}
        // Marks the ISA version the code was written for; no effect.
        SVersion => {}
        _ => return Err(illegal(i)),
    }
    Ok(Flow::Next)
}

/// Where s_call_b64 jumps: its signed dword offset `simm` from `ret`, the
/// next instruction's address (RDNA3 ISA guide, S_CALL_B64).
pub(crate) fn call_target(ret: u64, simm: i32) -> u64 {
    ret.wrapping_add((i64::from(simm) * 4) as u64)
}

/// The SOPK counter waits: no effect in a functional model (memory
/// operations complete in order). The slow path (sopk) and the decode-time
/// fast forms both use this list.
pub(crate) fn sopk_is_nop(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        SWaitcntVscnt | SWaitcntVmcnt | SWaitcntExpcnt | SWaitcntLgkmcnt
    )
}

/// s_getreg/s_setreg register ids (gfx11).
const HW_REG_MODE: u32 = 1;
const HW_REG_SHADER_CYCLES: u32 = 29;
/// GFX940+'s XCC_ID register (LLVM `SIDefines.h`, `Hwreg::ID_XCC_ID`;
/// AMDGPUAsmUtils.cpp names it for GFX940 only). Bits 3:0 hold the XCC the
/// wave runs on (LLVM's AMDGPU syntax reference: "ID of this XCC"); the
/// other bits read 0 here.
pub(crate) const GFX9_HW_REG_XCC_ID: u32 = 20;

/// Nominal shader clock per REALTIME tick: 25 × 100 MHz = 2.5 GHz (gfx1100's
/// compute clock is 2.5 GHz class).
const SHADER_CYCLES_PER_REALTIME_TICK: u64 = 25;

/// HW_REG_SHADER_CYCLES: the 20-bit free-running shader-clock counter, from
/// the simulated clock (REALTIME at a nominal 2.5 GHz shader clock).
fn shader_cycles() -> u32 {
    (crate::realtime::realtime_ticks().wrapping_mul(SHADER_CYCLES_PER_REALTIME_TICK) & 0xF_FFFF)
        as u32
}

/// Value returned by `s_sendmsg_rtn_*`. The SSRC0 field holds the message id
/// itself (not an operand): 131 MSG_RTN_GET_REALTIME, 130 MSG_RTN_GET_TMA,
/// 133 MSG_RTN_GET_TBA; the others are not modelled.
fn sendmsg_rtn(i: &Inst) -> Result<u64, WaveErrorKind> {
    match i.raw()[0] & 0xFF {
        131 => Ok(crate::realtime::realtime_ticks()),
        // No trap handler is ever installed on gfxsim: TMA and TBA are null.
        130 | 133 => Ok(0),
        // GET_DOORBELL, GET_DDID and SAVE_WAVE serve the context-save trap handler,
        // which gfxsim never runs; their values (the queue's doorbell id, the debug
        // dispatch id) are not known to the emulator.
        128 => Err(unmodelled(i, "sendmsg(MSG_RTN_GET_DOORBELL)")),
        129 => Err(unmodelled(i, "sendmsg(MSG_RTN_GET_DDID)")),
        132 => Err(unmodelled(i, "sendmsg(MSG_RTN_SAVE_WAVE)")),
        id => Err(unmodelled(i, &format!("sendmsg({id})"))),
    }
}

pub(crate) fn sopc(w: &mut Wave, env: &Env, i: &Inst) -> ExecResult {
    use Op::*;
    if matches!(i.op, SCmpEqU64 | SCmpLgU64 | SBitcmp0B64 | SBitcmp1B64) {
        let a = sread64(w, env, i, 0)?;
        w.scc = match i.op {
            SCmpEqU64 => a == sread64(w, env, i, 1)?,
            SCmpLgU64 => a != sread64(w, env, i, 1)?,
            SBitcmp0B64 => (a >> (sread(w, env, i, 1)? & 63)) & 1 == 0,
            _ => (a >> (sread(w, env, i, 1)? & 63)) & 1 == 1,
        };
        return Ok(Flow::Next);
    }
    let a = sread(w, env, i, 0)?;
    let b = sread(w, env, i, 1)?;
    let Some(op) = SOp::of(i.op) else {
        return Err(illegal(i));
    };
    w.scc = sop32(op, a, b, w.scc).1;
    Ok(Flow::Next)
}

/// SOPP instructions that change nothing a functional model keeps: waits,
/// hints, priorities, cache and trace controls, and the mode writes
/// (recorded by hardware; arithmetic here always rounds to nearest even
/// with denormals kept). The slow path and the decode-time fast forms both
/// use this list.
pub(crate) fn sopp_is_nop(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        SNop | SClause
            | SDelayAlu
            | SWaitcnt
            | SWaitcntDepctr
            | SWaitIdle
            | SWaitEvent
            | SSleep
            | SSetInstPrefetchDistance
            | SSetprio
            | SIcacheInv
            | SIncperflevel
            | SDecperflevel
            | STtracedata
            | STtracedataImm
            | SWakeup
            | SCodeEnd
            | SRoundMode
            | SDenormMode
    )
}

pub(crate) fn sopp(w: &mut Wave, i: &Inst) -> ExecResult {
    use Op::*;
    let target = || w.pc.wrapping_add(4).wrapping_add((i.imm as i64 * 4) as u64);
    let branch = |c: bool| if c { Flow::Jump(target()) } else { Flow::Next };
    Ok(match i.op {
        op if sopp_is_nop(op) => Flow::Next,
        // Only MSG_DEALLOC_VGPRS (3) and the GS/interrupt messages compute code never sends exist;
        // dealloc is a no-op for a functional model.
        SSendmsg if i.imm & 0xFF == 3 => Flow::Next,
        SSendmsg | SSendmsghalt => {
            return Err(unmodelled(
                i,
                &format!(
                    "sendmsg({}): a graphics or trap-handler message",
                    i.imm & 0xFF
                ),
            ));
        }
        // Taken only while a debugger has set the wave's debug bits
        // (RDNA3 ISA, SOPP); gfxsim has no debugger, so never.
        SCbranchCdbgsys | SCbranchCdbguser | SCbranchCdbgsysOrUser | SCbranchCdbgsysAndUser => {
            Flow::Next
        }
        SBarrier => Flow::Barrier,
        SEndpgm | SEndpgmSaved => Flow::End,
        SBranch => Flow::Jump(target()),
        SCbranchScc0 => branch(!w.scc),
        SCbranchScc1 => branch(w.scc),
        SCbranchVccz => branch(w.vcc_mask() == 0),
        SCbranchVccnz => branch(w.vcc_mask() != 0),
        SCbranchExecz => branch(w.exec_mask() == 0),
        SCbranchExecnz => branch(w.exec_mask() != 0),
        STrap => {
            return Err(WaveErrorKind::Trap {
                code: (i.imm & 0xFF) as u32,
            });
        }
        // s_sethalt 1 halts the wave; nothing resumes it on gfxsim (no debugger), so the
        // dispatch stops with a Halt error naming the PC. s_sethalt 0 (resume) is a no-op.
        SSethalt if i.imm & 1 == 0 => Flow::Next,
        SSethalt => return Err(WaveErrorKind::Halt),
        _ => return Err(illegal(i)),
    })
}
