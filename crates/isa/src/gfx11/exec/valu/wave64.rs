//! Wave64 execution of vector instructions, as RDNA3 runs them: two 32-lane
//! passes. The low pass sees lanes 0..31 with exec_lo/vcc_lo; for the high
//! pass the wave's VGPR files are swapped (lanes 32..63 come to the front)
//! and `Wave::half` = 1 makes EXEC, VCC and lane-mask operands address the
//! high words. Per-lane semantics therefore need no wave64 code at all; only
//! the instructions that cross the two halves are handled here: readlane,
//! readfirstlane and writelane (lane index 0..63) and v_permlane64.
//!
//! ds_bpermute/ds_permute stay inside each 32-lane half (lane index = address
//! bits [6:2], modulo 32), as on RDNA hardware: Mesa's ACO compiler emulates a
//! full wave64 bpermute on gfx10+ with a half swap and two bpermutes for
//! exactly this reason, and AMD's LLPC lowers a wave64 subgroupShuffle on
//! gfx11 to v_permlane64_b32 plus two ds_bpermute_b32 (test:
//! isa_exec wave64_bpermute_and_permute_stay_in_each_half). DPP rows and
//! permlane(x)16 are per half as well. GFX9 (CDNA) code is different: its
//! permutes span the whole wave64 (`Inst::PERMUTE_WAVE64`, lds.rs).

use crate::WaveErrorKind;
use crate::gfx11::exec::env::{Env, ExecResult, Flow, sread};
use crate::gfx11::exec::valu::src32;
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, Wave};

/// Run `f` with lanes 32..63 in front (the high pass), restoring the wave
/// after. The AGPR files are swapped too only for an instruction that
/// names AGPRs (`agprs`): swapping the two `Vec` headers costs a store-
/// forwarding stall per swap on the host, and no other instruction reads them.
#[inline]
pub(crate) fn high_pass<T>(w: &mut Wave, agprs: bool, f: impl FnOnce(&mut Wave) -> T) -> T {
    std::mem::swap(&mut w.vgpr, &mut w.vgpr_hi);
    if agprs {
        std::mem::swap(&mut w.agpr, &mut w.agpr_hi);
    }
    w.half = 1;
    let r = f(w);
    w.half = 0;
    std::mem::swap(&mut w.vgpr, &mut w.vgpr_hi);
    if agprs {
        std::mem::swap(&mut w.agpr, &mut w.agpr_hi);
    }
    r
}

/// Does `i` read or write AGPRs (GFX9: an AGPR operand, or a matrix op)?
#[inline(always)]
fn names_agprs(i: &Inst) -> bool {
    i.acc != 0 || i.mai.is_some()
}

/// Execute one vector instruction for all 64 lanes; `lanes` executes one
/// over the current 32 (step.rs's `step_lanes`).
pub(crate) fn step(
    w: &mut Wave,
    env: &mut Env,
    i: &Inst,
    lanes: impl Fn(&mut Wave, &mut Env, &Inst) -> ExecResult,
) -> ExecResult {
    use Op::*;
    match i.op {
        VReadfirstlaneB32 | VReadlaneB32 => {
            let exec = w.exec_mask();
            let lane = if i.op == VReadlaneB32 {
                sread(w, env, i, 1)? as usize & 63
            } else if exec == 0 {
                0
            } else {
                exec.trailing_zeros() as usize
            };
            let v = lane_value(w, env, i, lane)?;
            w.set_sgpr(i.dst as usize, v);
            Ok(Flow::Next)
        }
        // Lane l takes lane l ^ 32 of src0 (the two halves swap), under EXEC.
        VPermlane64B32 => {
            let (lo, hi) = (
                src32(w, env, i, 0)?,
                high_pass(w, names_agprs(i), |w| src32(w, env, i, 0))?,
            );
            let (exec_lo, exec_hi) = (w.exec(), high_pass(w, false, |w| w.exec()));
            w.write_vgpr(i.dst as usize, &hi, exec_lo);
            high_pass(w, false, |w| w.write_vgpr(i.dst as usize, &lo, exec_hi));
            Ok(Flow::Next)
        }
        VWritelaneB32 => {
            let val = sread(w, env, i, 0)?;
            let lane = sread(w, env, i, 1)? as usize & 63;
            w.set_lane(i.dst as usize, lane, val);
            Ok(Flow::Next)
        }
        _ if writes_lane_mask(i) => {
            // The high pass must read scalar sources as they were before the
            // instruction (e.g. v_cmp_gt_u32_e64 s[2:3], v1, s2 reads s2 and writes
            // s[2:3]): run it on the original SGPRs and merge the two passes' writes,
            // which land in disjoint words (a mask's low and high word).
            let before = w.sgpr;
            lanes(w, env, i)?;
            let low = w.sgpr;
            w.sgpr = before;
            high_pass(w, names_agprs(i), |w| lanes(w, env, i))?;
            // A select per word (no branch) so the merge vectorises.
            for k in 0..w.sgpr.len() {
                let high = w.sgpr[k];
                w.sgpr[k] = if high == before[k] { low[k] } else { high };
            }
            Ok(Flow::Next)
        }
        _ => {
            lanes(w, env, i)?;
            high_pass(w, names_agprs(i), |w| lanes(w, env, i))
        }
    }
}

/// Run `i` as [`step`] runs a vector instruction that writes no lane mask
/// and does not cross the halves (a FLAT/GLOBAL or DS access): the low pass,
/// then the high pass, each through `fast` (true: it ran that pass) or, when
/// `fast` declines having done nothing, through `lanes`. Each pass is then
/// `lanes`' own, so the two runs agree pass by pass: a fault in the low pass
/// ends the instruction before the high pass in both.
#[inline(always)]
pub(crate) fn halves(
    w: &mut Wave,
    env: &mut Env,
    i: &Inst,
    lanes: impl Fn(&mut Wave, &mut Env, &Inst) -> ExecResult,
    fast: impl Fn(&mut Wave, &mut Env) -> bool,
) -> ExecResult {
    pass(w, env, i, false, &lanes, &fast)?;
    pass(w, env, i, true, lanes, fast)
}

/// One pass of [`halves`]: lanes 0..31, or 32..63 when `high` (the
/// translator runs a wave64 access pass by pass: jit/llvm/wave64.rs).
#[inline(always)]
pub(crate) fn pass(
    w: &mut Wave,
    env: &mut Env,
    i: &Inst,
    high: bool,
    lanes: impl Fn(&mut Wave, &mut Env, &Inst) -> ExecResult,
    fast: impl Fn(&mut Wave, &mut Env) -> bool,
) -> ExecResult {
    let mut run = |w: &mut Wave| {
        if fast(w, env) {
            Ok(Flow::Next)
        } else {
            lanes(w, env, i)
        }
    };
    if high {
        high_pass(w, names_agprs(i), run)
    } else {
        run(w)
    }
}

/// Does this vector instruction write a lane mask to SGPRs (compares, carries,
/// v_div_scale, v_mad_*64 — VOPC, VOP3 compares, VOP3SD, VOP2 carry forms)?
fn writes_lane_mask(i: &Inst) -> bool {
    match i.family {
        Family::Vopc | Family::Vop3sd => true,
        Family::Vop3 => crate::gfx11::decode::is_vop3_compare(i),
        // GFX9's VOP2 v_add_co_u32 family writes VCC too.
        Family::Vop2 => matches!(
            i.op,
            Op::VAddCoCiU32
                | Op::VSubCoCiU32
                | Op::VSubrevCoCiU32
                | Op::VAddCoU32
                | Op::VSubCoU32
                | Op::VSubrevCoU32
        ),
        _ => false,
    }
}

/// Source 0 of `i` in lane `lane` (0..63).
fn lane_value(w: &mut Wave, env: &Env, i: &Inst, lane: usize) -> Result<u32, WaveErrorKind> {
    if lane < LANES {
        Ok(src32(w, env, i, 0)?[lane])
    } else {
        Ok(high_pass(w, names_agprs(i), |w| src32(w, env, i, 0))?[lane - LANES])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn high_pass_swaps_files_and_restores() {
        let mut w = Wave {
            wave64: true,
            vgpr_hi: Box::new([[7; LANES]; crate::gfx11::wave::NUM_VGPRS]),
            ..Wave::default()
        };
        w.sgpr[crate::gfx11::wave::EXEC] = 1;
        w.sgpr[crate::gfx11::wave::EXEC + 1] = 2;
        let (e, v) = high_pass(&mut w, true, |w| (w.exec(), w.vgpr[3][0]));
        assert_eq!((e, v), (2, 7));
        assert_eq!((w.half, w.exec(), w.vgpr[3][0]), (0, 1, 0));
    }
}
