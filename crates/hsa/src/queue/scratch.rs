//! A queue's scratch (private segment) memory, provided the way ROCr does.
//!
//! The command processor takes each wave's private memory from the queue's
//! `amd_queue_t` scratch fields (ROCr `inc/amd_hsa_queue.h`). A queue
//! starts with none (ROCr's `AqlQueue` constructor calls `InitScratchSRD`
//! with no main scratch: every field 0), so kernels without private memory
//! cost nothing. The first dispatch that needs scratch stops the queue: the
//! CP stores the insufficient-scratch code into the queue's
//! `queue_inactive_signal` (bit 0; bit 10 for wave32). Each queue has a
//! handler thread ("aqueduct-scratch") blocked on that signal, as ROCr's
//! `hsa_amd_signal_async_handler` thread runs
//! `AqlQueue::DynamicQueueEventsHandler`, so nothing the user calls is
//! needed. On that code it reads the stopped packet (at `read_dispatch_id`)
//! and, as `AqlQueue::HandleInsufficientScratch` and
//! `GpuAgent::AcquireQueueMainScratch` do:
//! - sizes a lane's bytes up to the granule (`mem_alignment_size / lanes`:
//!   256 bytes per wave on gfx11, 1 KiB before) and the backing for every
//!   scratch slot of the device (compute units rounded up to the shader
//!   engines, times `max_slots_scratch_cu`);
//! - past the queue's single limit (ROCr's `HSA_SCRATCH_SINGLE_LIMIT`,
//!   140 MiB by default) it sizes only the slots the dispatch can fill and
//!   marks the queue USE_SCRATCH_ONCE ("large" scratch); still past the
//!   limit, it lowers the slots (occupancy) to what the limit holds, down to
//!   one workgroup's waves per engine; below that the request fails: the
//!   queue is put in error (a packet error, as the CP's own scratch limit
//!   raises) and [`Queue::scratch_error`](super::Queue::scratch_error)
//!   names the sizes;
//! - frees the old backing (the CP let earlier packets finish first),
//!   allocates the new one in the agent's device pool (mapped for the
//!   agent), writes the scratch fields (`InitScratchSRD`: the buffer
//!   descriptor, the backing address and size, the wave64 lane size and
//!   COMPUTE_TMPRING_SIZE: on gfx11 WAVES per shader engine and WAVESIZE
//!   in 256 bytes (`FillComputeTmpRingSize_Gfx11`); on GFX9 WAVES per XCC,
//!   from the backing divided by the XCCs, and WAVESIZE in KiB, a 13-bit
//!   field (`FillComputeTmpRingSize`)) and resumes the queue by storing 0.
//!
//! On code 512 (the CP finished the use-once dispatch) it takes the backing
//! back and clears the fields and USE_SCRATCH_ONCE, then resumes: a large
//! request does not stay with the queue (ROCr's "large scratch reclaim").
//! The backing goes to the agent's scratch cache, as ROCr's
//! `GpuAgent::ReleaseQueueScratch` marks its `ScratchCache` node free
//! (`core/inc/scratch_cache.h`) rather than freeing the memory: the next
//! use-once request of that size, on any queue of the agent, takes it
//! without a device allocation (and reads what the last dispatch left,
//! as on hardware). The cache is emptied when the agent's scratch is
//! reclaimed and when a device allocation finds no memory
//! (`scratch_reclaim.rs`), as ROCr's `GpuAgent::Trim` trims its cache.
//! Unlike ROCr's, which lets a large request take any larger free node,
//! only a backing of the request's own size is reused, so the fields
//! describe what the request was sized for. On a queue
//! whose CP supports asynchronous reclaim, the limit is the lower of the
//! single limit and the agent's async limit, and scratch within it stays
//! with the queue until it is reclaimed (`scratch_reclaim.rs`: on request,
//! past the async limit, or for a device allocation that found no memory)
//! or the queue is destroyed.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::abi::queue::AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE;
use aqueduct_kfd::abi::{AmdQueue, KernelDispatchPacket};
use aqueduct_kfd::uapi::{SetEventArgs, exception_code};

use super::scratch_reclaim::{AgentScratch, ScratchReclaimError};
use crate::error::HsaError;
use crate::memory::{Allocation, MemoryPool};
use crate::signal::event::{EventHub, INITIAL_EVENT_AGE};
use crate::signal::{MemoryOrder, Signal};

/// ROCr's default `HSA_SCRATCH_SINGLE_LIMIT` (`core/util/flag.h`).
pub const DEFAULT_SCRATCH_SINGLE_LIMIT: u64 = 146_800_640;
/// Bytes of scratch a wave's size is rounded to on gfx11 (ROCr's
/// `mem_alignment_size`; COMPUTE_TMPRING_SIZE.WAVESIZE's unit).
pub const WAVE_SCRATCH_GRANULE: u64 = 256;
/// The largest COMPUTE_TMPRING_SIZE.WAVESIZE (15 bits on gfx11).
const WAVESIZE_MAX: u64 = (1 << 15) - 1;
/// GFX9's granule (ROCr's `mem_alignment_size` before gfx11: WAVESIZE in
/// KiB) and largest WAVESIZE (13 bits, 24:12: Linux `gc_9_4_3_sh_mask.h`).
pub const GFX9_WAVE_SCRATCH_GRANULE: u64 = 1024;
const GFX9_WAVESIZE_MAX: u64 = (1 << 13) - 1;
/// COMPUTE_TMPRING_SIZE on gfx11: WAVES in bits 11:0, WAVESIZE in 26:12.
const TMPRING_WAVES_MAX: u64 = 0xfff;
const TMPRING_WAVESIZE_SHIFT: u32 = 12;
/// `queue_inactive_signal` codes (ROCr `DynamicQueueEventsHandler`).
const CODE_INSUFFICIENT_SCRATCH: i64 = 0x1;
const CODE_WAVE32: i64 = 0x400;
const CODE_RECLAIM_USE_ONCE: i64 = 512;
/// What queue destroy stores to end the handler (as ROCr's `~AqlQueue`).
const CODE_TERMINATE: i64 = i64::MIN;
/// What the handler leaves in the signal after a request it cannot meet
/// (ROCr stores -1 when its handler ends on an error); queue recreation
/// stores 0 again.
const CODE_FAILED: i64 = -1;

/// Why a queue could not be given the scratch a dispatch needs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScratchError {
    /// Even one workgroup's waves on each shader engine need more than the
    /// queue may hold.
    #[error(
        "packet {packet}: {private_segment_size} bytes of private memory per work-item need \
         {needed} bytes of scratch for one workgroup's waves per shader engine, more than the \
         queue's scratch limit of {limit} bytes"
    )]
    ExceedsLimit {
        packet: u64,
        private_segment_size: u32,
        needed: u64,
        limit: u64,
    },
    /// The device pool could not give the backing memory.
    #[error("packet {packet}: allocating {size} bytes of scratch failed: {reason}")]
    Allocation {
        packet: u64,
        size: u64,
        reason: String,
    },
    /// The packet the queue stopped at is not a dispatch with private memory.
    #[error("packet {packet}: the queue asked for scratch for a packet that needs none")]
    NotScratchDispatch { packet: u64 },
    /// The CP asked again for the packet it was just given `size` bytes for.
    #[error("packet {packet}: the queue asked again after it was given {size} bytes of scratch")]
    Refused { packet: u64, size: u64 },
}

/// The agent's scratch geometry and the queue's limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScratchLimits {
    /// Compute units (ROCr: `max_cu_id + 1`).
    pub compute_units: u64,
    /// Shader engines (libhsakmt's NumShaderBanks).
    pub shader_engines: u64,
    /// Scratch wave slots per compute unit (`max_slots_scratch_cu`).
    pub slots_per_cu: u64,
    /// XCCs of the agent (`num_xcc`): each gets an equal share of the
    /// backing and WAVES slots of its own (GFX9).
    pub xccs: u64,
    /// The most scratch the queue holds (ROCr's scratch single limit).
    pub single_limit: u64,
    /// The layout of the agent's buffer descriptors.
    pub srd: SrdLayout,
}

/// Which buffer resource (V#) layout the agent's scratch descriptor takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SrdLayout {
    /// GFX9 (gfx90a, gfx942): DST_SEL, NUM_FORMAT/DATA_FORMAT,
    /// ELEMENT_SIZE, INDEX_STRIDE, ADD_TID_ENABLE in word 3,
    /// SWIZZLE_ENABLE in word 1 bit 31.
    Gfx9,
    /// gfx11: FORMAT, ADD_TID_ENABLE, OOB_SELECT in word 3, SWIZZLE_ENABLE
    /// in word 1 bits 31:30.
    Gfx11,
}

impl SrdLayout {
    /// The layout of a GPU of `gfx_target_version` (major * 10000 + ...).
    pub fn for_gfx_target_version(version: u64) -> SrdLayout {
        if version / 10000 < 10 {
            SrdLayout::Gfx9
        } else {
            SrdLayout::Gfx11
        }
    }
}

impl ScratchLimits {
    /// Bytes of one COMPUTE_TMPRING_SIZE.WAVESIZE unit (ROCr's
    /// `mem_alignment_size`: 256 from gfx11 on, 1024 before).
    pub fn wave_granule(&self) -> u64 {
        match self.srd {
            SrdLayout::Gfx9 => GFX9_WAVE_SCRATCH_GRANULE,
            SrdLayout::Gfx11 => WAVE_SCRATCH_GRANULE,
        }
    }

    /// Scratch wave slots of the whole device (ROCr `calc_device_slots`).
    fn device_slots(&self) -> u64 {
        self.compute_units
            .next_multiple_of(self.shader_engines.max(1))
            * self.slots_per_cu
    }
}

/// How much scratch a stopped dispatch gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScratchPlan {
    /// Bytes per lane (the dispatch's, rounded to the granule).
    pub lane_bytes: u64,
    pub lanes: u64,
    /// Wave slots the backing holds.
    pub slots: u64,
    /// Backing bytes (whole pages).
    pub size: u64,
    /// Given for this dispatch only (USE_SCRATCH_ONCE).
    pub use_once: bool,
}

impl ScratchPlan {
    /// Plan the scratch for `packet` (the dispatch at index `index`) in waves
    /// of `lanes` lanes, as `HandleInsufficientScratch` and
    /// `AcquireQueueMainScratch` size it (see the module comment).
    pub fn new(
        limits: &ScratchLimits,
        index: u64,
        packet: &KernelDispatchPacket,
        lanes: u64,
    ) -> Result<ScratchPlan, ScratchError> {
        let private = packet.private_segment_size;
        let lane_bytes = u64::from(private).next_multiple_of(limits.wave_granule() / lanes);
        let wave_bytes = lane_bytes * lanes;
        let dims = (packet.setup & 3).clamp(1, 3) as usize;
        let wg = [
            u64::from(packet.workgroup_size_x),
            u64::from(packet.workgroup_size_y),
            u64::from(packet.workgroup_size_z),
        ];
        let grid = [
            u64::from(packet.grid_size_x),
            u64::from(packet.grid_size_y),
            u64::from(packet.grid_size_z),
        ];
        let mut items = 1u64;
        let mut groups = 1u64;
        for d in 0..dims {
            items *= wg[d].max(1);
            groups *= grid[d].div_ceil(wg[d].max(1));
        }
        let waves_per_group = items.div_ceil(lanes).max(1);
        let engines = limits.shader_engines.max(1);
        let device_slots = limits.device_slots();
        // Workgroups spread over every engine (`calc_dispatch_groups` returns
        // a multiple of the engines), so each engine's WAVES holds one.
        let dispatch_slots = groups
            .next_multiple_of(engines)
            .saturating_mul(waves_per_group)
            .min(device_slots);
        let page = |slots: u64| (slots * wave_bytes).next_multiple_of(4096);
        let limit = limits.single_limit;
        let plan = |slots: u64, use_once: bool| ScratchPlan {
            lane_bytes,
            lanes,
            slots,
            size: page(slots),
            use_once,
        };
        if page(device_slots) <= limit {
            return Ok(plan(device_slots, false));
        }
        if page(dispatch_slots) <= limit {
            return Ok(plan(dispatch_slots, true));
        }
        // Lower occupancy: whole workgroups on every engine, as many as fit
        // (`AcquireQueueMainScratch`'s last resort). A workgroup runs on one
        // XCC, whose share of the backing must hold it (the CP grants no
        // less), so a multi-XCC agent needs a workgroup's waves per XCC.
        let step = (waves_per_group * limits.xccs.max(1)).next_multiple_of(engines);
        let slots = (limit / wave_bytes.max(1)) / step * step;
        if slots == 0 {
            return Err(ScratchError::ExceedsLimit {
                packet: index,
                private_segment_size: private,
                needed: page(step),
                limit,
            });
        }
        Ok(plan(slots, true))
    }

    /// The `amd_queue_t` scratch fields for a backing at `base`
    /// (`AqlQueue::InitScratchSRD`; COMPUTE_TMPRING_SIZE as
    /// `FillComputeTmpRingSize_Gfx11` or, on GFX9, `FillComputeTmpRingSize`
    /// writes it).
    fn write_fields(&self, q: &mut AmdQueue, base: u64, limits: &ScratchLimits) {
        let wave_bytes = self.lane_bytes * self.lanes;
        let max_waves = limits.compute_units * limits.slots_per_cu;
        let (wavesize, waves) = match limits.srd {
            SrdLayout::Gfx11 => {
                let engines = limits.shader_engines.max(1);
                let waves = self.size / wave_bytes.max(1) / engines;
                ((wave_bytes / WAVE_SCRATCH_GRANULE).min(WAVESIZE_MAX), waves)
            }
            SrdLayout::Gfx9 => {
                // Each XCC's share of the backing.
                let waves = self.size / limits.xccs.max(1) / wave_bytes.max(1);
                let wavesize = (wave_bytes / GFX9_WAVE_SCRATCH_GRANULE).min(GFX9_WAVESIZE_MAX);
                (wavesize, waves)
            }
        };
        let waves = waves.min(max_waves).min(TMPRING_WAVES_MAX);
        q.compute_tmpring_size = ((wavesize << TMPRING_WAVESIZE_SHIFT) | waves) as u32;
        q.scratch_resource_descriptor = scratch_srd(limits.srd, base, self.size);
        q.scratch_backing_memory_location = base;
        q.scratch_backing_memory_byte_size = self.size;
        q.scratch_wave64_lane_byte_size = (wave_bytes / 64) as u32;
        if self.use_once {
            q.queue_properties |= AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE;
        } else {
            q.queue_properties &= !AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE;
        }
    }
}

/// The scratch buffer descriptor ROCr writes (`AqlQueue::FillBufRsrcWord0..3`
/// and their `_Gfx11` forms): the backing's base, swizzled with stride 0,
/// NUM_RECORDS = size, DST_SEL X, Y, Z, W, a 32-bit uint format and
/// ADD_TID_ENABLE. GFX9 adds ELEMENT_SIZE 4 bytes and INDEX_STRIDE 64
/// lanes (the swizzle gfx90a's MUBUF scratch accesses use; Mesa
/// `src/amd/common/sid.h` SQ_BUF_RSRC_WORD1/3 for the GFX6-9 bits); gfx11
/// has OOB_SELECT 2 (no bounds check) instead. Architected flat scratch
/// (gfx11, gfx942) does not read it; debuggers and older code objects do.
fn scratch_srd(layout: SrdLayout, base: u64, size: u64) -> [u32; 4] {
    let word3 = scratch_srd_word3(layout);
    if base == 0 {
        return [0, 0, 0, word3];
    }
    let swizzle = match layout {
        SrdLayout::Gfx9 => 1 << 31,
        SrdLayout::Gfx11 => 1 << 30,
    };
    let word1 = ((base >> 32) as u32 & 0xffff) | swizzle;
    [
        base as u32,
        word1,
        size.min(u64::from(u32::MAX)) as u32,
        word3,
    ]
}

/// Word 3: DST_SEL_XYZW = X, Y, Z, W (SQ_SEL_X..W = 4..7) and TYPE =
/// buffer (0) in both; GFX9: NUM_FORMAT = UINT (4) at 14:12, DATA_FORMAT =
/// 32 (4) at 18:15, ELEMENT_SIZE = 1 (4 bytes) at 20:19, INDEX_STRIDE = 3
/// (64) at 22:21, ADD_TID_ENABLE at 23 (ATC, HASH_ENABLE, HEAP, MTYPE 0:
/// a discrete GPU); gfx11: FORMAT = 32_UINT (20) at 18:12, ADD_TID_ENABLE
/// at 23, OOB_SELECT = 2 at 29:28.
fn scratch_srd_word3(layout: SrdLayout) -> u32 {
    let sel = 4 | 5 << 3 | 6 << 6 | 7 << 9;
    match layout {
        SrdLayout::Gfx9 => sel | 4 << 12 | 4 << 15 | 1 << 19 | 3 << 21 | 1 << 23,
        SrdLayout::Gfx11 => sel | 20 << 12 | 1 << 23 | 2 << 28,
    }
}

/// The queue's host view of its `amd_queue_t` and ring (CPU VA = GPU VA).
#[derive(Debug)]
struct QueueMemory {
    amd_queue: *mut AmdQueue,
    error_word: *const AtomicU64,
}

// SAFETY: the pointers address the queue page, which the Queue keeps mapped until it has joined
// the handler thread; the fields the handler writes are the runtime's (the CP only reads them
// while the queue is stopped), and the error word is accessed atomically.
unsafe impl Send for QueueMemory {}
// SAFETY: as for Send.
unsafe impl Sync for QueueMemory {}

/// What the handler thread shares with its queue.
#[derive(Debug)]
pub(crate) struct ScratchShared {
    memory: QueueMemory,
    signal: Signal,
    hub: Arc<EventHub>,
    device: Arc<dyn KfdDevice>,
    pool: MemoryPool,
    limits: ScratchLimits,
    /// The queue's error event (raised with the error word when scratch
    /// cannot be given).
    error_event_id: u32,
    /// The current KFD doorbell (changes when the queue is recreated).
    doorbell_va: AtomicU64,
    backing: Mutex<Option<Allocation>>,
    /// The packet scratch was last given for, and the size.
    last_grant: Mutex<Option<(u64, u64)>>,
    error: Mutex<Option<ScratchError>>,
    stop: AtomicBool,
    /// Times backing memory was allocated (for tests and tracing).
    allocations: AtomicU32,
    /// Held while a request is served or a reclaim runs: never both.
    busy: Mutex<()>,
    /// The agent's queues and async limit.
    agent: Arc<AgentScratch>,
}

/// What `Queue::create` hands to [`QueueScratch::start`].
pub(crate) struct ScratchSetup {
    pub device_pool: MemoryPool,
    pub signal: Signal,
    pub limits: ScratchLimits,
    pub agent: Arc<AgentScratch>,
}

/// A queue's scratch: its handler thread and backing memory.
#[derive(Debug)]
pub(crate) struct QueueScratch {
    shared: Arc<ScratchShared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl QueueScratch {
    /// Start the handler of the queue whose `amd_queue_t` is at `amd_queue`
    /// (the queue page's host address) with its error word at `error_word`.
    ///
    /// # Safety
    /// `amd_queue` and `error_word` stay valid (mapped, aligned) until the
    /// returned value is dropped.
    pub(crate) unsafe fn start(
        setup: ScratchSetup,
        amd_queue: *mut AmdQueue,
        error_word: *const AtomicU64,
        hub: Arc<EventHub>,
        device: Arc<dyn KfdDevice>,
        error_event_id: u32,
    ) -> std::io::Result<QueueScratch> {
        let shared = Arc::new(ScratchShared {
            memory: QueueMemory {
                amd_queue,
                error_word,
            },
            signal: setup.signal,
            hub,
            device,
            pool: setup.device_pool,
            limits: setup.limits,
            error_event_id,
            doorbell_va: AtomicU64::new(0),
            backing: Mutex::new(None),
            last_grant: Mutex::new(None),
            error: Mutex::new(None),
            stop: AtomicBool::new(false),
            allocations: AtomicU32::new(0),
            busy: Mutex::new(()),
            agent: setup.agent,
        });
        shared.agent.register(&shared);
        let handler = shared.clone();
        let thread = std::thread::Builder::new()
            .name("aqueduct-scratch".into())
            .spawn(move || handler.run())?;
        Ok(QueueScratch {
            shared,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// The `hsa_signal_t` for `amd_queue_t.queue_inactive_signal`.
    pub(crate) fn signal_handle(&self) -> u64 {
        self.shared.signal.handle()
    }

    /// The queue's KFD queue was (re)created with doorbell `va`: the CP
    /// starts running, so a stop left from a failed request ends.
    pub(crate) fn set_doorbell(&self, va: u64) {
        self.shared.doorbell_va.store(va, Ordering::Release);
        self.shared.reset_last_used();
        // Packet indices start again at 0.
        self.shared
            .last_grant
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        // Only the failed stop is cleared: the new queue's CP may already
        // have stored a request of its own, which the handler serves.
        self.shared.signal.cas(CODE_FAILED, 0, MemoryOrder::AcqRel);
    }

    /// Why the queue last could not be given scratch.
    pub(crate) fn error(&self) -> Option<ScratchError> {
        self.shared
            .error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Bytes of backing memory the queue holds now.
    pub(crate) fn backing_size(&self) -> u64 {
        self.shared.backing_size()
    }

    /// Take the queue's scratch back (`scratch_reclaim.rs`); the bytes freed.
    pub(crate) fn reclaim(&self) -> Result<u64, ScratchReclaimError> {
        self.shared.reclaim()
    }

    pub(crate) fn allocations(&self) -> u32 {
        self.shared.allocations.load(Ordering::Relaxed)
    }

    /// Stop the handler (after the KFD queue is gone) and free the backing.
    pub(crate) fn shut_down(&self) {
        self.shared.stop.store(true, Ordering::Release);
        self.shared
            .signal
            .store(CODE_TERMINATE, MemoryOrder::Release);
        if let Some(t) = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take()
            && t.join().is_err()
        {
            tracing::error!("the scratch handler thread panicked");
        }
        self.shared
            .backing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
    }
}

impl Drop for QueueScratch {
    fn drop(&mut self) {
        self.shut_down();
    }
}

impl ScratchShared {
    /// The handler thread: wait for a nonzero code, handle it, until told to stop.
    fn run(&self) {
        let mut age = INITIAL_EVENT_AGE;
        loop {
            let code = self.signal.load(MemoryOrder::Acquire);
            if self.stop.load(Ordering::Acquire) || code == CODE_TERMINATE {
                return;
            }
            if code == 0 || code == CODE_FAILED {
                // Queue errors and exception events wake this too; the loop looks again.
                let slept = match self.signal.event_id() {
                    Some(id) => self.hub.wait_slice(Some((id, &mut age)), 100),
                    None => {
                        std::thread::sleep(Duration::from_millis(1));
                        Ok(())
                    }
                };
                if let Err(e) = slept {
                    tracing::debug!("scratch handler wait: {e}");
                    std::thread::sleep(Duration::from_millis(1));
                }
                continue;
            }
            self.handle(code);
        }
    }

    fn amd_queue(&self) -> AmdQueue {
        // SAFETY: per `QueueScratch::start`, a valid amd_queue_t; a volatile read of shared memory.
        unsafe { std::ptr::read_volatile(self.memory.amd_queue) }
    }

    /// The queue's `amd_queue_t` (valid while this lives: `QueueScratch::start`).
    pub(super) fn amd_queue_ptr(&self) -> *mut AmdQueue {
        self.memory.amd_queue
    }

    /// The queue's `queue_inactive_signal`.
    pub(super) fn signal(&self) -> &Signal {
        &self.signal
    }

    pub(super) fn busy(&self) -> std::sync::MutexGuard<'_, ()> {
        self.busy.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The busy lock, unless someone holds it.
    pub(super) fn try_busy(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        match self.busy.try_lock() {
            Ok(guard) => Some(guard),
            Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// Bytes of backing memory the queue holds now.
    pub(super) fn backing_size(&self) -> u64 {
        self.backing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map_or(0, Allocation::len)
    }

    /// Free the backing and clear the fields after a reclaim; the packet
    /// the CP stops at next may be the one last given scratch, and is
    /// served again.
    pub(super) fn release_backing(&self) {
        drop(self.set_backing(None, None));
        self.last_grant
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
    }

    /// Write `q`'s scratch fields (and properties) into the queue's
    /// `amd_queue_t`, field by field: the dispatch ids beside them change
    /// under the host's and the CP's atomics.
    fn write_scratch_fields(&self, q: &AmdQueue) {
        let p = self.memory.amd_queue;
        // SAFETY: as in `amd_queue`; each write is one in-bounds field. The CP reads these fields
        // only while the queue is stopped on the inactive signal, which is stored (release) after.
        unsafe {
            (&raw mut (*p).compute_tmpring_size).write_volatile(q.compute_tmpring_size);
            (&raw mut (*p).scratch_resource_descriptor)
                .write_volatile(q.scratch_resource_descriptor);
            (&raw mut (*p).scratch_backing_memory_location)
                .write_volatile(q.scratch_backing_memory_location);
            (&raw mut (*p).scratch_backing_memory_byte_size)
                .write_volatile(q.scratch_backing_memory_byte_size);
            (&raw mut (*p).scratch_wave64_lane_byte_size)
                .write_volatile(q.scratch_wave64_lane_byte_size);
            (&raw mut (*p).queue_properties).write_volatile(q.queue_properties);
        }
    }

    /// Serve the CP's stop, then resume the queue (or fail it). The busy
    /// lock is released before the CP resumes: once the dispatch it
    /// stopped for completes, a reclaim must find the handler idle.
    fn handle(&self, code: i64) {
        let outcome = {
            let _busy = self.busy();
            self.serve(code)
        };
        match outcome {
            Ok(()) => self.resume(),
            Err(e) => self.fail(e),
        }
    }

    /// The work of one stop, with the busy lock held.
    fn serve(&self, code: i64) -> Result<(), ScratchError> {
        if code == CODE_RECLAIM_USE_ONCE {
            if let Some(backing) = self.set_backing(None, None) {
                self.agent.cache_use_once(backing);
            }
            tracing::debug!("released use-once scratch to the agent's cache");
            return Ok(());
        }
        if code & (CODE_INSUFFICIENT_SCRATCH | CODE_WAVE32) == 0 {
            tracing::warn!("queue_inactive_signal code {code:#x} is not a scratch request");
            return Ok(());
        }
        let lanes = if code & CODE_WAVE32 != 0 { 32 } else { 64 };
        self.grow(lanes)
    }

    /// Give the queue scratch for the packet it stopped at.
    fn grow(&self, lanes: u64) -> Result<(), ScratchError> {
        let q = self.amd_queue();
        let index = q.read_dispatch_id;
        let slot = q.base_address + (index % u64::from(q.size.max(1))) * 64;
        // SAFETY: the ring is host mapped at its GPU address, and the packet at read_dispatch_id
        // is published and held by the stopped CP.
        let packet: KernelDispatchPacket =
            unsafe { std::ptr::read_volatile(slot as *const KernelDispatchPacket) };
        if packet.private_segment_size == 0 {
            return Err(ScratchError::NotScratchDispatch { packet: index });
        }
        let mut last = self.last_grant.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((packet, size)) = *last
            && packet == index
        {
            return Err(ScratchError::Refused { packet, size });
        }
        let limits = if self.async_reclaim() {
            ScratchLimits {
                single_limit: self.limits.single_limit.min(self.agent.async_limit()),
                ..self.limits
            }
        } else {
            self.limits
        };
        let plan = ScratchPlan::new(&limits, index, &packet, lanes)?;
        // The old backing goes first: the CP stopped after the packets using it finished.
        drop(self.set_backing(None, None));
        let cached = if plan.use_once {
            self.agent.take_use_once(plan.size)
        } else {
            None
        };
        let backing = match cached {
            Some(backing) => backing,
            None => {
                let backing = self.pool.allocate(plan.size).map_err(|e: HsaError| {
                    ScratchError::Allocation {
                        packet: index,
                        size: plan.size,
                        reason: e.to_string(),
                    }
                })?;
                self.allocations.fetch_add(1, Ordering::Relaxed);
                backing
            }
        };
        tracing::debug!(
            packet = index,
            size = plan.size,
            slots = plan.slots,
            use_once = plan.use_once,
            "allocated queue scratch"
        );
        self.set_backing(Some(backing), Some(&plan));
        *last = Some((index, plan.size));
        Ok(())
    }

    /// Hold `backing` (None: none) and write the fields for it; returns
    /// the backing held before.
    fn set_backing(
        &self,
        backing: Option<Allocation>,
        plan: Option<&ScratchPlan>,
    ) -> Option<Allocation> {
        let mut held = self.backing.lock().unwrap_or_else(|p| p.into_inner());
        let mut q = self.amd_queue();
        match (&backing, plan) {
            (Some(b), Some(plan)) => plan.write_fields(&mut q, b.gpu_va(), &self.limits),
            _ => {
                q.compute_tmpring_size = 0;
                q.scratch_resource_descriptor = scratch_srd(self.limits.srd, 0, 0);
                q.scratch_backing_memory_location = 0;
                q.scratch_backing_memory_byte_size = 0;
                q.scratch_wave64_lane_byte_size = 0;
                q.queue_properties &= !AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE;
            }
        }
        self.write_scratch_fields(&q);
        std::mem::replace(&mut *held, backing)
    }

    /// Let the CP go on: store 0 (release, after the fields) and ring the
    /// doorbell so a CP that cannot hear the signal's event looks again.
    fn resume(&self) {
        self.signal.store(0, MemoryOrder::Release);
        let doorbell = self.doorbell_va.load(Ordering::Acquire);
        if doorbell != 0 {
            let q = self.amd_queue();
            self.device
                .write_doorbell(doorbell, q.write_dispatch_id.saturating_sub(1));
        }
    }

    /// No scratch for the stopped packet: put the queue in error the way
    /// the CP reports a packet it cannot run (ROCr suspends the queue and
    /// reports HSA_STATUS_ERROR_OUT_OF_RESOURCES), keeping the reason.
    fn fail(&self, error: ScratchError) {
        tracing::warn!("queue scratch: {error}");
        *self.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(error);
        // The queue stays stopped until its recreation, which clears the
        // signal. The store comes before the error is published: once the
        // error word is set, the queue may be recreated at once, and a later
        // store would overwrite the request the new queue's CP stores there,
        // leaving the CP and this thread each waiting on the other.
        self.signal.store(CODE_FAILED, MemoryOrder::Release);
        let bit = exception_code::exception_mask(
            exception_code::EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID,
        );
        // SAFETY: per `QueueScratch::start`, the error word is a live aligned u64 accessed atomically.
        unsafe { &*self.memory.error_word }.fetch_or(bit, Ordering::AcqRel);
        if let Err(e) = self.device.set_event(&mut SetEventArgs {
            event_id: self.error_event_id,
            pad: 0,
        }) {
            tracing::warn!("SET_EVENT on the queue's error event: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: ScratchLimits = ScratchLimits {
        compute_units: 96,
        shader_engines: 6,
        slots_per_cu: 32,
        single_limit: DEFAULT_SCRATCH_SINGLE_LIMIT,
        srd: SrdLayout::Gfx11,
        xccs: 1,
    };

    fn dispatch(private: u32, wg: u16, grid: u32) -> KernelDispatchPacket {
        KernelDispatchPacket {
            setup: 1,
            workgroup_size_x: wg,
            workgroup_size_y: 1,
            workgroup_size_z: 1,
            grid_size_x: grid,
            grid_size_y: 1,
            grid_size_z: 1,
            private_segment_size: private,
            ..Default::default()
        }
    }

    /// Small requests fill every slot of the device and stay; larger ones
    /// get the dispatch's slots once; larger still, fewer slots; a wave
    /// that alone passes the limit is an error naming the sizes.
    #[test]
    fn scratch_is_sized_like_rocr() {
        // 64 bytes per lane of a wave32: 2 KiB per wave, 3072 slots.
        let p = ScratchPlan::new(&LIMITS, 0, &dispatch(64, 64, 256), 32).unwrap();
        assert_eq!(
            (p.lane_bytes, p.slots, p.size, p.use_once),
            (64, 3072, 6 << 20, false)
        );
        // A lane's bytes round to 256 / lanes.
        let p = ScratchPlan::new(&LIMITS, 0, &dispatch(65, 64, 256), 32).unwrap();
        assert_eq!(p.lane_bytes, 72);
        // 64 KiB per wave64 lane: 4 MiB per wave, all slots would be 12 GiB;
        // the dispatch's 4 one-wave workgroups, spread over the 6 engines,
        // fit once.
        let p = ScratchPlan::new(&LIMITS, 0, &dispatch(65536, 64, 256), 64).unwrap();
        assert_eq!((p.slots, p.size, p.use_once), (6, 24 << 20, true));
        // A grid of many waves is held to the limit, in whole workgroups per engine.
        let p = ScratchPlan::new(&LIMITS, 0, &dispatch(65536, 64, 64 * 1000), 64).unwrap();
        assert_eq!((p.slots, p.use_once), (30, true));
        assert!(p.size <= LIMITS.single_limit);
        // The largest wave64 (WAVESIZE's limit, 8 MiB): one workgroup of 16
        // waves per engine (rounded up to 18 for the 6 engines) passes the
        // 140 MiB limit.
        let e = ScratchPlan::new(&LIMITS, 7, &dispatch(131_068, 1024, 1024), 64).unwrap_err();
        assert_eq!(
            e,
            ScratchError::ExceedsLimit {
                packet: 7,
                private_segment_size: 131_068,
                needed: (18 * 131_068 * 64u64).next_multiple_of(4096),
                limit: LIMITS.single_limit,
            }
        );
    }

    /// gfx90a's descriptor: GFX9's word 1 swizzle bit and word 3 fields,
    /// the values ROCr's gfx9 `FillBufRsrcWord1`/`FillBufRsrcWord3` set.
    #[test]
    fn a_gfx9_agent_gets_the_gfx9_descriptor() {
        let limits = ScratchLimits {
            srd: SrdLayout::for_gfx_target_version(90010),
            ..LIMITS
        };
        assert_eq!(limits.srd, SrdLayout::Gfx9);
        assert_eq!(SrdLayout::for_gfx_target_version(110000), SrdLayout::Gfx11);
        let p = ScratchPlan::new(&limits, 0, &dispatch(64, 64, 256), 64).unwrap();
        let mut q = AmdQueue::default();
        p.write_fields(&mut q, 0x1234_5678_9000, &limits);
        let d = q.scratch_resource_descriptor;
        assert_eq!(d[1], 0x1234 | 1 << 31, "SWIZZLE_ENABLE, stride 0");
        let w3 = d[3];
        assert_eq!(w3 & 0xfff, 0xfac, "DST_SEL X, Y, Z, W");
        assert_eq!((w3 >> 12) & 7, 4, "NUM_FORMAT UINT");
        assert_eq!((w3 >> 15) & 15, 4, "DATA_FORMAT 32");
        assert_eq!((w3 >> 19) & 3, 1, "ELEMENT_SIZE 4");
        assert_eq!((w3 >> 21) & 3, 3, "INDEX_STRIDE 64");
        assert_eq!((w3 >> 23) & 1, 1, "ADD_TID_ENABLE");
        assert_eq!(w3 >> 24, 0, "no ATC, hash, heap, MTYPE; TYPE buffer");
    }

    /// The fields describe the backing: WAVES per engine, WAVESIZE per wave.
    #[test]
    fn the_fields_describe_the_backing() {
        let p = ScratchPlan::new(&LIMITS, 0, &dispatch(64, 64, 256), 32).unwrap();
        let mut q = AmdQueue::default();
        p.write_fields(&mut q, 0x1234_5678_9000, &LIMITS);
        assert_eq!(q.compute_tmpring_size & 0xfff, 3072 / 6);
        assert_eq!(q.compute_tmpring_size >> 12, 2048 / 256);
        assert_eq!(q.scratch_backing_memory_location, 0x1234_5678_9000);
        assert_eq!(q.scratch_backing_memory_byte_size, 6 << 20);
        assert_eq!(q.scratch_wave64_lane_byte_size, 32);
        assert_eq!(q.scratch_resource_descriptor[0], 0x5678_9000);
        assert_eq!(q.scratch_resource_descriptor[1], 0x1234 | 1 << 30);
        assert_eq!(q.scratch_resource_descriptor[2], 6 << 20);
        assert_eq!(q.scratch_resource_descriptor[3], 0x2081_4FAC);
        assert_eq!(
            q.queue_properties & AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE,
            0
        );
    }

    /// An MI300X (gfx942: 304 CUs, 32 engines, 8 XCCs): a lane rounds to
    /// 16 bytes (1 KiB per wave64), WAVESIZE counts KiB, and WAVES the
    /// slots of one XCC's eighth of the backing (ROCr
    /// `FillComputeTmpRingSize`).
    #[test]
    fn gfx9_fields_count_waves_per_xcc() {
        let limits = ScratchLimits {
            compute_units: 304,
            shader_engines: 32,
            slots_per_cu: 32,
            single_limit: DEFAULT_SCRATCH_SINGLE_LIMIT,
            srd: SrdLayout::Gfx9,
            xccs: 8,
        };
        let p = ScratchPlan::new(&limits, 0, &dispatch(20, 64, 256), 64).unwrap();
        assert_eq!(p.lane_bytes, 32);
        // 2 KiB per wave, every slot of the device: 304 CUs rounded up to
        // the 32 engines, x 32.
        assert_eq!((p.slots, p.size, p.use_once), (10240, 10240 * 2048, false));
        let mut q = AmdQueue::default();
        p.write_fields(&mut q, 0x1234_5678_9000, &limits);
        assert_eq!(q.compute_tmpring_size & 0xfff, 10240 / 8);
        assert_eq!((q.compute_tmpring_size >> 12) & 0x1fff, 2);
        assert_eq!(q.compute_tmpring_size >> 25, 0);
        assert_eq!(q.scratch_wave64_lane_byte_size, 32);
        // Past the limit, fewer slots, but each XCC's share still holds a
        // workgroup: 512 KiB per wave, 16-wave workgroups; the 140 MiB hold
        // 280 slots, whole steps of 16 waves x 8 XCCs give 256.
        let held = ScratchPlan::new(&limits, 0, &dispatch(8192, 1024, 1 << 20), 64).unwrap();
        assert!(held.use_once && held.size <= limits.single_limit);
        assert_eq!(held.slots, 256);
        let mut q = AmdQueue::default();
        held.write_fields(&mut q, 0x1234_5678_9000, &limits);
        assert_eq!(q.compute_tmpring_size & 0xfff, 32);
        // 2 MiB per wave: the 70 slots under the limit would give each XCC 8,
        // too few for one workgroup, so the request fails instead.
        let e = ScratchPlan::new(&limits, 5, &dispatch(32768, 1024, 1 << 20), 64).unwrap_err();
        assert_eq!(
            e,
            ScratchError::ExceedsLimit {
                packet: 5,
                private_segment_size: 32768,
                needed: 128 << 21,
                limit: limits.single_limit,
            }
        );
        // One XCC: WAVES would count every slot, held to the field's 4095.
        let one = ScratchLimits { xccs: 1, ..limits };
        let mut q = AmdQueue::default();
        p.write_fields(&mut q, 0x1234_5678_9000, &one);
        assert_eq!(q.compute_tmpring_size & 0xfff, 0xfff);
    }
}
