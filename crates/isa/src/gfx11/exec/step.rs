//! The slow path: one decoded instruction applied to one wave, dispatched
//! on its encoding family. Wave64 vector instructions run as two 32-lane
//! passes (valu/wave64.rs), DPP forms through their lane permutation
//! (valu/dpp.rs), GFX9's SDWA forms through their selects (valu/sdwa.rs),
//! all around the plain per-family step.

use super::env::{Env, ExecResult, illegal};
use super::{lds, salu, valu, vmem};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::wave::Wave;

/// Is this a vector instruction (one that runs per 32-lane half in wave64)?
#[inline]
fn is_vector(f: Family) -> bool {
    !matches!(
        f,
        Family::Sop1 | Family::Sop2 | Family::Sopk | Family::Sopc | Family::Sopp | Family::Smem
    )
}

/// Execute one instruction.
#[inline]
pub(crate) fn step(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    // GFX9 memory instructions with AGPR data run through a VGPR window.
    if i.acc != 0
        && matches!(
            i.family,
            Family::Ds
                | Family::Flat
                | Family::Global
                | Family::Scratch
                | Family::Mubuf
                | Family::Mtbuf
        )
    {
        return valu::agpr::memory(w, env, i, step);
    }
    // GFX9 matrix ops span the whole wave64 at once.
    if i.mai.is_some() {
        return valu::mfma::exec(w, i);
    }
    if w.wave64 && is_vector(i.family) {
        return valu::wave64::step(w, env, i, step_lanes);
    }
    step_lanes(w, env, i)
}

/// Execute the wave64 memory instruction `i` (valu/wave64.rs `halves`):
/// each 32-lane pass through `fast` when it runs it, else `step_lanes`.
#[inline(always)]
pub(crate) fn step_halves(
    w: &mut Wave,
    env: &mut Env,
    i: &Inst,
    fast: impl Fn(&mut Wave, &mut Env) -> bool,
) -> ExecResult {
    valu::wave64::halves(w, env, i, step_lanes, fast)
}

/// One 32-lane pass of [`step_halves`] (lanes 32..63 when `high`).
#[cfg(feature = "llvm-jit")]
#[inline(always)]
pub(crate) fn step_pass(
    w: &mut Wave,
    env: &mut Env,
    i: &Inst,
    high: bool,
    fast: impl Fn(&mut Wave, &mut Env) -> bool,
) -> ExecResult {
    valu::wave64::pass(w, env, i, high, step_lanes, fast)
}

/// Execute one instruction over the current 32 lanes.
#[inline]
pub(crate) fn step_lanes(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    if let Some(d) = &i.dpp {
        return valu::dpp::step_dpp(w, env, i, d, step_plain);
    }
    if let Some(s) = &i.sdwa {
        return valu::sdwa::step_sdwa(w, env, i, s, step_plain);
    }
    step_plain(w, env, i)
}

/// Execute one instruction without DPP over the current 32 lanes.
pub(crate) fn step_plain(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    match i.family {
        Family::Sop1 => salu::sop1(w, env, i),
        Family::Sop2 => salu::sop2(w, env, i),
        Family::Sopk => salu::sopk(w, i),
        Family::Sopc => salu::sopc(w, env, i),
        Family::Sopp => salu::sopp(w, i),
        Family::Smem => vmem::smem(w, env, i),
        Family::Vopc => valu::vcmp::vopc(w, env, i),
        Family::Vop1 | Family::Vop2 | Family::Vop3 | Family::Vop3sd | Family::Vop3p => {
            if i.family == Family::Vop3 && crate::gfx11::decode::is_vop3_compare(i) {
                valu::vcmp::vopc(w, env, i)
            } else {
                valu::valu(w, env, i)
            }
        }
        Family::Vopd => valu::vopd(w, env, i),
        Family::Ds => lds::ds(w, env, i),
        Family::Flat | Family::Global | Family::Scratch => vmem::flat(w, env, i),
        Family::Mubuf => vmem::mubuf::mubuf(w, env, i),
        Family::Mtbuf => vmem::mtbuf::mtbuf(w, env, i),
        Family::Mimg => vmem::image::mimg(w, env, i),
        // Graphics-only (interpolation, exports): not executed.
        Family::Ldsdir | Family::Vinterp | Family::Exp => Err(illegal(i)),
    }
}
