//! The gfx11 (RDNA3) ISA emulator.
//!
//! Contract with the rest of gfxsim (the simulated driver and its command
//! processor): the driver owns memory, queues and threads; this module owns
//! instruction decode, wave state and execution. The driver prepares a
//! [`Dispatch`] from a kernel-dispatch packet and then calls
//! [`Dispatch::run_workgroup`] for every workgroup, from any number of host
//! threads, each with its own [`WorkerContext`]. All memory goes through
//! [`GpuMemory`], which is how a stray access becomes a [`WaveError`]
//! instead of a host crash.

// Fidelity notes (deviations from hardware, by design or not yet modelled):
// - wave32 and wave64 (the descriptor's wavefront-size bit). Wave64 vector
//   instructions run as two 32-lane passes (exec/wave64.rs), as RDNA3 does;
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
// - MUBUF buffer ops: see exec/mubuf.rs (swizzled V#s, tfe, format and LDS
//   forms are typed errors). WMMA: wave32 layout (exec/wmma.rs); float sums are
//   exact then rounded once.
// - MTBUF typed loads/stores: see exec/mtbuf.rs (formats 0 and 64..127,
//   swizzled V#s are typed errors).
// - Not implemented (IllegalInstruction with the mnemonic): image ops,
//   GDS, s_getreg of registers other than MODE and
//   SHADER_CYCLES, s_setreg other than MODE, s_sendmsg other than
//   MSG_DEALLOC_VGPRS, s_sendmsg_rtn GET_DOORBELL / GET_DDID / SAVE_WAVE (the
//   mnemonic names the hwreg / message), and VALU ops outside exec/valu.rs's
//   list. s_trap is a Trap error, s_sethalt 1 a Halt error (with the PC).
// - s_sendmsg_rtn: GET_REALTIME is the 100 MHz counter of realtime.rs (host
//   monotonic time); GET_TMA / GET_TBA return 0 (no trap handler installed).
//   HW_REG_SHADER_CYCLES is the low 20 bits of 25 x REALTIME (a nominal
//   2.5 GHz shader clock).

// INTERFACE (written first so the driver and the emulator can be built
// side by side). The emulator fills in the bodies.

// Lane loops index several per-lane arrays with the same lane number; that
// reads like the ISA pseudocode and vectorises, so the iterator form is not used.
#![allow(clippy::needless_range_loop)]

use aqueduct_kfd::abi::KernelDescriptor;

mod code_cache;
pub mod decode;
pub mod disasm;
mod dispatch;
mod exec;
pub mod inst;
pub mod opcodes;
pub mod realtime;
pub mod wave;
mod wave_loop;
mod worker;

pub use code_cache::CodeCache;
pub use dispatch::Dispatch;
pub use wave_loop::{WAVE_LOOP_ENV, WaveLoop, default_level, force_wave_loop, wave_loop};
pub use worker::WorkerContext;

/// Kind of a memory access, for fault reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    /// Atomic read-modify-write.
    Atomic,
    /// Instruction fetch.
    Execute,
}

/// An access outside every mapping of the agent (or without permission).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryFault {
    pub address: u64,
    pub access: Access,
}

/// GPU virtual memory as one agent sees it. Implemented by the driver's
/// per-GPU mapping table.
///
/// `translate` returns a host pointer for `[addr, addr+len)` when the whole
/// range lies in one mapping the agent may access that way. The pointer is
/// valid until the mapping is removed; the driver never removes a mapping
/// while a dispatch that may touch it runs (KFD's unmap waits for the
/// queues too). Accesses through it must be atomic or volatile where other
/// agents or the host may race (the emulator uses atomics for atomics and
/// plain unaligned copies otherwise, like hardware without coherence
/// guarantees between racing plain accesses).
pub trait GpuMemory: Sync {
    fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault>;

    /// The mapping containing `addr` when every translation inside it is
    /// only its range and permission checks plus `host + (addr - start)`,
    /// with no other effect (no access recorded). None: no such mapping, or
    /// its translations record accesses (strict coherence's coarse copies),
    /// or the memory does not say. Lets a workgroup memoise translations
    /// (`exec::span_cache`); `translate` stays the authority.
    fn plain_span(&self, _addr: u64) -> Option<PlainSpan> {
        None
    }

    /// The version of the mappings this memory shows: a value no other
    /// memory and no other state of this one's mappings ever has, so while
    /// it holds every plain span is what it was (a worker then keeps its
    /// memoised translations from one borrow to the next). None: not known.
    fn version(&self) -> Option<u64> {
        None
    }
}

/// A mapping whose translations are plain pointer arithmetic (see
/// [`GpuMemory::plain_span`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlainSpan {
    pub start: u64,
    /// Exclusive.
    pub end: u64,
    /// Host address of `start`.
    pub host: *mut u8,
    /// Write and atomic accesses are allowed (reads always are).
    pub writable: bool,
    /// Instruction fetches are allowed.
    pub executable: bool,
}

/// What the command processor knows when it launches a dispatch.
#[derive(Clone, Debug)]
pub struct DispatchSetup {
    /// Address of the 64-byte kernel descriptor (the packet's kernel_object).
    pub kernel_object: u64,
    /// The descriptor read from GPU memory at `kernel_object`.
    pub descriptor: KernelDescriptor,
    /// Address of the AQL packet (the dispatch_ptr user SGPR).
    pub packet_address: u64,
    /// Address of the queue's `amd_queue_t` (the queue_ptr user SGPR).
    pub queue_address: u64,
    pub kernarg_address: u64,
    /// The packet's index in its queue (the dispatch_id user SGPR).
    pub dispatch_id: u64,
    /// 1..=3.
    pub dimensions: u32,
    /// In work-items, per dimension (unused dimensions are 1).
    pub grid_size: [u32; 3],
    /// Per dimension (unused dimensions are 1).
    pub workgroup_size: [u32; 3],
    /// Bytes of LDS per workgroup: the packet's group_segment_size
    /// (descriptor fixed size plus dynamic LDS).
    pub group_segment_size: u32,
    /// Bytes of scratch per work-item (the packet's private_segment_size).
    pub private_segment_size: u32,
    /// Bases of the shared (LDS) and private (scratch) apertures for flat
    /// addressing, as GET_PROCESS_APERTURES_NEW reports them.
    pub shared_aperture_base: u64,
    pub private_aperture_base: u64,
}

/// Why a wave stopped a dispatch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaveErrorKind {
    /// A memory access outside the agent's mappings.
    MemoryViolation(MemoryFault),
    /// An instruction the emulator does not implement, or an invalid one.
    IllegalInstruction {
        /// The instruction's dwords as fetched (encoding, then extra dwords).
        words: Vec<u32>,
        /// The decoded mnemonic, when the decoder knows the opcode.
        mnemonic: Option<String>,
    },
    /// s_trap: the wave asked for the (absent) trap handler.
    Trap { code: u32 },
    /// s_sethalt: the wave halted itself (nothing can resume it on gfxsim).
    Halt,
    /// The kernel descriptor asks for something the emulator cannot run
    /// (e.g. an unsupported wave size or register setup).
    InvalidDescriptor(String),
    /// The dispatch ran past its time limit (`Dispatch::with_time_limit`,
    /// the device's watchdog); the wave was stopped at the error's PC.
    TimeLimit { limit: std::time::Duration },
    /// The dispatch was cancelled (`Dispatch::cancel`: its queue is being
    /// destroyed, or another wave failed); the wave stopped at the PC.
    Cancelled,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveError {
    pub kind: WaveErrorKind,
    /// Program counter of the offending instruction (0 if none).
    pub pc: u64,
    /// Workgroup id of the failing wave.
    pub workgroup: [u32; 3],
}

impl std::fmt::Display for WaveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            WaveErrorKind::MemoryViolation(m) => write!(
                f,
                "memory violation: {:?} at address {:#x} (pc {:#x}, workgroup {:?})",
                m.access, m.address, self.pc, self.workgroup
            ),
            WaveErrorKind::IllegalInstruction { words, mnemonic } => {
                write!(f, "unsupported instruction")?;
                if let Some(m) = mnemonic {
                    write!(f, " {m}")?;
                }
                write!(f, " [")?;
                for (i, w) in words.iter().enumerate() {
                    write!(f, "{}{w:#010x}", if i > 0 { " " } else { "" })?;
                }
                write!(f, "] at pc {:#x} (workgroup {:?})", self.pc, self.workgroup)
            }
            WaveErrorKind::Trap { code } => {
                write!(
                    f,
                    "s_trap {code} at pc {:#x} (workgroup {:?})",
                    self.pc, self.workgroup
                )
            }
            WaveErrorKind::Halt => {
                write!(
                    f,
                    "s_sethalt at pc {:#x} (workgroup {:?})",
                    self.pc, self.workgroup
                )
            }
            WaveErrorKind::InvalidDescriptor(s) => write!(f, "invalid kernel descriptor: {s}"),
            WaveErrorKind::TimeLimit { limit } => write!(
                f,
                "watchdog: the dispatch ran longer than its {} ms time limit; stopped at pc {:#x} \
                 (workgroup {:?})",
                limit.as_millis(),
                self.pc,
                self.workgroup
            ),
            WaveErrorKind::Cancelled => write!(
                f,
                "dispatch cancelled; wave stopped at pc {:#x} (workgroup {:?})",
                self.pc, self.workgroup
            ),
        }
    }
}

impl std::error::Error for WaveError {}

/// Counters a workgroup run returns (for benchmarks and tracing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkgroupStats {
    /// Instructions executed, counted once per wave (not per lane).
    pub wave_instructions: u64,
    pub waves: u32,
}
