//! The translator: hot basic blocks of wave code become host machine code,
//! run by the wave loop in place of the interpreter's per-entry loop. Two
//! back ends share the frame, exit codes and call-outs (`abi.rs`): LLVM IR
//! over whole-wave vectors compiled in process by libLLVM-19, opened at run
//! time (`llvm/`, feature `llvm-jit`, nothing linked; the default when the
//! library loads) and Cranelift (`translate.rs`, feature `jit`, which
//! includes `llvm-jit`), chosen by `AQUEDUCT_SIM_JIT_BACKEND` (`llvm` or
//! `cranelift`). What follows describes the Cranelift back end;
//! `llvm/mod.rs` the other.
//!
//! A translation covers one decoded block's wave32 list (`Block::compiled`,
//! the pre-resolved `Fast` forms) and is an `extern "C"` function over a
//! `abi::Frame` that points at the wave's registers in memory. The list
//! is cut into lane-local runs (`translate.rs`): sequences of VALU entries
//! whose effect on a lane depends only on that lane, uniform scalars and
//! EXEC. A run is strip-mined by 4-lane chunk: per chunk, each VGPR the run
//! reads is loaded once, the whole run computes in host registers, and each
//! VGPR it writes is stored once, blended under EXEC (no blend when EXEC is
//! all ones). Cranelift's x86-64 back end has 128-bit vectors only, so an
//! op over a 32-lane row is eight host ops either way; keeping the values in
//! registers across a run is what makes the translation faster than the
//! interpreter's per-instruction AVX2 loops.
//!
//! Entries outside runs are inline SALU ops, branches, s_endpgm and
//! s_barrier, or call-outs: a call of the interpreter's own routine for the
//! entry (`run_block::run_entry`), so a block is translated whole and
//! coverage grows by inlining more forms. Memory instructions and
//! lane-crossing ops are call-outs, so faults, fault reports, strict
//! coherence and access checks are the interpreter's own. Branches,
//! s_endpgm, s_barrier and call-outs that do not flow on end the function
//! with an exit code (`abi.rs`); the wave loop then does what it does after
//! the interpreter's loop (watchdog, counts, the tail), so the watchdog still
//! runs once per 1024 taken branches.
//!
//! In runs: integer add/sub/logic/min/max/mul_lo, shifts by a uniform
//! amount, three-source add/or/xor/and_or/lshl_*; v_cndmask; integer and
//! f32 compares (to VCC or an SGPR, not EXEC); f32 add/sub/mul/fma (with
//! abs/neg), sqrt, rndne, the f32/i32 conversions; VOPD pairs of those
//! and v_dual_fmac_f32; f32 min/max, ldexp, frexp, rcp, rsq, exp and log
//! as inline vector code (`lane_inline.rs`, on f64x2 halves where the
//! interpreter computes in f64; exp and log in f32 with fused
//! multiply-adds, where the host has FMA); f32 to u32 through a helper that takes a
//! chunk through a stack slot (`lane_math.rs`). A block whose last entry
//! branches back to its start loops inside its translation until the next
//! watchdog check is due.
//!
//! Exactness: inline code computes what the interpreter computes bit for
//! bit: integer ops are the same ops; f32 add/sub/mul/fma/sqrt are IEEE with
//! the host's rounding (nearest even, denormals kept: MXCSR as Rust leaves
//! it) and then gfxsim's NaN rule (valu/mod.rs `nan_rule!`) as a select per
//! source that can pick a different NaN than the host; the inline math
//! performs the interpreter's own sequence of IEEE operations (exp and log
//! are gfxsim's own polynomials, valu/transcendental.rs, not libm's), and
//! the helpers call the interpreter's scalar functions. The differential tests (`tests.rs`,
//! and crates/isa/tests/isa_exec.rs on whole kernels) run both paths.
//!
//! Tiering (`tier.rs`): blocks start in the interpreter; a worker counts
//! entries per block and translates one when it reaches the threshold
//! (on the worker thread that gets there) and runs it if at least three in
//! four of its entries are inline (a call-out costs more than the
//! interpreter's own step, so memory-bound blocks stay interpreted), then stores the translation in
//! the code cache (`shared.rs`) for every worker; invalidation follows
//! the code cache's. A block has one translation per wave size: wave64
//! waves (GFX9's, and gfx11's wave64 kernels) run the LLVM back end's
//! translation of the block's wave64 list (`llvm/wave64.rs`; the Cranelift
//! back end leaves them to the interpreter). Dispatches with an observer
//! (the sanitizer, which must see every access) always interpret.
//! `AQUEDUCT_SIM_JIT` (`0` off, `always` for every block at its first
//! entry, waiting for its compile) selects it in a build with a back end
//! (features `llvm-jit` or `jit`; the facade's default features include
//! `llvm-jit`). The LLVM back end compiles in the background: the block
//! stays interpreted until its object is linked.
//!
//! The LLVM back end translates a hot wave32 block with the decoded blocks
//! it reaches as one region (`region.rs` picks them, `llvm/emit/region.rs`
//! emits them): the wave stays in translated code across the branches
//! between them, and their short scalar blocks, which alone stay
//! interpreted, are translated with their neighbours. Every member is an
//! entry of the region's function: a block that is a member of a region
//! made already runs that region from its own label once it is hot,
//! rather than heading another region with most of the same blocks. The
//! block after a barrier is a member too: at the barrier the region's code
//! goes on with the workgroup's next wave itself, and past the barrier
//! once its last wave releases it (`abi.rs` `switch_wave`, `../round.rs`),
//! in the wave loop's order.
//!
//! Files: `tier.rs` (the mode, the threshold, per-worker counters),
//! `target.rs` (the CPU the LLVM back end compiles for),
//! `shared.rs` (translations shared through the code cache),
//! `code_memory.rs` (who owns the machine code), `abi.rs` (the frame,
//! exit codes and call-outs), `lane_inline.rs` (inline per-chunk math),
//! `lane_math.rs` (per-chunk math helpers),
//! `translate.rs` (a block to Cranelift IR), `translation.rs` (a
//! translation of either back end), `region.rs` (a region's blocks),
//! `llvm/` (the LLVM back end).

mod target;
mod tier;
pub use target::{JIT_TARGET_ENV, JitTarget, force_jit_target, jit_target};
pub use tier::{
    JIT_BACKEND_ENV, JIT_ENV, JitBackend, JitMode, force_jit, force_jit_backend, jit_backend,
    jit_mode,
};

/// Environment variable naming the LLVM back end's on-disk cache of
/// compiled blocks (`off`: none; default `$XDG_CACHE_HOME/aqueduct/jit`,
/// else `$HOME/.cache/aqueduct/jit`).
pub const JIT_CACHE_ENV: &str = "AQUEDUCT_SIM_JIT_CACHE";

/// Environment variable bounding that cache, in MiB (default 256; the
/// least recently used entries go first: `llvm/cache_bound.rs`).
pub const JIT_CACHE_MAX_MB_ENV: &str = "AQUEDUCT_SIM_JIT_CACHE_MAX_MB";

/// The translator's background compiles in this process: how many were
/// requested so far, and how many of them are still compiling. A
/// benchmark's warm-up runs until a dispatch requests none and none is
/// left, so its timed runs are not partly interpreted. (0, 0) without the
/// LLVM back end, whose compiles are the only background ones.
pub fn background_translations() -> (u64, u64) {
    #[cfg(all(feature = "llvm-jit", unix))]
    return llvm::queue::progress();
    #[cfg(not(all(feature = "llvm-jit", unix)))]
    (0, 0)
}

#[cfg(feature = "llvm-jit")]
mod abi;
#[cfg(feature = "jit")]
mod code_memory;
#[cfg(feature = "jit")]
mod lane_inline;
#[cfg(feature = "jit")]
mod lane_math;
#[cfg(all(feature = "llvm-jit", unix))]
mod llvm;
#[cfg(all(test, feature = "llvm-jit", unix))]
mod memory_tests;
#[cfg(feature = "llvm-jit")]
mod region;
#[cfg(all(test, feature = "llvm-jit", unix))]
mod scratch_tests;
#[cfg(feature = "llvm-jit")]
mod shared;
#[cfg(all(test, feature = "llvm-jit", unix))]
mod sqrt_correction_tests;
#[cfg(all(test, feature = "llvm-jit"))]
mod tests;
#[cfg(feature = "jit")]
mod translate;
#[cfg(feature = "llvm-jit")]
mod translation;

#[cfg(feature = "llvm-jit")]
pub(crate) use abi::{PairFn, run_pair, run_region, run_translated};
#[cfg(feature = "llvm-jit")]
pub(crate) use shared::{Shared, Slot};
#[cfg(feature = "llvm-jit")]
pub(crate) use tier::{Entered, Tiers};
