//! Pre-resolved single-lane forms: v_writelane_b32 and
//! v_readfirstlane_b32, in wave32 and wave64 (-O0 code spills SGPRs to VGPR
//! lanes with v_writelane, millions of times over the corpus).
//!
//! The slow paths are valu/mod.rs (wave32: lane index modulo 32, EXEC = exec_lo)
//! and wave64.rs (lane index modulo 64, lanes 32..63 in `vgpr_hi`, the whole
//! exec pair for readfirstlane); these restate them on resolved operands.

use crate::gfx11::exec::operand::{SSrc, VSrc, sdst, sread, ssrc, vsrc};
use crate::gfx11::inst::{Family, Inst, Mods};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{EXEC, LANES, Wave};

/// One pre-resolved single-lane form (a [`Fast::Lane`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lane {
    /// v_writelane_b32: lane `lane` of VGPR `dst` = `val`, whatever EXEC is.
    Write { dst: u8, val: SSrc, lane: SSrc },
    /// v_readfirstlane_b32: SGPR `dst` = `a` in the lowest active lane (lane 0
    /// when none is active).
    ReadFirst { dst: u8, a: VSrc },
}

pub(crate) fn compile(i: &Inst) -> Option<Lane> {
    if i.dpp.is_some() || i.mods != Mods::default() {
        return None;
    }
    if !matches!(i.family, Family::Vop1 | Family::Vop3) {
        return None;
    }
    let lane = match i.op {
        Op::VWritelaneB32 => Lane::Write {
            dst: u8::try_from(i.dst).ok()?,
            val: ssrc(i.src[0].src)?,
            lane: ssrc(i.src[1].src)?,
        },
        Op::VReadfirstlaneB32 => Lane::ReadFirst {
            dst: sdst(i.dst)?,
            a: vsrc(i.src[0].src)?,
        },
        _ => return None,
    };
    Some(lane)
}

/// Run a single-lane form (wave32 or wave64).
#[inline(always)]
pub(crate) fn run(w: &mut Wave, l: &Lane) {
    match *l {
        Lane::Write { dst, val, lane } => {
            let (v, lane) = (sread(w, val), sread(w, lane) as usize);
            if w.wave64 {
                w.set_lane(dst as usize, lane & 63, v);
            } else {
                w.vgpr[dst as usize][lane & (LANES - 1)] = v;
            }
        }
        Lane::ReadFirst { dst, a } => {
            let exec = if w.wave64 {
                w.sgpr64(EXEC)
            } else {
                w.sgpr[EXEC] as u64
            };
            let lane = if exec == 0 {
                0
            } else {
                exec.trailing_zeros() as usize
            };
            let v = match a {
                VSrc::Vgpr(r) if lane < LANES => w.vgpr[r as usize][lane],
                VSrc::Vgpr(r) => w.vgpr_hi[r as usize][lane - LANES],
                VSrc::Sgpr(r) => w.sgpr[r as usize & 127],
                VSrc::Imm(v) => v,
            };
            w.set_sgpr(dst as usize, v);
        }
    }
}
