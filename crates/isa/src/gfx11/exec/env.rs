//! What every instruction's semantics share: the environment outside the
//! wave an instruction may touch ([`Env`]), what the wave does next
//! ([`Flow`]), the typed errors of an unimplemented form, and the scalar
//! reads of source operands. The bottom of `exec`: every family uses it.

use crate::gfx11::inst::{Inst, Src};
use crate::gfx11::wave::Wave;
use crate::observer::WorkgroupObserver;
use crate::span_cache::SpanCache;
use crate::{Access, GpuMemory, MemoryFault, WaveErrorKind};

/// What the wave does after an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Next,
    Jump(u64),
    Barrier,
    End,
}

/// Everything outside the wave that an instruction may touch.
pub(crate) struct Env<'a> {
    pub mem: &'a dyn GpuMemory,
    pub lds: &'a mut [u8],
    /// The workgroup's scratch wave slots in the backing memory (empty when
    /// they could not be translated: every private access then faults at
    /// its address there). Wave `i` owns `scratch_wave_bytes` bytes from
    /// `i * scratch_wave_bytes`, its 32-lane halves one after the other in
    /// the interleaved layout of private_layout.rs.
    pub scratch: &'a mut [u8],
    /// GPU address of `scratch[0]` (for fault reports).
    pub scratch_va: u64,
    pub scratch_wave_bytes: usize,
    /// Wave64: a wave has two 32-lane slots (`Wave::scratch_slot`).
    pub scratch_wave64: bool,
    pub scratch_per_lane: usize,
    pub shared_base: u64,
    pub private_base: u64,
    /// Mappings `translate` remembers, the batch's (`Dispatch::run_workgroups`).
    pub spans: &'a mut SpanCache,
    /// LDS bank-conflict cycles so far, when the dispatch counts
    /// (lds_banks.rs); None otherwise.
    pub lds_bank_conflicts: Option<u64>,
    /// The workgroup's observer (observer.rs): when there is one, memory
    /// instructions take the slow path and show it their lane addresses.
    pub observer: Option<&'a mut dyn WorkgroupObserver>,
}

impl Env<'_> {
    /// `mem.translate`, inline for the mappings the workgroup used lately.
    #[inline(always)]
    pub fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
        self.spans.translate(self.mem, addr, len, access)
    }

    /// Value of an aperture operand (235 shared_base, 236 shared_limit,
    /// 237 private_base, 238 private_limit) as a 64-bit address.
    pub fn aperture(&self, code: u8) -> u64 {
        match code {
            235 => self.shared_base,
            236 => self.shared_base | 0xFFFF_FFFF,
            237 => self.private_base,
            _ => self.private_base | 0xFFFF_FFFF,
        }
    }
}

pub(crate) type ExecResult = Result<Flow, WaveErrorKind>;

pub(crate) fn illegal(i: &Inst) -> WaveErrorKind {
    WaveErrorKind::IllegalInstruction {
        words: i.raw().to_vec(),
        mnemonic: Some(i.mnemonic.to_string()),
    }
}

/// A recognised form the emulator does not model: an IllegalInstruction whose
/// mnemonic says why, "`mnemonic` (`why`)".
pub(crate) fn unmodelled(i: &Inst, why: &str) -> WaveErrorKind {
    WaveErrorKind::IllegalInstruction {
        words: i.raw().to_vec(),
        mnemonic: Some(format!("{} ({why})", i.mnemonic)),
    }
}

/// Scalar read of a source operand (32-bit).
#[inline]
pub(crate) fn sread(w: &Wave, env: &Env, i: &Inst, k: usize) -> Result<u32, WaveErrorKind> {
    Ok(match i.src[k].src {
        Src::Sgpr(r) => w.sgpr[r as usize],
        Src::Imm(v) => v as u32,
        Src::Scc => w.scc as u32,
        Src::Vccz => (w.vcc_mask() == 0) as u32,
        Src::Execz => (w.exec_mask() == 0) as u32,
        Src::Aperture(c) => (env.aperture(c) >> 32) as u32,
        Src::Vgpr(_) | Src::DppRow | Src::Unsupported(_) => return Err(illegal(i)),
    })
}

/// Scalar read of a 64-bit source operand.
#[inline]
pub(crate) fn sread64(w: &Wave, env: &Env, i: &Inst, k: usize) -> Result<u64, WaveErrorKind> {
    Ok(match i.src[k].src {
        Src::Sgpr(r) => w.sgpr64(r as usize),
        Src::Imm(v) => v,
        Src::Scc => w.scc as u64,
        Src::Vccz => (w.vcc_mask() == 0) as u64,
        Src::Execz => (w.exec_mask() == 0) as u64,
        Src::Aperture(c) => env.aperture(c),
        Src::Vgpr(_) | Src::DppRow | Src::Unsupported(_) => return Err(illegal(i)),
    })
}

/// Read the current half's word of a lane-mask operand (v_cndmask's mask,
/// a carry-in): SGPR `s[n]` in wave32 / the low pass, `s[n+1]` in the wave64
/// high pass; negative inline constants are all ones in both words.
#[inline]
pub(crate) fn mask_read(w: &Wave, env: &Env, i: &Inst, k: usize) -> Result<u32, WaveErrorKind> {
    if w.half == 0 {
        return sread(w, env, i, k);
    }
    Ok(match i.src[k].src {
        Src::Sgpr(r) => w.sgpr.get(r as usize + 1).copied().unwrap_or(0),
        Src::Imm(v) if (193..=208).contains(&i.src[k].code) => u32::MAX | v as u32,
        Src::Imm(v) => (v >> 32) as u32,
        _ => sread(w, env, i, k)?,
    })
}
