//! A user-mode AQL queue on a GPU agent.
//!
//! Buffers (each its own BO, so KFD's CREATE_QUEUE validation of
//! "address = start of a mapping of exactly this size" holds):
//! - the ring: `packets * 64` bytes, fine-grained (GTT|WRITABLE|COHERENT),
//!   host mapped, every slot's header INVALID;
//! - the queue page (4 KiB, fine-grained, host mapped): `amd_queue_t` at
//!   0 (so write/read pointers are `&write_dispatch_id`/`&read_dispatch_id`
//!   in the page's first bytes), the doorbell `amd_signal_t` (kind
//!   DOORBELL, value = doorbell address) at 256, and the u64 KFD ORs
//!   exception bits into at 320;
//! - the EOP buffer: VRAM, exactly the node's EOP size;
//! - the context-save area: fine-grained, host mapped, of the node's CWSR
//!   total size, with a `UserContextSaveAreaHeader` at each XCC slice whose
//!   `error_reason` is the queue page's error word and `error_event_id` the
//!   queue's own (SIGNAL, auto-reset) KFD event.
//!
//! `amd_queue_t` starts with no scratch; the queue's scratch handler
//! (`scratch.rs`) gives it scratch when the CP asks through
//! `queue_inactive_signal`, and frees it when the queue is destroyed.
//!
//! Submission follows the AQL protocol in `ring` and then rings the
//! doorbell through `KfdDevice::write_doorbell` with the id of the last
//! packet published. After a queue error, the next reservation destroys
//! and recreates the KFD queue over the same buffers (ring reset to
//! INVALID, both dispatch ids back to 0, error word cleared), so later
//! work on the same `Queue` runs.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard};

use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::abi::queue::{
    AMD_QUEUE_PROPERTIES_ENABLE_PROFILING, AMD_QUEUE_PROPERTIES_IS_PTR64,
    AMD_QUEUE_PROPERTIES_OFFSET, AMD_QUEUE_READ_DISPATCH_ID_OFFSET,
    AMD_QUEUE_WRITE_DISPATCH_ID_OFFSET, HSA_QUEUE_FEATURE_KERNEL_DISPATCH, HSA_QUEUE_TYPE_MULTI,
};
use aqueduct_kfd::abi::signal::{AMD_SIGNAL_KIND_DOORBELL, AMD_SIGNAL_VALUE_OFFSET};
use aqueduct_kfd::abi::{
    AmdQueue, AmdSignal, BarrierPacket, FenceScope, KernelDispatchPacket, RawPacket,
};
use aqueduct_kfd::topology::CwsrSizes;
use aqueduct_kfd::uapi::{
    CreateQueueArgs, DestroyQueueArgs, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, UserContextSaveAreaHeader,
    event_type,
};

use super::packet::{self, AqlPacket, PacketFence};
use super::ring::AqlRing;
use super::scratch::{QueueScratch, ScratchError, ScratchSetup};
use super::scratch_reclaim::ScratchReclaimError;
use crate::error::{HsaError, HsaResult, QueueCreationError, QueueError, ReservationError};
use crate::memory::{Allocation, MemoryPool};
use crate::signal::Signal;
use crate::signal::event::{EventHub, KfdEvent, QueueErrorSource};

/// Byte offset of the doorbell signal in the queue page.
pub const QUEUE_PAGE_DOORBELL_SIGNAL_OFFSET: u64 = 256;
/// Byte offset of the error-reason word in the queue page.
pub const QUEUE_PAGE_ERROR_REASON_OFFSET: u64 = 320;
const QUEUE_PAGE_SIZE: u64 = 4096;
/// In-page bits of a SOC15 doorbell offset (8 KiB doorbell page).
pub const DOORBELL_PAGE_MASK: u64 = 0x1fff;
/// Queue priority passed to KFD (normal, on a 0..=15 scale).
pub const QUEUE_PRIORITY_NORMAL: u32 = 7;
/// Smallest ring: one page of packets.
pub const MIN_QUEUE_PACKETS: u32 = 64;
/// Largest ring accepted (256 MiB).
pub const MAX_QUEUE_PACKETS: u32 = 1 << 22;

/// What a queue needs from the runtime's per-GPU state.
pub(crate) struct QueueSetup<'a> {
    pub device: Arc<dyn KfdDevice>,
    pub hub: Arc<EventHub>,
    pub gpu_id: u32,
    pub node_id: u32,
    pub fine_pool: &'a MemoryPool,
    pub device_pool: &'a MemoryPool,
    pub doorbell_page: Arc<Allocation>,
    pub cwsr: CwsrSizes,
    pub max_cu_id: u32,
    pub max_wave_id: u32,
    pub group_aperture_base_hi: u32,
    pub private_aperture_base_hi: u32,
    pub scratch: ScratchSetup,
}

#[derive(Debug)]
struct KfdQueueState {
    queue_id: u32,
    doorbell_va: u64,
}

#[derive(Debug)]
pub struct Queue {
    device: Arc<dyn KfdDevice>,
    hub: Arc<EventHub>,
    gpu_id: u32,
    ring: AqlRing,
    state: RwLock<KfdQueueState>,
    create_args: CreateQueueArgs,
    error_source: Arc<QueueErrorSource>,
    recreations: AtomicU64,
    /// The scratch handler and backing memory; shut down in Drop after the
    /// KFD queue is destroyed, before the queue page goes.
    scratch: QueueScratch,
    // Buffers, dropped after the KFD queue is destroyed (see Drop).
    _error_event: KfdEvent,
    ring_mem: Allocation,
    queue_page: Allocation,
    _eop: Allocation,
    _ctx_save: Allocation,
    doorbell_page: Arc<Allocation>,
}

/// The host address of a queue part that must be host-mapped (ring, queue
/// page), or `NotHostMapped` naming it.
pub(crate) fn host_base(a: &Allocation, what: &'static str) -> HsaResult<*mut u8> {
    a.host_ptr()
        .map(|p| p.as_ptr())
        .ok_or(QueueCreationError::NotHostMapped { part: what }.into())
}

impl Queue {
    pub(crate) fn create(setup: QueueSetup<'_>, packets: u32) -> HsaResult<Queue> {
        if !packets.is_power_of_two() || !(MIN_QUEUE_PACKETS..=MAX_QUEUE_PACKETS).contains(&packets)
        {
            return Err(QueueCreationError::PacketCount {
                packets,
                min: MIN_QUEUE_PACKETS,
                max: MAX_QUEUE_PACKETS,
            }
            .into());
        }
        let ring_bytes = packets as u64 * 64;
        let ring_mem = setup.fine_pool.allocate(ring_bytes)?;
        let queue_page = setup.fine_pool.allocate(QUEUE_PAGE_SIZE)?;
        let eop = setup
            .device_pool
            .allocate(setup.cwsr.eop_buffer_size as u64)?;
        let ctx_save = setup.fine_pool.allocate(setup.cwsr.total_size())?;
        let error_event = setup
            .hub
            .create_event(event_type::SIGNAL, true, setup.node_id)?;

        let qbase = host_base(&queue_page, "queue page")?;
        let qva = queue_page.gpu_va();
        let doorbell_signal_va = qva + QUEUE_PAGE_DOORBELL_SIGNAL_OFFSET;
        let error_reason_va = qva + QUEUE_PAGE_ERROR_REASON_OFFSET;
        // SAFETY: amd_queue_t and the error word lie in the queue page, which the Queue frees only
        // after shutting the scratch handler down (Drop).
        let scratch = unsafe {
            QueueScratch::start(
                setup.scratch,
                qbase.cast::<AmdQueue>(),
                qbase
                    .add(QUEUE_PAGE_ERROR_REASON_OFFSET as usize)
                    .cast::<AtomicU64>(),
                setup.hub.clone(),
                setup.device.clone(),
                error_event.event_id,
            )
        }
        .map_err(|source| QueueCreationError::ScratchHandler { source })?;

        // SAFETY: the ring BO holds exactly `packets` 64-byte slots; the dispatch ids are aligned u64s in the queue page; all live as long as the Queue.
        let ring = unsafe {
            AqlRing::from_raw_parts(
                std::ptr::NonNull::new(host_base(&ring_mem, "ring")?.cast::<RawPacket>())
                    .ok_or(QueueCreationError::NotHostMapped { part: "ring" })?,
                packets,
                std::ptr::NonNull::new_unchecked(
                    qbase.add(AMD_QUEUE_WRITE_DISPATCH_ID_OFFSET).cast::<u64>(),
                ),
                std::ptr::NonNull::new_unchecked(
                    qbase.add(AMD_QUEUE_READ_DISPATCH_ID_OFFSET).cast::<u64>(),
                ),
            )?
        };

        let amd_queue = AmdQueue {
            queue_type: HSA_QUEUE_TYPE_MULTI,
            features: HSA_QUEUE_FEATURE_KERNEL_DISPATCH,
            base_address: ring_mem.gpu_va(),
            doorbell_signal: doorbell_signal_va,
            size: packets,
            group_segment_aperture_base_hi: setup.group_aperture_base_hi,
            private_segment_aperture_base_hi: setup.private_aperture_base_hi,
            max_cu_id: setup.max_cu_id,
            max_wave_id: setup.max_wave_id,
            read_dispatch_id_field_base_byte_offset: AMD_QUEUE_READ_DISPATCH_ID_OFFSET as u32,
            queue_properties: AMD_QUEUE_PROPERTIES_IS_PTR64,
            // No scratch yet (every scratch field 0): the CP asks for it through this signal.
            queue_inactive_signal: scratch.signal_handle(),
            // No dispatch has used scratch (ROCr's `AqlQueue` constructor).
            scratch_last_used_index: u64::MAX,
            alt_scratch_last_used_index: u64::MAX,
            ..AmdQueue::default()
        };
        let doorbell_signal = AmdSignal {
            kind: AMD_SIGNAL_KIND_DOORBELL,
            ..Default::default()
        };
        // SAFETY: the queue page is a fresh 4 KiB host-mapped BO; these writes are in bounds and precede queue creation.
        unsafe {
            qbase.cast::<AmdQueue>().write_volatile(amd_queue);
            qbase
                .add(QUEUE_PAGE_DOORBELL_SIGNAL_OFFSET as usize)
                .cast::<AmdSignal>()
                .write_volatile(doorbell_signal);
            qbase
                .add(QUEUE_PAGE_ERROR_REASON_OFFSET as usize)
                .cast::<u64>()
                .write_volatile(0);
        }
        ring.reset();

        let cbase = host_base(&ctx_save, "context-save area")?;
        let cwsr = setup.cwsr;
        for xcc in 0..cwsr.num_xcc {
            let header = UserContextSaveAreaHeader {
                debug_offset: cwsr.cwsr_size,
                debug_size: cwsr.debug_memory_size,
                error_reason: error_reason_va,
                error_event_id: error_event.event_id,
                ..Default::default()
            };
            let off = cwsr.xcc_slice_offset(xcc) as usize;
            // SAFETY: each XCC slice starts inside the context-save BO (total_size covers all slices), and the header is 8-byte aligned there.
            unsafe {
                cbase
                    .add(off)
                    .cast::<UserContextSaveAreaHeader>()
                    .write_volatile(header)
            };
        }

        let create_args = CreateQueueArgs {
            ring_base_address: ring_mem.gpu_va(),
            write_pointer_address: qva + AMD_QUEUE_WRITE_DISPATCH_ID_OFFSET as u64,
            read_pointer_address: qva + AMD_QUEUE_READ_DISPATCH_ID_OFFSET as u64,
            ring_size: ring_bytes as u32,
            gpu_id: setup.gpu_id,
            queue_type: KFD_IOC_QUEUE_TYPE_COMPUTE_AQL,
            queue_percentage: 100,
            queue_priority: QUEUE_PRIORITY_NORMAL,
            eop_buffer_address: eop.gpu_va(),
            eop_buffer_size: cwsr.eop_buffer_size as u64,
            ctx_save_restore_address: ctx_save.gpu_va(),
            ctx_save_restore_size: cwsr.cwsr_size,
            ctl_stack_size: cwsr.ctl_stack_size,
            ..Default::default()
        };
        // SAFETY: error_reason_va is an aligned u64 of the queue page, which the queue (and so every holder of the source through it) keeps mapped.
        let error_source = Arc::new(unsafe {
            QueueErrorSource::new(0, setup.gpu_id, error_reason_va, error_event.event_id)
        });
        let mut queue = Queue {
            device: setup.device.clone(),
            hub: setup.hub.clone(),
            gpu_id: setup.gpu_id,
            ring,
            state: RwLock::new(KfdQueueState {
                queue_id: 0,
                doorbell_va: 0,
            }),
            create_args,
            error_source,
            recreations: AtomicU64::new(0),
            scratch,
            _error_event: error_event,
            ring_mem,
            queue_page,
            _eop: eop,
            _ctx_save: ctx_save,
            doorbell_page: setup.doorbell_page,
        };
        let state = queue.create_kfd_queue()?;
        *queue.state.get_mut().unwrap_or_else(|p| p.into_inner()) = state;
        queue.hub.register_queue(queue.error_source.clone());
        tracing::debug!(
            queue_id = queue.id(),
            gpu_id = queue.gpu_id,
            packets,
            "created AQL queue"
        );
        Ok(queue)
    }

    fn qbase(&self) -> *mut u8 {
        self.queue_page.gpu_va() as *mut u8
    }

    /// CREATE_QUEUE with the fixed arguments; fills in the doorbell.
    fn create_kfd_queue(&self) -> HsaResult<KfdQueueState> {
        let mut args = self.create_args;
        self.device
            .create_queue(&mut args)
            .map_err(|source| QueueCreationError::CreateQueue {
                gpu_id: self.gpu_id,
                source,
            })?;
        let page_offset = args.doorbell_offset & !DOORBELL_PAGE_MASK;
        if page_offset != self.doorbell_page.mmap_offset() {
            tracing::warn!(
                doorbell_offset = format_args!("{:#x}", args.doorbell_offset),
                page = format_args!("{:#x}", self.doorbell_page.mmap_offset()),
                "CREATE_QUEUE's doorbell is not in this GPU's doorbell page"
            );
        }
        let doorbell_va = self.doorbell_page.gpu_va() + (args.doorbell_offset & DOORBELL_PAGE_MASK);
        let qbase = self.qbase();
        // SAFETY: in-bounds fields of the live queue page; the device does not write these.
        unsafe {
            (*qbase.cast::<AmdQueue>()).id = args.queue_id as u64;
            let value =
                qbase.add(QUEUE_PAGE_DOORBELL_SIGNAL_OFFSET as usize + AMD_SIGNAL_VALUE_OFFSET);
            AtomicU64::from_ptr(value.cast::<u64>()).store(doorbell_va, Ordering::Release);
        }
        self.error_source
            .queue_id
            .store(args.queue_id, Ordering::Relaxed);
        self.scratch.set_doorbell(doorbell_va);
        Ok(KfdQueueState {
            queue_id: args.queue_id,
            doorbell_va,
        })
    }

    fn error_word(&self) -> &AtomicU64 {
        // SAFETY: an aligned u64 in the live queue page; KFD/device ORs bits into it atomically.
        unsafe {
            AtomicU64::from_ptr(
                self.qbase()
                    .add(QUEUE_PAGE_ERROR_REASON_OFFSET as usize)
                    .cast::<u64>(),
            )
        }
    }

    /// The KFD queue id (changes if the queue was recreated).
    pub fn id(&self) -> u32 {
        self.error_source.queue_id.load(Ordering::Relaxed)
    }
    pub fn gpu_id(&self) -> u32 {
        self.gpu_id
    }
    /// Size in packets.
    pub fn size(&self) -> u32 {
        self.ring.size()
    }
    /// Address of the queue's `amd_queue_t` (what `hsa_queue_t*` is).
    pub fn amd_queue_va(&self) -> u64 {
        self.queue_page.gpu_va()
    }
    pub fn ring_va(&self) -> u64 {
        self.ring_mem.gpu_va()
    }
    pub fn doorbell_va(&self) -> u64 {
        self.state
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .doorbell_va
    }
    /// `read_dispatch_id`: packets the device has consumed.
    pub fn read_index(&self) -> u64 {
        self.ring.read_id().load(Ordering::Acquire)
    }
    /// `write_dispatch_id`: slots reserved so far.
    pub fn write_index(&self) -> u64 {
        self.ring.write_id().load(Ordering::Acquire)
    }
    /// Turn the CP's timestamps in completion signals on or off for
    /// packets launched from now on: `AMD_QUEUE_PROPERTIES_ENABLE_PROFILING`
    /// in `amd_queue_t.queue_properties`, which the CP reads (ROCr's
    /// `hsa_amd_profiling_set_profiler_enabled`, `Queue::SetProfiling`).
    pub fn set_profiling(&self, enabled: bool) {
        // SAFETY: queue_properties is an aligned u32 of the live queue page; the CP only reads it.
        let properties = unsafe {
            AtomicU32::from_ptr(self.qbase().add(AMD_QUEUE_PROPERTIES_OFFSET).cast::<u32>())
        };
        if enabled {
            properties.fetch_or(AMD_QUEUE_PROPERTIES_ENABLE_PROFILING, Ordering::Release);
        } else {
            properties.fetch_and(!AMD_QUEUE_PROPERTIES_ENABLE_PROFILING, Ordering::Release);
        }
    }

    /// Times the KFD queue was recreated after an error.
    pub fn recreations(&self) -> u64 {
        self.recreations.load(Ordering::Relaxed)
    }
    /// Why the queue last could not be given the scratch a dispatch asked
    /// for (the queue was then put in error).
    pub fn scratch_error(&self) -> Option<ScratchError> {
        self.scratch.error()
    }
    /// Bytes of scratch backing memory the queue holds now.
    pub fn scratch_size(&self) -> u64 {
        self.scratch.backing_size()
    }
    /// Times scratch backing memory was allocated for the queue.
    pub fn scratch_allocations(&self) -> u32 {
        self.scratch.allocations()
    }
    /// Take the queue's scratch back while it runs, once the dispatches
    /// using it are done (waiting at most `scratch_reclaim::RECLAIM_WAIT`;
    /// ROCr `AqlQueue::AsyncReclaimMainScratch`); the next dispatch with
    /// private memory gets fresh scratch. The bytes freed.
    pub fn reclaim_scratch(&self) -> Result<u64, ScratchReclaimError> {
        self.scratch.reclaim()
    }

    /// The queue's pending error, if the device reported one.
    pub fn error(&self) -> Option<QueueError> {
        self.hub.queue_error(&self.error_source)
    }

    /// Recover now from an error instead of on the next reservation:
    /// destroy and recreate the KFD queue if it is in error, so the
    /// signals of the packets it dropped are marked failed at once (and
    /// whoever waits on them, a soft queue's barrier too, learns of it).
    pub fn recover(&self) -> HsaResult<()> {
        self.recover_if_needed()
    }

    /// Destroy and recreate the KFD queue if it is in error.
    fn recover_if_needed(&self) -> HsaResult<()> {
        if self.error_word().load(Ordering::Acquire) == 0 {
            return Ok(());
        }
        let mut state = self.state.write().unwrap_or_else(|p| p.into_inner());
        let bits = self.error_word().load(Ordering::Acquire);
        if bits == 0 {
            return Ok(());
        }
        let err = self.error();
        tracing::warn!(queue_id = state.queue_id, error = ?err, "recreating AQL queue after an error");
        let dropped = self.ring.pending_completion_signals();
        let mut destroy = DestroyQueueArgs {
            queue_id: state.queue_id,
            pad: 0,
        };
        if let Err(e) = self.device.destroy_queue(&mut destroy) {
            tracing::warn!(
                queue_id = state.queue_id,
                "DESTROY_QUEUE of a failed queue: {e}"
            );
        }
        if let Some(err) = err {
            // The packets still in the ring will never run: their signals
            // fail with this error, and waits begun before now see it too.
            self.hub.record_failed_signals(&dropped, &err);
            self.hub.record_recovered(err);
        }
        self.ring.reset();
        self.error_word().store(0, Ordering::Release);
        self.hub.clear_memory_fault(self.gpu_id);
        *state = self.create_kfd_queue()?;
        self.recreations.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Reserve `count` consecutive slots. Publish packets with
    /// [`Reservation::write`]; the doorbell rings when the reservation is
    /// committed or dropped (unwritten slots become no-op packets). A queue
    /// in error is recreated first.
    pub fn reserve(&self, count: u32) -> HsaResult<Reservation<'_>> {
        self.recover_if_needed()?;
        self.reserve_unless_failed(count)
    }

    /// Reserve like [`Queue::reserve`], but a queue in error is an error
    /// (`HsaError::QueueError`) instead of being recreated. For a writer
    /// that counts the work a fault dropped itself: it must learn of the
    /// fault before its own packets go into a new ring, or the dropped
    /// packets' completions would go uncounted while its own are counted.
    pub fn reserve_unless_failed(&self, count: u32) -> HsaResult<Reservation<'_>> {
        let guard = self.state.read().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = self.error() {
            return Err(e.into());
        }
        let first = self
            .ring
            .reserve(count, &|| self.error().map(HsaError::from))?;
        Ok(Reservation {
            queue: self,
            state: guard,
            first,
            count,
            written: vec![false; count as usize],
            done: false,
        })
    }

    /// Submit one packet (a queue in error is recreated first); returns its
    /// dispatch id.
    pub fn submit(&self, packet: &impl AqlPacket) -> HsaResult<u64> {
        Self::publish(self.reserve(1)?, packet)
    }

    /// [`Queue::submit`] through [`Queue::reserve_unless_failed`].
    pub fn submit_unless_failed(&self, packet: &impl AqlPacket) -> HsaResult<u64> {
        Self::publish(self.reserve_unless_failed(1)?, packet)
    }

    fn publish(mut r: Reservation<'_>, packet: &impl AqlPacket) -> HsaResult<u64> {
        r.write(0, packet)?;
        let id = r.index(0);
        r.commit();
        Ok(id)
    }

    pub fn submit_dispatch(&self, packet: &KernelDispatchPacket) -> HsaResult<u64> {
        self.submit(packet)
    }

    /// A barrier-AND (system-scope fences, barrier bit set) on up to 5
    /// signals.
    pub fn submit_barrier_and(
        &self,
        deps: &[&Signal],
        completion: Option<&Signal>,
    ) -> HsaResult<u64> {
        let deps: Vec<u64> = deps.iter().map(|s| s.handle()).collect();
        let p = packet::barrier_and(
            &deps,
            completion.map_or(0, |s| s.handle()),
            PacketFence::SYSTEM_ORDERED,
        )?;
        self.submit(&p)
    }

    /// A barrier-OR (system-scope fences, barrier bit set) on up to 5
    /// signals.
    pub fn submit_barrier_or(
        &self,
        deps: &[&Signal],
        completion: Option<&Signal>,
    ) -> HsaResult<u64> {
        let deps: Vec<u64> = deps.iter().map(|s| s.handle()).collect();
        let p = packet::barrier_or(
            &deps,
            completion.map_or(0, |s| s.handle()),
            PacketFence::SYSTEM_ORDERED,
        )?;
        self.submit(&p)
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        self.hub.unregister_queue(&self.error_source);
        let queue_id = self
            .state
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .queue_id;
        if let Err(e) = self
            .device
            .destroy_queue(&mut DestroyQueueArgs { queue_id, pad: 0 })
        {
            tracing::warn!(queue_id, "DESTROY_QUEUE: {e}");
        }
        // No CP reads the scratch fields any more: stop the handler, free the backing.
        self.scratch.shut_down();
    }
}

/// Slots reserved on a queue, published one by one, doorbell rung once.
pub struct Reservation<'q> {
    queue: &'q Queue,
    state: RwLockReadGuard<'q, KfdQueueState>,
    first: u64,
    count: u32,
    written: Vec<bool>,
    done: bool,
}

impl Reservation<'_> {
    /// Dispatch id of the `i`-th reserved slot.
    pub fn index(&self, i: u32) -> u64 {
        self.first + i as u64
    }
    pub fn len(&self) -> u32 {
        self.count
    }
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Write and publish the `i`-th packet (once per slot).
    pub fn write(&mut self, i: u32, packet: &impl AqlPacket) -> HsaResult<()> {
        let slot = self
            .written
            .get_mut(i as usize)
            .ok_or(ReservationError::SlotOutOfRange {
                slot: i,
                count: self.count,
            })?;
        if *slot {
            return Err(ReservationError::SlotPublished { slot: i }.into());
        }
        self.queue
            .ring
            .publish(self.first + i as u64, &packet.to_raw());
        *slot = true;
        Ok(())
    }

    /// Mark the `count` slots from `i` on written: each inside the
    /// reservation and unwritten.
    fn claim(&mut self, i: u32, count: u32) -> HsaResult<()> {
        let end = i.checked_add(count).filter(|&e| e <= self.count);
        let Some(slots) = end.map(|end| &mut self.written[i as usize..end as usize]) else {
            return Err(ReservationError::SlotsOutOfRange {
                first: i,
                end: u64::from(i) + u64::from(count),
                count: self.count,
            }
            .into());
        };
        if slots.iter().any(|&w| w) {
            return Err(ReservationError::SlotsPublished {
                first: i,
                end: i + count,
            }
            .into());
        }
        slots.fill(true);
        Ok(())
    }

    /// Write and publish the same packet into `count` slots from `i` on
    /// (each unwritten): a run of identical packets without a per-slot
    /// conversion.
    pub fn write_repeated(&mut self, i: u32, count: u32, packet: &RawPacket) -> HsaResult<()> {
        let signal = packet.0[super::ring::COMPLETION_SIGNAL_WORD];
        self.write_repeated_signalled(i, count, packet, signal, 0)
    }

    /// [`Reservation::write_repeated`] with the `k`-th copy completing the
    /// signal at `signal + k * stride` instead of the packet's own (a
    /// profiled run: each packet's stamps in a signal of its own).
    pub fn write_repeated_signalled(
        &mut self,
        i: u32,
        count: u32,
        packet: &RawPacket,
        signal: u64,
        stride: u64,
    ) -> HsaResult<()> {
        self.claim(i, count)?;
        for k in 0..u64::from(count) {
            self.queue.ring.publish_signalled(
                self.first + u64::from(i) + k,
                packet,
                signal.wrapping_add(k.wrapping_mul(stride)),
            );
        }
        Ok(())
    }

    /// Ring the doorbell (after filling unwritten slots with no-ops).
    pub fn commit(mut self) {
        self.finish();
    }

    fn finish(&mut self) {
        if self.done {
            return;
        }
        self.done = true;
        let nop: BarrierPacket = packet::nop(PacketFence {
            barrier: false,
            acquire: FenceScope::None,
            release: FenceScope::None,
        });
        for i in 0..self.count {
            if !self.written[i as usize] {
                self.queue
                    .ring
                    .publish(self.first + i as u64, &nop.to_raw());
            }
        }
        self.queue
            .device
            .write_doorbell(self.state.doorbell_va, self.first + self.count as u64 - 1);
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.finish();
    }
}
