//! The fast path: pre-resolved forms of the hottest instructions, for
//! interpreter speed.
//!
//! When the code cache decodes a block it also compiles each instruction into
//! a compact [`Fast`] form (`form.rs`): a no-op, a branch with its absolute
//! target, or an operation whose operands are already reduced to "SGPR n",
//! "VGPR n" or "this 32-bit constant". The wave loop runs those in place on
//! the register file through [`run`] (no family dispatch, no big opcode match,
//! no 128-byte rows returned through `Result`); everything else (modifiers,
//! DPP, SCC/aperture sources, every op without a form) is `Fast::Slow` and
//! goes through `step`.
//!
//! This module only dispatches: each form's body lives with its family's
//! slow path (salu/fast.rs, valu/fast*.rs, vmem/fast*.rs, lds.rs) and uses
//! that family's lane helpers, so a form cannot drift from `step`.
//! `lanes.rs` runs the vector forms on 32 lanes, `wave64.rs` as two passes;
//! a wave64 FLAT/GLOBAL/SCRATCH, private MUBUF or DS form runs per pass with `step`'s pass as the
//! fallback ([`run_wave64_memory`]).
//!
//! Fidelity by construction: [`compile`] only accepts an instruction whose
//! slow path is the same computation (same `Op`, no modifiers, operand kinds
//! the slow path reads the same way). The tests (`tests.rs` and each form's
//! file) run every fast form against `step` on random registers and EXEC
//! masks.

mod form;
mod lanes;
#[cfg(test)]
pub(crate) mod tests;
pub(crate) mod wave64;

pub(crate) use form::{Cond, Fast, compile, fuse};

use super::env::{Env, ExecResult, Flow};
use super::lds::DsRows;
use super::step_halves;
use super::vmem::{coalesced, s_load_at};
use super::{lds, lds_banks, lds_subword, salu, valu, vmem};
use crate::gfx11::exec::operand::sread;
use crate::gfx11::inst::Inst;
use crate::gfx11::wave::{EXEC, Wave};

/// [`run_at`] of the instruction at `w.pc`, for the tests (the wave loop
/// gives the address, which the pre-resolved forms do not set in `w.pc`).
#[cfg(test)]
pub(crate) fn run(w: &mut Wave, env: &mut Env, f: &Fast) -> Option<Flow> {
    let pc = w.pc;
    run_with_pc(w, env, f, pc)
}

/// [`run_at`] with the instruction at `pc`, for the tests. Never inlined:
/// `run_at` inlines every form, and a copy in each of the dozen tests
/// that run forms doubled the test build's time.
#[cfg(test)]
#[inline(never)]
pub(crate) fn run_with_pc(w: &mut Wave, env: &mut Env, f: &Fast, pc: u64) -> Option<Flow> {
    run_at(w, env, f, move || pc)
}

/// Run a pre-resolved instruction. None: it is `Slow`, or a vector form with
/// no wave64 run (fast/wave64.rs) in a wave64 wave; the caller runs
/// [`run_wave64_memory`] or `step` instead.
/// `pc()` is the instruction's address, which only the forms of an observed
/// dispatch that show the observer their accesses ask for: an unobserved
/// run never computes it.
#[inline(always)]
pub(crate) fn run_at(
    w: &mut Wave,
    env: &mut Env,
    f: &Fast,
    pc: impl FnOnce() -> u64,
) -> Option<Flow> {
    match *f {
        Fast::Slow => None,
        // An observed dispatch's scalar loads take the slow path, which
        // shows the observer their address (observer.rs).
        Fast::SLoad { .. } if env.observer.is_some() => None,
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
            salu::fast::salu(w, op, dst, sread(w, a), sread(w, b));
            Some(Flow::Next)
        }
        Fast::Scalar(ref s) => Some(salu::fast::run(w, s)),
        Fast::Lane(ref l) => {
            valu::fast_lanes::run(w, l);
            Some(Flow::Next)
        }
        // The hot wave32 vector forms, one arm each calling that form's body
        // directly: a vector instruction costs one dispatch on the tag
        // instead of three (the tag, wave64, then `valu`'s own match). The
        // rarer and bigger forms (Vint, Vopd, F64, Flt, Fma32) share the last arm.
        // An observed dispatch's SCRATCH dword accesses (scratch-heavy
        // kernels' spills and private arrays) stay pre-resolved and show the
        // observer their lane addresses themselves (fast_scratch.rs); its
        // other memory instructions take the slow path, which shows them
        // (observer.rs).
        Fast::Scratch(ref s) if env.observer.is_some() => {
            (!w.wave64 && vmem::fast_scratch::run_observed(w, env, s, pc())).then_some(Flow::Next)
        }
        Fast::Coalesced(_)
        | Fast::GlobalAtomic(_)
        | Fast::Ds(_)
        | Fast::DsSubword(_)
        | Fast::BufferScratch(_)
            if env.observer.is_some() =>
        {
            None
        }
        Fast::Coalesced(c) if !w.wave64 => {
            (coalesced(w, env, &c) || vmem::fast::spanned(w, env, &c)).then_some(Flow::Next)
        }
        Fast::Valu { op, dst, a, b, c } if !w.wave64 => {
            valu::fast::vop(w, op, dst, a, b, c, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::FmaF32 { dst, a, b, c } if !w.wave64 => {
            valu::fast::fma_f32(w, dst, a, b, c, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::AddPair(ref p) if !w.wave64 => {
            valu::fast_pair::run(w, p, w.sgpr[EXEC]);
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
            valu::fast::add_co(w, sub, rev, dst, sdst, a, b, 0, w.sgpr[EXEC]);
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
            valu::fast::add_co(w, sub, rev, dst, sdst, a, b, sread(w, cin), w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::MadU64 { dst, sdst, a, b, c } if !w.wave64 => {
            valu::fast::mad_u64(w, dst, sdst, a, b, c, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::LshlrevB64 { dst, a, b } if !w.wave64 => {
            valu::fast::lshlrev_b64(w, dst, a, b, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::Vcmp { cmp, dst, a, b } if !w.wave64 => {
            valu::fast::vcmp(w, cmp, dst, a, b, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::Cndmask { dst, a, b, mask } if !w.wave64 => {
            valu::fast::cndmask(w, dst, a, b, mask, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        Fast::Scratch(ref s) if !w.wave64 => {
            vmem::fast_scratch::run(w, env, s).then_some(Flow::Next)
        }
        Fast::BufferScratch(ref b) if !w.wave64 => {
            vmem::fast_buffer_scratch::run(w, env, b).then_some(Flow::Next)
        }
        _ if w.wave64 => wave64::run(w, f),
        Fast::GlobalAtomic(a) => vmem::fast::atomic(w, env, &a).then_some(Flow::Next),
        Fast::Ds(d) => ds(w, env, &d, w.sgpr[EXEC]).then_some(Flow::Next),
        Fast::DsSubword(d) => {
            lds_subword::ds_subword_in_range(w, env.lds, &d, w.sgpr[EXEC]).then_some(Flow::Next)
        }
        Fast::DsShuffle(d) => {
            lds::ds_shuffle(w, &d, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
        // The other vector forms in wave32.
        _ => {
            lanes::valu(w, f, w.sgpr[EXEC]);
            Some(Flow::Next)
        }
    }
}

/// A DS dword access `d` on the current 32 lanes under `exec`: true when
/// it ran in range, false (nothing done, nothing counted) otherwise.
#[inline(always)]
fn ds(w: &mut Wave, env: &mut Env, d: &DsRows, exec: u32) -> bool {
    // Counted before the access (a load may overwrite its address row),
    // kept only when it ran here: otherwise `lds::ds` runs and counts it.
    let conflicts = env
        .lds_bank_conflicts
        .map(|_| lds_banks::conflict_cycles(&w.vgpr[d.addr as usize], exec, d));
    let ran = lds::ds_in_range(w, env.lds, d, exec);
    if ran && let (Some(total), Some(c)) = (&mut env.lds_bank_conflicts, conflicts) {
        *total += c;
    }
    ran
}

/// The memory forms on the current 32 lanes of a wave64 wave (`w.half`
/// and `w.exec()` say which): true when done, false when the form declines
/// having done nothing. Each is the wave32 form's body, which reads EXEC
/// through `w.exec()` as `step`'s pass does.
#[inline(always)]
fn memory_half(w: &mut Wave, env: &mut Env, f: &Fast) -> bool {
    match *f {
        Fast::Coalesced(c) => coalesced(w, env, &c) || vmem::fast::spanned(w, env, &c),
        Fast::GlobalAtomic(a) => vmem::fast::atomic(w, env, &a),
        Fast::Scratch(ref s) => vmem::fast_scratch::run_half(w, env, s),
        Fast::BufferScratch(ref b) => vmem::fast_buffer_scratch::run(w, env, b),
        Fast::Ds(d) => ds(w, env, &d, w.exec()),
        Fast::DsSubword(d) => lds_subword::ds_subword_in_range(w, env.lds, &d, w.exec()),
        Fast::DsShuffle(d) => {
            lds::ds_shuffle(w, &d, w.exec());
            true
        }
        _ => false,
    }
}

/// One pass of [`run_wave64_memory`] of the global, DS or scratch access
/// `i` (form `f`): lanes 0..31, or 32..63
/// when `high`. The translator runs each pass inline and calls this for a
/// pass its inline code leaves to the interpreter.
#[cfg(feature = "llvm-jit")]
pub(crate) fn run_wave64_memory_pass(
    w: &mut Wave,
    env: &mut Env,
    f: &Fast,
    i: &Inst,
    high: bool,
) -> ExecResult {
    super::step::step_pass(w, env, i, high, |w, env| memory_half(w, env, f))
}

/// Run the FLAT/GLOBAL/SCRATCH, GFX9 private MUBUF or DS instruction `i`, whose form is `f`, in a
/// wave64 wave: its two 32-lane passes as `step` runs them, each through
/// the form when it takes that pass and `step`'s pass otherwise
/// (`step_halves`). None where `f` has no such run (another form, or an
/// observed dispatch, whose memory accesses `step` shows the observer).
#[inline(always)]
pub(crate) fn run_wave64_memory(
    w: &mut Wave,
    env: &mut Env,
    f: &Fast,
    i: &Inst,
) -> Option<ExecResult> {
    let memory = matches!(
        f,
        Fast::Coalesced(_)
            | Fast::GlobalAtomic(_)
            | Fast::Scratch(_)
            | Fast::BufferScratch(_)
            | Fast::Ds(_)
            | Fast::DsSubword(_)
            | Fast::DsShuffle(_)
    );
    if !w.wave64 || !memory || env.observer.is_some() {
        return None;
    }
    Some(step_halves(w, env, i, |w, env| memory_half(w, env, f)))
}
