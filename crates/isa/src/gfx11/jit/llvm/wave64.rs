//! Wave64 blocks: which entries of a block's wave64 list (`compiled64`, one
//! instruction per entry) the emitter runs inline, and how.
//!
//! A wave64 wave keeps lanes 0..31 of each VGPR in `Wave::vgpr` and lanes
//! 32..63 in `Wave::vgpr_hi`; EXEC, VCC and every lane mask are SGPR pairs.
//! The interpreter runs a per-lane vector instruction as two 32-lane passes
//! (exec/fast/wave64.rs `run`, exec/valu/wave64.rs `high_pass`): the low
//! pass is the wave32 form under exec_lo, the high pass the same form over
//! the high rows under exec_hi, with a lane-mask source or destination
//! moved to the pair's high word (n+1, null for null and past the file;
//! n = 127's high word reads as 0), and every SGPR read as it was before
//! the low pass. The emitter does the same: it emits such an entry twice
//! (`Fx::half` 0 and 1: rows of the half's file, EXEC and mask operands of
//! the half's word) and, for the high pass, pins the SGPR the low pass
//! writes to its value from before it.
//!
//! Global accesses and global integer atomics, DS accesses, gfx11's DS
//! lane shuffles and scratch accesses (a pass in its half's private slot)
//! run pass by pass too, as the interpreter runs them (exec/fast/mod.rs
//! `run_wave64_memory`: the low pass, then the high one, a fault in the
//! low pass ending the instruction before the high pass). Where a pass's
//! inline code leaves it to the interpreter (a span cache miss, a fault,
//! a counting dispatch), the call-out runs that pass alone (abi.rs
//! `CALLOUT_PASS`), so the other pass is neither repeated nor skipped.
//!
//! Scalar entries (SALU, the 64-bit scalar forms, s_load, branches, the
//! block ends) are emitted once, as for wave32; a branch on VCCZ or EXECZ
//! tests the whole pair (exec/fast/mod.rs `Cond`). So are the single-lane
//! forms (v_readlane, v_writelane, v_readfirstlane: `single_lane.rs`),
//! which pick their half from the lane index. Everything else is a
//! call-out, which runs the interpreter's wave64 code for the whole
//! instruction: the other forms whose passes are not independent (DPP,
//! GFX9's whole-wave permutes), the atomics without an inline form
//! (float, DS), a constant lane mask (whose high word the form does not
//! keep) and VOPD (wave32 only).

use super::lanes::{slow_packed_f16, slow_scalar_unary, slow_unary};
use super::slow_valu::slow_valu;
use crate::gfx11::code_cache::{Block, Compiled};
use crate::gfx11::exec::fast::Fast;
use crate::gfx11::exec::lds::ShuffleKind;
use crate::gfx11::exec::operand::SSrc;
use crate::gfx11::exec::salu::fast::Scalar;
use crate::gfx11::exec::valu::fast_fma32::Fma32Op;
use crate::gfx11::exec::valu::fast_vint::{Below, Vint};
use crate::gfx11::exec::vmem::mubuf::RawBuffer;
use crate::gfx11::jit::target::JitTarget;
use crate::gfx11::wave::NULL;

/// How the emitter runs one entry of a wave64 list.
#[derive(Clone, Copy, Debug)]
pub(super) enum Wave64Entry {
    /// Once, as for wave32 (scalar work and block ends).
    Once,
    /// Twice: the entry for lanes 0..31, then `high` (the entry with its
    /// lane-index dependence moved to the high half) for lanes 32..63.
    /// `pinned`: the SGPR the low pass writes, which the high pass reads
    /// as it was before the low pass.
    Halves { high: Fast, pinned: Option<u8> },
    /// Through the interpreter (a call-out).
    Callout,
}

/// How `c` (an entry of `block`'s wave64 list) runs.
pub(super) fn classify(block: &Block, c: &Compiled, target: JitTarget) -> Wave64Entry {
    let halves = |pinned: Option<u8>| Wave64Entry::Halves {
        high: c.fast,
        pinned: pinned.filter(|&d| d != NULL as u8 && d < 128),
    };
    match c.fast {
        Fast::Salu { .. }
        | Fast::Scalar(
            Scalar::Op64 { .. }
            | Scalar::Saveexec { .. }
            | Scalar::Ctz64 { .. }
            | Scalar::Sopk { .. }
            | Scalar::Pc { .. },
        )
        | Fast::SLoad { .. }
        | Fast::Branch { .. }
        | Fast::End
        | Fast::Barrier
        // One lane of one half, read or written (single_lane.rs).
        | Fast::Readlane { .. }
        | Fast::Lane(_) => Wave64Entry::Once,
        Fast::Valu { .. } | Fast::LshlrevB64 { .. } | Fast::FmaF32 { .. } | Fast::Flt(_) => {
            halves(None)
        }
        // Each pass of a global, DS or scratch access, as
        // run_wave64_memory runs it.
        Fast::Coalesced(_)
        | Fast::GlobalAtomic(_)
        | Fast::Ds(_)
        | Fast::DsSubword(_)
        | Fast::Scratch(_) => halves(None),
        // gfx11's ds_bpermute and ds_swizzle shuffle within each 32-lane
        // half (GFX9's whole-wave permutes are other kinds): each pass
        // reads its own half's rows and EXEC word (exec/lds.rs
        // `ds_shuffle`, run pass by pass by run_wave64_memory).
        Fast::DsShuffle(d) if matches!(d.kind, ShuffleKind::Bpermute | ShuffleKind::Swizzle) => {
            halves(None)
        }
        Fast::F64(d) if !d.uses_mask() => halves(None),
        Fast::Fma32(d) if !d.uses_mask() => halves(None),
        // v_div_scale_f32 writes its half's word of the mask (`set_mask`),
        // v_div_fmas_f32 reads its half's VCC word (divide.rs).
        Fast::Fma32(d) if d.op == Fma32Op::DivScale => halves(Some(d.sdst)),
        Fast::Fma32(_) => halves(None),
        Fast::Cndmask {
            mask: SSrc::Reg(_), ..
        } => halves(None),
        Fast::AddCo { sdst, .. } | Fast::MadU64 { sdst, .. } => halves(Some(sdst)),
        Fast::AddCoCi {
            sdst,
            cin: SSrc::Reg(_),
            ..
        } => halves(Some(sdst)),
        Fast::Vcmp { dst, .. } => halves(Some(dst)),
        Fast::Fcmp(f) => halves(Some(f.dst)),
        Fast::Vint(Vint::Cmp64 { dst, .. }) => halves(Some(dst)),
        Fast::Vint(Vint::Shr64 { .. } | Vint::LshlAdd64 { .. }) => halves(None),
        Fast::Vint(Vint::Mbcnt { below, dst, a, b }) => {
            // mbcnt_lo counts all of the low word from the high half;
            // mbcnt_hi counts its own word there (exec/fast/wave64.rs).
            let below = match below {
                Below::Own => Below::Full,
                Below::Zero => Below::Own,
                Below::Full => return Wave64Entry::Callout,
            };
            Wave64Entry::Halves {
                high: Fast::Vint(Vint::Mbcnt { below, dst, a, b }),
                pinned: None,
            }
        }
        Fast::Slow => {
            let i = &block.insts[c.index as usize];
            // A raw buffer access runs pass by pass as the global ones do
            // (buffer.rs), each pass from its own half's rows and EXEC word.
            if (i.acc == 0 && i.sdwa.is_none() && slow_unary(i))
                || slow_valu(i, target.has_f16c()).is_some()
                || slow_packed_f16(i).is_some()
                || RawBuffer::of_inst(i).is_some()
            {
                halves(None)
            } else if slow_scalar_unary(i).is_some() {
                Wave64Entry::Once
            } else {
                Wave64Entry::Callout
            }
        }
        _ => Wave64Entry::Callout,
    }
}
