//! gfx11 (RDNA3): decoder, disassembler and emulator.
//!
//! The device model prepares a [`Dispatch`] from a kernel-dispatch packet
//! ([`crate::DispatchSetup`]) and then calls [`Dispatch::run_workgroup`]
//! for every workgroup, from any number of host threads, each with its own
//! [`WorkerContext`]. [`CodeCache`] keeps decoded blocks per GPU.
//!
//! Where each part lives:
//! - `opcodes/`: the encoding tables (generated, `tools/isa-tables`);
//!   `decode/`: words to [`inst::Inst`], one file per encoding family;
//!   `disasm.rs`: LLVM's text for an `Inst`.
//! - `wave.rs`: a wave's registers; `dispatch.rs`: the wave loop and
//!   barriers; `code_cache.rs` and `worker.rs`: decoded blocks and their
//!   per-worker index.
//! - `run_block.rs`: one block run in the interpreter; `jit/`: hot blocks
//!   translated to host code (Cranelift), with call-outs into `run_block.rs`.
//! - `exec/`: the semantics, one module per instruction family (see
//!   `exec/mod.rs` for the map), each with the pre-resolved forms of its
//!   hot instructions beside the general path.

// Fidelity notes (deviations from hardware, by design or not yet modelled):
// - wave32 and wave64 (the descriptor's wavefront-size bit). Wave64 vector
//   instructions run as two 32-lane passes (exec/valu/wave64.rs), as RDNA3 does;
//   ds_bpermute/ds_permute, DPP and permlane stay inside each 32-lane half.
//   Mask-writing ops (compares, carries) read their scalar sources as they
//   were before the instruction in both passes.
// - Floats: round-to-nearest-even with denormals kept, whatever MODE says
//   (s_round_mode/s_denorm_mode/s_setreg MODE are recorded, not applied).
//   Transcendentals (rcp, rsq, sqrt, exp, log, sin, cos) are correctly rounded
//   from f64 host math, i.e. at least as accurate as the ISA's 1 ULP.
// - LDS is not cleared between workgroups (stale, as on hardware; zero when
//   first allocated); out-of-range LDS reads return 0 and writes are dropped.
// - Private memory out of range is a MemoryViolation at private-aperture + offset.
// - Global atomics on misaligned addresses are MemoryViolations.
// - MUBUF buffer ops: see exec/vmem/mubuf.rs (swizzled V#s, tfe, format and LDS
//   forms are typed errors). WMMA: wave32 layout (exec/valu/wmma.rs); float sums are
//   exact then rounded once.
// - MTBUF typed loads/stores: see exec/vmem/mtbuf.rs (formats 0 and 64..127,
//   swizzled V#s are typed errors).
// - MIMG: image_load/_mip, image_store/_mip and image_get_resinfo on
//   linear images (exec/vmem/image.rs; the T# is image_desc.rs); explicit-LOD
//   sampling and gathers (exec/vmem/sample.rs; the S# is sampler_desc.rs);
//   other sample forms, image atomics, d16/tfe/lwe are typed errors.
// - Not implemented (IllegalInstruction with the mnemonic): GDS, s_getreg of registers other than MODE and
//   SHADER_CYCLES (GFX9 code: MODE and gfx942's XCC_ID), s_setreg other than MODE, s_sendmsg other than
//   MSG_DEALLOC_VGPRS, s_sendmsg_rtn GET_DOORBELL / GET_DDID / SAVE_WAVE (the
//   mnemonic names the hwreg / message), and VALU ops outside exec/valu/mod.rs's
//   list. s_trap is a Trap error, s_sethalt 1 a Halt error (with the PC).
// - s_sendmsg_rtn: GET_REALTIME is the 100 MHz counter of the crate's realtime.rs (host
//   monotonic time); GET_TMA / GET_TBA return 0 (no trap handler installed).
//   HW_REG_SHADER_CYCLES is the low 20 bits of 25 x REALTIME (a nominal
//   2.5 GHz shader clock).

mod code_cache;
pub mod decode;
pub mod disasm;
mod dispatch;
mod exec;
pub mod image_desc;
pub mod inst;
pub mod inst_class;
pub mod jit;
pub mod opcodes;
mod paused_time;
mod round;
mod run_block;
pub mod sampler_desc;
#[cfg(all(test, feature = "llvm-jit"))]
mod watchdog_tests;
pub mod wave;
mod worker;

pub use code_cache::CodeCache;
pub use dispatch::Dispatch;
pub use inst_class::{ClassCounts, INST_CLASSES, InstClass};
pub use worker::WorkerContext;
