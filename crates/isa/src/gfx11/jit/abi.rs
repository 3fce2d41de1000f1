//! The runtime interface between the wave loop and translated code: the
//! [`Frame`] a translated block works on, its exit codes, and the
//! call-outs through which it runs entries it does not inline.

use std::mem::offset_of;
use std::sync::Arc;

use crate::WaveLoop;
use crate::gfx11::code_cache::{Block, Compiled};
use crate::gfx11::exec::fast::Fast;
use crate::gfx11::exec::fast::run_wave64_memory_pass;
use crate::gfx11::exec::vmem::slot_base_of;
use crate::gfx11::exec::{Env, Flow};
use crate::gfx11::round::Round;
use crate::gfx11::run_block::{BlockExit, EntryError, run_entry};
use crate::gfx11::wave::{Wave, WaveStatus};
use crate::span_cache::{Entry, NO_SPANS};

/// A translated block: runs from the block's first entry on `frame`'s wave
/// and returns an exit code (`EXIT_*` in the low bits, the entry above).
pub(crate) type BlockFn = unsafe extern "C" fn(frame: *mut Frame) -> u32;

/// A block that only computes, for two wave32 waves at once (llvm/emit/pair.rs):
/// returns [`PAIR_NAN`] having undone its last pass, else which wave took
/// the block's branch ([`PAIR_TAKEN_A`], [`PAIR_TAKEN_B`]); the frames'
/// `loops` count the passes round a self-loop.
pub(crate) type PairFn = unsafe extern "C" fn(a: *mut Frame, b: *mut Frame) -> u32;

/// A call-out: runs entry `entry` of the frame's block in the interpreter
/// (with [`CALLOUT_PASS`]: one 32-lane pass of a wave64 access, the high
/// one with [`CALLOUT_HIGH`]); returns 0 when it flows on, else 1 with the
/// outcome in the frame.
pub(crate) type Callout = unsafe extern "C" fn(frame: *mut Frame, entry: u32) -> u32;

/// Every entry flowed on.
pub(crate) const EXIT_FELL: u32 = 0;
/// The entry, a branch form, was taken (its target is in the form).
pub(crate) const EXIT_JUMP: u32 = 1;
/// A call-out did not flow on (the frame's outcome says how).
pub(crate) const EXIT_STOP: u32 = 2;
/// The entry is s_endpgm.
pub(crate) const EXIT_END: u32 = 3;
/// The entry is s_barrier.
pub(crate) const EXIT_BARRIER: u32 = 4;
/// The entry, s_setpc_b64 or s_swappc_b64, jumped to the frame's
/// `jump_to`.
pub(crate) const EXIT_PC: u32 = 5;
/// Bits of the exit code below the entry index.
pub(crate) const EXIT_SHIFT: u32 = 3;
/// A region's exit code (llvm/emit/region.rs): the member block it left
/// from, in the bits from here up (the entry index lies below them).
pub(crate) const EXIT_MEMBER_SHIFT: u32 = 24;
/// A call-out's entry argument in a region: the member block whose entry
/// it runs, in the bits from here up to [`CALLOUT_HIGH`].
pub(crate) const CALLOUT_MEMBER_SHIFT: u32 = 20;
/// The most blocks a region holds (its member index fits the exit code's
/// and the call-out argument's bits).
pub(crate) const REGION_MAX_MEMBERS: usize = 64;

/// A pair translation's code (llvm/emit/pair.rs): an f32 result of its
/// last pass was a NaN, and both waves stand at that pass's start.
pub(crate) const PAIR_NAN: u32 = 1;
/// Bits of a pair translation's other codes: the first (second) wave took
/// the block's branch; without, it fell through.
pub(crate) const PAIR_TAKEN_A: u32 = 2;
pub(crate) const PAIR_TAKEN_B: u32 = 4;

/// A call-out's entry argument bit: run one pass of the wave64 memory
/// access (exec/fast/mod.rs `run_wave64_memory_pass`), not the whole entry.
pub(crate) const CALLOUT_PASS: u32 = 1 << 31;
/// With [`CALLOUT_PASS`]: the high pass (lanes 32..63).
pub(crate) const CALLOUT_HIGH: u32 = 1 << 30;

/// What a translated block reads: the wave's register files and the
/// workgroup's LDS (reloaded after every call-out, which refreshes them) and
/// the call-out with its arguments. `repr(C)`: translated code reads the
/// fields at the `FRAME_*` offsets.
#[repr(C)]
pub(crate) struct Frame {
    /// `Wave::sgpr` (128 slots by operand code).
    sgpr: *mut u32,
    /// `Wave::vgpr`, rows of 32 lanes.
    vgpr: *mut u32,
    /// `Wave::vgpr_hi`: a wave64 wave's lanes 32..63, rows as `vgpr`'s.
    vgpr_hi: *mut u32,
    /// `Wave::scc` (a byte, 0 or 1).
    scc: *mut bool,
    callout: Callout,
    wave: *mut Wave,
    /// The environment, its lifetime erased: valid for the translated call.
    env: *mut Env<'static>,
    block: *const Block,
    /// A region's member blocks, its head first (null for one block):
    /// call-outs of member `m > 0` run that block's entries.
    members: *const Arc<Block>,
    /// The member a region's call starts at (0: the head; every member
    /// is an entry, llvm/emit/region.rs).
    entry: u32,
    /// Instructions of the member blocks a region ran to an edge it
    /// followed itself (to another member): the wave loop counts them.
    passed: u64,
    /// A call-out's outcome when it did not flow on.
    outcome: Option<Result<Flow, EntryError>>,
    /// The target of an [`EXIT_PC`] exit.
    jump_to: u64,
    /// Taken branches back to the block's start the translated code may
    /// follow itself (a block that loops on itself), or in a region between
    /// its members, and how many it did.
    loop_budget: u32,
    loops: u32,
    /// The workgroup's LDS (`Env::lds`).
    lds: *mut u8,
    /// Its length in bytes for inline DS accesses; 0 when every DS access
    /// must go through the interpreter (a dispatch that counts LDS bank
    /// conflicts or has an observer), so that none passes the inline
    /// bounds check.
    lds_len: u64,
    /// The workgroup's span cache slots (span_cache.rs `inline_view`), or
    /// slots that hold nothing when every memory access must go through
    /// the interpreter (a workgroup with an observer).
    spans: *const Entry,
    /// The span cache's tally counters.
    tally: *const u64,
    /// `Env::shared_base` and `Env::private_base`: FLAT's LDS and private
    /// apertures (0: none).
    apertures: [u64; 2],
    /// The wave's slot in the workgroup's scratch (exec/vmem/mod.rs
    /// `slot_base`) and its lanes' private bytes (`Env::scratch_per_lane`)
    /// for inline SCRATCH accesses; null and 0 when the buffer does not
    /// hold the slot, so that none passes the inline bounds check.
    scratch: *mut u8,
    /// A wave64 wave's slot of lanes 32..63 (null, as `scratch` then is,
    /// when the buffer does not hold the whole wave); the per-lane bytes
    /// are the same.
    scratch_hi: *mut u8,
    scratch_per_lane: u64,
    /// Instructions the call-outs ran (a failed one included); the
    /// translated code does not touch it.
    called_out: u64,
    /// What a region's code calls at a barrier whose next block is one of
    /// its members ([`switch_wave`]); the workgroup's waves it may go on
    /// with (null: none, the code leaves at every barrier), and how many
    /// members the region has.
    switch: SwitchFn,
    round: *mut Round,
    member_count: usize,
}

/// A region's barrier hook ([`switch_wave`]): the member to go on at with
/// the frame's new wave, or [`NO_SWITCH`].
pub(crate) type SwitchFn = unsafe extern "C" fn(frame: *mut Frame, code: u32) -> i32;

/// [`switch_wave`]'s answer when the wave leaves the region at its barrier.
pub(crate) const NO_SWITCH: i32 = -1;

pub(crate) const FRAME_SGPR: i32 = offset_of!(Frame, sgpr) as i32;
pub(crate) const FRAME_VGPR: i32 = offset_of!(Frame, vgpr) as i32;
pub(crate) const FRAME_VGPR_HI: i32 = offset_of!(Frame, vgpr_hi) as i32;
pub(crate) const FRAME_SCC: i32 = offset_of!(Frame, scc) as i32;
pub(crate) const FRAME_CALLOUT: i32 = offset_of!(Frame, callout) as i32;
pub(crate) const FRAME_LOOP_BUDGET: i32 = offset_of!(Frame, loop_budget) as i32;
pub(crate) const FRAME_LOOPS: i32 = offset_of!(Frame, loops) as i32;
pub(crate) const FRAME_PASSED: i32 = offset_of!(Frame, passed) as i32;
pub(crate) const FRAME_JUMP_TO: i32 = offset_of!(Frame, jump_to) as i32;
pub(crate) const FRAME_ENTRY: i32 = offset_of!(Frame, entry) as i32;
pub(crate) const FRAME_LDS: i32 = offset_of!(Frame, lds) as i32;
pub(crate) const FRAME_LDS_LEN: i32 = offset_of!(Frame, lds_len) as i32;
pub(crate) const FRAME_SPANS: i32 = offset_of!(Frame, spans) as i32;
pub(crate) const FRAME_TALLY: i32 = offset_of!(Frame, tally) as i32;
pub(crate) const FRAME_APERTURES: i32 = offset_of!(Frame, apertures) as i32;
pub(crate) const FRAME_SCRATCH: i32 = offset_of!(Frame, scratch) as i32;
pub(crate) const FRAME_SCRATCH_HI: i32 = offset_of!(Frame, scratch_hi) as i32;
pub(crate) const FRAME_SCRATCH_PER_LANE: i32 = offset_of!(Frame, scratch_per_lane) as i32;
pub(crate) const FRAME_SWITCH: i32 = offset_of!(Frame, switch) as i32;

/// Run block `block` through its translation `func` for waves of `w`'s
/// size (`w.wave64`), whose call-outs go through `callout`. A block whose
/// last entry branches back to its start runs again inside the translation
/// up to `loop_budget` times; the second result says how often it did (each
/// such pass ran the whole block and took the branch). `called_out` grows
/// by the instructions the translation ran through its call-outs.
///
/// # Safety
/// `func` must be the translation of `block` for waves of `w`'s size (so
/// its entry indices, register numbers and halves fit), and its machine
/// code must stay alive for the call.
// Inline: its result (an exit and a loop count) then stays in host
// registers; returned through memory, its reload stalled on the stores
// that wrote it (store forwarding fails on the wider load), about a
// third of a one-invocation workgroup's time.
#[inline(always)]
pub(crate) unsafe fn run_translated(
    func: BlockFn,
    callout: Callout,
    w: &mut Wave,
    env: &mut Env,
    block: &Block,
    loop_budget: u32,
    called_out: &mut u64,
) -> (Result<BlockExit, EntryError>, u32) {
    let mut frame = frame(callout, w, env, block, loop_budget);
    // SAFETY: the caller guarantees `func` translates `block` and is alive;
    // the frame points at this wave (one VGPR file of 256 rows per 32
    // lanes), which nothing else touches during the call.
    let code = unsafe { func(&mut frame) };
    *called_out += frame.called_out;
    let list = block.list(w.wave64);
    (exit(code, list, &mut frame), frame.loops)
}

/// How a region's translation (llvm/emit/region.rs) left its wave.
pub(crate) struct RegionExit {
    /// The exit, as of member block `member`'s list.
    pub exit: Result<BlockExit, EntryError>,
    /// The member the wave left from (0: the head).
    pub member: usize,
    /// Instructions of the members the wave ran through to an edge the
    /// region followed itself.
    pub passed: u64,
    /// Taken branches the region followed itself.
    pub jumps: u32,
}

/// Run the region `members` (its head first) through its translation
/// `func` from member `entry`, at whose start `w` stands; its call-outs go
/// through `callout` and it follows at most `jump_budget` taken branches
/// between its members itself. `called_out` grows by the instructions its
/// call-outs ran. With a `round` (not null), a barrier whose next block is
/// a member goes on with the round's next wave ([`switch_wave`]): the exit
/// is then of wave `round.current`, and the instructions of the waves it
/// left at barriers are in `passed`.
///
/// # Safety
/// `func` must be the translation of the region `members` for waves of
/// `w`'s size, `entry` one of their indices, and the code alive for the
/// call. A `round` is valid for the call, its waves are the workgroup's
/// (all of `w`'s size, in `env`'s workgroup), `w` is its wave `current`
/// and nothing else touches the others during the call.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn run_region(
    func: BlockFn,
    callout: Callout,
    w: &mut Wave,
    env: &mut Env,
    members: &[Arc<Block>],
    entry: usize,
    jump_budget: u32,
    called_out: &mut u64,
    round: *mut Round,
) -> RegionExit {
    debug_assert!(entry < members.len());
    let mut frame = frame(callout, w, env, &members[0], jump_budget);
    frame.members = members.as_ptr();
    frame.member_count = members.len();
    frame.entry = entry as u32;
    frame.round = round;
    // SAFETY: the caller guarantees `func` translates the region and is
    // alive; the frame points at this wave and at `members`, which
    // nothing else touches during the call.
    let code = unsafe { func(&mut frame) };
    *called_out += frame.called_out;
    let member = exit_member(code);
    let list = members[member].list(w.wave64);
    RegionExit {
        exit: exit(code, list, &mut frame),
        member,
        passed: frame.passed,
        jumps: frame.loops,
    }
}

/// A region's code at a barrier (exit `code`) whose next block is one of
/// its members: go on with the next wave of the frame's round that the
/// wave loop would run now, if it stands at the start of a member, and
/// give that member; else [`NO_SWITCH`] (the code leaves with `code`).
///
/// Same order as the wave loop: the waves of a round run in index order,
/// each to its barrier or end (dispatch.rs `run_workgroup_waves`), so the
/// next one is the first later wave still running. At the last wave of a
/// round, when every other wave waits at the barrier or has ended, the
/// hook releases the barrier as the wave loop would (every waiting wave
/// runs again) and goes on with the first wave of the next round, which
/// may be the frame's own: the wave loop then resumes its rounds after
/// the wave the code leaves with. A wave that runs a block that only
/// computes on its own first (`SyncAlone`) leaves it to the wave loop too;
/// a wave stopped before such a block (`AtSync`) is passed over, as the
/// wave loop does, and keeps the barrier for the wave loop to release.
/// Why: the corpus's reductions, scans and sorts run a few instructions
/// per wave between barriers, and the way back through the wave loop to
/// the next wave (its block lookup, tiers, frame and exit) cost about as
/// much as those instructions; with the release here a workgroup of few
/// waves goes round its barrier loop in one call.
///
/// # Safety
/// `frame` is the frame [`run_region`] passed to the region's code, which
/// touches nothing of it during this call, with the registers it holds
/// stored.
unsafe extern "C" fn switch_wave(frame: *mut Frame, code: u32) -> i32 {
    // SAFETY: per the contract, the frame and what it points at are live.
    let f = unsafe { &mut *frame };
    if f.round.is_null() {
        return NO_SWITCH;
    }
    // SAFETY: run_region's contract: the round is valid for the call.
    let round = unsafe { &mut *f.round };
    // SAFETY: the region's members, passed with the frame, outlive the call.
    let members = unsafe { std::slice::from_raw_parts(f.members, f.member_count) };
    let mut next = None;
    for j in round.current + 1..round.len {
        // SAFETY: `j` is a wave of the round other than the current one,
        // which nothing else touches during the call.
        match unsafe { &(*round.waves.add(j)).status } {
            WaveStatus::AtBarrier | WaveStatus::Ended | WaveStatus::AtSync => {}
            WaveStatus::Running => {
                next = Some(j);
                break;
            }
            WaveStatus::SyncAlone => return NO_SWITCH,
        }
    }
    // SAFETY: the frame's wave is the round's current one.
    let w = unsafe { &mut *f.wave };
    let block = &members[exit_member(code)];
    // The round's waves are all of the frame's wave's size.
    let c = &block.list(w.wave64)[exit_entry(code)];
    // Where the frame's wave waits: after its s_barrier, at a member.
    let after = block.start + c.offset as u64 + c.len as u64;
    let (j, release) = match next {
        Some(j) => (j, false),
        None => match first_after_release(round) {
            Some(j) => (j, true),
            None => return NO_SWITCH,
        },
    };
    let at = if j == round.current {
        members.iter().position(|m| m.start == after)
    } else {
        // SAFETY: as above.
        let to = unsafe { &*round.waves.add(j) };
        members.iter().position(|m| m.start == to.pc)
    };
    let Some(at) = at else {
        return NO_SWITCH;
    };
    // The wave loop's barrier exit, done here: the wave waits after its
    // s_barrier, its member's instructions up to it counted.
    w.pc = after;
    w.status = WaveStatus::AtBarrier;
    f.passed += u64::from(c.last) + 1;
    if release {
        // The wave loop's release (dispatch.rs `run_workgroup_waves`); an
        // observed dispatch, which sees releases, runs no translated code.
        for k in (0..round.len).filter(|&k| k != round.current) {
            // SAFETY: as above: a wave of the round other than the current one.
            let other = unsafe { &mut *round.waves.add(k) };
            if other.status == WaveStatus::AtBarrier {
                other.status = WaveStatus::Running;
            }
        }
        w.status = WaveStatus::Running;
        round.releases += 1;
    }
    round.current = j;
    round.switches += 1;
    // SAFETY: as above: wave `j` of the round, the frame's own or one
    // nothing else touches during the call.
    let to = unsafe { &mut *round.waves.add(j) };
    let env = f.env;
    // SAFETY: the environment is the workgroup's, live for the call.
    f.set_wave(to, unsafe { &mut *env });
    at as i32
}

/// The wave the round goes on with once the barrier the current wave
/// reached is released, if the hook may release it: every other wave of
/// the round waits at it or has ended (none running, none stopped before
/// a block the wave loop runs for two waves). That is the first wave
/// waiting, or the current one.
fn first_after_release(round: &Round) -> Option<usize> {
    let mut first = None;
    for k in 0..round.len {
        if k == round.current {
            first = first.or(Some(k));
            continue;
        }
        // SAFETY: `k` is a wave of the round other than the current one,
        // which nothing else touches during the call.
        match unsafe { &(*round.waves.add(k)).status } {
            WaveStatus::Ended => {}
            WaveStatus::AtBarrier => first = first.or(Some(k)),
            WaveStatus::Running | WaveStatus::SyncAlone | WaveStatus::AtSync => return None,
        }
    }
    first
}

/// The frame of a translated call on wave `w` in block `block`.
#[inline(always)]
fn frame(callout: Callout, w: &mut Wave, env: &mut Env, block: &Block, loop_budget: u32) -> Frame {
    let null = std::ptr::null_mut::<u8>();
    let inline_lds = env.lds_bank_conflicts.is_none() && env.observer.is_none();
    let lds_len = if inline_lds { env.lds.len() as u64 } else { 0 };
    let (spans, tally) = inline_spans(env);
    let mut f = Frame {
        sgpr: null.cast(),
        vgpr: null.cast(),
        vgpr_hi: null.cast(),
        scc: null.cast(),
        callout,
        wave: null.cast(),
        lds: env.lds.as_mut_ptr(),
        lds_len,
        spans,
        tally,
        apertures: [env.shared_base, env.private_base],
        scratch: null,
        scratch_hi: null,
        scratch_per_lane: 0,
        env: (env as *mut Env).cast::<Env<'static>>(),
        block,
        members: std::ptr::null(),
        entry: 0,
        passed: 0,
        outcome: None,
        jump_to: 0,
        loop_budget,
        loops: 0,
        called_out: 0,
        switch: switch_wave,
        round: std::ptr::null_mut(),
        member_count: 0,
    };
    f.set_wave(w, env);
    f
}

impl Frame {
    /// Point the frame at wave `w` of `env`'s workgroup: its registers and
    /// its scratch slots.
    #[inline(always)]
    fn set_wave(&mut self, w: &mut Wave, env: &mut Env) {
        let (scratch, scratch_hi) = scratch_slots(env, w);
        self.scratch_per_lane = if scratch.is_null() {
            0
        } else {
            env.scratch_per_lane as u64
        };
        (self.scratch, self.scratch_hi) = (scratch, scratch_hi);
        let wave: *mut Wave = w;
        // SAFETY: `wave` comes from a live `&mut Wave`; the field pointers are
        // derived from it and used only while the translated call runs.
        unsafe {
            self.sgpr = (*wave).sgpr.as_mut_ptr();
            self.vgpr = (*wave).vgpr.as_mut_ptr().cast::<u32>();
            self.vgpr_hi = (*wave).vgpr_hi.as_mut_ptr().cast::<u32>();
            self.scc = &raw mut (*wave).scc;
        }
        self.wave = wave;
    }
}

/// How a pair translation left its two waves ([`run_pair`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PairExit {
    /// False where an f32 result of its last pass was a NaN: both waves
    /// stand at the start of that pass, for the one-wave paths, which
    /// apply the NaN rule.
    pub ran: bool,
    /// Whether each wave took the block's branch at its last pass (else it
    /// fell through); meaningless where it did not run.
    pub taken: [bool; 2],
    /// Each wave's passes round a self-loop that went back to its start
    /// inside the call (each ran the whole block).
    pub loops: [u32; 2],
}

/// Run block `block` (`Block::sync`) through its pair translation `func`
/// for wave32 waves `a` and `b`, which are both at its start; a self-loop
/// goes round at most `loop_budget` times inside the call.
///
/// # Safety
/// `func` must be the pair translation of `block`, and its machine code
/// must stay alive for the call; both waves are wave32.
#[inline(always)]
pub(crate) unsafe fn run_pair(
    func: PairFn,
    callout: Callout,
    a: &mut Wave,
    b: &mut Wave,
    env: &mut Env,
    block: &Block,
    loop_budget: u32,
) -> PairExit {
    let mut fa = frame(callout, a, env, block, loop_budget);
    let mut fb = frame(callout, b, env, block, loop_budget);
    // SAFETY: the caller guarantees `func` translates `block` for two
    // wave32 waves and is alive; each frame points at its own wave, which
    // nothing else touches during the call, and the code calls out to
    // neither (a pair translation has only inline entries).
    let code = unsafe { func(&mut fa, &mut fb) };
    PairExit {
        ran: code != PAIR_NAN,
        taken: [code & PAIR_TAKEN_A != 0, code & PAIR_TAKEN_B != 0],
        loops: [fa.loops, fb.loops],
    }
}

/// The wave's scratch slots for inline SCRATCH accesses (exec/vmem/mod.rs
/// `slot_base`): its lanes 0..31 and, for wave64, 32..63. Both null where
/// the buffer does not hold every slot of the wave (the per-lane bytes are
/// then 0 too, so no inline access goes ahead in either half).
#[inline(always)]
fn scratch_slots(env: &mut Env, w: &Wave) -> (*mut u8, *mut u8) {
    let null = std::ptr::null_mut();
    let lo = slot_base_of(env, w.scratch_slot_of(0));
    if !w.wave64 {
        return (lo.unwrap_or(null), null);
    }
    match (lo, slot_base_of(env, w.scratch_slot_of(1))) {
        (Some(lo), Some(hi)) => (lo, hi),
        _ => (null, null),
    }
}

/// The span cache slots and tally a translated block translates through:
/// the workgroup's, or no slots when an observer must see every access
/// (the interpreter's fast forms decline then too: exec/fast/mod.rs `run`).
#[inline(always)]
fn inline_spans(env: &Env) -> (*const Entry, *const u64) {
    let (slots, tally) = env.spans.inline_view();
    if env.observer.is_some() {
        (NO_SPANS.slots(), tally)
    } else {
        (slots, tally)
    }
}

/// The member block a region's exit code `code` leaves from (0 for one
/// block's translation).
#[inline(always)]
fn exit_member(code: u32) -> usize {
    (code >> EXIT_MEMBER_SHIFT) as usize
}

/// The entry of its member's list an exit code `code` names.
#[inline(always)]
fn exit_entry(code: u32) -> usize {
    ((code & ((1 << EXIT_MEMBER_SHIFT) - 1)) >> EXIT_SHIFT) as usize
}

/// What exit code `code` of a translation of the block whose list is
/// `list` means.
#[inline(always)]
fn exit(code: u32, list: &[Compiled], frame: &mut Frame) -> Result<BlockExit, EntryError> {
    let entry = exit_entry(code);
    let flow = match code & ((1 << EXIT_SHIFT) - 1) {
        EXIT_FELL => return Ok(BlockExit::Fell),
        EXIT_JUMP => match list[entry].fast {
            Fast::Branch { target, .. } => Flow::Jump(target),
            ref other => panic!("translated block exits by a jump at {other:?}"),
        },
        EXIT_PC => Flow::Jump(frame.jump_to),
        EXIT_END => Flow::End,
        EXIT_BARRIER => Flow::Barrier,
        _ => match frame.outcome.take() {
            Some(outcome) => outcome?,
            None => panic!("translated block stopped at entry {entry} without an outcome"),
        },
    };
    Ok(BlockExit::Flow { entry, flow })
}

/// The body of every call-out: [`run_entry`] on the frame's wave.
///
/// # Safety
/// `frame` is the frame [`run_translated`] passed to the translated block
/// and `entry` an index into its block's list for the wave's size.
#[inline(always)]
unsafe fn callout_body(frame: *mut Frame, entry: u32) -> u32 {
    // SAFETY: per the contract, the frame and what it points at are live
    // and the translated code touches none of it during this call.
    let f = unsafe { &mut *frame };
    // SAFETY: as above; the wave, environment and block are distinct objects.
    let (w, env, head) = unsafe { (&mut *f.wave, &mut *f.env, &*f.block) };
    let member = ((entry & (CALLOUT_HIGH - 1)) >> CALLOUT_MEMBER_SHIFT) as usize;
    let block = if member == 0 {
        head
    } else {
        // SAFETY: a region's code names only its members, which
        // `run_region` passed with the frame and which outlive the call.
        unsafe { &**f.members.add(member) }
    };
    let index = (entry & ((1 << CALLOUT_MEMBER_SHIFT) - 1)) as usize;
    let c = &block.list(w.wave64)[index];
    let r = if entry & CALLOUT_PASS == 0 {
        run_entry(w, env, block, c)
    } else {
        // One pass of a wave64 access (one instruction per entry there).
        let n = c.index as usize;
        w.pc = block.start + c.offset as u64;
        let high = entry & CALLOUT_HIGH != 0;
        run_wave64_memory_pass(w, env, &c.fast, &block.insts[n], high)
            .map_err(|e| Box::new((e, n as u64 + 1)))
    };
    // A failure's count is of the block's instructions, the failed one
    // included; a wave64 access run pass by pass counts at its high pass.
    f.called_out += match &r {
        Ok(_) if entry & (CALLOUT_PASS | CALLOUT_HIGH) == CALLOUT_PASS => 0,
        Ok(_) => u64::from(c.last - c.index) + 1,
        Err(failed) => failed.1 - u64::from(c.index),
    };
    f.set_wave(w, env);
    f.lds = env.lds.as_mut_ptr();
    (f.spans, f.tally) = inline_spans(env);
    match r {
        Ok(Flow::Next) => 0,
        other => {
            f.outcome = Some(other);
            1
        }
    }
}

/// The call-out compiled for the baseline level.
///
/// # Safety
/// As [`callout_body`].
unsafe extern "C" fn callout_baseline(frame: *mut Frame, entry: u32) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { callout_body(frame, entry) }
}

/// The call-out compiled for AVX2 and FMA, as the wave loop's AVX2 copy.
///
/// # Safety
/// As [`callout_body`], on a CPU with AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe extern "C" fn callout_avx2(frame: *mut Frame, entry: u32) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { callout_body(frame, entry) }
}

/// The call-out for wave-loop level `level` (AVX-512 takes the AVX2 copy).
pub(crate) fn callout(level: WaveLoop) -> Callout {
    match level {
        #[cfg(target_arch = "x86_64")]
        WaveLoop::Avx2 | WaveLoop::Avx512 => callout_avx2,
        _ => callout_baseline,
    }
}
