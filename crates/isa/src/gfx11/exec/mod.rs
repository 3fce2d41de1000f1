//! Instruction execution: one decoded instruction applied to one wave.
//!
//! Two paths compute the same semantics. The slow path ([`step`]) takes a
//! decoded [`Inst`](crate::gfx11::inst::Inst) and dispatches on its encoding
//! family; the fast path ([`fast`]) runs forms the code cache pre-resolved
//! (operands reduced to registers and constants). Each instruction family
//! keeps both beside each other, and a fast form calls the slow path's own
//! lane helpers, so each family's semantics are written once. Every path
//! that meets something it does not implement returns `IllegalInstruction`
//! with the mnemonic, never a silent no-op.
//!
//! Where each family lives (module dependencies point up this list only):
//! - `env.rs`: the environment ([`Env`]), [`Flow`], typed errors, scalar
//!   source reads; `operand.rs`: the fast forms' pre-resolved operands.
//! - `salu/`: SOP1/SOP2/SOPK/SOPC/SOPP (`mod.rs`) and their fast forms
//!   (`fast.rs`: 32- and 64-bit SALU, saveexec, PC, SOPK).
//! - `valu/`: VOP1/VOP2/VOP3/VOP3P/VOPD (`mod.rs`), compares (`vcmp.rs`),
//!   DPP (`dpp.rs`), wave64 passes (`wave64.rs`), WMMA (`wmma.rs`), the
//!   32-bit integer lane formulas both paths share (`int32.rs`); fast
//!   forms: integer (`fast.rs`, `fast_vint.rs`), f32/f16 (`fast_f32.rs`,
//!   `fast_fma32.rs`), f64 (`fast_f64.rs`), compares (`fast_vcmp.rs`), VOPD
//!   (`fast_vopd.rs`), lane moves (`fast_lanes.rs`), fused carry pairs
//!   (`fast_pair.rs`).
//! - `vmem/`: SMEM and FLAT/GLOBAL/SCRATCH (`mod.rs`), MUBUF (`mubuf.rs`),
//!   MTBUF (`mtbuf.rs`), MIMG loads/stores/resinfo (`image.rs`), atomics
//!   (`atomics.rs`), host memory access
//!   (`mem.rs`), access kinds (`mem_kind.rs`), private memory layout
//!   (`private_layout.rs`); fast forms: global (`fast.rs`), scratch
//!   (`fast_scratch.rs`).
//! - `lds.rs`: DS, with its fast forms.
//! - `observe.rs`: the lane addresses an observed dispatch's memory
//!   instructions show its observer.
//! - `step.rs`: the slow-path dispatcher over the families.
//! - `fast/`: the fast-path dispatcher: the [`fast::Fast`] form and its
//!   compiler (`form.rs`), the 32-lane vector pass (`lanes.rs`), wave64
//!   (`wave64.rs`) and [`fast::run`] (`mod.rs`).

mod env;
pub(crate) mod fast;
pub(crate) mod lds;
mod lds_banks;
mod lds_misc;
pub(crate) mod lds_subword;
mod observe;
#[cfg(test)]
mod opcode_coverage_tests;
pub(crate) mod operand;
pub(crate) mod salu;
mod step;
pub(crate) mod valu;
pub(crate) mod vmem;

pub(crate) use crate::span_cache::SpanCache;
#[cfg(test)]
pub(crate) use env::ExecResult;
pub(crate) use env::{Env, Flow};
pub(crate) use step::{step, step_halves};
pub(crate) use vmem::private_layout::slot_bytes;

#[cfg(test)]
use crate::gfx11::inst::Inst;

/// Test support: a global memory with nothing mapped (every translation
/// faults), for the unit tests of paths that must never reach it (DS, private
/// and register-only forms).
#[cfg(test)]
pub(crate) struct NoMemory;

#[cfg(test)]
impl crate::GpuMemory for NoMemory {
    fn translate(
        &self,
        addr: u64,
        _len: u64,
        access: crate::Access,
    ) -> Result<*mut u8, crate::MemoryFault> {
        Err(crate::MemoryFault {
            address: addr,
            access,
        })
    }
}

/// A 64-bit instruction from its llvm-mc-19 encoding bytes (for the exec tests).
#[cfg(test)]
pub(crate) fn test_inst(bytes: [u8; 8]) -> Inst {
    let words = [
        u32::from_le_bytes(bytes[..4].try_into().unwrap()),
        u32::from_le_bytes(bytes[4..].try_into().unwrap()),
    ];
    crate::gfx11::decode::decode(&words).unwrap()
}
