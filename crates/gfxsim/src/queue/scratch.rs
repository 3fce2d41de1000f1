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
//! GFX9 parts (gfx90a, gfx942) read COMPUTE_TMPRING_SIZE differently
//! ([`TmpringLayout`]): WAVESIZE is a 13-bit field (bits 24:12) in units of
//! 1 KiB (Linux `gc_9_4_3_sh_mask.h`, `COMPUTE_TMPRING_SIZE__WAVESIZE_MASK`;
//! ROCr `AqlQueue::FillComputeTmpRingSize`: "specified in terms of
//! kilobytes", `mem_alignment_size` 1024 before gfx11), and WAVES counts
//! the wave slots of one XCC, not of one shader engine. On a multi-XCC part
//! each XCC has its own COMPUTE_TMPRING_SIZE of the same value and its own
//! share of the backing memory: `FillComputeTmpRingSize` computes WAVES
//! from `main_size / NumXcc`, so the XCCs hold WAVES slots each and a
//! workgroup (which runs on one XCC) must fit in one XCC's slots. Which
//! slots a wave takes is not visible to a kernel with architected flat
//! scratch, so the job hands out the XCCs' slots as one pool.
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
use crate::part::SimPart;
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

/// GFX9's COMPUTE_TMPRING_SIZE: WAVESIZE in bits 24:12, units of 1 KiB
/// (Linux `gc_9_4_3_sh_mask.h`); WAVES in bits 11:0 as on gfx11.
pub const GFX9_WAVESIZE_GRANULE: u64 = 1024;
pub const GFX9_WAVESIZE_MAX: u64 = (1 << 13) - 1;

/// How a part's command processors read COMPUTE_TMPRING_SIZE (module
/// comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TmpringLayout {
    /// Bytes of one WAVESIZE unit.
    pub granule: u64,
    /// The largest WAVESIZE value.
    pub wavesize_max: u64,
    /// Wave slots one unit of WAVES stands for on one XCC (gfx11: one per
    /// shader engine; GFX9: one).
    pub waves_scale: u64,
    /// XCCs, each with WAVES (scaled) slots and an equal share of the backing.
    pub xccs: u64,
}

impl TmpringLayout {
    /// gfx11's layout (the RX 7900 XTX's shader engines).
    pub const GFX11: TmpringLayout = TmpringLayout {
        granule: WAVESIZE_GRANULE,
        wavesize_max: WAVESIZE_MAX,
        waves_scale: SHADER_ENGINES,
        xccs: 1,
    };

    /// GFX9's layout on a part of `xccs` XCCs.
    pub const fn gfx9(xccs: u64) -> TmpringLayout {
        TmpringLayout {
            granule: GFX9_WAVESIZE_GRANULE,
            wavesize_max: GFX9_WAVESIZE_MAX,
            waves_scale: 1,
            xccs,
        }
    }

    /// The layout `part`'s command processors read.
    pub fn of(part: SimPart) -> TmpringLayout {
        match part.isa_kind() {
            aqueduct_isa::Isa::Gfx11 => TmpringLayout::GFX11,
            aqueduct_isa::Isa::Gfx9(_) => TmpringLayout::gfx9(part.properties().num_xcc.max(1)),
        }
    }

    /// Scratch bytes one wave of `lanes` lanes needs for
    /// `private_segment_size` bytes per work-item, rounded up to the
    /// WAVESIZE granule (ROCr `AqlQueue::HandleInsufficientScratch`:
    /// `size_per_thread` aligned to `mem_alignment_size / lanes_per_wave`).
    pub fn wave_bytes(&self, private_segment_size: u32, lanes: u64) -> u64 {
        (u64::from(private_segment_size) * lanes).next_multiple_of(self.granule)
    }
}

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
    /// How the part reads `compute_tmpring_size`.
    pub layout: TmpringLayout,
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
    /// Read the fields from the `amd_queue_t` at `amd_queue`, for a part
    /// reading COMPUTE_TMPRING_SIZE as `layout` says.
    pub fn read(
        view: &VmView<'_>,
        amd_queue: u64,
        layout: TmpringLayout,
    ) -> Result<QueueScratch, QueueError> {
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
            layout,
        })
    }

    /// Bytes of one wave slot: COMPUTE_TMPRING_SIZE.WAVESIZE in bytes.
    pub fn wave_slot_bytes(&self) -> u64 {
        let l = &self.layout;
        (u64::from(self.compute_tmpring_size >> TMPRING_WAVESIZE_SHIFT) & l.wavesize_max)
            * l.granule
    }

    /// Wave slots of one XCC: WAVES per shader engine on gfx11
    /// (`FillComputeTmpRingSize_Gfx11`), per XCC on GFX9
    /// (`FillComputeTmpRingSize`), no more than the XCC's share of the
    /// backing holds.
    pub fn xcc_wave_slots(&self) -> u64 {
        let l = &self.layout;
        let waves = u64::from(self.compute_tmpring_size & TMPRING_WAVES_MASK) * l.waves_scale;
        match self.wave_slot_bytes() {
            0 => 0,
            bytes => waves.min(self.backing_byte_size / l.xccs.max(1) / bytes),
        }
    }

    /// Wave slots of the backing memory, every XCC's together.
    pub fn wave_slots(&self) -> u64 {
        self.xcc_wave_slots() * self.layout.xccs.max(1)
    }

    /// Whether the queue's scratch holds a dispatch of `private_segment_size`
    /// bytes per work-item in waves of `lanes` lanes, `waves_per_group` waves
    /// per workgroup: backing memory exists, a wave slot holds one wave's
    /// private memory (WAVESIZE, and the per-lane size the runtime recorded
    /// for a 64-lane wave, `InitScratchSRD`), and one XCC's slots hold a
    /// workgroup.
    pub fn grant(
        &self,
        private_segment_size: u32,
        lanes: u64,
        waves_per_group: u64,
    ) -> ScratchGrant {
        let wave_bytes = self.layout.wave_bytes(private_segment_size, lanes);
        let lane_bytes = u64::from(private_segment_size) * lanes;
        // A workgroup runs on one XCC: that XCC's slots must hold it.
        let enough = self.backing_location != 0
            && self.backing_byte_size != 0
            && self.wave_slot_bytes() >= wave_bytes
            && u64::from(self.wave64_lane_byte_size) * 64 >= lane_bytes
            && self.xcc_wave_slots() >= waves_per_group;
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

/// Refuse a private segment no wave of `lanes` lanes can be given: more
/// than WAVESIZE's largest value (in `layout`) per wave.
pub fn check_private_segment(
    index: u64,
    private_segment_size: u32,
    lanes: u64,
    layout: TmpringLayout,
) -> Result<(), QueueError> {
    let wave_bytes = layout.wave_bytes(private_segment_size, lanes);
    let limit = layout.wavesize_max * layout.granule;
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
            layout: TmpringLayout::GFX11,
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
        let gfx11 = TmpringLayout::GFX11;
        let per_lane = (WAVESIZE_MAX * WAVESIZE_GRANULE / 64) as u32;
        assert!(check_private_segment(0, per_lane, 64, gfx11).is_ok());
        assert!(check_private_segment(0, per_lane + 4, 64, gfx11).is_err());
        // A wave32 may ask for twice as much per lane.
        assert!(check_private_segment(0, 2 * per_lane, 32, gfx11).is_ok());
        // GFX9: 8191 KiB per wave, 131056 bytes per lane of a wave64.
        let gfx9 = TmpringLayout::gfx9(8);
        let per_lane = (GFX9_WAVESIZE_MAX * GFX9_WAVESIZE_GRANULE / 64) as u32;
        assert_eq!(per_lane, 131_056);
        assert!(check_private_segment(0, per_lane, 64, gfx9).is_ok());
        assert!(check_private_segment(0, per_lane + 1, 64, gfx9).is_err());
        let e = check_private_segment(3, u32::MAX, 64, gfx11).unwrap_err();
        assert_eq!(
            e.code,
            exception_code::EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID
        );
    }

    /// GFX9 on eight XCCs: WAVESIZE in KiB, WAVES per XCC (each XCC with
    /// an eighth of the backing), a workgroup fitting one XCC's slots.
    #[test]
    fn gfx9_waves_count_per_xcc() {
        let mut q = queue(6, 2, 8 * 6 * 2048, 32);
        q.layout = TmpringLayout::of(SimPart::Mi300x);
        assert_eq!(q.layout, TmpringLayout::gfx9(8));
        assert_eq!(q.wave_slot_bytes(), 2048);
        assert_eq!(q.xcc_wave_slots(), 6);
        assert_eq!(q.wave_slots(), 48);
        // 32 bytes per lane of a wave64: 2 KiB per wave.
        assert!(matches!(
            q.grant(32, 64, 6),
            ScratchGrant::Granted { wave_slots: 48, backing, .. } if backing.wave_bytes == 2048
        ));
        // 7 waves fit the 48 slots but not one XCC's 6.
        assert_eq!(
            q.grant(32, 64, 7),
            ScratchGrant::Insufficient {
                code: INACTIVE_INSUFFICIENT_SCRATCH
            }
        );
        // A backing of half the size gives each XCC 3 slots, whatever WAVES says.
        q.backing_byte_size /= 2;
        assert_eq!(q.xcc_wave_slots(), 3);
        // One XCC (gfx90a): WAVES counts every slot.
        let mut one = queue(6, 2, 6 * 2048, 32);
        one.layout = TmpringLayout::of(SimPart::Mi210);
        assert_eq!(one.wave_slots(), 6);
        assert_eq!(TmpringLayout::of(SimPart::Rx7900Xtx), TmpringLayout::GFX11);
    }
}
