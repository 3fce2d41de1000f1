//! Instruction execution: one decoded instruction applied to one wave.
//! `step` dispatches on the encoding family; scalar, vector-ALU, vector
//! memory (global/flat/scratch + SMEM) and LDS semantics live in their own
//! files. Every path that meets something it does not implement returns
//! `IllegalInstruction` with the mnemonic — never a silent no-op.

mod atomics;
mod dpp;
pub(crate) mod fast;
mod fast_f32;
mod fast_f64;
mod fast_fma32;
mod fast_lanes;
pub(crate) mod fast_pair;
mod fast_scalar;
mod fast_scratch;
mod fast_vcmp;
mod fast_vint;
mod fast_vmem;
mod fast_vopd;
mod fast_wave64;
mod lds;
mod mem;
mod mem_kind;
mod mtbuf;
mod mubuf;
mod private_layout;
pub(crate) use private_layout::slot_bytes;
mod scalar;

mod valu;
mod vcmp;
mod vmem;
mod wave64;
mod wmma;

pub(crate) use crate::span_cache::SpanCache;

use super::inst::{Family, Inst, Src};
use super::wave::Wave;
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
    /// The workgroup's private memory: wave `i`, lane `l` owns
    /// `[(i*32 + l) * per_lane, +per_lane)`.
    pub scratch: &'a mut [u8],
    pub scratch_per_lane: usize,
    pub shared_base: u64,
    pub private_base: u64,
    /// Mappings `translate` remembers (start empty).
    pub spans: SpanCache,
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

/// Is this a vector instruction (one that runs per 32-lane half in wave64)?
#[inline]
fn is_vector(f: Family) -> bool {
    !matches!(
        f,
        Family::Sop1 | Family::Sop2 | Family::Sopk | Family::Sopc | Family::Sopp | Family::Smem
    )
}

/// Execute one instruction.
#[inline]
pub(crate) fn step(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    if w.wave64 && is_vector(i.family) {
        return wave64::step(w, env, i);
    }
    step_lanes(w, env, i)
}

/// Execute one instruction over the current 32 lanes.
#[inline]
pub(crate) fn step_lanes(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    if let Some(d) = &i.dpp {
        return dpp::step_dpp(w, env, i, d);
    }
    step_plain(w, env, i)
}

pub(crate) fn step_plain(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    match i.family {
        Family::Sop1 => scalar::sop1(w, env, i),
        Family::Sop2 => scalar::sop2(w, env, i),
        Family::Sopk => scalar::sopk(w, i),
        Family::Sopc => scalar::sopc(w, env, i),
        Family::Sopp => scalar::sopp(w, i),
        Family::Smem => vmem::smem(w, env, i),
        Family::Vopc => vcmp::vopc(w, env, i),
        Family::Vop1 | Family::Vop2 | Family::Vop3 | Family::Vop3sd | Family::Vop3p => {
            if i.family == Family::Vop3 && super::decode::is_vop3_compare(i) {
                vcmp::vopc(w, env, i)
            } else {
                valu::valu(w, env, i)
            }
        }
        Family::Vopd => valu::vopd(w, env, i),
        Family::Ds => lds::ds(w, env, i),
        Family::Flat | Family::Global | Family::Scratch => vmem::flat(w, env, i),
        Family::Mubuf => mubuf::mubuf(w, env, i),
        Family::Mtbuf => mtbuf::mtbuf(w, env, i),
        // Graphics-only (interpolation, exports, images): not executed.
        Family::Ldsdir | Family::Vinterp | Family::Exp | Family::Mimg => Err(illegal(i)),
    }
}

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
