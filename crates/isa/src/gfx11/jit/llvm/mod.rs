//! The LLVM back end of the translator: a block's wave32 list (or its
//! wave64 list, each vector entry once per 32-lane half: `wave64.rs`)
//! becomes an LLVM IR function over 32-lane vectors (`emit.rs`, `lanes.rs`,
//! `math.rs`, the DS accesses in `lds.rs`, the global atomics in `atomic.rs`, raw MUBUF loads and stores in `buffer.rs`, the single-lane forms in
//! `single_lane.rs`, the lane shuffles in `shuffle.rs`, DPP in `dpp.rs`), which libLLVM-19, opened at run
//! time (aqueduct-llvm), compiles to an object for the host CPU and links
//! into the process (`compile.rs`, with an on-disk cache of objects). The
//! function has the Cranelift back end's ABI (`abi.rs`: `BlockFn` over a
//! `Frame`, the same exit codes, call-outs through the frame's function
//! pointer), so the object needs no symbol of this binary. Compiles run
//! off the wave loop's path, on one background thread (`queue.rs`); the
//! wave loop interprets the block until its library is loaded.
//!
//! Why: Cranelift's x86-64 back end has 128-bit vectors only, so a 32-lane
//! op is eight host ops; LLVM's `<32 x i32>` is two zmm (AVX-512) or four
//! ymm (AVX2) ops, and its optimiser works across the whole block. No
//! build-time cost: nothing of LLVM is linked.
//!
//! What bounds the speed: a translation runs one wave per call. (1) In
//! straight-line float code the wave's lanes are two zmm registers' worth
//! of independent work, so each dependent step waits on the host's
//! latency, not its throughput: the transcendental loop of `cargo bench
//! --bench compute` (about 45 dependent f32 steps per iteration) runs no
//! faster with a third fewer host instructions, while the same arithmetic
//! written for the host runs about 1.9x as fast with two 32-lane chains
//! interleaved and 3x with four. So a block that only computes (no memory
//! access; a branch only at its end: `Block::sync`) also gets a two-wave
//! form (`emit/pair.rs`), a self-loop going round inside it for both: the
//! wave loop stops each wave at such a block and runs two waves at the same
//! one in one call (dispatch.rs `run_sync_blocks`). The transcendental loop
//! (unrolled straight-line code) and the loop of sqrt_exp_loop (`cargo
//! bench --bench gfxsim -- --sqrt-exp-only`) take about 15-20% less time.
//! (2) Every block entry
//! goes through the wave loop (tiers, frame, exit code, counts, the next
//! block's lookup), and many corpus kernels (the reductions, scans and
//! sorts) run blocks of 3 to 8 instructions between barriers, where that
//! path costs about twice the translated code itself (`perf` on `cargo
//! bench --bench corpus -- --only reduce_f32_tree`). So a hot wave32 block
//! heads a region: it and the decoded blocks it reaches, one function
//! whose edges between them are branches inside it (`emit/region.rs`,
//! jit/region.rs); the corpus's scans, reductions and sorts run 1.3 to 1.5
//! times as fast with them.

mod atomic;
mod buffer;
mod cache_bound;
mod compile;
mod divide;
mod dpp;
pub(super) mod emit;
mod float64;
mod footprint;
mod global;
mod lanes;
mod lds;
mod lds_subword;
mod math;
mod perf_map;
pub(super) mod queue;
mod scalar64;
mod scratch;
mod shuffle;
mod single_lane;
mod slow_valu;
mod sopk;
pub(super) mod sqrt_correction;
mod warm_up;
mod wave64;
mod wide;

use std::sync::Arc;

pub(crate) use compile::available;
#[cfg(test)]
pub(crate) use compile::compile_for_cpu;
pub(crate) use queue::submit;

use super::abi::{BlockFn, PairFn};
use super::translation::{Owner, Translation};
use crate::gfx11::code_cache::Block;
use crate::gfx11::jit::target::JitTarget;

/// Why the LLVM back end could not translate a block.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum LlvmError {
    /// libLLVM-19 is not usable here, or failed on the module.
    #[error(transparent)]
    Llvm(#[from] aqueduct_llvm::LlvmError),
    /// The compile in a child process failed, ran past its limit or
    /// ended the child (compile.rs).
    #[error(transparent)]
    Isolated(#[from] aqueduct_llvm::IsolatedError),
    /// An earlier compile of this very module ran past its limit or ended
    /// its child; `module` keeps the IR.
    #[error("libLLVM-19 failed on this module before ({})", module.display())]
    FailedBefore { module: std::path::PathBuf },
}

/// A module's IR: the intrinsics' declarations, then one function per
/// block (`b0`, `b1`, ...) over its list for waves of that size
/// (`wave64`), and `bK.pair` for each wave32 block that has the two-wave
/// form (emit/pair.rs), for `target`'s CPU; returns the text, each block's
/// inline count and whether it has a pair function.
pub(crate) fn module(
    blocks: &[&Block],
    wave64: bool,
    target: JitTarget,
) -> (String, Vec<usize>, Vec<bool>) {
    let mut ir = String::from(emit::DECLARATIONS);
    ir.push_str(global::DECLARATIONS);
    ir.push_str(lds::DECLARATIONS);
    ir.push_str(scratch::DECLARATIONS);
    ir.push_str(slow_valu::DECLARATIONS);
    ir.push('\n');
    let inlined = blocks
        .iter()
        .enumerate()
        .map(|(k, b)| emit::emit_block(&mut ir, &format!("b{k}"), b, wave64, target))
        .collect();
    let pairs = blocks
        .iter()
        .enumerate()
        .map(|(k, b)| !wave64 && emit::emit_pair(&mut ir, &format!("b{k}"), b, target))
        .collect();
    (ir, inlined, pairs)
}

/// The module of region `members` (head first, their lists for waves of
/// that size, `wave64`; jit/region.rs) as function `b0` for `target`'s
/// CPU, and how many of its entries run inline.
pub(crate) fn region_module(
    members: &[&Block],
    wave64: bool,
    target: JitTarget,
) -> (String, usize) {
    let mut ir = String::from(emit::DECLARATIONS);
    ir.push_str(global::DECLARATIONS);
    ir.push_str(lds::DECLARATIONS);
    ir.push_str(scratch::DECLARATIONS);
    ir.push_str(slow_valu::DECLARATIONS);
    ir.push('\n');
    let inlined = emit::emit_region(&mut ir, "b0", members, wave64, target);
    (ir, inlined)
}

/// Compile module `ir` (from [`module`] for `target`, of blocks with
/// `entries` entries and `inlined` of them inline, each called as its
/// `labels` says in the perf map: [`label`]) and load its translations.
pub(crate) fn load(
    ir: &str,
    inlined: &[usize],
    pairs: &[bool],
    entries: &[usize],
    labels: &[String],
    target: JitTarget,
) -> Result<Vec<Translation>, LlvmError> {
    let mut names: Vec<String> = (0..inlined.len()).map(|k| format!("b{k}")).collect();
    names.extend(
        (0..pairs.len())
            .filter(|&k| pairs[k])
            .map(|k| format!("b{k}.pair")),
    );
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut named: Vec<String> = labels.to_vec();
    named.extend(
        (0..pairs.len())
            .filter(|&k| pairs[k])
            .map(|k| format!("{} pair", labels.get(k).map_or("", String::as_str))),
    );
    let (object, addresses) = compile::compile(ir, &names, &named, target)?;
    let object = Arc::new(object);
    let (singles, mut paired) = addresses.split_at(inlined.len());
    Ok(singles
        .iter()
        .enumerate()
        .map(|(k, &address)| {
            // SAFETY: `b{k}` is defined by emit_block as `i32 (ptr)` in the C
            // calling convention: the `BlockFn` type; its code lives while
            // `object` does, which the translation holds.
            let func = unsafe { std::mem::transmute::<usize, BlockFn>(address) };
            let pair = pairs[k].then(|| {
                let (&address, rest) = paired.split_first().expect("one address per name");
                paired = rest;
                // SAFETY: `b{k}.pair` is defined by emit_pair as `i32 (ptr,
                // ptr)` in the C calling convention: the `PairFn` type, in
                // the same object.
                unsafe { std::mem::transmute::<usize, PairFn>(address) }
            });
            Translation::new(Owner::Llvm(object.clone()), func, inlined[k], entries[k])
                .with_pair(pair)
        })
        .collect())
}

/// Translate `blocks` for waves of that size (`wave64`) in one module
/// (one compile) for the host's CPU: what the tests do.
#[cfg(test)]
pub(crate) fn translate_all(
    blocks: &[&Block],
    wave64: bool,
) -> Result<Vec<Translation>, LlvmError> {
    translate_all_for(blocks, wave64, JitTarget::Host)
}

/// [`translate_all`] for `target`'s CPU.
#[cfg(test)]
pub(crate) fn translate_all_for(
    blocks: &[&Block],
    wave64: bool,
    target: JitTarget,
) -> Result<Vec<Translation>, LlvmError> {
    let (ir, inlined, pairs) = module(blocks, wave64, target);
    let entries: Vec<usize> = blocks.iter().map(|b| b.list(wave64).len()).collect();
    let labels: Vec<String> = blocks.iter().map(|b| label(b, &[], wave64)).collect();
    load(&ir, &inlined, &pairs, &entries, &labels, target)
}

/// What the perf map calls the translation of `block` for waves of that
/// size, or of the region `members` it heads when there are several.
pub(crate) fn label(block: &Block, members: &[Arc<Block>], wave64: bool) -> String {
    let wave = if wave64 { "wave64" } else { "wave32" };
    match members.len() {
        0 | 1 => format!("gfxsim {wave} block {:#x}", block.start),
        n => format!("gfxsim {wave} region {:#x} ({n} blocks)", block.start),
    }
}
