//! The pre-resolved form of an instruction ([`Fast`]) and how the code cache
//! compiles one ([`compile`]) or fuses two ([`fuse`]).

use crate::gfx11::exec::lds::{DsRows, DsShuffle};
use crate::gfx11::exec::lds_subword::DsSubword;
use crate::gfx11::exec::operand::{SSrc, VSrc, sdst, ssrc, vsrc, vsrc64};
use crate::gfx11::exec::salu::SOp;
use crate::gfx11::exec::salu::fast::Scalar;
use crate::gfx11::exec::valu::fast::{IntCompare, VOp, int_compare};
use crate::gfx11::exec::valu::fast_f32::Flt;
use crate::gfx11::exec::valu::fast_f64::F64;
use crate::gfx11::exec::valu::fast_fma32::Fma32;
use crate::gfx11::exec::valu::fast_lanes::Lane;
use crate::gfx11::exec::valu::fast_pair::AddPair;
use crate::gfx11::exec::valu::fast_vcmp::Fcmp;
use crate::gfx11::exec::valu::fast_vint::Vint;
use crate::gfx11::exec::valu::fast_vopd::Vopd;
use crate::gfx11::exec::vmem::Coalesced;
use crate::gfx11::exec::vmem::fast::GlobalAtomic;
use crate::gfx11::exec::vmem::fast_buffer_scratch::BufferScratch;
use crate::gfx11::exec::vmem::fast_scratch::Scratch;
use crate::gfx11::exec::{salu, valu};
use crate::gfx11::inst::{Family, Inst, Mods};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{NULL, VCC};

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
    Scalar(Scalar),
    /// v_writelane / v_readfirstlane, wave32 and wave64 (fast_lanes.rs).
    Lane(Lane),
    /// 64-bit integer compares and right shifts, v_mbcnt (fast_vint.rs).
    Vint(Vint),
    /// VOPD pairs of moves, integer ops and f32 arithmetic (fast_vopd.rs), wave32.
    Vopd(Vopd),
    /// f64 arithmetic, division helpers and conversions (fast_f64.rs).
    F64(F64),
    /// f32 and f16 arithmetic and math (fast_f32.rs).
    Flt(Flt),
    /// v_fma_f32 with abs/neg, the f32 division helpers (fast_fma32.rs).
    Fma32(Fma32),
    /// f32/f64 compares and v_cmp_class (fast_vcmp.rs).
    Fcmp(Fcmp),
    /// 32- or 16-bit integer compare to `dst` (VCC, an SGPR, or EXEC for
    /// v_cmpx), inactive lanes 0.
    Vcmp {
        cmp: IntCompare,
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
    /// (vmem/fast.rs), and `step` (the general path) otherwise.
    Coalesced(Coalesced),
    /// A FLAT/GLOBAL atomic (vmem/fast.rs), `step` when it declines.
    GlobalAtomic(GlobalAtomic),
    /// A SCRATCH dword load or store (fast_scratch.rs), wave32, `step`
    /// when it declines.
    Scratch(Scratch),
    /// A GFX9 MUBUF dword load or store through a private resource
    /// (fast_buffer_scratch.rs), per 32-lane pass, `step` when it declines.
    BufferScratch(BufferScratch),
    /// A DS dword load or store (lds.rs): the in-range path, `step` when
    /// a lane is out of range.
    Ds(DsRows),
    /// An 8- or 16-bit DS load or store (lds_subword.rs): the in-range
    /// path, `step` when a lane is out of range.
    DsSubword(DsSubword),
    /// ds_swizzle_b32 / ds_permute_b32 / ds_bpermute_b32 (wave64: per pass,
    /// `run_wave64_memory`).
    DsShuffle(DsShuffle),
    /// v_add_co_u32 and the v_add_co_ci_u32 that adds its carry, fused by the
    /// code cache (fast_pair.rs), wave32: one entry for two instructions.
    AddPair(AddPair),
}

/// The pre-resolved form of `i`, which sits at address `pc`.
pub(crate) fn compile(i: &Inst, pc: u64) -> Fast {
    // GFX9's SDWA forms run through step (valu/sdwa.rs), and so does
    // everything that names AGPRs or is a matrix op (valu/agpr.rs).
    if i.sdwa.is_some() || i.acc != 0 || i.mai.is_some() {
        return Fast::Slow;
    }
    compile_inner(i, pc)
        .or_else(|| compile_scalar(i, pc))
        .or_else(|| valu::fast_lanes::compile(i).map(Fast::Lane))
        .or_else(|| valu::fast_vint::compile(i).map(Fast::Vint))
        .or_else(|| valu::fast_vopd::compile(i).map(Fast::Vopd))
        .or_else(|| valu::fast_f64::compile(i).map(Fast::F64))
        .or_else(|| valu::fast_f32::compile(i).map(Fast::Flt))
        .or_else(|| valu::fast_fma32::compile(i).map(Fast::Fma32))
        .or_else(|| valu::fast_vcmp::compile(i).map(Fast::Fcmp))
        .unwrap_or(Fast::Slow)
}

/// The scalar forms [`compile_inner`] leaves: the SOPK waits (no-ops), then
/// salu/fast.rs's.
fn compile_scalar(i: &Inst, pc: u64) -> Option<Fast> {
    if i.family == Family::Sopk
        && i.dpp.is_none()
        && i.mods == Mods::default()
        && salu::sopk_is_nop(i.op)
    {
        return Some(Fast::Nop);
    }
    salu::fast::compile(i, pc).map(Fast::Scalar)
}

/// The fused form of `first` followed by `second` (valu/fast_pair.rs), when
/// they are a carry pair that fuses exactly.
pub(crate) fn fuse(first: &Fast, second: &Fast) -> Option<Fast> {
    // Addition is commutative (and its carry symmetric), so `rev` does not matter.
    let Fast::AddCo {
        sub: false,
        dst: lo,
        sdst: mid,
        a,
        b,
        ..
    } = *first
    else {
        return None;
    };
    let Fast::AddCoCi {
        sub: false,
        dst: hi,
        sdst,
        a: c,
        b: d,
        cin,
        ..
    } = *second
    else {
        return None;
    };
    valu::fast_pair::fuse((lo, mid, a, b), (hi, sdst, c, d), cin).map(Fast::AddPair)
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
                op if salu::sopp_is_nop(op) => Some(Fast::Nop),
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
        Family::Ds => DsRows::of(i)
            .map(Fast::Ds)
            .or_else(|| DsShuffle::of(i).map(Fast::DsShuffle))
            .or_else(|| DsSubword::of(i).map(Fast::DsSubword)),
        Family::Scratch => Scratch::of_inst(i).map(Fast::Scratch),
        Family::Mubuf => BufferScratch::of_inst(i).map(Fast::BufferScratch),
        Family::Global | Family::Flat => Coalesced::of_inst(i)
            .map(Fast::Coalesced)
            .or_else(|| GlobalAtomic::of_inst(i).map(Fast::GlobalAtomic)),
        Family::Sop1 => {
            let op = SOp::of(i.op).filter(|op| matches!(op, SOp::Mov | SOp::Ctz))?;
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
            let op = SOp::of(i.op)?;
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
                // GFX9's VOP2 v_add_co/v_sub_co/v_subrev_co_u32 write their
                // carry to VCC (AMD CDNA3 ISA guide, "VOP2": "VCC = carry
                // out"), as the slow path does for any form but Vop3sd.
                VAddCoU32 | VSubCoU32 | VSubrevCoU32 if i.family == Family::Vop2 => {
                    return Some(Fast::AddCo {
                        sub: i.op != VAddCoU32,
                        rev: i.op == VSubrevCoU32,
                        dst,
                        sdst: VCC as u8,
                        a: v(0)?,
                        b: v(1)?,
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

/// 32- and 16-bit integer compares (VOPC and their VOP3 forms); a 16-bit
/// one with op_sel (a high half) takes the slow path.
fn compile_vcmp(i: &Inst) -> Option<Fast> {
    let (cond, signed, dst, bits16) = match int_compare(i, "i32", "u32") {
        Some((cond, signed, dst)) => (cond, signed, dst, false),
        None if i.mods.opsel == 0 => {
            let (cond, signed, dst) = int_compare(i, "i16", "u16")?;
            (cond, signed, dst, true)
        }
        None => return None,
    };
    Some(Fast::Vcmp {
        cmp: IntCompare {
            cond,
            signed,
            bits16,
        },
        dst,
        a: vsrc(i.src[0].src)?,
        b: vsrc(i.src[1].src)?,
    })
}
