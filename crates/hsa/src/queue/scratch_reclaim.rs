//! Taking a queue's scratch back while the queue lives: ROCr's asynchronous
//! scratch reclaim (`AqlQueue::AsyncReclaimMainScratch`,
//! `AqlQueue::CheckScratchLimits`, `GpuAgent::AsyncReclaimScratchQueues`;
//! `core/runtime/amd_aql_queue.cpp`, `core/runtime/amd_gpu_agent.cpp`).
//!
//! CP firmware that supports it sets `AMD_QUEUE_CAPS_ASYNC_RECLAIM` in the
//! queue's `amd_queue_t.caps` when the queue connects, and stores in
//! `scratch_last_used_index` the dispatch id of each dispatch it launches
//! with scratch, before it reads the scratch fields for it
//! (`inc/amd_hsa_queue.h`). A reclaim, with the queue running:
//! 1. zeroes `scratch_wave64_lane_byte_size`, so the CP gives the backing
//!    to no further dispatch: the next one with private memory stops the
//!    queue for scratch, as on a queue that never had any;
//! 2. exchanges `scratch_last_used_index` with u64::MAX (a fence between 1
//!    and 2 pairs with the CP's fence between its store and its read, so
//!    either the CP saw the zeroed size or the index is seen here);
//! 3. waits until `read_dispatch_id` is past that index and any the CP
//!    stored since (packets complete in order), or until the CP is stopped
//!    on `queue_inactive_signal` (it stops only with no packet in flight),
//!    polling with a doubling sleep for at most [`RECLAIM_WAIT`]; past
//!    that the lane size and index are put back and the scratch stays;
//! 4. frees the backing and clears the scratch fields.
//!
//! A reclaim and the queue's scratch handler never run at once (the
//! handler's `busy` lock): a stop the CP raises during a reclaim is served
//! after it, so the CP stays stopped while step 3 looks at it.
//!
//! The runtime reclaims when asked ([`Queue::reclaim_scratch`],
//! `Runtime::reclaim_scratch` for every queue of an agent); when an
//! agent's async scratch limit is set below what a queue holds
//! (`Runtime::set_scratch_async_limit`, ROCr's
//! `hsa_amd_agent_set_async_scratch_limit`; requests above the limit are
//! given once from then on); and when the agent's device pool has no
//! memory left for an allocation: the queues of the agent not busy with
//! scratch give theirs back and the allocation is tried once more, as
//! ROCr's `KfdDriver::AllocateMemory` calls `GpuAgent::Trim`.
//!
//! [`Queue::reclaim_scratch`]: super::Queue::reclaim_scratch

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering, fence};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use aqueduct_kfd::abi::queue::{
    AMD_QUEUE_CAPS_ASYNC_RECLAIM, AMD_QUEUE_CAPS_OFFSET, AMD_QUEUE_READ_DISPATCH_ID_OFFSET,
    AMD_QUEUE_SCRATCH_LAST_USED_INDEX_OFFSET, AMD_QUEUE_SCRATCH_WAVE64_LANE_BYTE_SIZE_OFFSET,
};

use super::scratch::ScratchShared;
use crate::memory::Allocation;
use crate::signal::MemoryOrder;

/// ROCr's default async scratch limit per XCC
/// (`DEFAULT_SCRATCH_SINGLE_LIMIT_ASYNC_PER_XCC`, `amd_gpu_agent.cpp`).
pub const DEFAULT_SCRATCH_ASYNC_LIMIT: u64 = 1 << 30;
/// Longest a reclaim waits for the last dispatch using the scratch.
pub const RECLAIM_WAIT: Duration = Duration::from_secs(10);
/// The longest sleep between two looks at the queue's progress.
const MAX_NAP: Duration = Duration::from_millis(1);

/// Why a queue's scratch was not reclaimed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScratchReclaimError {
    /// The queue's CP does not record which dispatches use scratch, so the
    /// backing cannot be taken back while the queue runs.
    #[error(
        "the queue's command processor does not support asynchronous scratch reclaim \
         (AMD_QUEUE_CAPS_ASYNC_RECLAIM is clear)"
    )]
    Unsupported,
    /// The last dispatch using the scratch did not complete in time; the
    /// queue keeps its scratch.
    #[error(
        "packet {last_used} still used the queue's scratch after {waited:?} (read_dispatch_id \
         {read_dispatch_id}); the scratch is kept"
    )]
    StillInUse {
        last_used: u64,
        read_dispatch_id: u64,
        waited: Duration,
    },
}

/// The queues of one GPU agent whose scratch the runtime may reclaim, and
/// the agent's async scratch limit.
#[derive(Debug)]
pub(crate) struct AgentScratch {
    queues: Mutex<Vec<Weak<ScratchShared>>>,
    async_limit: AtomicU64,
    /// Use-once backings given back after their dispatch, free for the
    /// next request of their size (scratch.rs says why).
    use_once: Mutex<Vec<Allocation>>,
}

impl AgentScratch {
    /// An agent of `xccs` XCCs with ROCr's default limit.
    pub(crate) fn new(xccs: u32) -> Arc<AgentScratch> {
        Arc::new(AgentScratch {
            queues: Mutex::new(Vec::new()),
            async_limit: AtomicU64::new(DEFAULT_SCRATCH_ASYNC_LIMIT * u64::from(xccs.max(1))),
            use_once: Mutex::new(Vec::new()),
        })
    }

    pub(crate) fn register(&self, queue: &Arc<ScratchShared>) {
        self.lock().push(Arc::downgrade(queue));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Weak<ScratchShared>>> {
        self.queues.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The live queues (forgetting dropped ones).
    fn live(&self) -> Vec<Arc<ScratchShared>> {
        let mut queues = self.lock();
        queues.retain(|q| q.strong_count() > 0);
        queues.iter().filter_map(Weak::upgrade).collect()
    }

    fn use_once_lock(&self) -> std::sync::MutexGuard<'_, Vec<Allocation>> {
        self.use_once.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keep `backing`, a use-once request's, for a later request.
    pub(crate) fn cache_use_once(&self, backing: Allocation) {
        self.use_once_lock().push(backing);
    }

    /// A cached use-once backing of `size` bytes, if one is free.
    pub(crate) fn take_use_once(&self, size: u64) -> Option<Allocation> {
        let mut cached = self.use_once_lock();
        let i = cached.iter().position(|b| b.len() == size)?;
        Some(cached.swap_remove(i))
    }

    /// Free the cached use-once backings; the bytes freed.
    pub(crate) fn trim(&self) -> u64 {
        let cached = std::mem::take(&mut *self.use_once_lock());
        cached.iter().map(Allocation::len).sum()
    }

    /// The agent's async scratch limit in bytes.
    pub(crate) fn async_limit(&self) -> u64 {
        self.async_limit.load(Ordering::Acquire)
    }

    /// Reclaim the scratch of every queue of the agent; the bytes freed, or
    /// the first error (every queue is tried).
    pub(crate) fn reclaim_all(&self) -> Result<u64, ScratchReclaimError> {
        let mut freed = self.trim();
        let mut first_error = None;
        for queue in self.live() {
            match queue.reclaim() {
                Ok(bytes) => freed += bytes,
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        first_error.map_or(Ok(freed), Err)
    }

    /// Reclaim what queues not busy with scratch hold (a device allocation
    /// found no memory; the queue whose handler is allocating is skipped);
    /// the bytes freed.
    pub(crate) fn reclaim_for_allocation(&self) -> u64 {
        self.trim()
            + self
                .live()
                .iter()
                .filter_map(|queue| match queue.try_reclaim()? {
                    Ok(bytes) => Some(bytes),
                    Err(e) => {
                        tracing::debug!("scratch reclaim for an allocation: {e}");
                        None
                    }
                })
                .sum::<u64>()
    }

    /// Set the async scratch limit and reclaim the scratch of queues that
    /// hold more (ROCr `GpuAgent::SetAsyncScratchThresholds`,
    /// `AqlQueue::CheckScratchLimits`); the bytes freed.
    pub(crate) fn set_async_limit(&self, limit: u64) -> Result<u64, ScratchReclaimError> {
        self.async_limit.store(limit, Ordering::Release);
        let mut freed = 0;
        for queue in self.live() {
            if queue.backing_size() > limit {
                freed += queue.reclaim()?;
            }
        }
        Ok(freed)
    }
}

/// The `amd_queue_t` words a reclaim addresses atomically.
struct ReclaimFields<'a> {
    caps: &'a AtomicU32,
    lane_bytes: &'a AtomicU32,
    last_used: &'a AtomicU64,
    read_dispatch_id: &'a AtomicU64,
}

impl ScratchShared {
    fn reclaim_fields(&self) -> ReclaimFields<'_> {
        let base = self.amd_queue_ptr().cast::<u8>();
        // SAFETY: the offsets are fields of the live amd_queue_t (ScratchShared's contract),
        // aligned for their types; the CP and the runtime access them atomically.
        unsafe {
            ReclaimFields {
                caps: AtomicU32::from_ptr(base.add(AMD_QUEUE_CAPS_OFFSET).cast()),
                lane_bytes: AtomicU32::from_ptr(
                    base.add(AMD_QUEUE_SCRATCH_WAVE64_LANE_BYTE_SIZE_OFFSET)
                        .cast(),
                ),
                last_used: AtomicU64::from_ptr(
                    base.add(AMD_QUEUE_SCRATCH_LAST_USED_INDEX_OFFSET).cast(),
                ),
                read_dispatch_id: AtomicU64::from_ptr(
                    base.add(AMD_QUEUE_READ_DISPATCH_ID_OFFSET).cast(),
                ),
            }
        }
    }

    /// Whether the queue's CP records its scratch dispatches.
    pub(crate) fn async_reclaim(&self) -> bool {
        self.reclaim_fields().caps.load(Ordering::Acquire) & AMD_QUEUE_CAPS_ASYNC_RECLAIM != 0
    }

    /// Forget every recorded scratch dispatch (the queue's dispatch ids
    /// start again at 0).
    pub(crate) fn reset_last_used(&self) {
        self.reclaim_fields()
            .last_used
            .store(u64::MAX, Ordering::SeqCst);
    }

    /// Reclaim the queue's scratch, waiting for the scratch handler if it
    /// is busy; the bytes freed.
    pub(crate) fn reclaim(&self) -> Result<u64, ScratchReclaimError> {
        let _busy = self.busy();
        self.reclaim_locked()
    }

    /// As [`ScratchShared::reclaim`], or None if the handler is busy.
    fn try_reclaim(&self) -> Option<Result<u64, ScratchReclaimError>> {
        let _busy = self.try_busy()?;
        Some(self.reclaim_locked())
    }

    /// The reclaim itself (the module comment's steps), with `busy` held.
    fn reclaim_locked(&self) -> Result<u64, ScratchReclaimError> {
        let size = self.backing_size();
        if size == 0 {
            return Ok(0);
        }
        if !self.async_reclaim() {
            return Err(ScratchReclaimError::Unsupported);
        }
        let f = self.reclaim_fields();
        let lane_bytes = f.lane_bytes.swap(0, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        let before = f.last_used.swap(u64::MAX, Ordering::SeqCst);
        let start = Instant::now();
        let mut nap = Duration::from_micros(1);
        loop {
            let now = f.last_used.load(Ordering::SeqCst);
            let read = f.read_dispatch_id.load(Ordering::Acquire);
            let last = [before, now].into_iter().filter(|&i| i != u64::MAX).max();
            let stopped = self.signal().load(MemoryOrder::Acquire) != 0;
            if stopped || last.is_none_or(|l| l < read) {
                break;
            }
            let waited = start.elapsed();
            if waited >= RECLAIM_WAIT {
                // Hand the scratch back: the size, and the index unless the
                // CP stored a later one.
                f.lane_bytes.store(lane_bytes, Ordering::SeqCst);
                if let Some(l) = last {
                    let _ = f.last_used.compare_exchange(
                        u64::MAX,
                        l,
                        Ordering::SeqCst,
                        Ordering::SeqCst,
                    );
                }
                return Err(ScratchReclaimError::StillInUse {
                    last_used: last.unwrap_or(u64::MAX),
                    read_dispatch_id: read,
                    waited,
                });
            }
            std::thread::sleep(nap);
            nap = (nap * 2).min(MAX_NAP);
        }
        self.release_backing();
        tracing::debug!(size, "reclaimed queue scratch");
        Ok(size)
    }
}
