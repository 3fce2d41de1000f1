//! The translator: hot basic blocks of wave code become host machine code
//! (Cranelift), run by the wave loop in place of the interpreter's
//! per-entry loop.
//!
//! A translation covers one decoded block's wave32 list (`Block::compiled`,
//! the pre-resolved `Fast` forms) and is an `extern "C"` function over a
//! [`abi::Frame`] that points at the wave's registers in memory. Each entry
//! becomes either inline host code over the 32 lanes (SSE/AVX vectors of
//! four lanes, EXEC applied with lane masks) or a call-out: a call of the
//! interpreter's own routine for that entry (`run_block::run_entry`), so a
//! block is translated whole and coverage grows by inlining more forms.
//! Memory instructions, transcendentals and everything rare are call-outs,
//! so faults, fault reports, strict coherence and access checks are the
//! interpreter's own. Branches, s_endpgm, s_barrier and call-outs that do
//! not flow on end the function with an exit code (`abi.rs`); the wave loop
//! then does what it does after the interpreter's loop (watchdog, counts,
//! the tail), so the watchdog still runs once per 1024 taken branches.
//!
//! Inline today (`translate.rs`, `Tx::inline`): 32-bit SALU arithmetic,
//! logic, shifts and compares; VALU integer add/sub/logic/min/max/mul_lo,
//! shifts by a uniform amount, three-source add/or/xor/and_or/lshl_*;
//! v_cndmask; integer and f32 compares; f32 add/sub/mul/fma (with abs/neg)
//! and sqrt; VOPD pairs of those; branches, s_endpgm, s_barrier.
//!
//! Exactness: inline code computes what the interpreter computes bit for
//! bit: integer ops are the same ops; f32 add/sub/mul/fma/sqrt are IEEE with
//! the host's rounding (nearest even, denormals kept: MXCSR as Rust leaves
//! it) and then gfxsim's NaN rule (valu/mod.rs `nan_rule!`) as selects;
//! what cannot be matched that way without more work (min/max with their
//! sign and NaN rules, conversions, v_rcp/v_exp/v_log and the other
//! transcendentals, ldexp/frexp) is a call-out. The differential tests
//! (`tests.rs`, and crates/isa/tests/isa_exec.rs on whole kernels) run
//! both paths.
//!
//! Within a translation the VGPR rows an entry reads stay in host
//! registers until a call-out or the end of the block, which write back
//! the rows inline code changed (call-outs read and write the wave in
//! memory). SGPRs and SCC are read and written in memory.
//!
//! Tiering (`tier.rs`): blocks start in the interpreter; a worker counts
//! entries per block and translates one when it reaches the threshold
//! (on the worker thread that gets there), then stores the translation in
//! the code cache (`shared.rs`) for every worker; invalidation follows
//! the code cache's. Wave64 waves always interpret. `AQUEDUCT_SIM_JIT`
//! (`0` off, `always` for every block at its first entry) selects it.
//!
//! Files: `tier.rs` (the mode, the threshold, per-worker counters),
//! `shared.rs` (translations shared through the code cache),
//! `code_memory.rs` (who owns the machine code), `abi.rs` (the frame,
//! exit codes and call-outs), `translate.rs` (a block to Cranelift IR).

mod tier;
pub use tier::{JIT_ENV, JitMode, force_jit, jit_mode};

#[cfg(feature = "jit")]
mod abi;
#[cfg(feature = "jit")]
mod code_memory;
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
