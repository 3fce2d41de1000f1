//! Lifetime of in-flight work: the queue state (submission epochs,
//! pending uploads, in-flight submissions and what they keep alive,
//! registered callbacks), its lock, and retiring completed submissions:
//! their ring blocks and memory are freed, ready callbacks run, and the
//! sanitizer's findings in their dispatches (gfxsim) are reported.

use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use aqueduct_hsa::MemoryOrder;

use crate::command::arena::OpArena;
use crate::device::DeviceShared;
use crate::device_select::{SanitizedDispatch, SanitizerSource};
use crate::error::{BufferAsyncError, Error};
use crate::lock_rank::MutexGuard;
use crate::registry::BufferId;
use crate::ring::Ring;
use crate::trace::submission::{RetiredTrace, SubmissionTrace, record_retired};

use super::callbacks::complete_map;
use super::submit::WriteScratch;

/// Initial value of the epoch signal.
pub(crate) const EPOCH_BASE: i64 = 1 << 40;

pub(crate) type Callback = Box<dyn FnOnce(Result<(), BufferAsyncError>) + Send + 'static>;
pub(super) type KeepAlive = Box<dyn Any + Send + Sync>;

pub(super) enum CallbackKind {
    Map { id: BufferId, callback: Callback },
    WorkDone(Box<dyn FnOnce() + Send + 'static>),
}

pub(super) struct PendingCallback {
    pub(super) epoch: u64,
    pub(super) kind: CallbackKind,
}

/// Spare op arenas kept for the next submissions (one is in flight while
/// the next is written; a few more cover submissions queued back to back).
const SPARE_ARENAS: usize = 4;

/// Storage a spare arena may hold (a bigger one, grown by one huge
/// submission, is dropped rather than kept for the queue's life).
const KEPT_BYTES: usize = 4 << 20;

pub(super) struct InFlight {
    pub(super) epoch: u64,
    /// The submission's ops (from packet `first_packet` on, `op.count`
    /// packets each, then the completion barrier), kept to name a faulting
    /// kernel, with the buffer memory they reach.
    pub(super) ops: OpArena,
    /// Queue index of the first packet and the queue's recreation count
    /// then; `None` when nothing was written or the packets are not
    /// consecutive.
    pub(super) first_packet: Option<(u64, u64)>,
    /// The packets a trace times (src/trace/submission.rs).
    pub(super) trace: Option<SubmissionTrace>,
    /// The kernarg addresses of the dispatches whose bound ranges went to
    /// the sanitizer (`QueueState::sanitizer`), to take their findings by.
    pub(super) sanitized: Vec<SanitizedDispatch>,
    pub(super) _keep: Vec<KeepAlive>,
}

pub(crate) struct QueueState {
    pub last_submitted: u64,
    pub last_completed: u64,
    pub(super) kernargs: Ring,
    pub(super) staging: Ring,
    /// Uploads for the next submission, and the buffers they write.
    pub(super) pending: OpArena,
    pub(super) pending_buffers: Vec<BufferId>,
    pub(super) pending_keep: Vec<KeepAlive>,
    /// Emptied arenas of retired submissions, for the next ones.
    pub(super) spare_arenas: Vec<OpArena>,
    /// The buffers a submission touches while it is written (kept for
    /// its storage).
    pub(super) touched: Vec<BufferId>,
    /// The lists of writing a submission's packets (kept for their storage).
    pub(super) write_scratch: WriteScratch,
    pub(super) in_flight: VecDeque<InFlight>,
    pub(super) callbacks: VecDeque<PendingCallback>,
    /// Map callbacks delivered on the host-callback thread (see
    /// `Device::set_callbacks_on_host_thread`), by buffer, until it runs
    /// them or the mapping is aborted.
    pub(super) host_maps: HashMap<BufferId, Callback>,
    /// The HSA queue's recreation count when last seen (see `submit`).
    pub(super) queue_recreations: u64,
    /// A submission (epoch `last_submitted + 1`) is being written; it took
    /// the pending uploads, so new ones go into the one after it.
    pub(super) in_submit: bool,
    /// Retired traced submissions whose events are not recorded yet.
    pub(crate) retired_traces: Vec<RetiredTrace>,
    /// gfxsim's sanitizer, when it runs: dispatches note their bound
    /// ranges with it, and retiring takes their findings.
    pub(super) sanitizer: Option<SanitizerSource>,
    /// Findings of retired submissions, to report once the lock is let go.
    pub(super) sanitizer_findings: Vec<Error>,
    /// The kernarg addresses of the dispatches the submission being
    /// written noted with the sanitizer (its `InFlight::sanitized`).
    pub(super) sanitized_in_submit: Vec<SanitizedDispatch>,
}

impl std::fmt::Debug for QueueState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueueState")
            .field("last_submitted", &self.last_submitted)
            .field("last_completed", &self.last_completed)
            .field("pending", &self.pending.len())
            .finish()
    }
}

impl QueueState {
    pub(crate) fn new(kernargs: Ring, staging: Ring, sanitizer: Option<SanitizerSource>) -> Self {
        QueueState {
            last_submitted: 0,
            last_completed: 0,
            kernargs,
            staging,
            pending: OpArena::default(),
            pending_buffers: Vec::new(),
            pending_keep: Vec::new(),
            spare_arenas: Vec::new(),
            touched: Vec::new(),
            write_scratch: WriteScratch::default(),
            in_flight: VecDeque::new(),
            callbacks: VecDeque::new(),
            host_maps: HashMap::new(),
            queue_recreations: 0,
            in_submit: false,
            retired_traces: Vec::new(),
            sanitizer,
            sanitizer_findings: Vec::new(),
            sanitized_in_submit: Vec::new(),
        }
    }

    /// The submission that will carry uploads queued now (their staging
    /// blocks are freed when it completes).
    pub(super) fn open_epoch(&self) -> u64 {
        self.last_submitted + 1 + u64::from(self.in_submit)
    }

    /// Free ring blocks and retire in-flight submissions up to `completed`.
    pub(super) fn retire(&mut self, completed: u64) {
        let completed = completed.max(self.last_completed);
        self.last_completed = completed;
        while self.in_flight.front().is_some_and(|f| f.epoch <= completed) {
            let Some(f) = self.in_flight.pop_front() else {
                break;
            };
            // A traced submission's signals go to the trace thread, which
            // reads their stamps and gives them back to the pool.
            if let Some(trace) = f.trace {
                self.retired_traces.push(trace.retire());
            }
            // Taken before the kernarg blocks are reclaimed: a later
            // dispatch's note on a reused block would replace them.
            if let Some(sanitizer) = &self.sanitizer
                && !f.sanitized.is_empty()
            {
                let found = sanitizer.take(f.epoch, &f.sanitized);
                self.sanitizer_findings.extend(found);
            }
            if self.spare_arenas.len() < SPARE_ARENAS && f.ops.capacity_bytes() <= KEPT_BYTES {
                let mut ops = f.ops;
                ops.clear();
                self.spare_arenas.push(ops);
            }
        }
        self.kernargs.reclaim(completed);
        self.staging.reclaim(completed);
    }

    /// Keep `memory` as long as the queue state (which goes after the GPU
    /// queue when the device does, as in-flight submissions' memory).
    pub(crate) fn keep_memory(&mut self, memory: Vec<Arc<crate::placement::BufferMemory>>) {
        if !memory.is_empty() {
            self.pending_keep.push(Box::new(memory));
        }
    }

    pub(crate) fn push_pending(
        &mut self,
        ops: OpArena,
        buffer: Option<BufferId>,
        keep: Vec<KeepAlive>,
    ) {
        self.pending.append(&ops);
        if !ops.is_empty() {
            self.pending_buffers.extend(buffer);
        }
        self.pending_keep.extend(keep);
    }

    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    pub(crate) fn pending_touches(&self, id: BufferId) -> bool {
        self.pending_buffers.contains(&id)
    }

    pub(crate) fn push_map_callback(&mut self, epoch: u64, id: BufferId, callback: Callback) {
        self.callbacks.push_back(PendingCallback {
            epoch,
            kind: CallbackKind::Map { id, callback },
        });
    }

    pub(crate) fn push_host_map_callback(&mut self, id: BufferId, callback: Callback) {
        self.host_maps.insert(id, callback);
    }

    pub(crate) fn take_map_callback(&mut self, id: BufferId) -> Option<Callback> {
        if let Some(cb) = self.host_maps.remove(&id) {
            return Some(cb);
        }
        let pos = self
            .callbacks
            .iter()
            .position(|c| matches!(&c.kind, CallbackKind::Map { id: i, .. } if *i == id))?;
        match self.callbacks.remove(pos)?.kind {
            CallbackKind::Map { callback, .. } => Some(callback),
            CallbackKind::WorkDone(_) => None,
        }
    }
}

/// The queue-state lock, held by a thread that may have to wait for the
/// device (a full kernarg or staging ring): [`StateLock::unlocked`] lets go
/// of it for the wait, so polls, map_async, write_buffer and callbacks on
/// other threads go on meanwhile. (Submissions stay serialised by
/// `DeviceShared::submit_lock`, which the writer keeps.)
pub(crate) struct StateLock<'a> {
    dev: &'a DeviceShared,
    /// Always `Some` outside `unlocked`.
    guard: Option<MutexGuard<'a, QueueState>>,
}

impl<'a> StateLock<'a> {
    pub(crate) fn new(dev: &'a DeviceShared) -> Self {
        StateLock {
            dev,
            guard: Some(dev.lock_state()),
        }
    }

    /// Run `f` without the lock, then take it again.
    pub(super) fn unlocked<R>(&mut self, f: impl FnOnce() -> R) -> R {
        self.guard = None;
        let r = f();
        self.guard = Some(self.dev.lock_state());
        r
    }
}

impl std::ops::Deref for StateLock<'_> {
    type Target = QueueState;
    fn deref(&self) -> &QueueState {
        // The guard is only None inside `unlocked`, which holds `&mut self`.
        self.guard.as_deref().expect("queue-state lock held")
    }
}

impl std::ops::DerefMut for StateLock<'_> {
    fn deref_mut(&mut self) -> &mut QueueState {
        self.guard.as_deref_mut().expect("queue-state lock held")
    }
}

/// Whether every submission so far has completed.
pub(crate) fn all_completed(dev: &DeviceShared) -> bool {
    completed_epoch(dev) >= dev.lock_state().last_submitted
}

pub(crate) fn completed_epoch(dev: &DeviceShared) -> u64 {
    (EPOCH_BASE - dev.epoch_signal.load(MemoryOrder::Acquire)).max(0) as u64
}

/// Retire completed submissions and run ready callbacks.
pub(crate) fn maintain(dev: &Arc<DeviceShared>) {
    let mut ready: Vec<Box<dyn FnOnce() + Send>> = Vec::new();
    let traces;
    let findings;
    // Dropped buffers' memory whose last submission is complete, freed
    // once the locks are let go.
    let mut freed = Vec::new();
    {
        let mut state = dev.lock_state();
        state.retire(completed_epoch(dev));
        traces = std::mem::take(&mut state.retired_traces);
        findings = std::mem::take(&mut state.sanitizer_findings);
        let completed = state.last_completed;
        let mut keep_waiting = VecDeque::new();
        let mut reg = dev.registry();
        reg.take_freed(completed, &mut freed);
        while let Some(cb) = state.callbacks.pop_front() {
            if cb.epoch > completed {
                keep_waiting.push_back(cb);
                continue;
            }
            match cb.kind {
                CallbackKind::WorkDone(f) => ready.push(f),
                CallbackKind::Map { id, callback } => {
                    let result = complete_map(&mut reg, id, None);
                    ready.push(Box::new(move || callback(result)));
                }
            }
        }
        state.callbacks = keep_waiting;
    }
    drop(freed);
    record_retired(dev, traces);
    for e in findings {
        dev.report(e);
    }
    for f in ready {
        f();
    }
}
