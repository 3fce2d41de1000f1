//! Per-dispatch counters: what one kernel dispatch executed (wave
//! instructions by class, global-memory bytes, workgroups and waves) and
//! the occupancy its resources allow on the hardware gfxsim models.
//!
//! Counting is off until `SimDevice::set_dispatch_counters(true)`; then
//! each dispatch the CP launches counts (`Dispatch::with_counters`) and,
//! when it completes, its record is kept under the address of its
//! packet's completion signal. That address is what the layers above the
//! KFD seam know of a packet (the facade's trace gives every dispatch a
//! signal of its own and reads the timestamps the CP writes there), so a
//! tool fetches the record with `SimDevice::dispatch_counters(signal)`
//! once it saw the signal complete. A dispatch without a completion
//! signal leaves no record. At most [`COUNTER_LOG_LIMIT`] records wait to
//! be fetched; past that the oldest go.

use std::collections::{HashMap, VecDeque};

use aqueduct_isa::gfx11::ClassCounts;
use aqueduct_kfd::abi::KernelDescriptor;

/// Records kept for fetching.
pub const COUNTER_LOG_LIMIT: usize = 1 << 16;

/// What one dispatch executed, and its occupancy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DispatchCounters {
    /// The queue's index of the dispatch packet (its dispatch id).
    pub dispatch_id: u64,
    /// The kernel descriptor's address.
    pub kernel_object: u64,
    pub grid: [u32; 3],
    pub workgroup: [u32; 3],
    /// Workgroups run.
    pub workgroups: u64,
    /// Wave instructions by class; their sum is every wave instruction.
    pub classes: ClassCounts,
    /// Bytes of global memory read and written (scalar and vector loads,
    /// stores, atomics; aqueduct-isa's traffic.rs says how ranges count).
    pub global_read_bytes: u64,
    pub global_written_bytes: u64,
    /// LDS bank-conflict cycles of the dword loads and stores (the model
    /// of aqueduct-isa's gfx11/exec/lds_banks.rs: 32 four-byte banks).
    pub lds_bank_conflicts: u64,
    pub occupancy: Occupancy,
}

/// What limits the waves a SIMD holds at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OccupancyLimit {
    /// The SIMD's wave slots (16 on gfx11).
    WaveSlots,
    /// The VGPR file.
    Vgprs,
    /// The LDS of a workgroup processor.
    Lds,
    /// The workgroup's waves go to the SIMDs in whole workgroups.
    Workgroup,
}

impl OccupancyLimit {
    pub fn name(self) -> &'static str {
        match self {
            OccupancyLimit::WaveSlots => "wave slots",
            OccupancyLimit::Vgprs => "VGPRs",
            OccupancyLimit::Lds => "LDS",
            OccupancyLimit::Workgroup => "workgroup size",
        }
    }
}

/// Waves per SIMD a kernel's resources allow, as a gfx1100 allocates them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    /// VGPRs a wave is given (the descriptor's count in allocation blocks).
    pub vgprs: u32,
    /// SGPRs the descriptor asks for (not a limit on gfx10+: every wave
    /// gets its 106).
    pub sgprs: u32,
    /// LDS bytes a workgroup is given (static plus dynamic, in blocks).
    pub lds_bytes: u32,
    pub waves_per_workgroup: u32,
    /// Waves one SIMD holds at once.
    pub waves_per_simd: u32,
    pub limit: OccupancyLimit,
}

// gfx1100's numbers, from LLVM's AMDGPUBaseInfo.cpp (IsaInfo):
// `getMaxWavesPerEU` (16 from gfx10.3 on), `getTotalNumVGPRs` (1536 for
// wave32, 768 for wave64 with Feature1_5xVGPRs, which gfx1100 has),
// `getVGPRAllocGranule` (24 / 12), `getVGPREncodingGranule` (8 / 4, the
// unit of GRANULATED_WORKITEM_VGPR_COUNT), `getOccupancyWithNumSGPRs`
// (SGPRs never limit from gfx10 on), SGPR encoding granule 8. A workgroup
// processor has 4 SIMDs and 128 KiB of LDS (RDNA3 ISA guide, "Work-group
// Processor"); LDS is allocated in 512-byte blocks (AMDGPUAsmPrinter.cpp,
// LDSAlignShift 9 from gfx7 on).
const MAX_WAVES_PER_SIMD: u32 = 16;
const SIMDS_PER_WGP: u32 = 4;
const LDS_PER_WGP: u32 = 128 * 1024;
const LDS_GRANULE: u32 = 512;

impl Occupancy {
    /// The occupancy of `descriptor`'s kernel in workgroups of
    /// `workgroup_items` work-items with `lds_bytes` of LDS.
    pub fn of(descriptor: &KernelDescriptor, workgroup_items: u32, lds_bytes: u32) -> Occupancy {
        let wave32 = descriptor.enable_wavefront_size32();
        let (lanes, total_vgprs, alloc_granule, encoding_granule) = if wave32 {
            (32, 1536, 24, 8)
        } else {
            (64, 768, 12, 4)
        };
        let used = (descriptor.granulated_workitem_vgpr_count() + 1) * encoding_granule;
        let vgprs = used.div_ceil(alloc_granule) * alloc_granule;
        let sgprs = (descriptor.granulated_wavefront_sgpr_count() + 1) * 8;
        let lds = lds_bytes.div_ceil(LDS_GRANULE) * LDS_GRANULE;
        let waves_per_workgroup = workgroup_items.div_ceil(lanes).max(1);
        let by_vgprs = (total_vgprs / vgprs.max(1)).clamp(1, MAX_WAVES_PER_SIMD);
        // Whole workgroups fit on a workgroup processor's SIMDs.
        let slots = by_vgprs * SIMDS_PER_WGP;
        let by_waves = slots / waves_per_workgroup;
        let by_lds = LDS_PER_WGP.checked_div(lds).unwrap_or(u32::MAX);
        let workgroups = by_waves.min(by_lds).max(1);
        let waves_per_simd = (workgroups * waves_per_workgroup)
            .div_ceil(SIMDS_PER_WGP)
            .min(by_vgprs);
        let limit = if by_lds < by_waves {
            OccupancyLimit::Lds
        } else if waves_per_simd < by_vgprs {
            OccupancyLimit::Workgroup
        } else if by_vgprs < MAX_WAVES_PER_SIMD {
            OccupancyLimit::Vgprs
        } else {
            OccupancyLimit::WaveSlots
        };
        Occupancy {
            vgprs,
            sgprs,
            lds_bytes: lds,
            waves_per_workgroup,
            waves_per_simd,
            limit,
        }
    }
}

/// Hashing of completion-signal addresses (distinct, 64-byte aligned) for
/// the log: one multiply (Fibonacci hashing) instead of SipHash, which cost
/// more than the dispatch itself for a traced run of tiny dispatches.
#[derive(Clone, Copy, Debug, Default)]
pub struct SignalHash;

impl std::hash::BuildHasher for SignalHash {
    type Hasher = SignalHasher;
    fn build_hasher(&self) -> SignalHasher {
        SignalHasher(0)
    }
}

/// The hasher of [`SignalHash`].
#[derive(Clone, Copy, Debug)]
pub struct SignalHasher(u64);

impl std::hash::Hasher for SignalHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x >> 6).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Completed dispatches' records by completion-signal address, with the
/// order they came in (entries of taken or replaced records stay in
/// `order` until they reach its front or it is compacted).
#[derive(Debug, Default)]
pub struct CounterLog {
    /// Each record with its insertion number.
    records: HashMap<u64, (u64, DispatchCounters), SignalHash>,
    /// (signal, insertion number), oldest first.
    order: VecDeque<(u64, u64)>,
    next: u64,
}

impl CounterLog {
    /// Keep `record` under `signal` (a later dispatch with the same signal
    /// replaces it).
    pub fn insert(&mut self, signal: u64, record: DispatchCounters) {
        let seq = self.next;
        self.next += 1;
        self.records.insert(signal, (seq, record));
        self.order.push_back((signal, seq));
        if self.order.len() > 2 * COUNTER_LOG_LIMIT {
            let records = &self.records;
            self.order
                .retain(|(s, n)| records.get(s).is_some_and(|(m, _)| m == n));
        }
        while self.records.len() > COUNTER_LOG_LIMIT {
            let Some((old, n)) = self.order.pop_front() else {
                break;
            };
            if self.records.get(&old).is_some_and(|(m, _)| *m == n) {
                self.records.remove(&old);
            }
        }
    }

    /// Take the record kept under `signal`.
    pub fn take(&mut self, signal: u64) -> Option<DispatchCounters> {
        self.records.remove(&signal).map(|(_, record)| record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A descriptor with the given granulated VGPR count and wave size.
    fn descriptor(vgpr_blocks: u32, wave32: bool) -> KernelDescriptor {
        let mut bytes = [0u8; 64];
        // compute_pgm_rsrc1 at offset 48: GRANULATED_WORKITEM_VGPR_COUNT in bits 0..6.
        bytes[48..52].copy_from_slice(&vgpr_blocks.to_le_bytes());
        // kernel_code_properties at offset 56: ENABLE_WAVEFRONT_SIZE32 is bit 10.
        let props: u16 = if wave32 { 1 << 10 } else { 0 };
        bytes[56..58].copy_from_slice(&props.to_le_bytes());
        KernelDescriptor::from_bytes(&bytes)
    }

    #[test]
    fn few_vgprs_fill_the_wave_slots() {
        // 8 VGPRs (one encoding block) round up to 24: 1536 / 24 = 64 > 16.
        let o = Occupancy::of(&descriptor(0, true), 256, 0);
        assert_eq!(o.vgprs, 24);
        assert_eq!(o.waves_per_workgroup, 8);
        assert_eq!(o.waves_per_simd, 16);
        assert_eq!(o.limit, OccupancyLimit::WaveSlots);
    }

    #[test]
    fn many_vgprs_limit_the_waves() {
        // 128 VGPRs (16 blocks of 8) are 6 blocks of 24 = 144: 1536 / 144 = 10.
        let o = Occupancy::of(&descriptor(15, true), 64, 0);
        assert_eq!(o.vgprs, 144);
        assert_eq!(o.waves_per_simd, 10);
        assert_eq!(o.limit, OccupancyLimit::Vgprs);
    }

    #[test]
    fn lds_limits_the_workgroups() {
        // 48 KiB per workgroup: two fit in 128 KiB, 2 x 8 waves over 4 SIMDs = 4.
        let o = Occupancy::of(&descriptor(0, true), 256, 48 * 1024);
        assert_eq!(o.lds_bytes, 48 * 1024);
        assert_eq!(o.waves_per_simd, 4);
        assert_eq!(o.limit, OccupancyLimit::Lds);
    }

    #[test]
    fn the_log_forgets_taken_records() {
        let mut log = CounterLog::default();
        let record = DispatchCounters {
            dispatch_id: 7,
            kernel_object: 0x1000,
            grid: [1; 3],
            workgroup: [1; 3],
            workgroups: 1,
            classes: ClassCounts::default(),
            global_read_bytes: 0,
            global_written_bytes: 0,
            lds_bank_conflicts: 0,
            occupancy: Occupancy::of(&descriptor(0, true), 1, 0),
        };
        log.insert(0x40, record.clone());
        assert_eq!(log.take(0x40), Some(record));
        assert_eq!(log.take(0x40), None);
    }
}
