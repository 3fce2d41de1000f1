//! Running one decoded block on a wave in the interpreter: one entry of
//! the block ([`run_entry`]: its pre-resolved form, else `step` on its
//! instructions) and the per-entry loop over a whole block
//! ([`interpret_block`]), with what a block's run ends in ([`BlockExit`]).
//! The wave loop (dispatch.rs) runs blocks through these or through their
//! translation (jit/), whose call-outs run [`run_entry`] itself, so both
//! paths share one definition of each instruction.

use super::code_cache::{Block, Compiled};
use super::exec::{Env, Flow, fast, step};
use super::wave::Wave;
use crate::WaveErrorKind;

/// How a run of a block ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlockExit {
    /// Every entry flowed on: the block's tail decides what follows.
    Fell,
    /// Entry `entry` of the block's list did something other than flow on.
    Flow { entry: usize, flow: Flow },
}

/// A failed instruction: why, and how many instructions of the block ran,
/// the failed one included (the wave-instruction count). Boxed: a block's
/// result then fits in registers on the hot path, where a 56-byte one went
/// through memory at every block exit.
pub(crate) type EntryError = Box<(WaveErrorKind, u64)>;

/// Run one entry of `block`: its pre-resolved form, or `step` on the
/// instructions it covers (two for a fused pair, whose form did nothing if
/// it declined; a pair's first is a VALU op, which flows on to the next).
/// `w.pc` is set for each instruction that takes `step`; a pre-resolved
/// form that shows an observer its access is given its address.
#[inline(always)]
pub(crate) fn run_entry(
    w: &mut Wave,
    env: &mut Env,
    block: &Block,
    c: &Compiled,
) -> Result<Flow, EntryError> {
    if let Some(flow) = fast::run_at(w, env, &c.fast, || block.start + c.offset as u64) {
        return Ok(flow);
    }
    let mut pc = block.start + c.offset as u64;
    // A wave64 memory access runs each 32-lane pass through its form where
    // it can (the wave64 list has one instruction per entry).
    if w.wave64 && c.index == c.last {
        let n = c.index as usize;
        w.pc = pc;
        if let Some(done) = fast::run_wave64_memory(w, env, &c.fast, &block.insts[n]) {
            return done.map_err(|e| Box::new((e, n as u64 + 1)));
        }
    }
    let mut flow = Flow::Next;
    for n in c.index..=c.last {
        let inst = &block.insts[n as usize];
        w.pc = pc;
        flow = step(w, env, inst).map_err(|e| Box::new((e, n as u64 + 1)))?;
        pc += 4 * inst.len as u64;
    }
    Ok(flow)
}

/// [`interpret_block`] for the tests. Never inlined: the interpreter it
/// inlines is large, and a copy in each test that runs blocks lengthened
/// the test build by minutes.
#[cfg(test)]
#[inline(never)]
pub(crate) fn interpret_block_for_tests(
    w: &mut Wave,
    env: &mut Env,
    block: &Block,
    list: &[Compiled],
) -> Result<BlockExit, EntryError> {
    interpret_block(w, env, block, list)
}

/// Run the entries of `list` (the block's wave32 or wave64 list) in order
/// until one does not flow on.
#[inline(always)]
pub(crate) fn interpret_block(
    w: &mut Wave,
    env: &mut Env,
    block: &Block,
    list: &[Compiled],
) -> Result<BlockExit, EntryError> {
    for (entry, c) in list.iter().enumerate() {
        match run_entry(w, env, block, c)? {
            Flow::Next => {}
            flow => return Ok(BlockExit::Flow { entry, flow }),
        }
    }
    Ok(BlockExit::Fell)
}
