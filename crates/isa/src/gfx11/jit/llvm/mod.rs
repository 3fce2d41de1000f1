//! The LLVM back end of the translator: a block's wave32 list (or its
//! wave64 list, each vector entry once per 32-lane half: `wave64.rs`)
//! becomes an LLVM IR function over 32-lane vectors (`emit.rs`, `lanes.rs`,
//! `math.rs`, the DS accesses in `lds.rs`, the global atomics in `atomic.rs`, the single-lane forms in
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
//! What bounds the speed of this design: a translation runs one wave per
//! call. (1) In straight-line float code the wave's lanes are two zmm
//! registers' worth of independent work, so each dependent step waits on
//! the host's latency, not its throughput: the transcendental loop of
//! `cargo bench --bench compute` (about 45 dependent f32 steps per
//! iteration) runs no faster when its host instruction count is cut by a
//! third, while the same arithmetic written for the host runs about 1.9x
//! as fast with two 32-lane chains interleaved and 3x with four. (2)
//! Every block entry goes through the wave loop (tiers, frame, exit code,
//! counts, the next block's lookup), and many corpus kernels (the
//! reductions, scans and sorts) run blocks of 3 to 8 instructions between
//! barriers, where that path costs about twice the translated code itself
//! (`perf` on `cargo bench --bench corpus -- --only reduce_f32_tree`). Both point
//! to translating several waves of a workgroup into one call, their
//! entries interleaved and the block's entry and exit shared. That needs
//! a schedule in which a workgroup's waves advance together block by block
//! (each wave now runs alone up to its barrier or end), in the interpreter
//! too, so both keep running waves in the same order.

mod atomic;
mod cache_bound;
mod compile;
mod divide;
mod dpp;
mod emit;
mod float64;
mod footprint;
mod global;
mod lanes;
mod lds;
mod math;
pub(super) mod queue;
mod scalar64;
mod scratch;
mod shuffle;
mod single_lane;
mod warm_up;
mod wave64;
mod wide;

use std::sync::Arc;

pub(crate) use compile::available;
#[cfg(test)]
pub(crate) use compile::compile_for_cpu;
pub(crate) use queue::submit;

use super::abi::BlockFn;
use super::translation::{Owner, Translation};
use crate::gfx11::code_cache::Block;

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
/// (`wave64`); returns the text and each block's inline count.
pub(crate) fn module(blocks: &[&Block], wave64: bool) -> (String, Vec<usize>) {
    let mut ir = String::from(emit::DECLARATIONS);
    ir.push_str(global::DECLARATIONS);
    ir.push_str(atomic::DECLARATIONS);
    ir.push_str(scratch::DECLARATIONS);
    ir.push('\n');
    let inlined = blocks
        .iter()
        .enumerate()
        .map(|(k, b)| emit::emit_block(&mut ir, &format!("b{k}"), b, wave64))
        .collect();
    (ir, inlined)
}

/// Compile module `ir` (from [`module`], of blocks with `entries` entries
/// and `inlined` of them inline) and load its translations.
pub(crate) fn load(
    ir: &str,
    inlined: &[usize],
    entries: &[usize],
) -> Result<Vec<Translation>, LlvmError> {
    let names: Vec<String> = (0..inlined.len()).map(|k| format!("b{k}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (object, addresses) = compile::compile(ir, &names)?;
    let object = Arc::new(object);
    Ok(addresses
        .into_iter()
        .enumerate()
        .map(|(k, address)| {
            // SAFETY: `b{k}` is defined by emit_block as `i32 (ptr)` in the C
            // calling convention: the `BlockFn` type; its code lives while
            // `object` does, which the translation holds.
            let func = unsafe { std::mem::transmute::<usize, BlockFn>(address) };
            Translation::new(Owner::Llvm(object.clone()), func, inlined[k], entries[k])
        })
        .collect())
}

/// Translate `blocks` for waves of that size (`wave64`) in one module
/// (one compile): what the tests do.
#[cfg(test)]
pub(crate) fn translate_all(
    blocks: &[&Block],
    wave64: bool,
) -> Result<Vec<Translation>, LlvmError> {
    let (ir, inlined) = module(blocks, wave64);
    let entries: Vec<usize> = blocks.iter().map(|b| b.list(wave64).len()).collect();
    load(&ir, &inlined, &entries)
}
