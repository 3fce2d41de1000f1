//! What the sanitizer finds: one typed variant per kind of finding, each
//! with the wave, lane and instruction it happened at ([`Site`]), and the
//! message each prints after `sanitizer <tool>: kernel <name>+0x<offset>: `.

use std::fmt;
use std::ops::Range;

use aqueduct_isa::Access;

use super::allocations::Allocation;
use super::config::Tool;

/// Where in the dispatch something happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Site {
    /// The instruction's GPU address.
    pub pc: u64,
    /// `pc` minus the kernel's entry (its first instruction).
    pub offset: u64,
    pub workgroup: [u32; 3],
    /// The wave's index in its workgroup.
    pub wave: u32,
    /// The lane in the wave (None for what a whole wave does: barriers).
    pub lane: Option<u32>,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.workgroup;
        write!(f, "workgroup ({x},{y},{z}) wave {}", self.wave)?;
        if let Some(lane) = self.lane {
            write!(f, " lane {lane}")?;
        }
        Ok(())
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// memcheck: a global access reaching past the bytes its allocation
    /// asked for (the BO's page-rounded tail).
    GlobalOverrun {
        at: Site,
        access: Access,
        address: u64,
        size: u32,
        /// The allocation the address lies in.
        allocation: Allocation,
        /// Bytes of the access past `allocation.end()`.
        overrun: u64,
    },
    /// memcheck: a global access inside its allocation but outside every
    /// range of it the dispatch binds (the runtime's bound buffer ranges,
    /// `KfdDevice::note_dispatch_bindings`): it reads or writes bytes of
    /// the buffer the kernel was not given.
    BindingOverrun {
        at: Site,
        access: Access,
        address: u64,
        size: u32,
        /// The allocation the address lies in.
        allocation: Allocation,
        /// The bound range of that allocation nearest the access.
        binding: Range<u64>,
    },
    /// memcheck: an LDS access past the workgroup's LDS (hardware drops the
    /// write or reads 0).
    LdsOverrun {
        at: Site,
        access: Access,
        offset: u64,
        size: u32,
        lds_bytes: u32,
    },
    /// memcheck: a private access past the lane's private segment.
    PrivateOverrun {
        at: Site,
        access: Access,
        offset: u64,
        size: u32,
        private_bytes: u32,
    },
    /// initcheck: a read of LDS bytes no wave of the workgroup wrote.
    UninitializedLds { at: Site, offset: u64, size: u32 },
    /// initcheck: a read (or atomic) of device memory (VRAM the host never
    /// mapped) that nothing wrote since it was allocated.
    UninitializedGlobal {
        at: Site,
        access: Access,
        /// The first unwritten byte the access reads.
        address: u64,
        size: u32,
        /// The BO it lies in.
        allocation: Allocation,
    },
    /// racecheck: two waves of a workgroup access the same LDS byte, at
    /// least one writing, with no barrier between.
    LdsRace {
        /// The later access.
        at: Site,
        access: Access,
        /// The earlier access, by another wave.
        earlier: Site,
        earlier_access: Access,
        /// An LDS byte both access.
        offset: u64,
    },
    /// racecheck-global: two workgroups of one dispatch access the same
    /// global byte, at least one writing, neither atomically.
    GlobalRace {
        /// The access found second (the simulator's order; the workgroups
        /// have none).
        at: Site,
        access: Access,
        /// The other workgroup's access.
        earlier: Site,
        earlier_access: Access,
        /// A byte both access.
        address: u64,
    },
    /// synccheck: the waves of a workgroup wait at different `s_barrier`
    /// instructions when the barrier is released.
    DivergentBarrier {
        /// A wave waiting at one barrier.
        at: Site,
        /// A wave waiting at another.
        other: Site,
    },
    /// synccheck: a wave ended while other waves of its workgroup wait at a
    /// barrier (hardware then releases them without it).
    EndedAtBarrier {
        /// The ended wave, at its `s_endpgm`.
        at: Site,
        /// A wave waiting at the barrier.
        waiting: Site,
    },
}

impl Finding {
    /// The tool that reports it.
    pub fn tool(&self) -> Tool {
        match self {
            Finding::GlobalOverrun { .. }
            | Finding::BindingOverrun { .. }
            | Finding::LdsOverrun { .. }
            | Finding::PrivateOverrun { .. } => Tool::Memcheck,
            Finding::UninitializedLds { .. } | Finding::UninitializedGlobal { .. } => {
                Tool::Initcheck
            }
            Finding::LdsRace { .. } => Tool::Racecheck,
            Finding::GlobalRace { .. } => Tool::RacecheckGlobal,
            Finding::DivergentBarrier { .. } | Finding::EndedAtBarrier { .. } => Tool::Synccheck,
        }
    }

    /// Where it happened (for a race, the later access).
    pub fn site(&self) -> &Site {
        match self {
            Finding::GlobalOverrun { at, .. }
            | Finding::BindingOverrun { at, .. }
            | Finding::LdsOverrun { at, .. }
            | Finding::PrivateOverrun { at, .. }
            | Finding::UninitializedLds { at, .. }
            | Finding::UninitializedGlobal { at, .. }
            | Finding::LdsRace { at, .. }
            | Finding::GlobalRace { at, .. }
            | Finding::DivergentBarrier { at, .. }
            | Finding::EndedAtBarrier { at, .. } => at,
        }
    }
}

impl Finding {
    /// The GPU address a finding on global memory is about (None for LDS
    /// and private offsets, and for barriers).
    pub fn address(&self) -> Option<u64> {
        match self {
            Finding::GlobalOverrun { address, .. }
            | Finding::BindingOverrun { address, .. }
            | Finding::GlobalRace { address, .. }
            | Finding::UninitializedGlobal { address, .. } => Some(*address),
            _ => None,
        }
    }
}

/// An access kind as a word.
fn verb(access: Access) -> &'static str {
    match access {
        Access::Read => "read",
        Access::Write => "write",
        Access::Atomic => "atomic",
        Access::Execute => "fetch",
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::GlobalOverrun {
                at,
                access,
                address,
                size,
                allocation,
                overrun,
            } => write!(
                f,
                "{} of {size} bytes at {address:#x} overruns the {}-byte allocation at {:#x} by \
                 {overrun} bytes ({at})",
                verb(*access),
                allocation.size,
                allocation.base
            ),
            Finding::BindingOverrun {
                at,
                access,
                address,
                size,
                allocation,
                binding,
            } => write!(
                f,
                "{} of {size} bytes at {address:#x} is outside every range the dispatch binds \
                 of the {}-byte allocation at {:#x} (nearest bound range {:#x}..{:#x}) ({at})",
                verb(*access),
                allocation.size,
                allocation.base,
                binding.start,
                binding.end
            ),
            Finding::LdsOverrun {
                at,
                access,
                offset,
                size,
                lds_bytes,
            } => write!(
                f,
                "LDS {} of {size} bytes at offset {offset:#x} is past the workgroup's \
                 {lds_bytes} bytes of LDS ({at})",
                verb(*access)
            ),
            Finding::PrivateOverrun {
                at,
                access,
                offset,
                size,
                private_bytes,
            } => write!(
                f,
                "private {} of {size} bytes at offset {offset:#x} is past the lane's \
                 {private_bytes} bytes of private memory ({at})",
                verb(*access)
            ),
            Finding::UninitializedLds { at, offset, size } => write!(
                f,
                "read of {size} bytes of LDS at offset {offset:#x} that the workgroup never \
                 wrote ({at})"
            ),
            Finding::UninitializedGlobal {
                at,
                access,
                address,
                size,
                allocation,
            } => write!(
                f,
                "{} of {size} bytes at {address:#x} reads device memory nothing wrote since \
                 its {}-byte allocation at {:#x} ({at})",
                verb(*access),
                allocation.size,
                allocation.base
            ),
            Finding::LdsRace {
                at,
                access,
                earlier,
                earlier_access,
                offset,
            } => write!(
                f,
                "LDS {} at offset {offset:#x} ({at}) races with the {} at +{:#x} ({earlier}) \
                 with no barrier between",
                verb(*access),
                verb(*earlier_access),
                earlier.offset
            ),
            Finding::GlobalRace {
                at,
                access,
                earlier,
                earlier_access,
                address,
            } => write!(
                f,
                "global {} at {address:#x} ({at}) races with the {} at +{:#x} ({earlier}): \
                 workgroups of a dispatch have no order between them",
                verb(*access),
                verb(*earlier_access),
                earlier.offset
            ),
            Finding::DivergentBarrier { at, other } => write!(
                f,
                "barrier released with waves at different barriers: {at} waits here, {other} \
                 at +{:#x}",
                other.offset
            ),
            Finding::EndedAtBarrier { at, waiting } => write!(
                f,
                "{at} ended while {waiting} waits at the barrier at +{:#x}",
                waiting.offset
            ),
        }
    }
}
