//! Pre-resolved forms of the hottest instructions (issue #4: interpreter speed).
//!
//! When the code cache decodes a block it also compiles each instruction into a
//! compact [`Fast`] form: a no-op, a branch with its absolute target, or a plain
//! SALU / VALU / VOPC operation whose operands are already reduced to "SGPR n",
//! "VGPR n" or "this 32-bit constant". The per-instruction loop runs those in
//! place on the register file (no family dispatch, no big opcode match, no
//! 128-byte rows returned through `Result`); everything else (modifiers, DPP,
//! SDWA-like operand kinds, SCC/aperture sources, every op not listed here) is
//! `Fast::Slow` and goes through `step` exactly as before. More forms live in
//! their own files: fast_scalar.rs (64-bit SALU, saveexec, PC, SOPK),
//! fast_lanes.rs (writelane, readfirstlane), fast_vcmp.rs (float compares),
//! fast_scratch.rs (SCRATCH dword loads and stores)
//! and fast_wave64.rs (the vector forms' two passes in wave64; a form
//! without one takes `step` there).
//!
//! Fidelity by construction: [`compile`] only accepts an instruction whose slow
//! path is the same computation (same `Op`, no modifiers, operand kinds the slow
//! path reads the same way), and each arm below restates the slow path's
//! formula. The tests at the bottom run every fast form against `step` on random
//! registers and EXEC masks.

use std::mem::MaybeUninit;

use super::valu::{add_carry, fma_lanes, sub_borrow};
use super::vmem::{Coalesced, coalesced, s_load_at};
use super::{Env, Flow};
use crate::gfx11::inst::{Family, Inst, Mods, Src};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{EXEC, LANE_BIT, LANES, Lanes, NULL, VCC, Wave, pack_lanes};

/// A scalar operand: SGPR `n` (0..=127) or a 32-bit constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SSrc {
    Reg(u8),
    Imm(u32),
}

/// A vector operand: VGPR `n`, SGPR `n` (the same value in every lane) or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VSrc {
    Vgpr(u8),
    Sgpr(u8),
    Imm(u32),
}

/// Branch conditions (s_branch and s_cbranch_*).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cond {
    Always,
    Scc0,
    Scc1,
    Vccz,
    Vccnz,
    Execz,
    Execnz,
}

/// Scalar two-source operations (SOP2, SOPC, and SOP1 with the second source unused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SOp {
    Mov,
    Ctz,
    AddU32,
    SubU32,
    AddI32,
    SubI32,
    AddcU32,
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
    Lshl,
    Lshr,
    Ashr,
    Lshl1Add,
    Lshl2Add,
    Lshl3Add,
    Lshl4Add,
    MulI32,
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
}

/// Vector 32-bit operations with one to three sources and one VGPR result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VOp {
    Mov,
    AddU32,
    SubU32,
    SubrevU32,
    And,
    Or,
    Xor,
    Lshlrev,
    Lshrrev,
    Ashrrev,
    MaxU32,
    MinU32,
    MaxI32,
    MinI32,
    MulLo,
    MulHiU32,
    MulU24,
    Add3,
    LshlAdd,
    AddLshl,
    LshlOr,
    AndOr,
    Or3,
    Xor3,
    MulHiI32,
    MadU24,
    Xad,
    BfeU32,
    BfeI32,
    Alignbit,
    /// v_cvt_f32_u32 and v_cvt_u32_f32 (no modifiers: the slow path's plain conversions).
    CvtF32U32,
    CvtU32F32,
}

/// One pre-resolved instruction.
///
/// `repr(u8)`: the variant is a plain tag byte, so `run` dispatches on it
/// with one table jump (without it the tag shares a niche with `Scalar`'s
/// and each dispatch first decodes which of the two it is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Fast {
    /// Not pre-resolved: run through `step`.
    Slow,
    /// Architecturally no effect in gfxsim (waits, hints, cache invalidates).
    Nop,
    Barrier,
    End,
    Branch {
        cond: Cond,
        target: u64,
    },
    /// SALU op: `dst` (an SGPR code, or NULL/none for compares) and SCC per `op`.
    Salu {
        op: SOp,
        dst: u8,
        a: SSrc,
        b: SSrc,
    },
    /// VALU op on 32 lanes (wave32 only), written under EXEC.
    Valu {
        op: VOp,
        dst: u8,
        a: VSrc,
        b: VSrc,
        c: VSrc,
    },
    /// v_cndmask_b32: lanes with `mask` set take `b`, others `a`.
    Cndmask {
        dst: u8,
        a: VSrc,
        b: VSrc,
        mask: SSrc,
    },
    /// v_add_co_u32 / v_sub_co_u32 / v_subrev_co_u32 (`sub`, `rev`): carry/borrow to `sdst`.
    AddCo {
        sub: bool,
        rev: bool,
        dst: u8,
        sdst: u8,
        a: VSrc,
        b: VSrc,
    },
    /// v_add_co_ci_u32 / v_sub_co_ci_u32 / v_subrev_co_ci_u32 with carry in `cin`.
    AddCoCi {
        sub: bool,
        rev: bool,
        dst: u8,
        sdst: u8,
        a: VSrc,
        b: VSrc,
        cin: SSrc,
    },
    /// v_mad_u64_u32: dst pair = a * b + c (c a 64-bit source), overflow to `sdst`.
    MadU64 {
        dst: u8,
        sdst: u8,
        a: VSrc,
        b: VSrc,
        c: VSrc,
    },
    /// v_lshlrev_b64: dst pair = b << (a & 63) (b a 64-bit source).
    LshlrevB64 {
        dst: u8,
        a: VSrc,
        b: VSrc,
    },
    /// v_readlane_b32: SGPR `dst` = lane `lane & 31` of `a`.
    Readlane {
        dst: u8,
        a: VSrc,
        lane: SSrc,
    },
    /// 64-bit SALU, saveexec, PC and SOPK forms (fast_scalar.rs).
    Scalar(super::fast_scalar::Scalar),
    /// v_writelane / v_readfirstlane, wave32 and wave64 (fast_lanes.rs).
    Lane(super::fast_lanes::Lane),
    /// 64-bit integer compares and right shifts, v_mbcnt (fast_vint.rs).
    Vint(super::fast_vint::Vint),
    /// VOPD pairs of moves, integer ops and f32 arithmetic (fast_vopd.rs), wave32.
    Vopd(super::fast_vopd::Vopd),
    /// f64 arithmetic, division helpers and conversions (fast_f64.rs).
    F64(super::fast_f64::F64),
    /// f32 and f16 arithmetic and math (fast_f32.rs).
    Flt(super::fast_f32::Flt),
    /// v_fma_f32 with abs/neg, the f32 division helpers (fast_fma32.rs).
    Fma32(super::fast_fma32::Fma32),
    /// f32/f64 compares and v_cmp_class (fast_vcmp.rs).
    Fcmp(super::fast_vcmp::Fcmp),
    /// 32-bit integer compare (`cond`: 1 less, 2 equal, 4 greater) to `dst`
    /// (VCC, an SGPR, or EXEC for v_cmpx), inactive lanes 0.
    Vcmp {
        cond: u8,
        signed: bool,
        dst: u8,
        a: VSrc,
        b: VSrc,
    },
    /// f32 fused multiply-add `dst = a * b + c` (v_fma_f32; v_fmac_f32 with
    /// `c` the destination; v_fmaak/v_fmamk_f32 with the literal placed), on
    /// the slow path's own lane helper.
    FmaF32 {
        dst: u8,
        a: VSrc,
        b: VSrc,
        c: VSrc,
    },
    /// s_load_b32..b512 of `n` dwords into SGPRs `dst..dst + n` (below null)
    /// from `sbase + imm + soffset` (`soff` null: none).
    SLoad {
        n: u8,
        dst: u8,
        sbase: u8,
        soff: u8,
        imm: i32,
    },
    /// A FLAT/GLOBAL load or store that runs vmem's coalesced path when its
    /// lanes are coalesced, else the one-span case of the general path
    /// (fast_vmem.rs), and `step` (the general path) otherwise.
    Coalesced(Coalesced),
    /// A FLAT/GLOBAL atomic (fast_vmem.rs), `step` when it declines.
    GlobalAtomic(super::fast_vmem::GlobalAtomic),
    /// A SCRATCH dword load or store (fast_scratch.rs), wave32, `step`
    /// when it declines.
    Scratch(super::fast_scratch::Scratch),
    /// A DS dword load or store (lds.rs): the in-range path, `step` when
    /// a lane is out of range.
    Ds(super::lds::DsRows),
    /// ds_swizzle_b32 / ds_permute_b32 / ds_bpermute_b32 (wave32; wave64 takes `step`).
    DsShuffle(super::lds::DsShuffle),
    /// v_add_co_u32 and the v_add_co_ci_u32 that adds its carry, fused by the
    /// code cache (fast_pair.rs), wave32: one entry for two instructions.
    AddPair(super::fast_pair::AddPair),
}

pub(super) fn ssrc(s: Src) -> Option<SSrc> {
    match s {
        Src::Sgpr(r) if r < 128 => Some(SSrc::Reg(r)),
        Src::Imm(v) => Some(SSrc::Imm(v as u32)),
        _ => None,
    }
}

pub(super) fn vsrc(s: Src) -> Option<VSrc> {
    match s {
        Src::Vgpr(r) => Some(VSrc::Vgpr(r)),
        Src::Sgpr(r) if r < 128 => Some(VSrc::Sgpr(r)),
        Src::Imm(v) => Some(VSrc::Imm(v as u32)),
        _ => None,
    }
}

/// A 64-bit vector source: a VGPR pair, an SGPR pair, or a constant whose high
/// dword is 0 (so the 32-bit constant zero-extends to the slow path's value).
pub(super) fn vsrc64(s: Src) -> Option<VSrc> {
    match s {
        Src::Vgpr(r) if r < 255 => Some(VSrc::Vgpr(r)),
        Src::Sgpr(r) if r < 127 => Some(VSrc::Sgpr(r)),
        Src::Imm(v) if v >> 32 == 0 => Some(VSrc::Imm(v as u32)),
        _ => None,
    }
}

/// A scalar destination code the slow path writes with `set_sgpr` (NULL drops).
pub(super) fn sdst(code: u16) -> Option<u8> {
    (code < 128).then_some(code as u8)
}

/// The pre-resolved form of `i`, which sits at address `pc`.
pub(crate) fn compile(i: &Inst, pc: u64) -> Fast {
    compile_inner(i, pc)
        .or_else(|| super::fast_scalar::compile(i, pc))
        .or_else(|| super::fast_lanes::compile(i))
        .or_else(|| super::fast_vint::compile(i))
        .or_else(|| super::fast_vopd::compile(i))
        .or_else(|| super::fast_f64::compile(i))
        .or_else(|| super::fast_f32::compile(i))
        .or_else(|| super::fast_fma32::compile(i))
        .or_else(|| super::fast_vcmp::compile(i))
        .unwrap_or(Fast::Slow)
}

fn compile_inner(i: &Inst, pc: u64) -> Option<Fast> {
    use Op::*;
    if i.dpp.is_some() || i.mods != Mods::default() {
        return None;
    }
    let s = |k: usize| ssrc(i.src[k].src);
    let v = |k: usize| vsrc(i.src[k].src);
    match i.family {
        Family::Sopp => {
            let target = pc.wrapping_add(4).wrapping_add((i.imm as i64 * 4) as u64);
            let branch = |cond| Some(Fast::Branch { cond, target });
            match i.op {
                op if super::scalar::sopp_is_nop(op) => Some(Fast::Nop),
                SSendmsg if i.imm & 0xFF == 3 => Some(Fast::Nop),
                SSethalt if i.imm & 1 == 0 => Some(Fast::Nop),
                SBarrier => Some(Fast::Barrier),
                SEndpgm | SEndpgmSaved => Some(Fast::End),
                SBranch => branch(Cond::Always),
                SCbranchScc0 => branch(Cond::Scc0),
                SCbranchScc1 => branch(Cond::Scc1),
                SCbranchVccz => branch(Cond::Vccz),
                SCbranchVccnz => branch(Cond::Vccnz),
                SCbranchExecz => branch(Cond::Execz),
                SCbranchExecnz => branch(Cond::Execnz),
                _ => None,
            }
        }
        Family::Mubuf if matches!(i.op, BufferGl0Inv | BufferGl1Inv) => Some(Fast::Nop),
        Family::Smem => {
            let n = match i.op {
                SLoadB32 => 1,
                SLoadB64 => 2,
                SLoadB128 => 4,
                SLoadB256 => 8,
                SLoadB512 => 16,
                _ => return None,
            };
            // The slow path's own test: a destination reaching null takes smem_general.
            if i.dst as usize + n > NULL {
                return None;
            }
            Some(Fast::SLoad {
                n: n as u8,
                dst: i.dst as u8,
                sbase: i.addr,
                soff: u8::try_from(i.imm2).ok()?,
                imm: i.imm,
            })
        }
        Family::Ds => super::lds::DsRows::of(i)
            .map(Fast::Ds)
            .or_else(|| super::lds::DsShuffle::of(i).map(Fast::DsShuffle)),
        Family::Scratch => super::fast_scratch::Scratch::of_inst(i).map(Fast::Scratch),
        Family::Global | Family::Flat => Coalesced::of_inst(i)
            .map(Fast::Coalesced)
            .or_else(|| super::fast_vmem::GlobalAtomic::of_inst(i).map(Fast::GlobalAtomic)),
        Family::Sop1 => {
            let op = match i.op {
                SMovB32 => SOp::Mov,
                SCtzI32B32 => SOp::Ctz,
                _ => return None,
            };
            Some(Fast::Salu {
                op,
                dst: sdst(i.dst)?,
                a: s(0)?,
                b: SSrc::Imm(0),
            })
        }
        Family::Sop2 | Family::Sopc => {
            // 64-bit forms take the slow path (sop2 picks them by width).
            if i.widths[0] == 2 || i.widths[1] == 2 || i.widths[2] == 2 {
                return None;
            }
            let op = match i.op {
                SAddU32 => SOp::AddU32,
                SSubU32 => SOp::SubU32,
                SAddI32 => SOp::AddI32,
                SSubI32 => SOp::SubI32,
                SAddcU32 => SOp::AddcU32,
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
                SLshlB32 => SOp::Lshl,
                SLshrB32 => SOp::Lshr,
                SAshrI32 => SOp::Ashr,
                SLshl1AddU32 => SOp::Lshl1Add,
                SLshl2AddU32 => SOp::Lshl2Add,
                SLshl3AddU32 => SOp::Lshl3Add,
                SLshl4AddU32 => SOp::Lshl4Add,
                SMulI32 => SOp::MulI32,
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
                _ => return None,
            };
            let dst = if i.family == Family::Sopc {
                NULL as u8
            } else {
                sdst(i.dst)?
            };
            Some(Fast::Salu {
                op,
                dst,
                a: s(0)?,
                b: s(1)?,
            })
        }
        Family::Vop1 | Family::Vop2 | Family::Vop3 => {
            if i.family == Family::Vop3 && crate::gfx11::decode::is_vop3_compare(i) {
                return compile_vcmp(i);
            }
            let dst = u8::try_from(i.dst).ok()?;
            let op = match i.op {
                VMovB32 => VOp::Mov,
                VAddNcU32 => VOp::AddU32,
                VSubNcU32 => VOp::SubU32,
                VSubrevNcU32 => VOp::SubrevU32,
                VAndB32 => VOp::And,
                VOrB32 => VOp::Or,
                VXorB32 => VOp::Xor,
                VLshlrevB32 => VOp::Lshlrev,
                VLshrrevB32 => VOp::Lshrrev,
                VAshrrevI32 => VOp::Ashrrev,
                VMaxU32 => VOp::MaxU32,
                VMinU32 => VOp::MinU32,
                VMaxI32 => VOp::MaxI32,
                VMinI32 => VOp::MinI32,
                VMulLoU32 => VOp::MulLo,
                VMulHiU32 => VOp::MulHiU32,
                VMulU32U24 => VOp::MulU24,
                VAdd3U32 => VOp::Add3,
                VLshlAddU32 => VOp::LshlAdd,
                VAddLshlU32 => VOp::AddLshl,
                VLshlOrB32 => VOp::LshlOr,
                VAndOrB32 => VOp::AndOr,
                VOr3B32 => VOp::Or3,
                VXor3B32 => VOp::Xor3,
                VMulHiI32 => VOp::MulHiI32,
                VMadU32U24 => VOp::MadU24,
                VXadU32 => VOp::Xad,
                VBfeU32 => VOp::BfeU32,
                VBfeI32 => VOp::BfeI32,
                VAlignbitB32 => VOp::Alignbit,
                VCvtF32U32 => VOp::CvtF32U32,
                VCvtU32F32 => VOp::CvtU32F32,
                VCndmaskB32 => {
                    let mask = if i.family == Family::Vop3 {
                        s(2)?
                    } else {
                        SSrc::Reg(VCC as u8)
                    };
                    return Some(Fast::Cndmask {
                        dst,
                        a: v(0)?,
                        b: v(1)?,
                        mask,
                    });
                }
                VAddCoCiU32 | VSubCoCiU32 | VSubrevCoCiU32 if i.family == Family::Vop2 => {
                    // The VOP2 form (carry in and out in VCC); the VOP3 form is family Vop3sd.
                    return Some(Fast::AddCoCi {
                        sub: i.op != VAddCoCiU32,
                        rev: i.op == VSubrevCoCiU32,
                        dst,
                        sdst: VCC as u8,
                        a: v(0)?,
                        b: v(1)?,
                        cin: SSrc::Reg(VCC as u8),
                    });
                }
                VLshlrevB64 => {
                    return Some(Fast::LshlrevB64 {
                        dst: (dst < 255).then_some(dst)?,
                        a: v(0)?,
                        b: vsrc64(i.src[1].src)?,
                    });
                }
                // The slow path's operands: v_fmac adds the destination,
                // v_fmamk multiplies by its literal (src2) and adds src1.
                VFmacF32 => {
                    return Some(Fast::FmaF32 {
                        dst,
                        a: v(0)?,
                        b: v(1)?,
                        c: VSrc::Vgpr(dst),
                    });
                }
                VFmaF32 | VFmaakF32 => {
                    return Some(Fast::FmaF32 {
                        dst,
                        a: v(0)?,
                        b: v(1)?,
                        c: v(2)?,
                    });
                }
                VFmamkF32 => {
                    return Some(Fast::FmaF32 {
                        dst,
                        a: v(0)?,
                        b: v(2)?,
                        c: v(1)?,
                    });
                }
                VReadlaneB32 => {
                    return Some(Fast::Readlane {
                        dst: sdst(i.dst)?,
                        a: v(0)?,
                        lane: s(1)?,
                    });
                }
                _ => return None,
            };
            let third = if i.family == Family::Vop3 {
                v(2)?
            } else {
                VSrc::Imm(0)
            };
            Some(Fast::Valu {
                op,
                dst,
                a: v(0)?,
                b: v(1)?,
                c: third,
            })
        }
        Family::Vop3sd => {
            let dst = u8::try_from(i.dst).ok()?;
            match i.op {
                VAddCoU32 | VSubCoU32 | VSubrevCoU32 => Some(Fast::AddCo {
                    sub: i.op != VAddCoU32,
                    rev: i.op == VSubrevCoU32,
                    dst,
                    sdst: i.sdst,
                    a: v(0)?,
                    b: v(1)?,
                }),
                VAddCoCiU32 | VSubCoCiU32 | VSubrevCoCiU32 => Some(Fast::AddCoCi {
                    sub: i.op != VAddCoCiU32,
                    rev: i.op == VSubrevCoCiU32,
                    dst,
                    sdst: i.sdst,
                    a: v(0)?,
                    b: v(1)?,
                    cin: s(2)?,
                }),
                VMadU64U32 => Some(Fast::MadU64 {
                    dst: (dst < 255).then_some(dst)?,
                    sdst: i.sdst,
                    a: v(0)?,
                    b: v(1)?,
                    c: vsrc64(i.src[2].src)?,
                }),
                _ => None,
            }
        }
        Family::Vopc => compile_vcmp(i),
        _ => None,
    }
}

/// 32-bit integer compares (VOPC and their VOP3 forms).
fn compile_vcmp(i: &Inst) -> Option<Fast> {
    let (cond, signed, dst) = int_compare(i, "i32", "u32")?;
    Some(Fast::Vcmp {
        cond,
        signed,
        dst,
        a: vsrc(i.src[0].src)?,
        b: vsrc(i.src[1].src)?,
    })
}

/// An integer compare v_cmp[x]_{lt,eq,le,gt,ne,ge}_{signed,unsigned}, as
/// vcmp.rs parses the mnemonic: its condition (1 lt, 2 eq, 3 le, 4 gt, 5 ne,
/// 6 ge), whether it is signed, and the SGPR it writes (EXEC for v_cmpx, VCC
/// for VOPC, else the VOP3 destination). The 32- and 64-bit forms share it.
pub(super) fn int_compare(i: &Inst, signed: &str, unsigned: &str) -> Option<(u8, bool, u8)> {
    let name = i.op.name();
    let (x, rest) = match name.strip_prefix("v_cmpx_") {
        Some(r) => (true, r),
        None => (false, name.strip_prefix("v_cmp_")?),
    };
    let (cond, ty) = rest.split_once('_')?;
    let is_signed = if ty == signed {
        true
    } else if ty == unsigned {
        false
    } else {
        return None;
    };
    let cond = match cond {
        "lt" => 1,
        "eq" => 2,
        "le" => 3,
        "gt" => 4,
        "ne" | "lg" => 5,
        "ge" => 6,
        _ => return None,
    };
    let dst = if x {
        EXEC as u8
    } else if i.family == Family::Vopc {
        VCC as u8
    } else {
        sdst(i.dst)?
    };
    Some((cond, is_signed, dst))
}

/// A scalar operand's value: the SGPR, or the constant.
#[inline(always)]
pub(super) fn sread(w: &Wave, s: SSrc) -> u32 {
    match s {
        SSrc::Reg(r) => w.sgpr[r as usize & 127],
        SSrc::Imm(v) => v,
    }
}

/// A source's 32 lanes: the VGPR row itself, or `buf` filled with the scalar
/// (left uninitialised otherwise: zeroing the spare rows cost ~30 host
/// instructions per vector op).
#[inline(always)]
pub(super) fn row<'a>(w: &'a Wave, s: VSrc, buf: &'a mut Row) -> &'a Lanes {
    match s {
        VSrc::Vgpr(r) => &w.vgpr[r as usize],
        VSrc::Sgpr(r) => buf.write([w.sgpr[r as usize & 127]; LANES]),
        VSrc::Imm(v) => buf.write([v; LANES]),
    }
}

/// Room for a source row that may not be needed.
pub(super) type Row = MaybeUninit<Lanes>;

/// The value of a source that is the same in every lane (an SGPR or a
/// constant; a VGPR's lane 0, which callers do not ask for).
#[inline(always)]
fn scalar(w: &Wave, s: VSrc) -> u32 {
    match s {
        VSrc::Vgpr(r) => w.vgpr[r as usize][0],
        VSrc::Sgpr(r) => w.sgpr[r as usize & 127],
        VSrc::Imm(v) => v,
    }
}

/// The low and high dwords of a 64-bit source (see [`vsrc64`]), as two rows.
#[inline(always)]
pub(super) fn row_pair<'a>(
    w: &'a Wave,
    s: VSrc,
    lo: &'a mut Row,
    hi: &'a mut Row,
) -> (&'a Lanes, &'a Lanes) {
    match s {
        VSrc::Vgpr(r) => (&w.vgpr[r as usize], &w.vgpr[(r as usize + 1) & 255]),
        VSrc::Sgpr(r) => {
            let r = r as usize & 127;
            let h = w.sgpr.get(r + 1).copied().unwrap_or(0);
            (lo.write([w.sgpr[r]; LANES]), hi.write([h; LANES]))
        }
        VSrc::Imm(v) => (lo.write([v; LANES]), hi.write([0; LANES])),
    }
}

/// `set_sgpr` of the slow path: NULL and codes ≥ 128 are dropped.
#[inline(always)]
pub(super) fn put_sgpr(w: &mut Wave, code: u8, v: u32) {
    if code != NULL as u8 && code < 128 {
        w.sgpr[code as usize] = v;
    }
}

#[inline(always)]
fn map2(a: &Lanes, b: &Lanes, f: impl Fn(u32, u32) -> u32) -> Lanes {
    let mut r = [0u32; LANES];
    for l in 0..LANES {
        r[l] = f(a[l], b[l]);
    }
    r
}

#[inline(always)]
fn map3(a: &Lanes, b: &Lanes, c: &Lanes, f: impl Fn(u32, u32, u32) -> u32) -> Lanes {
    let mut r = [0u32; LANES];
    for l in 0..LANES {
        r[l] = f(a[l], b[l], c[l]);
    }
    r
}

/// Run a pre-resolved instruction. None: it is `Slow`, or a vector form with
/// no wave64 run (fast_wave64.rs) in a wave64 wave; the caller runs `step` instead.
#[inline(always)]
pub(crate) fn run(w: &mut Wave, env: &mut Env, f: &Fast) -> Option<Flow> {
    match *f {
        Fast::Slow => None,
        Fast::SLoad {
            n,
            dst,
            sbase,
            soff,
            imm,
        } => {
            let (dst, soff) = (dst as usize, soff as u32);
            // A fault changes nothing: `step` then runs the load again and reports it.
            let done = match n {
                1 => s_load_at::<1>(w, env, dst, sbase, soff, imm),
                2 => s_load_at::<2>(w, env, dst, sbase, soff, imm),
                4 => s_load_at::<4>(w, env, dst, sbase, soff, imm),
                8 => s_load_at::<8>(w, env, dst, sbase, soff, imm),
                _ => s_load_at::<16>(w, env, dst, sbase, soff, imm),
            };
            done.ok().map(|()| Flow::Next)
        }
        Fast::Nop => Some(Flow::Next),
        Fast::Barrier => Some(Flow::Barrier),
        Fast::End => Some(Flow::End),
        Fast::Branch { cond, target } => {
            let taken = match cond {
                Cond::Always => true,
                Cond::Scc0 => !w.scc,
                Cond::Scc1 => w.scc,
                Cond::Vccz => w.vcc_mask() == 0,
                Cond::Vccnz => w.vcc_mask() != 0,
                Cond::Execz => w.exec_mask() == 0,
                Cond::Execnz => w.exec_mask() != 0,
            };
            Some(if taken {
                Flow::Jump(target)
            } else {
                Flow::Next
            })
        }
        Fast::Salu { op, dst, a, b } => {
            salu(w, op, dst, sread(w, a), sread(w, b));
            Some(Flow::Next)
        }
        Fast::Scalar(ref s) => Some(super::fast_scalar::run(w, s)),
        Fast::Lane(ref l) => {
            super::fast_lanes::run(w, l);
            Some(Flow::Next)
        }
        // The hot wave32 vector forms, one arm each calling that form's body
        // directly: a vector instruction costs one dispatch on the tag
        // instead of three (the tag, wave64, then `valu`'s own match). The
        // rarer and bigger forms (Vint, Vopd, F64, Flt, Fma32) share the last arm.
        Fast::Coalesced(c) if !w.wave64 => {
            (coalesced(w, env, &c) || super::fast_vmem::spanned(w, env, &c)).then_some(Flow::Next)
        }
        Fast::Valu { op, dst, a, b, c } if !w.wave64 => {
            vop(w, op, dst, a, b, c, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::FmaF32 { dst, a, b, c } if !w.wave64 => {
            fma_f32(w, dst, a, b, c, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::AddPair(ref p) if !w.wave64 => {
            super::fast_pair::run(w, p, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::AddCo {
            sub,
            rev,
            dst,
            sdst,
            a,
            b,
        } if !w.wave64 => {
            add_co(w, sub, rev, dst, sdst, a, b, 0, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::AddCoCi {
            sub,
            rev,
            dst,
            sdst,
            a,
            b,
            cin,
        } if !w.wave64 => {
            add_co(w, sub, rev, dst, sdst, a, b, sread(w, cin), w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::MadU64 { dst, sdst, a, b, c } if !w.wave64 => {
            mad_u64(w, dst, sdst, a, b, c, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::LshlrevB64 { dst, a, b } if !w.wave64 => {
            lshlrev_b64(w, dst, a, b, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::Vcmp {
            cond,
            signed,
            dst,
            a,
            b,
        } if !w.wave64 => {
            vcmp(w, cond, signed, dst, a, b, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::Cndmask { dst, a, b, mask } if !w.wave64 => {
            cndmask(w, dst, a, b, mask, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::Scratch(ref s) if !w.wave64 => {
            super::fast_scratch::run(w, env, s).then_some(Flow::Next)
        }
        _ if w.wave64 => super::fast_wave64::run(w, f),
        Fast::GlobalAtomic(a) => super::fast_vmem::atomic(w, env, &a).then_some(Flow::Next),
        Fast::Ds(d) => {
            let exec = w.sgpr[EXEC];
            super::lds::ds_in_range(w, env.lds, &d, exec).then_some(Flow::Next)
        }
        Fast::DsShuffle(d) => {
            super::lds::ds_shuffle(w, &d, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        // The other vector forms in wave32.
        _ => {
            valu(w, f, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
    }
}

#[inline(always)]
fn salu(w: &mut Wave, op: SOp, dst: u8, a: u32, b: u32) {
    let (ai, bi) = (a as i32, b as i32);
    // (result, SCC); None result: a compare (SCC only); None SCC: result != 0.
    let (r, scc): (Option<u32>, Option<bool>) = match op {
        SOp::Mov => {
            put_sgpr(w, dst, a);
            return;
        }
        SOp::Ctz => {
            put_sgpr(w, dst, if a == 0 { u32::MAX } else { a.trailing_zeros() });
            return;
        }
        SOp::AddU32 => {
            let (r, c) = a.overflowing_add(b);
            (Some(r), Some(c))
        }
        SOp::SubU32 => {
            let (r, c) = a.overflowing_sub(b);
            (Some(r), Some(c))
        }
        SOp::AddI32 => {
            let (r, o) = ai.overflowing_add(bi);
            (Some(r as u32), Some(o))
        }
        SOp::SubI32 => {
            let (r, o) = ai.overflowing_sub(bi);
            (Some(r as u32), Some(o))
        }
        SOp::AddcU32 => {
            let s = a as u64 + b as u64 + w.scc as u64;
            (Some(s as u32), Some(s >> 32 != 0))
        }
        SOp::MinI32 => (Some(ai.min(bi) as u32), Some(ai < bi)),
        SOp::MinU32 => (Some(a.min(b)), Some(a < b)),
        SOp::MaxI32 => (Some(ai.max(bi) as u32), Some(ai > bi)),
        SOp::MaxU32 => (Some(a.max(b)), Some(a > b)),
        SOp::Cselect => (Some(if w.scc { a } else { b }), Some(w.scc)),
        SOp::And => (Some(a & b), None),
        SOp::Or => (Some(a | b), None),
        SOp::Xor => (Some(a ^ b), None),
        SOp::AndNot1 => (Some(a & !b), None),
        SOp::OrNot1 => (Some(a | !b), None),
        SOp::Lshl => (Some(a << (b & 31)), None),
        SOp::Lshr => (Some(a >> (b & 31)), None),
        SOp::Ashr => (Some((ai >> (b & 31)) as u32), None),
        SOp::Lshl1Add | SOp::Lshl2Add | SOp::Lshl3Add | SOp::Lshl4Add => {
            let sh = match op {
                SOp::Lshl1Add => 1,
                SOp::Lshl2Add => 2,
                SOp::Lshl3Add => 3,
                _ => 4,
            };
            let s = ((a as u64) << sh) + b as u64;
            (Some(s as u32), Some(s >> 32 != 0))
        }
        SOp::MulI32 => (Some(ai.wrapping_mul(bi) as u32), Some(w.scc)),
        SOp::CmpEq => (None, Some(a == b)),
        SOp::CmpLg => (None, Some(a != b)),
        SOp::CmpGtI => (None, Some(ai > bi)),
        SOp::CmpGeI => (None, Some(ai >= bi)),
        SOp::CmpLtI => (None, Some(ai < bi)),
        SOp::CmpLeI => (None, Some(ai <= bi)),
        SOp::CmpGtU => (None, Some(a > b)),
        SOp::CmpGeU => (None, Some(a >= b)),
        SOp::CmpLtU => (None, Some(a < b)),
        SOp::CmpLeU => (None, Some(a <= b)),
    };
    match r {
        Some(r) => {
            w.scc = scc.unwrap_or(r != 0);
            put_sgpr(w, dst, r);
        }
        None => w.scc = scc.unwrap_or(false),
    }
}

/// The vector forms on 32 lanes under `exec` (wave32, or one pass of
/// wave64: fast_wave64.rs). Results are computed into locals from the
/// source rows (read in place) and written under `exec` afterwards, so a
/// destination that is also a source reads its old value, as in `step`.
///
/// Each form's body is its own function so that `run`'s per-form wave32
/// arms call just that body: inlining all of `valu` into every arm (and
/// counting on LLVM to fold it) multiplied the crate's release build time.
#[inline(always)]
pub(super) fn valu(w: &mut Wave, f: &Fast, exec: u32) {
    match *f {
        Fast::Valu { op, dst, a, b, c } => vop(w, op, dst, a, b, c, exec),
        Fast::Cndmask { dst, a, b, mask } => cndmask(w, dst, a, b, mask, exec),
        Fast::AddCo {
            sub,
            rev,
            dst,
            sdst,
            a,
            b,
        } => add_co(w, sub, rev, dst, sdst, a, b, 0, exec),
        Fast::AddCoCi {
            sub,
            rev,
            dst,
            sdst,
            a,
            b,
            cin,
        } => add_co(w, sub, rev, dst, sdst, a, b, sread(w, cin), exec),
        Fast::MadU64 { dst, sdst, a, b, c } => mad_u64(w, dst, sdst, a, b, c, exec),
        Fast::LshlrevB64 { dst, a, b } => lshlrev_b64(w, dst, a, b, exec),
        Fast::Readlane { dst, a, lane } => {
            let lane = sread(w, lane) as usize & (LANES - 1);
            let v = match a {
                VSrc::Vgpr(r) => w.vgpr[r as usize][lane],
                VSrc::Sgpr(r) => w.sgpr[r as usize & 127],
                VSrc::Imm(v) => v,
            };
            put_sgpr(w, dst, v);
        }
        Fast::Vcmp {
            cond,
            signed,
            dst,
            a,
            b,
        } => vcmp(w, cond, signed, dst, a, b, exec),
        Fast::FmaF32 { dst, a, b, c } => fma_f32(w, dst, a, b, c, exec),
        Fast::Vint(ref v) => super::fast_vint::run(w, v, exec),
        Fast::Vopd(ref v) => super::fast_vopd::run(w, v, exec),
        Fast::F64(ref d) => super::fast_f64::run(w, d, exec),
        Fast::Flt(ref x) => super::fast_f32::run(w, x, exec),
        Fast::Fma32(ref x) => super::fast_fma32::run(w, x, exec),
        Fast::Fcmp(ref c) => super::fast_vcmp::run(w, c, exec),
        Fast::AddPair(ref p) => super::fast_pair::run(w, p, exec),
        _ => {}
    }
}

/// `Fast::Valu`.
#[inline(always)]
fn vop(w: &mut Wave, op: VOp, dst: u8, a: VSrc, b: VSrc, c: VSrc, exec: u32) {
    let (mut ba, mut bb, mut bc) = (Row::uninit(), Row::uninit(), Row::uninit());
    let r = {
        let (x, y) = (row(w, a, &mut ba), row(w, b, &mut bb));
        match op {
            VOp::Mov => *x,
            VOp::AddU32 => map2(x, y, u32::wrapping_add),
            VOp::SubU32 => map2(x, y, u32::wrapping_sub),
            VOp::SubrevU32 => map2(x, y, |a, b| b.wrapping_sub(a)),
            VOp::And => map2(x, y, |a, b| a & b),
            VOp::Or => map2(x, y, |a, b| a | b),
            VOp::Xor => map2(x, y, |a, b| a ^ b),
            VOp::Lshlrev => map2(x, y, |a, b| b << (a & 31)),
            VOp::Lshrrev => map2(x, y, |a, b| b >> (a & 31)),
            VOp::Ashrrev => map2(x, y, |a, b| ((b as i32) >> (a & 31)) as u32),
            VOp::MaxU32 => map2(x, y, u32::max),
            VOp::MinU32 => map2(x, y, u32::min),
            VOp::MaxI32 => map2(x, y, |a, b| (a as i32).max(b as i32) as u32),
            VOp::MinI32 => map2(x, y, |a, b| (a as i32).min(b as i32) as u32),
            VOp::MulLo => map2(x, y, u32::wrapping_mul),
            VOp::MulHiU32 => map2(x, y, |a, b| ((a as u64 * b as u64) >> 32) as u32),
            VOp::MulU24 => map2(x, y, |a, b| (a & 0xFF_FFFF).wrapping_mul(b & 0xFF_FFFF)),
            VOp::MulHiI32 => map2(x, y, |a, b| {
                ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
            }),
            VOp::CvtF32U32 => map2(x, x, |a, _| (a as f32).to_bits()),
            VOp::CvtU32F32 => map2(x, x, |a, _| super::valu::cvt_u32(f32::from_bits(a))),
            VOp::Add3
            | VOp::LshlAdd
            | VOp::AddLshl
            | VOp::LshlOr
            | VOp::AndOr
            | VOp::Or3
            | VOp::Xor3
            | VOp::MadU24
            | VOp::Xad
            | VOp::BfeU32
            | VOp::BfeI32
            | VOp::Alignbit => {
                let z = row(w, c, &mut bc);
                match op {
                    VOp::MadU24 => map3(x, y, z, |a, b, c| {
                        (a & 0xFF_FFFF).wrapping_mul(b & 0xFF_FFFF).wrapping_add(c)
                    }),
                    VOp::Xad => map3(x, y, z, |a, b, c| (a ^ b).wrapping_add(c)),
                    VOp::BfeU32 => map3(x, y, z, super::valu::bfe_u),
                    VOp::BfeI32 => map3(x, y, z, super::valu::bfe_i),
                    VOp::Alignbit => map3(x, y, z, |a, b, c| {
                        ((((a as u64) << 32) | b as u64) >> (c & 31)) as u32
                    }),
                    VOp::Add3 => map3(x, y, z, |a, b, c| a.wrapping_add(b).wrapping_add(c)),
                    VOp::LshlAdd => map3(x, y, z, |a, b, c| (a << (b & 31)).wrapping_add(c)),
                    VOp::AddLshl => map3(x, y, z, |a, b, c| a.wrapping_add(b) << (c & 31)),
                    VOp::LshlOr => map3(x, y, z, |a, b, c| (a << (b & 31)) | c),
                    VOp::AndOr => map3(x, y, z, |a, b, c| (a & b) | c),
                    VOp::Or3 => map3(x, y, z, |a, b, c| a | b | c),
                    _ => map3(x, y, z, |a, b, c| a ^ b ^ c),
                }
            }
        }
    };
    w.write_vgpr(dst as usize, &r, exec);
}

/// `Fast::Cndmask`.
#[inline(always)]
fn cndmask(w: &mut Wave, dst: u8, a: VSrc, b: VSrc, mask: SSrc, exec: u32) {
    let (mut ba, mut bb) = (Row::uninit(), Row::uninit());
    let m = sread(w, mask);
    let mut r = [0u32; LANES];
    {
        let (x, y) = (row(w, a, &mut ba), row(w, b, &mut bb));
        for l in 0..LANES {
            let take = if m & LANE_BIT[l] != 0 { u32::MAX } else { 0 };
            r[l] = (y[l] & take) | (x[l] & !take);
        }
    }
    w.write_vgpr(dst as usize, &r, exec);
}

/// `Fast::AddCo` (`cin` 0) and `Fast::AddCoCi` (`cin` the carry-in mask's value).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn add_co(
    w: &mut Wave,
    sub: bool,
    rev: bool,
    dst: u8,
    sdst: u8,
    a: VSrc,
    b: VSrc,
    cin: u32,
    exec: u32,
) {
    let (mut ba, mut bb) = (Row::uninit(), Row::uninit());
    let (r, co) = {
        let (x, y) = (row(w, a, &mut ba), row(w, b, &mut bb));
        if rev {
            carry_rows(y, x, sub, cin)
        } else {
            carry_rows(x, y, sub, cin)
        }
    };
    w.write_vgpr(dst as usize, &r, exec);
    put_sgpr(w, sdst, pack_lanes(&co) & exec);
}

/// `Fast::MadU64`.
#[inline(always)]
fn mad_u64(w: &mut Wave, dst: u8, sdst: u8, a: VSrc, b: VSrc, c: VSrc, exec: u32) {
    // Compilers mostly discard the carry-out (sdst null): then no lane computes it.
    let carry = sdst as usize != NULL;
    let (lo, hi, over) = if carry {
        mad_u64_lanes::<true>(w, a, b, c)
    } else {
        mad_u64_lanes::<false>(w, a, b, c)
    };
    w.write_vgpr(dst as usize, &lo, exec);
    w.write_vgpr(dst as usize + 1, &hi, exec);
    if carry {
        put_sgpr(w, sdst, pack_lanes(&over) & exec);
    }
}

/// [`mad_u64`]'s lanes: the low and high dwords of a * b + c and, when
/// `OVER`, each lane's carry-out (all zero otherwise).
#[inline(always)]
fn mad_u64_lanes<const OVER: bool>(w: &Wave, a: VSrc, b: VSrc, c: VSrc) -> (Lanes, Lanes, Lanes) {
    // In 32-bit halves (vectorises without 64-bit compares): the low
    // dwords' carry goes into the high add, whose carry is the overflow.
    let (mut lo, mut hi, mut over) = ([0u32; LANES], [0u32; LANES], [0u32; LANES]);
    let (mut ba, mut bb, mut bc, mut bd) =
        (Row::uninit(), Row::uninit(), Row::uninit(), Row::uninit());
    let (zl, zh) = row_pair(w, c, &mut bc, &mut bd);
    let mut add = |l: usize, p: u64| {
        let (pl, ph) = (p as u32, (p >> 32) as u32);
        lo[l] = pl.wrapping_add(zl[l]);
        let k = (lo[l] < pl) as u32;
        hi[l] = ph.wrapping_add(zh[l]).wrapping_add(k);
        if OVER {
            over[l] = ((hi[l] < ph) | ((hi[l] == ph) & (k != 0))) as u32;
        }
    };
    match (a, b) {
        // Scalar factors (a row times a workgroup size): one product
        // for every lane, no per-lane 32x32 multiplies.
        (VSrc::Sgpr(_) | VSrc::Imm(_), VSrc::Sgpr(_) | VSrc::Imm(_)) => {
            let p = scalar(w, a) as u64 * scalar(w, b) as u64;
            for l in 0..LANES {
                add(l, p);
            }
        }
        _ => {
            let (x, y) = (row(w, a, &mut ba), row(w, b, &mut bb));
            for l in 0..LANES {
                add(l, x[l] as u64 * y[l] as u64);
            }
        }
    }
    (lo, hi, over)
}

/// `Fast::LshlrevB64`.
#[inline(always)]
fn lshlrev_b64(w: &mut Wave, dst: u8, a: VSrc, b: VSrc, exec: u32) {
    let (mut lo, mut hi) = ([0u32; LANES], [0u32; LANES]);
    {
        let (mut ba, mut bb, mut bc) = (Row::uninit(), Row::uninit(), Row::uninit());
        let (yl, yh) = row_pair(w, b, &mut bb, &mut bc);
        let mut shift = |l: usize, by: u32| {
            let v = (yl[l] as u64 | (yh[l] as u64) << 32) << (by & 63);
            lo[l] = v as u32;
            hi[l] = (v >> 32) as u32;
        };
        if let VSrc::Vgpr(_) = a {
            let x = row(w, a, &mut ba);
            for l in 0..LANES {
                shift(l, x[l]);
            }
        } else {
            // One shift count for every lane (a constant scaling an
            // index): a uniform shift vectorises, a per-lane one does not.
            let by = scalar(w, a);
            for l in 0..LANES {
                shift(l, by);
            }
        }
    }
    w.write_vgpr(dst as usize, &lo, exec);
    w.write_vgpr(dst as usize + 1, &hi, exec);
}

/// `Fast::Vcmp`.
#[inline(always)]
fn vcmp(w: &mut Wave, cond: u8, signed: bool, dst: u8, a: VSrc, b: VSrc, exec: u32) {
    let (mut ba, mut bb) = (Row::uninit(), Row::uninit());
    let m = {
        let (x, y) = (row(w, a, &mut ba), row(w, b, &mut bb));
        if signed {
            compare(x, y, cond, |v| v as i32)
        } else {
            compare(x, y, cond, |v| v)
        }
    };
    put_sgpr(w, dst, m & exec);
}

/// `Fast::FmaF32`.
#[inline(always)]
fn fma_f32(w: &mut Wave, dst: u8, a: VSrc, b: VSrc, c: VSrc, exec: u32) {
    let (mut ba, mut bb, mut bc) = (Row::uninit(), Row::uninit(), Row::uninit());
    let r = {
        // Bit casts (free; `array::map` was a call per row).
        let f = |x: &Lanes| bytemuck::cast::<Lanes, [f32; LANES]>(*x);
        let (x, y, z) = (row(w, a, &mut ba), row(w, b, &mut bb), row(w, c, &mut bc));
        bytemuck::cast(fma_lanes(&f(x), &f(y), &f(z)))
    };
    w.write_vgpr(dst as usize, &r, exec);
}

/// The lane mask of an integer compare; one loop per relation (1 less,
/// 2 equal, 3 less-or-equal, 4 greater, 5 not equal, 6 greater-or-equal).
#[inline(always)]
fn compare<T: Ord>(x: &Lanes, y: &Lanes, cond: u8, ext: impl Fn(u32) -> T) -> u32 {
    let hit = match cond {
        1 => map2(x, y, |p, q| (ext(p) < ext(q)) as u32),
        2 => map2(x, y, |p, q| (p == q) as u32),
        3 => map2(x, y, |p, q| (ext(p) <= ext(q)) as u32),
        4 => map2(x, y, |p, q| (ext(p) > ext(q)) as u32),
        5 => map2(x, y, |p, q| (p != q) as u32),
        _ => map2(x, y, |p, q| (ext(p) >= ext(q)) as u32),
    };
    pack_lanes(&hit)
}

/// x ± y ± carry-in per lane (`cin`: a lane mask, 0 for none) and the carry
/// or borrow out, with the slow path's own per-lane formulas.
#[inline(always)]
fn carry_rows(x: &Lanes, y: &Lanes, sub: bool, cin: u32) -> (Lanes, Lanes) {
    let (mut r, mut co) = ([0u32; LANES], [0u32; LANES]);
    // Two loops, not a function pointer, so each vectorises.
    if sub {
        for l in 0..LANES {
            (r[l], co[l]) = sub_borrow(x[l], y[l], (cin & LANE_BIT[l] != 0) as u32);
        }
    } else {
        for l in 0..LANES {
            (r[l], co[l]) = add_carry(x[l], y[l], (cin & LANE_BIT[l] != 0) as u32);
        }
    }
    (r, co)
}

#[cfg(test)]
pub(super) mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::gfx11::decode::decode;
    use crate::gfx11::exec::{Env, NoMemory, step};
    use crate::gfx11::opcodes::{OpInfo, SOP1, SOP2, SOPC, SOPK, SOPP, VOP1, VOP2, VOP3, VOPC};
    use crate::gfx11::wave::NUM_VGPRS;

    pub(crate) struct Rng(pub(crate) u64);
    impl Rng {
        pub(crate) fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 16) as u32
        }
        pub(crate) fn below(&mut self, n: u32) -> u32 {
            self.next() % n
        }
        /// A 32-bit value with a bias to edge cases (0, 1, sign bits, all ones, small shifts).
        pub(crate) fn value(&mut self) -> u32 {
            match self.below(9) {
                0 => [0, 1, 2, 31, 32, 0x7FFF_FFFF, 0x8000_0000, u32::MAX][self.below(8) as usize],
                1 => self.below(64),
                2 => self.next() | 0x8000_0000,
                // NaNs with payloads, quiet and signalling, as f32, as the high
                // word of an f64 and in f16 halves: float ops given two NaNs
                // must pick the same one on every path.
                3 => [
                    0x7FC0_1234,
                    0xFF80_0042,
                    0x7FF8_00A5,
                    0xFFF0_0007,
                    0x7E01_7C02,
                    0xFE33_FC44,
                ][self.below(6) as usize],
                _ => self.next(),
            }
        }
        /// A scalar source code: SGPR (incl. VCC, M0, EXEC), inline constant or literal (255).
        pub(crate) fn scalar_src(&mut self) -> u32 {
            match self.below(6) {
                0 => 128 + self.below(81),
                1 => 240 + self.below(9),
                2 => 255,
                3 => [106, 107, 124, 125, 126, 127][self.below(6) as usize],
                _ => self.below(106),
            }
        }
        /// A scalar destination code: mostly s0..s105, sometimes VCC, NULL, M0,
        /// EXEC or s127 (pairs reaching M0/EXEC or past 127).
        pub(crate) fn scalar_dst(&mut self) -> u32 {
            if self.below(4) == 0 {
                [106, 107, 124, 125, 126, 127][self.below(6) as usize]
            } else {
                self.below(106)
            }
        }
        /// A vector source code: mostly VGPRs, else a scalar source.
        pub(crate) fn vector_src(&mut self) -> u32 {
            if self.below(2) == 0 {
                256 + self.below(256)
            } else {
                self.scalar_src()
            }
        }
        pub(crate) fn wave(&mut self) -> Wave {
            let mut w = Wave::default();
            for s in w.sgpr.iter_mut() {
                *s = self.value();
            }
            w.sgpr[NULL] = 0;
            w.scc = self.below(2) == 1;
            for row in w.vgpr.iter_mut().take(NUM_VGPRS) {
                for v in row.iter_mut() {
                    *v = self.value();
                }
            }
            w
        }
        /// `w` as a wave64 wave: random high lanes, random EXEC/VCC high words.
        pub(crate) fn wave64(&mut self, w: &Wave) -> Wave {
            let mut w = w.clone();
            w.wave64 = true;
            for row in w.vgpr_hi.iter_mut() {
                for v in row.iter_mut() {
                    *v = self.value();
                }
            }
            w
        }
    }

    pub(crate) fn opcode_words(table: &[Option<OpInfo>]) -> impl Iterator<Item = (u32, Op)> + '_ {
        table
            .iter()
            .enumerate()
            .filter_map(|(n, info)| info.map(|i| (n as u32, i.op)))
    }

    /// Random encodings of every opcode of the families the fast path covers
    /// (operands random; VOP3 modifiers set now and then, which must fall back).
    fn random_encodings(rng: &mut Rng) -> Vec<[u32; 3]> {
        let mut out = Vec::new();
        let lit = |rng: &mut Rng| rng.value();
        for (n, _) in opcode_words(&SOP2) {
            let w = 0x8000_0000
                | n << 23
                | rng.scalar_dst() << 16
                | rng.scalar_src() << 8
                | rng.scalar_src();
            out.push([w, lit(rng), 0]);
        }
        for (n, _) in opcode_words(&SOP1) {
            let w = 0xBE80_0000 | rng.scalar_dst() << 16 | n << 8 | rng.scalar_src();
            out.push([w, lit(rng), 0]);
        }
        for (n, _) in opcode_words(&SOPK) {
            // simm16: small, negative or any.
            let simm = match rng.below(3) {
                0 => rng.below(64),
                1 => 0x1_0000 - 1 - rng.below(64),
                _ => rng.below(0x1_0000),
            };
            let w = 0xB000_0000 | n << 23 | rng.scalar_dst() << 16 | simm;
            out.push([w, lit(rng), 0]);
        }
        for (n, _) in opcode_words(&SOPC) {
            let w = 0xBF00_0000 | n << 16 | rng.scalar_src() << 8 | rng.scalar_src();
            out.push([w, lit(rng), 0]);
        }
        for (n, _) in opcode_words(&SOPP) {
            // Some SOPP ops only decode with simm16 = 0.
            for simm in [0, rng.below(0x1_0000)] {
                out.push([0xBF80_0000 | n << 16 | simm, 0, 0]);
            }
        }
        for (n, _) in opcode_words(&VOP1) {
            let w = 0x7E00_0000 | rng.below(256) << 17 | n << 9 | rng.vector_src();
            out.push([w, lit(rng), 0]);
        }
        for (n, _) in opcode_words(&VOP2) {
            let w = n << 25 | rng.below(256) << 17 | rng.below(256) << 9 | rng.vector_src();
            out.push([w, lit(rng), 0]);
        }
        for _ in 0..256 {
            // VOPD: random X and Y ops (16 and 32 slots; undefined ones fail to
            // decode), sources and destinations (vdstY's low bit is implied);
            // v_dual_mov_b32 needs its vsrc1 field 0, so that is 0 half the time.
            let vsrc1 = |rng: &mut Rng| rng.below(2) * rng.below(256);
            let (x1, y1) = (vsrc1(rng), vsrc1(rng));
            let w0 =
                0x32 << 26 | rng.below(16) << 22 | rng.below(32) << 17 | x1 << 9 | rng.vector_src();
            // Y reads X's destination now and then (both read before either writes).
            let dx = rng.below(256);
            let (y0, y1) = match rng.below(4) {
                0 => (256 + dx, y1),
                1 => (rng.vector_src(), dx),
                _ => (rng.vector_src(), y1),
            };
            let w1 = dx << 24 | rng.below(128) << 17 | y1 << 9 | y0;
            out.push([w0, w1, lit(rng)]);
        }
        for (n, _) in opcode_words(&VOPC) {
            let w = 0x7C00_0000 | n << 17 | rng.below(256) << 9 | rng.vector_src();
            out.push([w, lit(rng), 0]);
        }
        for (n, _) in opcode_words(&VOP3) {
            // Bits 14:8 are abs/op_sel/clamp, or VOP3SD's sdst: none, random, or VCC;
            // neg (bits 63:61) now and then. The low byte is vdst (an SGPR for compares).
            for high in [0, rng.below(0x80), 106] {
                let neg = if rng.below(8) == 0 {
                    rng.below(8) << 29
                } else {
                    0
                };
                let dst = if rng.below(3) == 0 {
                    106
                } else {
                    rng.below(256)
                };
                let w0 = 0xD400_0000 | n << 16 | high << 8 | dst;
                // Two-source ops only decode with src2 = 0.
                let src2 = if rng.below(2) == 0 {
                    0
                } else {
                    rng.vector_src()
                };
                // Now and then a source is the (scalar) destination itself, or
                // VCC, which wave64 must read as it was before the instruction.
                let mut src = || match rng.below(8) {
                    0 => dst,
                    1 => 106,
                    _ => rng.vector_src(),
                };
                let (s0, s1) = (src(), src());
                let w1 = neg | src2 << 18 | s1 << 9 | s0;
                out.push([w0, w1, lit(rng)]);
            }
        }
        out
    }

    /// An environment with no memory, LDS or scratch.
    pub(crate) fn no_env<'a>(lds: &'a mut [u8], scratch: &'a mut [u8]) -> Env<'a> {
        Env {
            mem: &NoMemory,
            lds,
            scratch,
            scratch_per_lane: 0,
            shared_base: 0,
            private_base: 0,
            spans: Default::default(),
        }
    }

    pub(in crate::gfx11::exec) fn compare(inst: &Inst, fast: &Fast, w0: &Wave, pc: u64) {
        let (mut lds, mut scratch) = ([0u8; 0], [0u8; 0]);
        let mut env = no_env(&mut lds, &mut scratch);
        let mut slow = w0.clone();
        slow.pc = pc;
        let want = step(&mut slow, &mut env, inst)
            .unwrap_or_else(|e| panic!("{}: the slow path fails ({e:?})", inst.mnemonic));
        let mut quick = w0.clone();
        quick.pc = pc;
        let got = run(&mut quick, &mut env, fast).expect("the fast form runs");
        let what = format!("{} {:08x?} as {fast:?}", inst.mnemonic, inst.raw());
        assert_eq!(got, want, "{what}: flow");
        assert_eq!(quick.scc, slow.scc, "{what}: SCC");
        assert_eq!(quick.sgpr, slow.sgpr, "{what}: SGPRs");
        for r in 0..NUM_VGPRS {
            assert_eq!(quick.vgpr[r], slow.vgpr[r], "{what}: v{r}");
        }
        for r in 0..quick.vgpr_hi.len() {
            assert_eq!(
                quick.vgpr_hi[r], slow.vgpr_hi[r],
                "{what}: v{r} lanes 32..63"
            );
        }
    }

    /// One encoding's checks: when it decodes and takes the fast path, the
    /// form against `step` on random registers under random, full and empty
    /// EXEC masks (wave32 and, where the form runs there, wave64), and what
    /// it covered.
    fn check_encoding(words: &[u32; 3], waves: u32, rng: &mut Rng, cov: &mut Coverage) {
        let Ok(inst) = decode(words) else { return };
        let pc = 0x1_0000 + 4 * rng.below(0x1000) as u64;
        let fast = compile(&inst, pc);
        if fast == Fast::Slow {
            return;
        }
        cov.wave32.insert(format!("{:?}", inst.op));
        if let Some(y) = inst.dual {
            cov.dual.insert(format!("{:?}+{:?}", inst.op, y.op));
        }
        let scalar = matches!(
            fast,
            Fast::Nop
                | Fast::Barrier
                | Fast::End
                | Fast::Branch { .. }
                | Fast::Salu { .. }
                | Fast::Scalar(_)
        );
        for _ in 0..waves {
            let mut w = rng.wave();
            for exec in [rng.value(), u32::MAX, 0] {
                w.sgpr[EXEC] = exec;
                compare(&inst, &fast, &w, pc);
                cov.checked += 1;
            }
            // Wave64: the forms that run there must match the slow path
            // (EXEC/VCC high words random, full or empty); the scalar
            // ones always run there.
            let mut w64 = rng.wave64(&w);
            for (lo, hi) in [(rng.value(), rng.value()), (u32::MAX, u32::MAX), (0, 0)] {
                (w64.sgpr[EXEC], w64.sgpr[EXEC + 1]) = (lo, hi);
                let (mut lds, mut scratch) = ([0u8; 0], [0u8; 0]);
                let mut env = no_env(&mut lds, &mut scratch);
                if run(&mut w64.clone(), &mut env, &fast).is_some() {
                    compare(&inst, &fast, &w64, pc);
                    cov.wave64.insert(format!("{:?}", inst.op));
                    cov.checked += 1;
                } else {
                    assert!(
                        !scalar,
                        "{}: a scalar form must run in wave64",
                        inst.mnemonic
                    );
                }
            }
        }
    }

    /// The ops (and VOPD pairs) that took the fast path, and how many compares ran.
    #[derive(Default)]
    struct Coverage {
        wave32: BTreeSet<String>,
        wave64: BTreeSet<String>,
        dual: BTreeSet<String>,
        checked: u32,
    }

    /// Every opcode of the families the fast path covers, with plain operands
    /// of each kind the forms accept (VGPRs, SGPRs, inline constants, a
    /// literal; no modifiers), so that every form is exercised whatever the
    /// random stream produces. Destinations: a VGPR / SGPR, and VCC (v106 for
    /// vector results).
    fn plain_encodings() -> Vec<[u32; 3]> {
        // Source codes: VGPR, SGPR, inline integers (7, 53, -5), inline float
        // (1.0), literal.
        const V: [u32; 3] = [256 + 10, 256 + 21, 256 + 32];
        const S: [u32; 3] = [4, 9, 14];
        const INT: u32 = 128 + 7;
        const INT2: u32 = 128 + 53;
        const NEG: u32 = 192 + 5;
        const FLT: u32 = 242;
        const LIT: u32 = 255;
        let lit = 0x4049_0FDB; // pi as f32; also a large integer
        let mut out = Vec::new();
        let scalar_kinds = [S[0], INT, LIT, 106];
        let vector_kinds = [V[0], S[0], INT, NEG, FLT, LIT, 106];
        for (n, _) in opcode_words(&SOP2) {
            for a in scalar_kinds {
                for b in [S[1], INT, LIT] {
                    for dst in [20, 106] {
                        out.push([0x8000_0000 | n << 23 | dst << 16 | b << 8 | a, lit, 0]);
                    }
                }
            }
        }
        for (n, _) in opcode_words(&SOP1) {
            for a in scalar_kinds {
                for dst in [20, 106] {
                    out.push([0xBE80_0000 | dst << 16 | n << 8 | a, lit, 0]);
                }
            }
        }
        for (n, _) in opcode_words(&SOPK) {
            for simm in [5, 0xFFF0] {
                out.push([0xB000_0000 | n << 23 | 20 << 16 | simm, lit, 0]);
            }
        }
        for (n, _) in opcode_words(&SOPC) {
            for a in scalar_kinds {
                for b in [S[1], INT, LIT] {
                    out.push([0xBF00_0000 | n << 16 | b << 8 | a, lit, 0]);
                }
            }
        }
        for (n, _) in opcode_words(&SOPP) {
            for simm in [0, 3, 0xFFFC] {
                out.push([0xBF80_0000 | n << 16 | simm, 0, 0]);
            }
        }
        for (n, _) in opcode_words(&VOP1) {
            for a in vector_kinds {
                out.push([0x7E00_0000 | 40 << 17 | n << 9 | a, lit, 0]);
            }
        }
        for (n, _) in opcode_words(&VOP2) {
            for a in vector_kinds {
                out.push([n << 25 | 40 << 17 | 21 << 9 | a, lit, 0]);
            }
        }
        for (n, _) in opcode_words(&VOPC) {
            for a in vector_kinds {
                out.push([0x7C00_0000 | n << 17 | 21 << 9 | a, lit, 0]);
            }
        }
        // VOP3 (and VOP3SD, whose bits 14:8 are the carry destination: s0 or
        // VCC). Two-source ops only decode with src2 = 0.
        let triples = [
            [V[0], V[1], V[2]],
            [S[0], V[1], S[2]],
            [V[0], S[1], V[2]],
            [S[0], S[1], S[2]],
            [INT, V[1], LIT],
            [LIT, INT, V[2]],
            [V[0], FLT, 106],
            [106, S[1], INT],
            [S[0], INT2, NEG],
            [NEG, V[1], INT2],
        ];
        for (n, _) in opcode_words(&VOP3) {
            for (k, [a, b, c]) in triples.into_iter().enumerate() {
                let dst = if k % 2 == 0 { 40 } else { 106 };
                for high in [0, 106] {
                    let w0 = 0xD400_0000 | n << 16 | high << 8 | dst;
                    for c in [c, 0] {
                        out.push([w0, c << 18 | b << 9 | a, lit]);
                    }
                }
            }
        }
        // VOPD: every X and Y op; vsrc1 0 (v_dual_mov_b32) or a VGPR, src0 a
        // VGPR or SGPR; vdstY's low bit is implied.
        for x in 0..16 {
            for y in 0..32 {
                for (x1, y1, x0, y0) in [(0, 0, V[0], S[0]), (21, 32, S[1], V[2])] {
                    let w0 = 0x32 << 26 | x << 22 | y << 17 | x1 << 9 | x0;
                    let w1 = 40 << 24 | 21 << 17 | y1 << 9 | y0;
                    out.push([w0, w1, lit]);
                }
            }
        }
        // The DS lane shuffles: ds_swizzle_b32 in bit-mask and quad-perm mode
        // (its source in the ADDR field), ds_permute_b32 and ds_bpermute_b32
        // with offsets that do and do not move the lane index; the
        // destination also overlapping a source.
        for (op, data) in [(0x35u32, 0), (0xB2, 21), (0xB3, 21)] {
            for offset in [0u32, 4, 0x41F, 0x7C00, 0x801B, 0xFFFF] {
                for dst in [40u32, 10] {
                    let w0 = 0x36 << 26 | op << 18 | offset;
                    out.push([w0, dst << 24 | data << 8 | 10, 0]);
                }
            }
        }
        out
    }

    /// Every instruction the fast path accepts computes exactly what `step`
    /// computes, on random registers under random, full and empty EXEC masks:
    /// every opcode with plain operands of each kind (so each form is covered
    /// whatever the seed), then random encodings (random operand kinds and
    /// modifiers, which must fall back or match).
    #[test]
    fn fast_forms_match_the_slow_path() {
        let mut cov = Coverage::default();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for words in plain_encodings() {
            check_encoding(&words, 3, &mut rng, &mut cov);
        }
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for _ in 0..24 {
            for words in random_encodings(&mut rng) {
                check_encoding(&words, 1, &mut rng, &mut cov);
            }
        }
        let Coverage {
            wave32: covered,
            wave64: covered64,
            dual: covered_dual,
            checked,
        } = cov;
        // The hot ops of the corpus must all have been exercised.
        for op in [
            "SDelayAlu",
            "SWaitcnt",
            "SBranch",
            "SCbranchExecz",
            "SCbranchScc1",
            "SEndpgm",
            "SBarrier",
            "SMovB32",
            "SAddU32",
            "SAddcU32",
            "SAndNot1B32",
            "SLshlB32",
            "SCmpLgU32",
            "SCmpLtI32",
            "SCselectB32",
            "SCtzI32B32",
            "VMovB32",
            "VAddNcU32",
            "VAddCoU32",
            "VAddCoCiU32",
            "VSubCoCiU32",
            "VMadU64U32",
            "VLshlrevB64",
            "VReadlaneB32",
            "VCndmaskB32",
            "VAdd3U32",
            "VMulLoU32",
            "VMulHiU32",
            "VMulHiI32",
            "VMadU32U24",
            "VXadU32",
            "VBfeU32",
            "VBfeI32",
            "VAlignbitB32",
            "VCvtF32U32",
            "VCvtU32F32",
            "VCmpGtU32",
            "VCmpxGtU32",
            "VCmpLtI32",
            "VLshlOrB32",
            "VFmacF32",
            "VFmaF32",
            "VFmaakF32",
            "VFmamkF32",
            "SMovB64",
            "SOrB64",
            "SAndB64",
            "SXorB64",
            "SAndNot1B64",
            "SCselectB64",
            "SLshlB64",
            "SLshrB64",
            "SCmpLgU64",
            "SOrSaveexecB32",
            "SAndSaveexecB32",
            "SXorSaveexecB32",
            "SOrSaveexecB64",
            "SAndNot1SaveexecB64",
            "SAndNot1WrexecB32",
            "SGetpcB64",
            "SSetpcB64",
            "SSwappcB64",
            "SCmpkGtU32",
            "SCmpkLtI32",
            "SMovkI32",
            "SAddkI32",
            "SWaitcntVscnt",
            "VWritelaneB32",
            "VReadfirstlaneB32",
            "DsSwizzleB32",
            "DsPermuteB32",
            "DsBpermuteB32",
            "VCmpLtU64",
            "VCmpGtU64",
            "VCmpEqU64",
            "VCmpNeU64",
            "VCmpLtI64",
            "VCmpxEqU64",
            "VLshrrevB64",
            "VAshrrevI64",
            "VMbcntLoU32B32",
            "VMbcntHiU32B32",
            "VFmaF64",
            "VMulF64",
            "VAddF64",
            "VRcpF64",
            "VRsqF64",
            "VLdexpF64",
            "VDivScaleF64",
            "VDivFmasF64",
            "VDivFixupF64",
            "VCvtF64F32",
            "VCvtF32F64",
            "VDivScaleF32",
            "VDivFmasF32",
            "VDivFixupF32",
            "VAddF32",
            "VSubF32",
            "VMulF32",
            "VMaxF32",
            "VMinF32",
            "VLdexpF32",
            "VRcpF32",
            "VRsqF32",
            "VSqrtF32",
            "VFrexpMantF32",
            "VFrexpExpI32F32",
            "VAddF16",
            "VMulF16",
            "VMaxF16",
            "VMinF16",
            "VFmacF16",
            "VPackB32F16",
            "VCmpGtF32",
            "VCmpLtF32",
            "VCmpNeqF32",
            "VCmpUF32",
            "VCmpxGtF32",
            "VCmpClassF32",
            "VCmpGtF64",
            "VCmpNgeF64",
            "VCmpxLtF64",
            "VCmpClassF64",
        ] {
            assert!(
                covered.contains(op),
                "{op} never took the fast path: {covered:?}"
            );
        }
        // And in wave64 (the scalar forms are the same code in both).
        for op in [
            "VMovB32",
            "VAndB32",
            "VLshrrevB32",
            "VCndmaskB32",
            "VCmpEqU32",
            "VCmpxEqU32",
            "VCmpGtU32",
            "VAddCoU32",
            "VAddCoCiU32",
            "VMadU64U32",
            "VLshlrevB64",
            "VReadlaneB32",
            "VWritelaneB32",
            "VReadfirstlaneB32",
            "VFmacF32",
            "VFmaF32",
            "VCmpLtU64",
            "VCmpxEqU64",
            "VLshrrevB64",
            "VMbcntLoU32B32",
            "VMbcntHiU32B32",
            "VFmaF64",
            "VMulF64",
            "VCvtF32F64",
            "VMulF32",
            "VLdexpF32",
            "VDivFixupF32",
            "VMaxF16",
            "VFmacF16",
            "VCmpGtF32",
            "VCmpxGtF32",
            "VCmpLtF64",
            "VCmpClassF64",
        ] {
            assert!(
                covered64.contains(op),
                "{op} never took the fast path in wave64: {covered64:?}"
            );
        }
        // VOPD pairs, by X and Y op.
        for pair in [
            "VMovB32+VMovB32",
            "VMovB32+VAddNcU32",
            "VCndmaskB32+VCndmaskB32",
            "VCndmaskB32+VAndB32",
            "VMovB32+VLshlrevB32",
            "VMovB32+VMulF32",
            "VAddF32+VSubF32",
            "VSubrevF32+VMaxF32",
            "VMinF32+VCndmaskB32",
        ] {
            assert!(
                covered_dual.contains(pair),
                "{pair} never took the fast path: {covered_dual:?}"
            );
        }
        assert!(checked > 2000, "only {checked} checks");
    }
}
