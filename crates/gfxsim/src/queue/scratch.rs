//! The command processor's scratch (private segment) rules for a dispatch.
//!
//! What one wave may ask for, as the COMPUTE_TMPRING_SIZE register bounds it:
//! gfx11 programs a wave's scratch size in COMPUTE_TMPRING_SIZE.WAVESIZE, a
//! 15-bit field in units of 256 bytes (Linux `gc_11_0_0_sh_mask.h`,
//! `COMPUTE_TMPRING_SIZE__WAVESIZE_MASK`; ROCr `amd_aql_queue.cpp`,
//! `AqlQueue::FillComputeTmpRingSize`, rounds a wave's bytes up to
//! `mem_alignment_size` and asserts the field does not overflow). A dispatch
//! whose private segment needs more per wave than that field can hold can
//! never be given scratch: it is a malformed dispatch for the queue, raised
//! before any memory is sized for it.
//!
//! Where the scratch comes from: the runtime, through the queue's
//! `amd_queue_t` (ROCr `inc/amd_hsa_queue.h`; filled by
//! `AqlQueue::InitScratchSRD`): `scratch_backing_memory_location` (the GPU
//! address of the backing memory: gfx9 and later take a queue scratch base,
//! `GpuAgent::AcquireQueueMainScratch`), `scratch_backing_memory_byte_size`,
//! `scratch_wave64_lane_byte_size` (bytes per lane of a 64-lane wave) and
//! `compute_tmpring_size` (WAVESIZE per wave, WAVES wave slots per shader
//! engine on gfx11, `AqlQueue::FillComputeTmpRingSize_Gfx11`). A dispatch
//! with private memory launches only if they cover one of its waves and
//! one of its workgroups ([`QueueScratch::grant`]); otherwise the CP lets
//! the packets before it finish, stores the insufficient-scratch code into
//! `queue_inactive_signal` (bit 0, plus bit 10 for a wave32 dispatch: ROCr
//! `AqlQueue::DynamicQueueEventsHandler` tests `error_code & 0x401` and
//! `HandleInsufficientScratch` reads the wave size from bit 10) and stops
//! the queue before that packet, until the runtime stores 0 there; then it
//! reads the fields again. After a dispatch launched while the queue's
//! properties say USE_SCRATCH_ONCE, the CP stops the same way with code 512
//! (ROCr's "large scratch reclaim") once that dispatch is done, so the
//! runtime can free the backing memory.
//!
//! Asynchronous reclaim: when the queue connects, the CP sets
//! `AMD_QUEUE_CAPS_ASYNC_RECLAIM` in `amd_queue_t.caps` (ROCr
//! `inc/amd_hsa_queue.h`: "set by CP FW on queue-connect"), and from then on
//! stores the dispatch id of each dispatch with private memory into
//! `scratch_last_used_index` before it reads the scratch fields for it. The
//! runtime reclaims (ROCr `AqlQueue::AsyncReclaimMainScratch`) by zeroing
//! `scratch_wave64_lane_byte_size`, exchanging `scratch_last_used_index`
//! with u64::MAX and waiting until `read_dispatch_id` is past the index it
//! got; both sides put a sequentially consistent fence between their store
//! and their read, so either the CP sees the zeroed size (the dispatch does
//! not fit, and the queue stops for scratch as it would with none) or the
//! runtime sees the dispatch's index and waits for it. A dispatch that ran
//! on backing memory freed under it is reported when it completes
//! ([`ScratchInUse`]).

use std::sync::atomic::{Ordering, fence};

use aqueduct_isa::{Access, ScratchBacking};
use aqueduct_kfd::abi::queue::{
    AMD_QUEUE_CAPS_ASYNC_RECLAIM, AMD_QUEUE_CAPS_OFFSET, AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE,
    AMD_QUEUE_SCRATCH_LAST_USED_INDEX_OFFSET,
};
use aqueduct_kfd::abi::{
    AMD_SIGNAL_EVENT_ID_OFFSET, AMD_SIGNAL_EVENT_MAILBOX_OFFSET, AMD_SIGNAL_VALUE_OFFSET, AmdQueue,
};
use aqueduct_kfd::uapi::exception_code;

use crate::fault::QueueError;
use crate::memory::vm::VmView;
use crate::topology::SHADER_ENGINES;

/// Bytes of one COMPUTE_TMPRING_SIZE.WAVESIZE unit on gfx11.
pub const WAVESIZE_GRANULE: u64 = 256;
/// Largest COMPUTE_TMPRING_SIZE.WAVESIZE value (a 15-bit field on gfx11).
pub const WAVESIZE_MAX: u64 = (1 << 15) - 1;
/// COMPUTE_TMPRING_SIZE on gfx11: WAVES in bits 11:0, WAVESIZE in bits 26:12
/// (Linux `gc_11_0_0_sh_mask.h`).
pub const TMPRING_WAVES_MASK: u32 = 0xfff;
pub const TMPRING_WAVESIZE_SHIFT: u32 = 12;

/// `queue_inactive_signal` codes: insufficient scratch (bit 0), for a wave32
/// dispatch (bit 10), and the reclaim of use-once scratch (ROCr
/// `AqlQueue::DynamicQueueEventsHandler`).
pub const INACTIVE_INSUFFICIENT_SCRATCH: u64 = 0x1;
pub const INACTIVE_WAVE32: u64 = 0x400;
pub const INACTIVE_RECLAIM_USE_ONCE: u64 = 512;

/// The scratch fields of a queue's `amd_queue_t`, as the CP reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueScratch {
    pub compute_tmpring_size: u32,
    pub backing_location: u64,
    pub backing_byte_size: u64,
    pub wave64_lane_byte_size: u32,
    pub queue_properties: u32,
    pub inactive_signal: u64,
    /// The scratch buffer resource the runtime wrote (gfx90a's private
    /// segment buffer).
    pub resource: [u32; 4],
}

/// What the queue offers a dispatch with private memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScratchGrant {
    /// Its waves' private memory lives in `backing`; at most `wave_slots`
    /// waves hold scratch at once.
    Granted {
        backing: ScratchBacking,
        wave_slots: u64,
        /// The runtime gave this backing for one dispatch (USE_SCRATCH_ONCE).
        use_once: bool,
    },
    /// Not enough: the CP stops the queue with `code`.
    Insufficient { code: u64 },
}

impl QueueScratch {
    /// Read the fields from the `amd_queue_t` at `amd_queue`.
    pub fn read(view: &VmView<'_>, amd_queue: u64) -> Result<QueueScratch, QueueError> {
        let q: AmdQueue = view
            .read(amd_queue)
            .map_err(|e| QueueError::cp_fault(e, "reading the queue's scratch fields"))?;
        Ok(QueueScratch {
            compute_tmpring_size: q.compute_tmpring_size,
            backing_location: q.scratch_backing_memory_location,
            backing_byte_size: q.scratch_backing_memory_byte_size,
            wave64_lane_byte_size: q.scratch_wave64_lane_byte_size,
            queue_properties: q.queue_properties,
            inactive_signal: q.queue_inactive_signal,
            resource: q.scratch_resource_descriptor,
        })
    }

    /// Bytes of one wave slot: COMPUTE_TMPRING_SIZE.WAVESIZE in bytes.
    pub fn wave_slot_bytes(&self) -> u64 {
        (u64::from(self.compute_tmpring_size >> TMPRING_WAVESIZE_SHIFT) & WAVESIZE_MAX)
            * WAVESIZE_GRANULE
    }

    /// Wave slots of the backing memory: WAVES per shader engine
    /// (`FillComputeTmpRingSize_Gfx11`), no more than the backing holds.
    pub fn wave_slots(&self) -> u64 {
        let waves = u64::from(self.compute_tmpring_size & TMPRING_WAVES_MASK) * SHADER_ENGINES;
        match self.wave_slot_bytes() {
            0 => 0,
            bytes => waves.min(self.backing_byte_size / bytes),
        }
    }

    /// Whether the queue's scratch holds a dispatch of `private_segment_size`
    /// bytes per work-item in waves of `lanes` lanes, `waves_per_group` waves
    /// per workgroup: backing memory exists, a wave slot holds one wave's
    /// private memory (WAVESIZE, and the per-lane size the runtime recorded
    /// for a 64-lane wave, `InitScratchSRD`), and the slots hold a workgroup.
    pub fn grant(
        &self,
        private_segment_size: u32,
        lanes: u64,
        waves_per_group: u64,
    ) -> ScratchGrant {
        let wave_bytes = wave_scratch_bytes(private_segment_size, lanes);
        let lane_bytes = u64::from(private_segment_size) * lanes;
        let enough = self.backing_location != 0
            && self.backing_byte_size != 0
            && self.wave_slot_bytes() >= wave_bytes
            && u64::from(self.wave64_lane_byte_size) * 64 >= lane_bytes
            && self.wave_slots() >= waves_per_group;
        if enough {
            ScratchGrant::Granted {
                backing: ScratchBacking {
                    base: self.backing_location,
                    wave_bytes: self.wave_slot_bytes(),
                    resource: self.resource,
                },
                wave_slots: self.wave_slots(),
                use_once: self.queue_properties & AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE != 0,
            }
        } else {
            let wave32 = if lanes == 32 { INACTIVE_WAVE32 } else { 0 };
            ScratchGrant::Insufficient {
                code: INACTIVE_INSUFFICIENT_SCRATCH | wave32,
            }
        }
    }
}

/// Set `AMD_QUEUE_CAPS_ASYNC_RECLAIM` in the `amd_queue_t` at `amd_queue`,
/// as CP firmware with asynchronous scratch reclaim does when a queue
/// connects. `caps` shares an aligned 8-byte word with reserved bits, so
/// it is set through that word.
pub fn advertise_async_reclaim(view: &VmView<'_>, amd_queue: u64) -> Result<(), QueueError> {
    view.atomic_u64(amd_queue + AMD_QUEUE_CAPS_OFFSET as u64, Access::Atomic)
        .map_err(|e| QueueError::cp_fault(e, "setting the queue's capabilities"))?
        .fetch_or(u64::from(AMD_QUEUE_CAPS_ASYNC_RECLAIM), Ordering::Release);
    Ok(())
}

/// Record dispatch `index` as the last one to use the scratch of the queue
/// whose `amd_queue_t` is at `amd_queue` (`scratch_last_used_index`), on a
/// queue with `AMD_QUEUE_CAPS_ASYNC_RECLAIM`; the fence after the store
/// orders it before the CP's read of the scratch fields (see the module
/// comment).
pub fn record_scratch_use(view: &VmView<'_>, amd_queue: u64, index: u64) -> Result<(), QueueError> {
    let caps: u32 = view
        .read(amd_queue + AMD_QUEUE_CAPS_OFFSET as u64)
        .map_err(|e| QueueError::cp_fault(e, "reading the queue's capabilities"))?;
    if caps & AMD_QUEUE_CAPS_ASYNC_RECLAIM == 0 {
        return Ok(());
    }
    view.atomic_u64(
        amd_queue + AMD_QUEUE_SCRATCH_LAST_USED_INDEX_OFFSET as u64,
        Access::Write,
    )
    .map_err(|e| QueueError::cp_fault(e, "storing scratch_last_used_index"))?
    .store(index, Ordering::SeqCst);
    fence(Ordering::SeqCst);
    Ok(())
}

/// The backing memory a launched dispatch's waves use: its address and
/// the handle of the BO mapped there at launch. If that BO is gone when
/// the dispatch completes, memory was freed under running waves (a runtime
/// that reclaimed scratch too early); the CP reports it instead of letting
/// the waves' private data land in whatever took its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScratchInUse {
    pub base: u64,
    pub handle: u64,
}

impl ScratchInUse {
    /// The BO mapped at `base` now.
    pub fn at(view: &VmView<'_>, base: u64) -> Option<ScratchInUse> {
        view.find(base).map(|m| ScratchInUse {
            base,
            handle: m.handle,
        })
    }

    /// Whether the same BO is still mapped at `base`; an error naming
    /// packet `index` if not.
    pub fn check(&self, view: &VmView<'_>, index: u64) -> Result<(), QueueError> {
        if ScratchInUse::at(view, self.base) == Some(*self) {
            return Ok(());
        }
        Err(QueueError::packet(
            exception_code::EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID,
            format!(
                "packet {index}: its scratch backing memory at {:#x} was freed while its waves \
                 used it",
                self.base
            ),
        ))
    }
}

/// Store `code` into the `queue_inactive_signal` at `signal` and post its
/// event the way a completion signal's is posted (mailbox, then the
/// interrupt): the event id to raise once the view is released, if any.
pub fn raise_inactive(
    view: &VmView<'_>,
    signal: u64,
    code: u64,
) -> Result<Option<u32>, QueueError> {
    view.atomic_u64(signal + AMD_SIGNAL_VALUE_OFFSET as u64, Access::Atomic)
        .map_err(|e| QueueError::cp_fault(e, "storing into queue_inactive_signal"))?
        .store(code, Ordering::Release);
    let mailbox: u64 = view
        .read(signal + AMD_SIGNAL_EVENT_MAILBOX_OFFSET as u64)
        .map_err(|e| QueueError::cp_fault(e, "reading a signal's mailbox"))?;
    if mailbox == 0 {
        return Ok(None);
    }
    let event_id: u32 = view
        .read(signal + AMD_SIGNAL_EVENT_ID_OFFSET as u64)
        .map_err(|e| QueueError::cp_fault(e, "reading a signal's event id"))?;
    view.atomic_u64(mailbox, Access::Write)
        .map_err(|e| QueueError::cp_fault(e, "writing an event mailbox"))?
        .store(u64::from(event_id), Ordering::Release);
    Ok(Some(event_id))
}

/// The value of the `queue_inactive_signal` at `signal` (0: the queue may go on).
pub fn inactive_value(view: &VmView<'_>, signal: u64) -> Result<u64, QueueError> {
    Ok(view
        .atomic_u64(signal + AMD_SIGNAL_VALUE_OFFSET as u64, Access::Read)
        .map_err(|e| QueueError::cp_fault(e, "reading queue_inactive_signal"))?
        .load(Ordering::Acquire))
}

/// Scratch bytes one wave of `lanes` lanes needs for `private_segment_size`
/// bytes per work-item, rounded up to the WAVESIZE granule (ROCr
/// `AqlQueue::HandleInsufficientScratch`: `size_per_thread` aligned to
/// `mem_alignment_size / lanes_per_wave`).
pub fn wave_scratch_bytes(private_segment_size: u32, lanes: u64) -> u64 {
    (u64::from(private_segment_size) * lanes).next_multiple_of(WAVESIZE_GRANULE)
}

/// Refuse a private segment no wave of `lanes` lanes can be given: more
/// than WAVESIZE's largest value per wave.
pub fn check_private_segment(
    index: u64,
    private_segment_size: u32,
    lanes: u64,
) -> Result<(), QueueError> {
    let wave_bytes = wave_scratch_bytes(private_segment_size, lanes);
    let limit = WAVESIZE_MAX * WAVESIZE_GRANULE;
    if wave_bytes > limit {
        return Err(QueueError::packet(
            exception_code::EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID,
            format!(
                "packet {index}: private segment {private_segment_size} bytes per work-item \
                 needs {wave_bytes} bytes of scratch per wave of {lanes} lanes, more than \
                 COMPUTE_TMPRING_SIZE.WAVESIZE can hold ({limit})"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(tmpring_waves: u32, wavesize: u32, size: u64, lane64: u32) -> QueueScratch {
        QueueScratch {
            compute_tmpring_size: wavesize << TMPRING_WAVESIZE_SHIFT | tmpring_waves,
            backing_location: 0x10_0000,
            backing_byte_size: size,
            wave64_lane_byte_size: lane64,
            queue_properties: 0,
            inactive_signal: 0x2000,
            resource: [0; 4],
        }
    }

    /// Each rule of `grant` refuses on its own: no backing, a wave slot too
    /// small (WAVESIZE or the wave64 lane size), too few slots for a workgroup.
    #[test]
    fn each_scratch_rule_refuses_on_its_own() {
        // 64 bytes per lane, wave32: 2048 bytes per wave = 8 granules; 32 lanes of a wave64.
        let ok = queue(2, 8, 2 * SHADER_ENGINES * 2048, 32);
        assert_eq!(ok.wave_slots(), 2 * SHADER_ENGINES);
        let granted = ok.grant(64, 32, 4);
        assert!(
            matches!(granted, ScratchGrant::Granted { backing, wave_slots: 12, use_once: false }
                if backing.wave_bytes == 2048 && backing.base == 0x10_0000),
            "{granted:?}"
        );
        let wave32 = ScratchGrant::Insufficient {
            code: INACTIVE_INSUFFICIENT_SCRATCH | INACTIVE_WAVE32,
        };
        let mut none = ok;
        none.backing_location = 0;
        assert_eq!(none.grant(64, 32, 4), wave32);
        assert_eq!(queue(2, 7, 1 << 20, 32).grant(64, 32, 4), wave32);
        assert_eq!(queue(2, 8, 1 << 20, 31).grant(64, 32, 4), wave32);
        assert_eq!(ok.grant(64, 32, 13), wave32);
        // WAVES beyond what the backing holds do not count.
        assert_eq!(queue(100, 8, 2048 * 3, 32).wave_slots(), 3);
        // A wave64 dispatch's code has no wave32 bit.
        assert_eq!(
            ok.grant(40, 64, 1),
            ScratchGrant::Insufficient {
                code: INACTIVE_INSUFFICIENT_SCRATCH
            }
        );
    }

    #[test]
    fn the_largest_wave_fits_and_one_granule_more_does_not() {
        // 131068 bytes per lane of a wave64 is 32767 granules exactly.
        let per_lane = (WAVESIZE_MAX * WAVESIZE_GRANULE / 64) as u32;
        assert!(check_private_segment(0, per_lane, 64).is_ok());
        assert!(check_private_segment(0, per_lane + 4, 64).is_err());
        // A wave32 may ask for twice as much per lane.
        assert!(check_private_segment(0, 2 * per_lane, 32).is_ok());
        let e = check_private_segment(3, u32::MAX, 64).unwrap_err();
        assert_eq!(
            e.code,
            exception_code::EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID
        );
    }
}
