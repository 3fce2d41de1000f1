//! `AgentQueue`: a soft AQL queue on a CPU agent, served by a host packet
//! processor thread (see `processor`).
//!
//! Memory is what a GPU queue has, from the fine-grained system pool and
//! mapped on every GPU, so a kernel could also produce into it:
//! - the ring: `packets * 64` bytes, every header INVALID;
//! - the queue page (4 KiB): `amd_queue_t` at 0 (type MULTI, features
//!   AGENT_DISPATCH, the ring, the doorbell signal's handle, the size, the
//!   soft queue's id; `write_dispatch_id`/`read_dispatch_id` inside it) and
//!   the u64 error word at 256.
//!
//! The doorbell is an ordinary runtime interrupt signal (as ROCr's soft
//! queues take one): a producer publishes packets with the ring protocol of
//! `queue::ring`, then stores the last packet's id into the doorbell
//! signal, whose SET_EVENT wakes the processor.
//!
//! The queue registers its error word and error event with the runtime's
//! event hub like a GPU queue, so a waiting host sees its errors. After an
//! error, the next submission recovers the queue like a GPU queue's
//! recreation: the packets left in the ring are dropped (their completion
//! signals fail with the error, their queued callbacks are dropped without
//! running), the ring and both ids are reset and processing resumes.
//! Dropping the queue stops the processor (a barrier wait is abandoned; a
//! running host function finishes), fails the signals of the packets it
//! never ran, and frees the memory.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use aqueduct_kfd::abi::queue::{
    AMD_QUEUE_PROPERTIES_IS_PTR64, AMD_QUEUE_READ_DISPATCH_ID_OFFSET,
    AMD_QUEUE_WRITE_DISPATCH_ID_OFFSET, HSA_QUEUE_FEATURE_AGENT_DISPATCH, HSA_QUEUE_TYPE_MULTI,
};
use aqueduct_kfd::abi::{AmdQueue, RawPacket};
use aqueduct_kfd::uapi::event_type;
use aqueduct_kfd::uapi::exception_code::{EC_DEVICE_QUEUE_DELETE, exception_mask};

use super::CALLBACK_FUNCTION_ID;
use super::packet::AgentDispatch;
use super::processor::Processor;
use super::registry::HostFunctionRegistry;
use super::shared::{Control, DependencyFailure, ErrorCallback, Pending, Shared};
use crate::agent::Agent;
use crate::error::{
    AgentError, HsaError, HsaResult, QueueCreationError, QueueError, QueueErrorReason,
    QueueFaultDetail, ReservationError,
};
use crate::memory::PoolKind;
use crate::queue::AqlPacket;
use crate::queue::aql_queue::{MAX_QUEUE_PACKETS, MIN_QUEUE_PACKETS};
use crate::queue::packet::{self, MAX_BARRIER_DEPS, PacketFence};
use crate::queue::ring::AqlRing;
use crate::runtime::Runtime;
use crate::signal::event::QueueErrorSource;
use crate::signal::{MemoryOrder, Signal, WaitCondition, WaitHint};

/// Soft queue ids start here, far from KFD's queue ids.
pub const SOFT_QUEUE_ID_BASE: u32 = 0x8000_0000;
/// Byte offset of the error word in the queue page.
pub const SOFT_QUEUE_ERROR_WORD_OFFSET: u64 = 256;
const QUEUE_PAGE_SIZE: u64 = 4096;

static NEXT_SOFT_QUEUE: AtomicU32 = AtomicU32::new(0);

/// A soft AQL queue of a CPU agent.
pub struct AgentQueue {
    runtime: Arc<Runtime>,
    shared: Arc<Shared>,
    processor: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for AgentQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentQueue")
            .field("id", &format_args!("{:#x}", self.shared.id))
            .field("size", &self.size())
            .field("read_index", &self.read_index())
            .field("write_index", &self.write_index())
            .finish()
    }
}

impl AgentQueue {
    /// A queue of `packets` slots (power of two, 64..=4M) on the CPU agent
    /// `agent`, calling host functions from `functions`.
    pub fn new(
        runtime: &Arc<Runtime>,
        agent: &Agent,
        packets: u32,
        functions: Arc<HostFunctionRegistry>,
    ) -> HsaResult<AgentQueue> {
        if agent.is_gpu() || !runtime.cpu_agents().any(|a| a == agent) {
            return Err(AgentError::NotCpu {
                name: agent.name.clone(),
                node: agent.node_id,
            }
            .into());
        }
        if !packets.is_power_of_two() || !(MIN_QUEUE_PACKETS..=MAX_QUEUE_PACKETS).contains(&packets)
        {
            return Err(QueueCreationError::PacketCount {
                packets,
                min: MIN_QUEUE_PACKETS,
                max: MAX_QUEUE_PACKETS,
            }
            .into());
        }
        let gpus: Vec<&Agent> = runtime.gpu_agents().collect();
        let first_gpu = gpus.first().ok_or(HsaError::NoGpuAgent)?;
        let pool = runtime.pool(first_gpu, PoolKind::FineSystem)?;
        let ring_mem = pool.allocate(packets as u64 * 64)?;
        let queue_page = pool.allocate(QUEUE_PAGE_SIZE)?;
        runtime.allow_access(&ring_mem, &gpus)?;
        runtime.allow_access(&queue_page, &gpus)?;
        let host = |a: &crate::memory::Allocation, part: &'static str| {
            a.host_ptr()
                .ok_or(QueueCreationError::NotHostMapped { part })
        };
        let ring_base = host(&ring_mem, "ring")?;
        let qbase = host(&queue_page, "queue page")?.as_ptr();
        // SAFETY: the ring BO holds exactly `packets` 64-byte slots and the ids are aligned u64s in the queue page; both BOs live in Shared as long as the ring.
        let ring = unsafe {
            AqlRing::from_raw_parts(
                ring_base.cast::<RawPacket>(),
                packets,
                std::ptr::NonNull::new_unchecked(
                    qbase.add(AMD_QUEUE_WRITE_DISPATCH_ID_OFFSET).cast::<u64>(),
                ),
                std::ptr::NonNull::new_unchecked(
                    qbase.add(AMD_QUEUE_READ_DISPATCH_ID_OFFSET).cast::<u64>(),
                ),
            )?
        };
        let doorbell = runtime.create_signal(0)?;
        let hub = runtime.event_hub().clone();
        let error_event = hub.create_event(event_type::SIGNAL, true, agent.node_id)?;
        let id = SOFT_QUEUE_ID_BASE | NEXT_SOFT_QUEUE.fetch_add(1, Ordering::Relaxed);
        let amd_queue = AmdQueue {
            queue_type: HSA_QUEUE_TYPE_MULTI,
            features: HSA_QUEUE_FEATURE_AGENT_DISPATCH,
            base_address: ring_mem.gpu_va(),
            doorbell_signal: doorbell.handle(),
            size: packets,
            id: id as u64,
            read_dispatch_id_field_base_byte_offset: AMD_QUEUE_READ_DISPATCH_ID_OFFSET as u32,
            queue_properties: AMD_QUEUE_PROPERTIES_IS_PTR64,
            ..AmdQueue::default()
        };
        // SAFETY: the queue page is a fresh 4 KiB host-mapped BO; both writes are in bounds and precede any use.
        unsafe {
            qbase.cast::<AmdQueue>().write_volatile(amd_queue);
            qbase
                .add(SOFT_QUEUE_ERROR_WORD_OFFSET as usize)
                .cast::<u64>()
                .write_volatile(0);
        }
        ring.reset();
        // SAFETY: the error word is an aligned u64 of the queue page, which Shared keeps mapped as long as the source is registered.
        let error_source = Arc::new(unsafe {
            QueueErrorSource::new(
                id,
                0,
                queue_page.gpu_va() + SOFT_QUEUE_ERROR_WORD_OFFSET,
                error_event.event_id,
            )
        });
        let shared = Arc::new(Shared {
            id,
            device: runtime.device().clone(),
            hub: hub.clone(),
            ring,
            doorbell,
            functions,
            error_source: error_source.clone(),
            error_event,
            stopping: AtomicBool::new(false),
            control: Mutex::new(Control::default()),
            control_changed: Condvar::new(),
            pending: Mutex::new(Pending::default()),
            error: Mutex::new(None),
            error_callback: Mutex::new(None),
            recovery: RwLock::new(()),
            completed: AtomicU64::new(0),
            processor_thread: std::sync::OnceLock::new(),
            _ring_mem: ring_mem,
            queue_page,
        });
        let processor = Processor::new(shared.clone());
        let thread = std::thread::Builder::new()
            .name(format!("aqueduct-agentq-{:x}", id & !SOFT_QUEUE_ID_BASE))
            .spawn(move || processor.run())
            .map_err(|source| QueueCreationError::ProcessorThread { source })?;
        let _ = shared.processor_thread.set(thread.thread().id());
        hub.register_queue(error_source);
        tracing::debug!(queue_id = id, packets, "created CPU-agent soft queue");
        Ok(AgentQueue {
            runtime: runtime.clone(),
            shared,
            processor: Some(thread),
        })
    }

    /// The soft queue's id (in `amd_queue_t.id`, and in its errors).
    pub fn id(&self) -> u32 {
        self.shared.id
    }
    /// Size in packets.
    pub fn size(&self) -> u32 {
        self.shared.ring.size()
    }
    /// Address of the queue's `amd_queue_t`.
    pub fn amd_queue_va(&self) -> u64 {
        self.shared.queue_page.gpu_va()
    }
    /// A copy of the queue's `amd_queue_t`.
    pub fn amd_queue(&self) -> AmdQueue {
        // SAFETY: the queue page holds a valid amd_queue_t for the queue's life; a volatile copy of shared memory.
        unsafe { std::ptr::read_volatile(self.amd_queue_va() as *const AmdQueue) }
    }
    /// The doorbell signal producers store the last packet's id into.
    pub fn doorbell_signal(&self) -> &Signal {
        &self.shared.doorbell
    }
    /// `read_dispatch_id`: packets the processor has completed.
    pub fn read_index(&self) -> u64 {
        self.shared.ring.read_id().load(Ordering::Acquire)
    }
    /// `write_dispatch_id`: slots reserved so far.
    pub fn write_index(&self) -> u64 {
        self.shared.ring.write_id().load(Ordering::Acquire)
    }
    /// Whether the caller runs on this queue's processor thread (inside one
    /// of its host functions or callbacks): waiting there for this queue's
    /// later packets would never end.
    pub fn on_processor_thread(&self) -> bool {
        self.shared.on_processor_thread()
    }
    /// Packets completed since the queue was created (across recoveries).
    pub fn completed_packets(&self) -> u64 {
        self.shared.completed.load(Ordering::Relaxed)
    }
    pub fn functions(&self) -> &Arc<HostFunctionRegistry> {
        &self.shared.functions
    }

    /// The queue's error, while it is in error (until the next submission
    /// recovers it).
    pub fn error(&self) -> Option<QueueError> {
        self.shared.current_error()
    }

    /// Call `callback` (on the processor thread) whenever the queue goes
    /// into error. Replaces the previous one.
    pub fn set_error_callback(&self, callback: impl Fn(&QueueError) + Send + Sync + 'static) {
        let cb: Arc<ErrorCallback> = Arc::new(callback);
        *self
            .shared
            .error_callback
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(cb);
    }

    /// Recover from an error: drop the packets left in the ring (their
    /// completion signals fail with the error), reset the ring, resume.
    fn recover_if_needed(&self) -> HsaResult<()> {
        let s = &self.shared;
        if s.error_word().load(Ordering::Acquire) == 0 {
            return Ok(());
        }
        let _exclusive = s.recovery.write().unwrap_or_else(|p| p.into_inner());
        if s.error_word().load(Ordering::Acquire) == 0 {
            return Ok(());
        }
        let mut control = s.control();
        while !control.halted && !s.stopping() {
            control = s
                .control_changed
                .wait(control)
                .unwrap_or_else(|p| p.into_inner());
        }
        let error = s.current_error();
        let dropped = s.ring.pending_completion_signals();
        tracing::warn!(
            queue_id = s.id,
            ?error,
            dropped = dropped.len(),
            "recovering agent queue"
        );
        if let Some(error) = error {
            s.hub.record_failed_signals(&dropped, &error);
            s.hub.record_recovered(error);
        }
        // Tokens keep counting, so a dropped callback's token is never reused.
        let stale = {
            let mut pending = s.pending();
            (
                std::mem::take(&mut pending.keep_alive),
                std::mem::take(&mut pending.callbacks),
                std::mem::take(&mut pending.tolerant),
            )
        };
        s.ring.reset();
        *s.error.lock().unwrap_or_else(|p| p.into_inner()) = None;
        s.error_word().store(0, Ordering::Release);
        control.halted = false;
        drop(control);
        s.control_changed.notify_all();
        // Dropped callbacks' closures go now, outside every lock.
        drop(stale);
        Ok(())
    }

    /// Reserve `packets.len()` slots, record what the packets need kept
    /// alive (`keep[i]` for packet i), publish them in order and ring the
    /// doorbell. Returns the dispatch id of the first.
    fn submit_packets(
        &self,
        packets: &[RawPacket],
        keep: Vec<Vec<Signal>>,
        callback: Option<(u64, super::shared::QueuedCallback)>,
        tolerant: Option<(u64, DependencyFailure)>,
    ) -> HsaResult<u64> {
        let s = &self.shared;
        if s.stopping() {
            return Err(ReservationError::ShuttingDown.into());
        }
        self.recover_if_needed()?;
        let _shared = s.recovery.read().unwrap_or_else(|p| p.into_inner());
        let count = u32::try_from(packets.len()).map_err(|_| ReservationError::TooManyPackets {
            count: packets.len(),
        })?;
        let first = if s.on_processor_thread() {
            self.try_reserve(count)?
        } else {
            s.ring
                .reserve(count, &|| s.current_error().map(HsaError::from))?
        };
        {
            let mut pending = s.pending();
            for (i, signals) in keep.into_iter().enumerate() {
                if !signals.is_empty() {
                    pending.keep_alive.insert(first + i as u64, signals);
                }
            }
            if let Some((token, cb)) = callback {
                pending.callbacks.insert(token, cb);
            }
            if let Some((offset, slot)) = tolerant {
                pending.tolerant.insert(first + offset, slot);
            }
        }
        for (i, p) in packets.iter().enumerate() {
            s.ring.publish(first + i as u64, p);
        }
        let last = first + count as u64 - 1;
        s.doorbell.store(last as i64, MemoryOrder::Release);
        Ok(first)
    }

    /// Reserve without waiting (a host function submitting to its own
    /// queue: only this thread frees slots, so waiting would never end).
    fn try_reserve(&self, count: u32) -> HsaResult<u64> {
        self.shared.ring.try_reserve(count)?.ok_or_else(|| {
            ReservationError::QueueFull {
                queue_id: self.shared.id,
            }
            .into()
        })
    }

    /// Submit one packet whose signals the caller keeps alive; returns its
    /// dispatch id.
    ///
    /// # Safety
    /// Every signal handle in the packet (dependencies, completion) must be
    /// 0 or the handle of a `Signal` that stays alive until the packet
    /// completes or the queue drops it: the processor dereferences them.
    pub unsafe fn submit_raw(&self, packet: &impl AqlPacket) -> HsaResult<u64> {
        self.submit_packets(&[packet.to_raw()], vec![Vec::new()], None, None)
    }

    /// Barrier-AND packets (system scope, barrier bit) covering `deps`, five
    /// per packet; an empty `deps` gives none.
    fn dependency_packets(deps: &[&Signal]) -> HsaResult<Vec<RawPacket>> {
        deps.chunks(MAX_BARRIER_DEPS)
            .map(|chunk| {
                let handles: Vec<u64> = chunk.iter().map(|s| s.handle()).collect();
                packet::barrier_and(&handles, 0, PacketFence::SYSTEM_ORDERED).map(|p| p.to_raw())
            })
            .collect()
    }

    fn submit_with_deps(
        &self,
        deps: &[&Signal],
        last: RawPacket,
        completion: Option<&Signal>,
        callback: Option<(u64, super::shared::QueuedCallback)>,
    ) -> HsaResult<u64> {
        let mut packets = Self::dependency_packets(deps)?;
        let mut keep: Vec<Vec<Signal>> = deps
            .chunks(MAX_BARRIER_DEPS)
            .map(|c| c.iter().map(|s| (*s).clone()).collect())
            .collect();
        packets.push(last);
        keep.push(completion.into_iter().cloned().collect());
        let first = self.submit_packets(&packets, keep, callback, None)?;
        Ok(first + packets.len() as u64 - 1)
    }

    /// Call host function `function_id` with `args` once every signal in
    /// `deps` is 0 (barrier-AND packets before the agent dispatch), then
    /// decrement `completion`. Returns the agent dispatch's id.
    pub fn submit_call(
        &self,
        function_id: u16,
        args: [u64; 4],
        return_address: u64,
        deps: &[&Signal],
        completion: Option<&Signal>,
    ) -> HsaResult<u64> {
        let dispatch = AgentDispatch {
            return_address,
            completion_signal: completion.map_or(0, |s| s.handle()),
            ..AgentDispatch::new(function_id, args)
        };
        self.submit_with_deps(deps, dispatch.to_packet().to_raw(), completion, None)
    }

    /// Run `callback` on the processor thread once every signal in `deps`
    /// is 0 and every earlier packet of this queue completed, then
    /// decrement `completion`. If the queue drops the packet (an earlier
    /// error, or the queue is dropped first), the callback is dropped
    /// without running. Returns the agent dispatch's id.
    pub fn submit_callback(
        &self,
        deps: &[&Signal],
        completion: Option<&Signal>,
        callback: impl FnOnce() + Send + 'static,
    ) -> HsaResult<u64> {
        let token = self.shared.pending().take_token();
        let dispatch = AgentDispatch {
            completion_signal: completion.map_or(0, |s| s.handle()),
            ..AgentDispatch::new(CALLBACK_FUNCTION_ID, [token, 0, 0, 0])
        };
        self.submit_with_deps(
            deps,
            dispatch.to_packet().to_raw(),
            completion,
            Some((token, Box::new(callback))),
        )
    }

    /// Run `callback` on the processor thread once every earlier packet of
    /// this queue completed and `dep` is 0, with `Ok(())`; or, if the
    /// packet that would have brought `dep` to 0 was dropped by a failed
    /// queue (its recovery marks the signal failed), with that queue's
    /// error. Unlike a failed dependency of an ordinary barrier, this does
    /// not put this queue into error: later packets go on. One barrier-AND
    /// (on `dep`, kept alive until it completes) and one agent dispatch.
    /// If this queue drops the packets (an earlier error of its own, or the
    /// queue is dropped first), the callback is dropped without running.
    /// Returns the agent dispatch's id.
    pub fn submit_callback_after(
        &self,
        dep: &Signal,
        callback: impl FnOnce(Result<(), QueueError>) + Send + 'static,
    ) -> HsaResult<u64> {
        let token = self.shared.pending().take_token();
        let failure: DependencyFailure = Arc::new(Mutex::new(None));
        let slot = failure.clone();
        let run = move || {
            let error = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
            callback(error.map_or(Ok(()), Err))
        };
        let barrier = packet::barrier_and(&[dep.handle()], 0, PacketFence::SYSTEM_ORDERED)?;
        let dispatch = AgentDispatch::new(CALLBACK_FUNCTION_ID, [token, 0, 0, 0]);
        let first = self.submit_packets(
            &[barrier.to_raw(), dispatch.to_packet().to_raw()],
            vec![vec![dep.clone()], Vec::new()],
            Some((token, Box::new(run))),
            Some((0, failure)),
        )?;
        Ok(first + 1)
    }

    /// A barrier-AND (system scope, barrier bit) on up to 5 signals.
    pub fn submit_barrier_and(
        &self,
        deps: &[&Signal],
        completion: Option<&Signal>,
    ) -> HsaResult<u64> {
        self.submit_barrier(deps, completion, true)
    }

    /// A barrier-OR (system scope, barrier bit) on up to 5 signals.
    pub fn submit_barrier_or(
        &self,
        deps: &[&Signal],
        completion: Option<&Signal>,
    ) -> HsaResult<u64> {
        self.submit_barrier(deps, completion, false)
    }

    fn submit_barrier(
        &self,
        deps: &[&Signal],
        completion: Option<&Signal>,
        and: bool,
    ) -> HsaResult<u64> {
        let handles: Vec<u64> = deps.iter().map(|s| s.handle()).collect();
        let done = completion.map_or(0, |s| s.handle());
        let p = if and {
            packet::barrier_and(&handles, done, PacketFence::SYSTEM_ORDERED)?
        } else {
            packet::barrier_or(&handles, done, PacketFence::SYSTEM_ORDERED)?
        };
        let mut keep: Vec<Signal> = deps.iter().map(|s| (*s).clone()).collect();
        keep.extend(completion.cloned());
        self.submit_packets(&[p.to_raw()], vec![keep], None, None)
    }

    /// Wait until every packet submitted so far has completed.
    pub fn finish(&self, timeout: Option<Duration>) -> HsaResult<()> {
        let done = self.runtime.create_signal(1)?;
        self.submit_barrier_and(&[], Some(&done))?;
        done.wait(WaitCondition::Eq, 0, timeout, WaitHint::Blocked)?;
        Ok(())
    }
}

impl Drop for AgentQueue {
    fn drop(&mut self) {
        let s = &self.shared;
        s.stopping.store(true, Ordering::Release);
        s.wake();
        if let Some(thread) = self.processor.take() {
            if thread.thread().id() == std::thread::current().id() {
                // Dropped by one of its own callbacks: the thread sees
                // `stopping` when the callback returns and exits.
                tracing::debug!(
                    queue_id = s.id,
                    "agent queue dropped on its own processor thread"
                );
            } else if thread.join().is_err() {
                tracing::warn!(
                    queue_id = s.id,
                    "the agent queue's processor thread panicked"
                );
            }
        }
        let dropped = s.ring.pending_completion_signals();
        let pending = s.write_index_pending();
        if pending > 0 {
            let error = QueueError {
                queue_id: s.id,
                reason: QueueErrorReason::Other(exception_mask(EC_DEVICE_QUEUE_DELETE)),
                detail: Some(QueueFaultDetail::QueueDestroyed { pending }),
            };
            tracing::debug!(
                queue_id = s.id,
                pending,
                "agent queue dropped with work pending"
            );
            s.hub.record_failed_signals(&dropped, &error);
        }
        s.hub.unregister_queue(&s.error_source);
        let stale = std::mem::take(&mut *s.pending());
        drop(stale);
    }
}

impl Shared {
    /// Published packets not yet completed.
    fn write_index_pending(&self) -> u64 {
        let read = self.ring.read_id().load(Ordering::Acquire);
        let write = self.ring.write_id().load(Ordering::Acquire);
        write.saturating_sub(read)
    }
}
