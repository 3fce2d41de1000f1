//! The translator: hot basic blocks of wave code become host machine code
//! (Cranelift), run by the wave loop in place of the interpreter's
//! per-entry loop.
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
//! interpreter computes in f64); f32 to u32 through a helper that takes a
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
//! the code cache's. Wave64 waves and dispatches with an observer (the
//! sanitizer, which must see every access) always interpret.
//! `AQUEDUCT_SIM_JIT` (`0` off, `always` for every block at its first
//! entry) selects it in a build with the `jit` feature (off by default).
//!
//! Files: `tier.rs` (the mode, the threshold, per-worker counters),
//! `shared.rs` (translations shared through the code cache),
//! `code_memory.rs` (who owns the machine code), `abi.rs` (the frame,
//! exit codes and call-outs), `lane_inline.rs` (inline per-chunk math),
//! `lane_math.rs` (per-chunk math helpers),
//! `translate.rs` (a block to Cranelift IR).

mod tier;
pub use tier::{JIT_ENV, JitMode, force_jit, jit_mode};

#[cfg(feature = "jit")]
mod abi;
#[cfg(feature = "jit")]
mod code_memory;
#[cfg(feature = "jit")]
mod lane_inline;
#[cfg(feature = "jit")]
mod lane_math;
#[cfg(feature = "jit")]
mod shared;
#[cfg(all(test, feature = "jit"))]
mod tests;
#[cfg(feature = "jit")]
mod translate;

#[cfg(feature = "jit")]
pub(crate) use abi::{BlockFn, Callout, run_translated};
#[cfg(feature = "jit")]
pub(crate) use shared::Shared;
#[cfg(feature = "jit")]
pub(crate) use tier::Tiers;
#[cfg(feature = "jit")]
pub(crate) use translate::Translation;
