//! The queue: submission, write_buffer uploads, completion and callbacks.
//!
//! Every submission is one batch of AQL packets on the device's queue:
//! pending uploads (write_buffer, zero fills of new device buffers,
//! mapped-at-creation uploads) first, then each command buffer's ops, then a
//! barrier-AND carrying the queue's epoch signal. The epoch signal starts at
//! EPOCH_BASE and the packet processor decrements it once per submission, so
//! `EPOCH_BASE - value` is the number of completed submissions and a
//! `SubmissionIndex` is just that count. Kernarg blocks and staging blocks
//! come from rings freed by epoch; the memory and code objects a submission
//! uses are kept alive until its epoch completes. Map and work-done
//! callbacks run from `poll` (and `submit`) in the order they were
//! registered, once their epoch has completed, with no lock held.
//!
//! Diagnostics: each submission runs in a `submit` debug span (its index);
//! each op written is a trace event naming the kernel, grid, workgroup,
//! barrier bit and fence scopes, and for a repeated dispatch its packet
//! count and the repeats' barrier bit. Disabled, they cost a level check and
//! no allocation. A submission in flight keeps its ops and the queue index of
//! its first packet, so a queue fault is reported as one line naming the
//! kernel at the queue's read index (gfxsim and the CP stop at the failing
//! packet), its submission, the fault kind and the GPU address.

use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use aqueduct_hsa::code_object::CodeObjectError;
use aqueduct_hsa::queue::AqlPacket;
use aqueduct_hsa::queue::packet;
use aqueduct_hsa::{
    HsaError, KernelDispatch, MemoryError, MemoryOrder, PacketFence, Reservation, ReservationError,
    WaitCondition, WaitHint,
};
use aqueduct_kfd::abi::{RawPacket, packet_type};
use wgpu_types::{BufferUsages, COPY_BUFFER_ALIGNMENT, PollError, PollStatus};

use crate::buffer::Buffer;
use crate::command::encoder::CommandBuffer;
use crate::command::hazard::Access;
use crate::command::lower::{self, Op, PacketRole, UniformInKernarg, Work};
use crate::device::DeviceShared;
use crate::error::{BufferAsyncError, Error, InternalError, ValidationError};
use crate::registry::{BufferId, MapState, Owner};
use crate::ring::{Ring, RingBlock};

/// Initial value of the epoch signal.
pub(crate) const EPOCH_BASE: i64 = 1 << 40;
/// How long a wait polls the epoch signal before sleeping on its event.
const ACTIVE_WAIT: Duration = Duration::from_micros(200);
/// How often a wait re-checks its signal while another queue of the runtime
/// is in error (every wait of the runtime fails at once until it recovers).
const FOREIGN_ERROR_POLL: Duration = Duration::from_micros(100);
/// Packets reserved on the ring at a time.
const RESERVE_CHUNK: usize = 1024;

pub type PollType = wgpu_types::PollType<SubmissionIndex>;

/// Identifies a submission (its epoch: submissions are numbered from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SubmissionIndex(pub(crate) u64);

impl SubmissionIndex {
    /// The index of submission number `epoch` (submissions count from 1);
    /// `Device::poll` rejects one that was never made.
    pub fn from_epoch(epoch: u64) -> Self {
        SubmissionIndex(epoch)
    }

    /// The submission's number (submissions count from 1).
    pub fn epoch(self) -> u64 {
        self.0
    }
}

pub(crate) type Callback = Box<dyn FnOnce(Result<(), BufferAsyncError>) + Send + 'static>;
type KeepAlive = Box<dyn Any + Send + Sync>;

enum CallbackKind {
    Map { id: BufferId, callback: Callback },
    WorkDone(Box<dyn FnOnce() + Send + 'static>),
}

struct PendingCallback {
    epoch: u64,
    kind: CallbackKind,
}

struct PendingOp {
    op: Op,
    buffer: Option<BufferId>,
}

struct InFlight {
    epoch: u64,
    /// The submission's ops (from packet `first_packet` on, `op.count`
    /// packets each, then the completion barrier), kept to name a faulting
    /// kernel.
    ops: Vec<Op>,
    /// Queue index of the first packet and the queue's recreation count
    /// then; `None` when nothing was written or the packets are not
    /// consecutive.
    first_packet: Option<(u64, u64)>,
    _keep: Vec<KeepAlive>,
}

/// Where a queue fault happened, as far as the host can tell.
struct FaultSite {
    submission: u64,
    /// The kernel of the packet at the read index (`None`: not a dispatch).
    kernel: Option<Arc<str>>,
}

pub(crate) struct QueueState {
    pub last_submitted: u64,
    pub last_completed: u64,
    kernargs: Ring,
    staging: Ring,
    pending: Vec<PendingOp>,
    pending_keep: Vec<KeepAlive>,
    in_flight: VecDeque<InFlight>,
    callbacks: VecDeque<PendingCallback>,
    /// Map callbacks delivered on the host-callback thread (see
    /// `Device::set_callbacks_on_host_thread`), by buffer, until it runs
    /// them or the mapping is aborted.
    host_maps: HashMap<BufferId, Callback>,
    /// The HSA queue's recreation count when last seen (see `submit`).
    queue_recreations: u64,
    /// A submission (epoch `last_submitted + 1`) is being written; it took
    /// the pending uploads, so new ones go into the one after it.
    in_submit: bool,
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
    pub(crate) fn new(kernargs: Ring, staging: Ring) -> Self {
        QueueState {
            last_submitted: 0,
            last_completed: 0,
            kernargs,
            staging,
            pending: Vec::new(),
            pending_keep: Vec::new(),
            in_flight: VecDeque::new(),
            callbacks: VecDeque::new(),
            host_maps: HashMap::new(),
            queue_recreations: 0,
            in_submit: false,
        }
    }

    /// The submission that will carry uploads queued now (their staging
    /// blocks are freed when it completes).
    fn open_epoch(&self) -> u64 {
        self.last_submitted + 1 + u64::from(self.in_submit)
    }

    /// Free ring blocks and retire in-flight submissions up to `completed`.
    fn retire(&mut self, completed: u64) {
        let completed = completed.max(self.last_completed);
        self.last_completed = completed;
        while self.in_flight.front().is_some_and(|f| f.epoch <= completed) {
            self.in_flight.pop_front();
        }
        self.kernargs.reclaim(completed);
        self.staging.reclaim(completed);
    }

    pub(crate) fn push_pending(
        &mut self,
        ops: Vec<Op>,
        buffer: Option<BufferId>,
        keep: Vec<KeepAlive>,
    ) {
        self.pending
            .extend(ops.into_iter().map(|op| PendingOp { op, buffer }));
        self.pending_keep.extend(keep);
    }

    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    pub(crate) fn pending_touches(&self, id: BufferId) -> bool {
        self.pending.iter().any(|p| p.buffer == Some(id))
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
    fn unlocked<R>(&mut self, f: impl FnOnce() -> R) -> R {
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

/// A ring is full: wait, without the queue-state lock, until submission
/// `oldest` (the oldest holding ring blocks) completes, then free what
/// completed. A failed wait is a queue fault: it is reported and the
/// outstanding submissions counted complete (`recover_from_queue_error`),
/// which frees their blocks too, so the caller's retry makes progress
/// either way.
fn wait_for_ring_space(dev: &Arc<DeviceShared>, state: &mut StateLock<'_>, oldest: u64) {
    state.unlocked(|| match wait_epoch(dev, oldest, None) {
        Ok(_) => {}
        Err(e) => recover_from_queue_error(dev, &e),
    });
    let completed = completed_epoch(dev);
    state.retire(completed);
}

/// The submission queue of a device (cheap to clone).
#[derive(Clone, Debug)]
pub struct Queue {
    pub(crate) shared: Arc<DeviceShared>,
}

impl Queue {
    /// Submit command buffers; returns the submission's index. An invalid
    /// command buffer, or one using a destroyed or mapped buffer, makes the
    /// whole submission a validation error and nothing of it runs.
    pub fn submit<I: IntoIterator<Item = CommandBuffer>>(
        &self,
        command_buffers: I,
    ) -> SubmissionIndex {
        submit(&self.shared, command_buffers.into_iter().collect())
    }

    /// Write `data` into `buffer` at `offset` before the next submission's
    /// work (through the staging ring and an upload dispatch).
    pub fn write_buffer(&self, buffer: &Buffer, offset: u64, data: &[u8]) {
        let dev = &self.shared;
        if !self.validate_write_buffer(buffer, offset, data.len() as u64) {
            return;
        }
        if data.is_empty() {
            return;
        }
        if let Err(e) = stage_write(dev, buffer, offset, data) {
            dev.report(Error::OutOfMemory {
                source: Box::new(InternalError(format!("write_buffer: {e}"))),
            });
        }
    }

    /// The checks `write_buffer` makes before writing `size` bytes at
    /// `offset`: the buffer is valid, not destroyed, not mapped, has
    /// COPY_DST usage, and the range is 4-byte aligned and inside it. A
    /// failure is reported as `write_buffer` reports it (error scope or
    /// uncaptured-error handler) and gives false. For layers that stage the
    /// bytes themselves before writing them (aqueduct-wgpu's
    /// `write_buffer_with`).
    pub fn validate_write_buffer(&self, buffer: &Buffer, offset: u64, size: u64) -> bool {
        let dev = &self.shared;
        let check = || -> Result<(), String> {
            buffer.check_usable("the buffer")?;
            if !buffer.usage().contains(BufferUsages::COPY_DST) {
                return Err(format!(
                    "{} lacks COPY_DST usage; add it to write with queue.write_buffer",
                    buffer.describe()
                ));
            }
            if !offset.is_multiple_of(COPY_BUFFER_ALIGNMENT)
                || !size.is_multiple_of(COPY_BUFFER_ALIGNMENT)
            {
                return Err(format!(
                    "offset {offset} and size {size} must be multiples of COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})"
                ));
            }
            if offset.checked_add(size).is_none_or(|e| e > buffer.size()) {
                return Err(format!(
                    "{offset}..{} overruns {} ({} bytes)",
                    offset as u128 + size as u128,
                    buffer.describe(),
                    buffer.size()
                ));
            }
            let mapped = dev
                .with_buffer(buffer.inner.id, |s| !matches!(s.map, MapState::Unmapped))
                .unwrap_or(false);
            if mapped {
                return Err(format!("{} is mapped; unmap it first", buffer.describe()));
            }
            Ok(())
        };
        match check() {
            Ok(()) => true,
            Err(msg) => {
                dev.report(ValidationError::Queue(format!("write_buffer: {msg}")));
                false
            }
        }
    }

    /// Run `callback` once all work submitted so far (and pending uploads)
    /// has completed, after earlier-registered callbacks.
    pub fn on_submitted_work_done(&self, callback: impl FnOnce() + Send + 'static) {
        let dev = &self.shared;
        if dev.callbacks_on_host_thread() {
            // On the host-callback thread; it also runs after a GPU fault.
            let callback = Arc::new(Mutex::new(Some(callback)));
            let queued = callback.clone();
            let run = move |_: Result<(), aqueduct_hsa::QueueError>| {
                let f = queued.lock().unwrap_or_else(|p| p.into_inner()).take();
                if let Some(f) = f {
                    f()
                }
            };
            match crate::host_callback::enqueue(dev, Box::new(run)) {
                Ok(()) => return,
                Err(e) => {
                    tracing::warn!("on_submitted_work_done: host callback queue: {e}; using poll");
                    let Some(f) = callback.lock().unwrap_or_else(|p| p.into_inner()).take() else {
                        return;
                    };
                    return self.on_submitted_work_done_polled(f);
                }
            }
        }
        self.on_submitted_work_done_polled(callback)
    }

    /// WebGPU's delivery: run from `poll`/`submit`.
    fn on_submitted_work_done_polled(&self, callback: impl FnOnce() + Send + 'static) {
        let dev = &self.shared;
        let flush = !dev.lock_state().pending.is_empty();
        if flush {
            submit(dev, Vec::new());
        }
        let mut state = dev.lock_state();
        let epoch = state.last_submitted;
        state.callbacks.push_back(PendingCallback {
            epoch,
            kind: CallbackKind::WorkDone(Box::new(callback)),
        });
    }

    /// Nanoseconds per timestamp tick (the 100 MHz realtime counter: 10 ns).
    pub fn get_timestamp_period(&self) -> f32 {
        crate::query::TIMESTAMP_PERIOD_NS
    }
}

fn stage_write(
    dev: &Arc<DeviceShared>,
    buffer: &Buffer,
    offset: u64,
    data: &[u8],
) -> Result<(), HsaError> {
    let len = data.len() as u64;
    let mut state = StateLock::new(dev);
    let (src_va, keep): (u64, Option<KeepAlive>) = if len <= state.staging.capacity() / 2 {
        let block = loop {
            let epoch = state.open_epoch();
            if let Some(b) = state.staging.alloc(len, 64, epoch) {
                break b;
            }
            let oldest = state.staging.oldest_epoch().unwrap_or(epoch);
            if oldest >= epoch {
                // Only uploads still pending fill it: submit them.
                state.unlocked(|| submit(dev, Vec::new()));
                continue;
            }
            wait_for_ring_space(dev, &mut state, oldest);
        };
        // SAFETY: the block is len bytes of host-mapped staging memory reserved for this upload.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), block.host, data.len()) };
        (block.va, None)
    } else {
        // A dedicated allocation, filled without the lock.
        let alloc = state.unlocked(|| -> Result<_, HsaError> {
            let pool = dev
                .runtime
                .pool(&dev.agent, aqueduct_hsa::PoolKind::FineSystem)?;
            let mut alloc = pool.allocate(len)?;
            let bytes = alloc
                .as_mut_slice()
                .ok_or_else(|| HsaError::from(MemoryError::NotHostMapped { memory: "staging" }))?;
            bytes.copy_from_slice(data);
            Ok(alloc)
        })?;
        (alloc.gpu_va(), Some(Box::new(alloc)))
    };
    let src = Access {
        range: src_va..src_va + len,
        write: false,
        host_visible: true,
    };
    let dst = buffer.access(offset..offset + len, true);
    match lower::copy_ops(&dev.blit, PacketRole::Upload, src, dst) {
        Ok(ops) => {
            let mut keep_all: Vec<KeepAlive> = Vec::new();
            if let Some(m) = buffer.memory() {
                keep_all.push(Box::new(m.clone()));
            }
            keep_all.extend(keep);
            state.push_pending(ops, Some(buffer.inner.id), keep_all);
        }
        Err(msg) => tracing::error!("write_buffer upload: {msg}"),
    }
    Ok(())
}

/// Validate, lower and write one submission.
pub(crate) fn submit(dev: &Arc<DeviceShared>, cbs: Vec<CommandBuffer>) -> SubmissionIndex {
    let validate = || -> Result<(), String> {
        if dev.lost.load(std::sync::atomic::Ordering::Acquire) {
            return Err("the device was destroyed".into());
        }
        for (i, cb) in cbs.iter().enumerate() {
            if !Arc::ptr_eq(&cb.device, dev) {
                return Err(format!("command buffer {i} was recorded on another device"));
            }
            if let Some(e) = &cb.rec.error {
                return Err(format!("command buffer {i} is invalid ({e})"));
            }
            let reg = dev.registry();
            for b in &cb.rec.used {
                match reg.buffers.get(b.inner.id) {
                    None => {
                        return Err(format!(
                            "command buffer {i} uses {}, which is gone",
                            b.describe()
                        ));
                    }
                    Some(s) if s.destroyed => {
                        return Err(format!(
                            "command buffer {i} uses {}, which has been destroyed",
                            b.describe()
                        ));
                    }
                    Some(s) if !matches!(s.map, MapState::Unmapped) => {
                        return Err(format!(
                            "command buffer {i} uses {}, which is mapped or has a mapping pending; \
                             unmap it before submitting work that uses it",
                            b.describe()
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(())
    };
    let valid = match validate() {
        Ok(()) => true,
        Err(msg) => {
            dev.report(ValidationError::Queue(format!("submit: {msg}")));
            false
        }
    };
    let index = {
        // Submissions are written one at a time, in epoch order; the
        // queue-state lock may be let go while one waits for ring space.
        let _writer = dev.submit_lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut state = StateLock::new(dev);
        let epoch = state.last_submitted + 1;
        state.in_submit = true;
        let _span = tracing::debug_span!("submit", submission = epoch).entered();
        let pending: Vec<PendingOp> = std::mem::take(&mut state.pending);
        let mut keep: Vec<KeepAlive> = std::mem::take(&mut state.pending_keep);
        let mut ops: Vec<Op> = Vec::new();
        let mut touched: Vec<BufferId> = Vec::new();
        for p in pending {
            ops.push(p.op);
            touched.extend(p.buffer);
        }
        if valid {
            ops.reserve(cbs.iter().map(|cb| cb.rec.ops.len()).sum());
            for cb in cbs {
                ops.extend(cb.rec.ops);
                for b in &cb.rec.used {
                    touched.push(b.inner.id);
                    if let Some(m) = b.memory() {
                        keep.push(Box::new(m.clone()));
                    }
                }
                keep.push(Box::new(cb.rec.executables));
            }
        }
        keep.push(Box::new(dev.blit.executables.clone()));
        let mut faults: Vec<SeenFault> =
            recover_before_write(dev, &mut state).into_iter().collect();
        #[cfg(test)]
        if let Some(hook) = tests::BEFORE_WRITE.take() {
            hook();
        }
        let written = write_packets(dev, &mut state, &ops, epoch, &mut keep, &mut faults);
        let recreations = note_recreation(dev, &mut state);
        let first_packet = match written {
            Ok(first) => first.map(|f| (f, recreations)),
            Err(Unwritten::Dropped) => None,
            Err(Unwritten::Failed(e)) => {
                state.unlocked(|| {
                    dev.report(Error::Internal {
                        description: format!("submit: writing AQL packets failed: {e}"),
                        source: Box::new(e),
                    })
                });
                // Nothing was published for this epoch: count it as done.
                dev.epoch_signal.sub(1, MemoryOrder::Release);
                None
            }
        };
        tracing::debug!(ops = ops.len(), "submitted");
        {
            let mut reg = dev.registry();
            for id in touched {
                if let Some(s) = reg.buffers.get_mut(id) {
                    s.last_use = epoch;
                    s.owner = Owner::Agent;
                }
            }
        }
        state.last_submitted = epoch;
        state.in_submit = false;
        state.in_flight.push_back(InFlight {
            epoch,
            ops,
            first_packet,
            _keep: keep,
        });
        drop(state);
        for (e, site) in faults {
            report_queue_fault(dev, &HsaError::from(e), site);
        }
        SubmissionIndex(epoch)
    };
    maintain(dev);
    index
}

/// A queue fault and where it happened, to report once the queue-state
/// lock is let go.
type SeenFault = (aqueduct_hsa::QueueError, Option<FaultSite>);

/// Before a writer (a submission, a host barrier) puts packets on the GPU
/// queue: if the queue faulted and no wait has handled it yet, the faulted
/// queue runs nothing more, so the submissions up to `through` are counted
/// complete and the queue is recreated, all under the queue-state lock.
/// Counting must come before any new packet goes to the recreated queue
/// (their completions would otherwise race with the count), and the queue
/// must not be recreated without it (the dropped submissions would never
/// complete): so writers reserve with `reserve_unless_failed`, and a fault
/// that shows up while they write comes back here or to
/// `drop_faulted_write`. Returns the fault if any submission was dropped.
fn recover_before_write(dev: &DeviceShared, state: &mut QueueState) -> Option<SeenFault> {
    let fault = dev.hsa_queue.error()?;
    let dropped = completed_epoch(dev) < state.last_submitted;
    let site = dropped.then(|| locate_fault(dev, state)).flatten();
    if dropped {
        dev.epoch_signal.store(
            EPOCH_BASE - state.last_submitted as i64,
            MemoryOrder::Release,
        );
    }
    match dev.hsa_queue.recover() {
        Ok(()) => {
            note_recreation(dev, state);
        }
        Err(r) => tracing::warn!("recreating the faulted GPU queue: {r}"),
    }
    dropped.then_some((fault, site))
}

/// After a write: writing to a queue that faulted recreated it first, and
/// the recreation marked the signals of the dropped packets failed, the
/// epoch signal among them. The facade already counted those submissions
/// complete (`recover_from_queue_error`, `take_unseen_fault`), and the
/// signal lives on for later submissions, so its failure mark goes.
/// Returns the queue's recreation count.
fn note_recreation(dev: &DeviceShared, state: &mut QueueState) -> u64 {
    let recreations = dev.hsa_queue.recreations();
    if recreations != state.queue_recreations {
        state.queue_recreations = recreations;
        dev.runtime
            .event_hub()
            .clear_signal_failure(dev.epoch_signal.handle());
    }
    recreations
}

/// A barrier-AND on the GPU queue after everything written so far that
/// decrements `done` once all of it has completed: a host callback's
/// dependency. The caller holds `submit_lock` (packet order). A queue
/// fault no wait has seen yet is handled as `submit` handles it, and then
/// no barrier is written: the fault is returned (the work the callback
/// waits for was dropped).
pub(crate) fn write_host_barrier(
    dev: &Arc<DeviceShared>,
    done: &aqueduct_hsa::Signal,
) -> Result<Option<aqueduct_hsa::QueueError>, HsaError> {
    let barrier = packet::barrier_and(&[], done.handle(), PacketFence::SYSTEM_ORDERED)?;
    let mut state = dev.lock_state();
    // A fault may also show up between the check and the write: then
    // check again (the recreated queue is empty, so once is enough).
    // A second fault, on the empty recreated queue, is returned as is.
    let mut retried = false;
    loop {
        if let Some((e, site)) = recover_before_write(dev, &mut state) {
            drop(state);
            report_queue_fault(dev, &HsaError::from(e.clone()), site);
            return Ok(Some(e));
        }
        match dev.hsa_queue.submit_unless_failed(&barrier) {
            Err(HsaError::QueueError { .. }) if !retried && dev.hsa_queue.error().is_some() => {
                retried = true;
            }
            written => return written.map(|_| None),
        }
    }
}

/// Whether every submission so far has completed.
pub(crate) fn all_completed(dev: &DeviceShared) -> bool {
    completed_epoch(dev) >= dev.lock_state().last_submitted
}

/// Why a submission's packets are not (all) on the GPU queue.
enum Unwritten {
    /// A queue fault dropped them with the submissions before them; the
    /// submission is counted complete and the fault is in `faults`.
    Dropped,
    /// Something else went wrong (nothing was published, or no-ops were).
    Failed(HsaError),
}

impl From<HsaError> for Unwritten {
    fn from(e: HsaError) -> Self {
        Unwritten::Failed(e)
    }
}

/// Write the packets of `ops` (each `op.count` times) plus the completion
/// packet; returns the queue index of the first one when all are
/// consecutive. A queue fault seen before any packet is published is
/// handled (`recover_before_write`, into `faults`) and the packets go to
/// the recreated queue; one seen after some were published drops the
/// submission (`drop_faulted_write`).
fn write_packets(
    dev: &Arc<DeviceShared>,
    state: &mut StateLock<'_>,
    ops: &[Op],
    epoch: u64,
    keep: &mut Vec<KeepAlive>,
    faults: &mut Vec<SeenFault>,
) -> Result<Option<u64>, Unwritten> {
    let fences = lower::plan_runs(ops);
    // Kernarg blocks for every dispatch op (patch ops need their target's).
    // An op's repeats share its block, and so do consecutive ops sharing
    // one dispatch: kernels never write their kernargs; patched dispatches
    // (whose block counts the patch kernel writes) get their own.
    let mut kernarg_va = vec![0u64; ops.len()];
    // Patch kernels' blocks are placed now too (filled once their target
    // packet's slot is known), so no wait for ring space happens while
    // queue slots are reserved.
    let mut patch_block: Vec<Option<RingBlock>> = vec![None; ops.len()];
    let mut previous: Option<(&Arc<lower::DispatchWork>, u64)> = None;
    for (i, op) in ops.iter().enumerate() {
        match &op.work {
            Work::Dispatch(d) => {
                if let Some((p, va)) = previous
                    && Arc::ptr_eq(p, d)
                    && !d.patched
                {
                    kernarg_va[i] = va;
                    continue;
                }
                kernarg_va[i] = alloc_kernarg(
                    dev,
                    state,
                    &d.kernarg,
                    d.kernarg_align,
                    d.uniform_in_kernarg,
                    epoch,
                    keep,
                )?
                .va;
                previous = Some((d, kernarg_va[i]));
            }
            Work::Patch(p) => {
                let shape = lower::patch_kernarg(&dev.blit, p, 0, 0, 0, 0).map_err(|reason| {
                    HsaError::from(CodeObjectError::BadDispatchShape { reason })
                })?;
                patch_block[i] = Some(alloc_kernarg(
                    dev,
                    state,
                    &shape.kernarg,
                    shape.kernarg_align,
                    None,
                    epoch,
                    keep,
                )?);
            }
        }
    }
    let total = ops.iter().map(|o| u64::from(o.count)).sum::<u64>() + 1;
    let mut retried = false;
    loop {
        let mut slots = SlotWriter::new(&dev.hsa_queue, total);
        let written = write_slots(dev, ops, &fences, &kernarg_va, &patch_block, &mut slots);
        let faulted = |e: &HsaError| {
            matches!(e, HsaError::QueueError { .. }) && dev.hsa_queue.error().is_some()
        };
        match written {
            Ok(()) => return Ok(slots.finish()),
            Err(e) if faulted(&e) && !slots.published() && !retried => {
                drop(slots);
                retried = true;
                faults.extend(recover_before_write(dev, state));
            }
            Err(e) if faulted(&e) => {
                drop(slots);
                faults.extend(drop_faulted_write(dev, state, epoch));
                return Err(Unwritten::Dropped);
            }
            Err(e) => return Err(Unwritten::Failed(e)),
        }
    }
}

/// A fault showed up after some of submission `epoch`'s packets went on
/// the queue: they stop with the rest, so everything through `epoch` is
/// counted complete and the queue recreated.
fn drop_faulted_write(dev: &DeviceShared, state: &mut QueueState, epoch: u64) -> Option<SeenFault> {
    let fault = dev.hsa_queue.error()?;
    let site = locate_fault(dev, state);
    dev.epoch_signal
        .store(EPOCH_BASE - epoch as i64, MemoryOrder::Release);
    match dev.hsa_queue.recover() {
        Ok(()) => {
            note_recreation(dev, state);
        }
        Err(r) => tracing::warn!("recreating the faulted GPU queue: {r}"),
    }
    Some((fault, site))
}

/// The packet-writing half of `write_packets`, into `slots`.
fn write_slots(
    dev: &DeviceShared,
    ops: &[Op],
    fences: &[lower::RunFence],
    kernarg_va: &[u64],
    patch_block: &[Option<RingBlock>],
    slots: &mut SlotWriter<'_>,
) -> Result<(), HsaError> {
    let queue = &dev.hsa_queue;
    let ring_size = queue.size() as u64;
    // The last dispatch packet built: a repeated dispatch with the same
    // kernarg block and fence is the same packet.
    let mut last_packet: Option<(&Arc<lower::DispatchWork>, u64, PacketFence, RawPacket)> = None;
    for (i, op) in ops.iter().enumerate() {
        let run = fences[i];
        let fence = run.first;
        match &op.work {
            Work::Dispatch(d) => {
                let id = slots.next_index()?;
                tracing::trace!(
                    packet = id,
                    kernel = %d.kernel_name,
                    grid = ?d.grid,
                    workgroup = ?d.workgroup,
                    barrier = fence.barrier,
                    acquire = ?fence.acquire,
                    release = ?fence.release,
                    indirect = d.patched,
                    count = op.count,
                    repeat_barrier = run.rest.barrier,
                    "dispatch"
                );
                let mut packet_for = |fence: PacketFence| -> Result<RawPacket, HsaError> {
                    if let Some((w, kva, f, raw)) = &last_packet
                        && Arc::ptr_eq(w, d)
                        && *kva == kernarg_va[i]
                        && *f == fence
                    {
                        return Ok(*raw);
                    }
                    let (raw, _) = dispatch_packet(d, kernarg_va[i], fence)?;
                    last_packet = Some((d, kernarg_va[i], fence, raw));
                    Ok(raw)
                };
                let first = packet_for(fence)?;
                slots.write(&first)?;
                if op.count > 1 {
                    slots.write_run(&packet_for(run.rest)?, op.count - 1)?;
                }
            }
            Work::Patch(p) => {
                let id = slots.next_index()?;
                let target = i + 1;
                let Some(Work::Dispatch(td)) = ops.get(target).map(|o| &o.work) else {
                    return Err(CodeObjectError::BadDispatchShape {
                        reason: "an indirect patch without its dispatch".into(),
                    }
                    .into());
                };
                let target_fence = fences[target].first;
                // The target's packet, written INVALID by its own op (which
                // takes it from last_packet); the patch kernel publishes it
                // with its real header word.
                let (target_raw, header_dispatch) =
                    dispatch_packet(td, kernarg_va[target], target_fence)?;
                last_packet = Some((td, kernarg_va[target], target_fence, target_raw));
                let nop = packet::nop(aqueduct_hsa::PacketFence {
                    barrier: target_fence.barrier,
                    acquire: aqueduct_kfd::abi::FenceScope::None,
                    release: aqueduct_kfd::abi::FenceScope::None,
                });
                let header_nop = nop.header as u32;
                let slot_va = queue.ring_va() + ((id + 1) % ring_size) * 64;
                let work = lower::patch_kernarg(
                    &dev.blit,
                    p,
                    slot_va,
                    kernarg_va[target],
                    header_dispatch,
                    header_nop,
                )
                .map_err(|reason| CodeObjectError::BadDispatchShape { reason })?;
                let Some(block) = patch_block[i] else {
                    return Err(CodeObjectError::BadDispatchShape {
                        reason: "an indirect patch without its kernarg block".into(),
                    }
                    .into());
                };
                if work.kernarg.len() as u64 > block.len {
                    return Err(CodeObjectError::BadDispatchShape {
                        reason: "an indirect patch's kernargs outgrew their block".into(),
                    }
                    .into());
                }
                // SAFETY: the block holds block.len >= kernarg.len() bytes of host-mapped kernarg memory reserved for this packet.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        work.kernarg.as_ptr(),
                        block.host,
                        work.kernarg.len(),
                    )
                };
                tracing::trace!(
                    packet = id,
                    kernel = %work.kernel_name,
                    target = %td.kernel_name,
                    barrier = fence.barrier,
                    acquire = ?fence.acquire,
                    release = ?fence.release,
                    "indirect-dispatch patch"
                );
                let mut kd =
                    KernelDispatch::new(work.kernel_object, block.va, work.grid, work.workgroup);
                kd.fence = fence;
                slots.write(&kd.to_packet()?.to_raw())?;
            }
        }
    }
    let fence = lower::completion_fence();
    let id = slots.next_index()?;
    tracing::trace!(
        packet = id,
        barrier = fence.barrier,
        acquire = ?fence.acquire,
        release = ?fence.release,
        "completion barrier"
    );
    let done = packet::barrier_and(&[], dev.epoch_signal.handle(), fence)?;
    slots.write(&done.to_raw())
}

/// The packet of dispatch `d` with its kernarg block at `kernarg_va`, and
/// the header word that publishes it (a patched dispatch's packet holds
/// INVALID there until its patch kernel stores that word).
fn dispatch_packet(
    d: &lower::DispatchWork,
    kernarg_va: u64,
    fence: PacketFence,
) -> Result<(RawPacket, u32), HsaError> {
    let mut kd = KernelDispatch::new(d.kernel_object, kernarg_va, d.grid, d.workgroup);
    kd.group_segment_size = d.group_segment;
    kd.private_segment_size = d.private_segment;
    kd.fence = fence;
    if d.patched {
        kd.dimensions = 3;
    }
    let mut raw = kd.to_packet()?.to_raw();
    let publish = packet::header_word(&raw);
    if d.patched {
        // Held at INVALID until the patch kernel publishes it.
        let bytes: &mut [u8] = bytemuck::bytes_of_mut(&mut raw);
        bytes[0..2].copy_from_slice(&packet_type::INVALID.to_le_bytes());
    }
    Ok((raw, publish))
}

/// A submission's packets go into consecutive reservations of at most
/// RESERVE_CHUNK slots each; the doorbell rings as each one is committed
/// (so the device starts on a long submission before all of it is
/// written), and a reservation dropped on an error publishes no-ops in its
/// unwritten slots.
struct SlotWriter<'q> {
    queue: &'q aqueduct_hsa::Queue,
    reservation: Option<Reservation<'q>>,
    /// Slots of `reservation` written so far.
    used: u32,
    /// Packets of the submission not reserved yet.
    unreserved: u64,
    /// Packets written so far.
    written: u64,
    first_packet: Option<u64>,
    consecutive: bool,
}

impl<'q> SlotWriter<'q> {
    fn new(queue: &'q aqueduct_hsa::Queue, total: u64) -> Self {
        SlotWriter {
            queue,
            reservation: None,
            used: 0,
            unreserved: total,
            written: 0,
            first_packet: None,
            consecutive: true,
        }
    }

    /// The reservation with a free slot, and that slot.
    fn slot(&mut self) -> Result<(&mut Reservation<'q>, u32), HsaError> {
        let full = self
            .reservation
            .as_ref()
            .is_none_or(|r| self.used == r.len());
        if full {
            if let Some(r) = self.reservation.take() {
                r.commit();
            }
            if self.unreserved == 0 {
                return Err(ReservationError::NoSlotLeft.into());
            }
            let count = self.unreserved.min(RESERVE_CHUNK as u64) as u32;
            let r = self.queue.reserve_unless_failed(count)?;
            let chunk_first = r.index(0);
            match self.first_packet {
                None => self.first_packet = Some(chunk_first),
                Some(f) => self.consecutive &= chunk_first == f + self.written,
            }
            self.unreserved -= u64::from(count);
            self.used = 0;
            self.reservation = Some(r);
        }
        let used = self.used;
        let r = self
            .reservation
            .as_mut()
            .ok_or(ReservationError::NoSlotLeft)?;
        Ok((r, used))
    }

    /// The queue index the next packet will take.
    fn next_index(&mut self) -> Result<u64, HsaError> {
        let (r, k) = self.slot()?;
        Ok(r.index(k))
    }

    fn write(&mut self, packet: &RawPacket) -> Result<(), HsaError> {
        let (r, k) = self.slot()?;
        r.write(k, packet)?;
        self.used += 1;
        self.written += 1;
        Ok(())
    }

    /// Write `packet` `count` times (across reservations as needed).
    fn write_run(&mut self, packet: &RawPacket, mut count: u32) -> Result<(), HsaError> {
        while count > 0 {
            let (r, k) = self.slot()?;
            let n = count.min(r.len() - k);
            r.write_repeated(k, n, packet)?;
            self.used += n;
            self.written += u64::from(n);
            count -= n;
        }
        Ok(())
    }

    /// Whether any slot was reserved (so published: a dropped reservation
    /// fills its unwritten slots with no-ops).
    fn published(&self) -> bool {
        self.first_packet.is_some()
    }

    /// Ring the doorbell for the last reservation; the queue index of the
    /// first packet when all of them are consecutive.
    fn finish(mut self) -> Option<u64> {
        if let Some(r) = self.reservation.take() {
            r.commit();
        }
        self.first_packet.filter(|_| self.consecutive)
    }
}

/// Place a kernarg block; with `uniform`, its pointer argument is set to
/// the uniform bytes at the end of the block. A full ring waits (without
/// the queue-state lock) for the oldest submission holding blocks.
fn alloc_kernarg(
    dev: &Arc<DeviceShared>,
    state: &mut StateLock<'_>,
    bytes: &[u8],
    align: u64,
    uniform: Option<UniformInKernarg>,
    epoch: u64,
    keep: &mut Vec<KeepAlive>,
) -> Result<RingBlock, HsaError> {
    if bytes.is_empty() {
        return Ok(RingBlock {
            va: 0,
            host: std::ptr::null_mut(),
            len: 0,
        });
    }
    let len = bytes.len() as u64;
    if let Some(u) = uniform
        && (u.arg_offset as usize + 8 > bytes.len() || u.data_offset as usize > bytes.len())
    {
        return Err(CodeObjectError::ArgMismatch {
            arg: "uniform".into(),
            reason: "lies outside its kernarg block".into(),
        }
        .into());
    }
    let uniform_ptr =
        |va: u64| uniform.map(|u| (u.arg_offset as usize, va + u64::from(u.data_offset)));
    if len > state.kernargs.capacity() / 4 {
        let mut alloc = dev.runtime.kernarg_pool(&dev.agent)?.allocate(len)?;
        let va = alloc.gpu_va();
        let slice = alloc
            .as_mut_slice()
            .ok_or_else(|| HsaError::from(MemoryError::NotHostMapped { memory: "kernarg" }))?;
        slice[..bytes.len()].copy_from_slice(bytes);
        if let Some((at, ptr)) = uniform_ptr(va) {
            slice[at..at + 8].copy_from_slice(&ptr.to_le_bytes());
        }
        let host = slice.as_mut_ptr();
        keep.push(Box::new(alloc));
        return Ok(RingBlock { va, host, len });
    }
    loop {
        if let Some(b) = state.kernargs.alloc(len, align, epoch) {
            // SAFETY: the block is len bytes of host-mapped kernarg memory reserved for this dispatch.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), b.host, bytes.len()) };
            if let Some((at, ptr)) = uniform_ptr(b.va) {
                // SAFETY: at + 8 <= len (checked above), inside the same reserved block.
                unsafe {
                    std::ptr::copy_nonoverlapping(ptr.to_le_bytes().as_ptr(), b.host.add(at), 8)
                };
            }
            return Ok(b);
        }
        let oldest = state.kernargs.oldest_epoch().unwrap_or(epoch);
        if oldest >= epoch {
            return Err(MemoryError::KernargSpace {
                block: len,
                capacity: state.kernargs.capacity(),
            }
            .into());
        }
        wait_for_ring_space(dev, state, oldest);
    }
}

fn completed_epoch(dev: &DeviceShared) -> u64 {
    (EPOCH_BASE - dev.epoch_signal.load(MemoryOrder::Acquire)).max(0) as u64
}

/// Wait until submission `epoch` completed; returns the completed count.
/// A queue error ends the wait only when it is this device's queue's: HSA
/// fails every wait of a runtime while any of its queues is in error, and
/// another device of the adapter faulting must not count this device's
/// submissions complete (their memory would be freed and reused while its
/// GPU queue still runs them).
fn wait_epoch(dev: &DeviceShared, epoch: u64, timeout: Option<Duration>) -> Result<u64, HsaError> {
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        match wait_epoch_once(dev, epoch, left) {
            Err(HsaError::QueueError { .. }) if dev.hsa_queue.error().is_none() => {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(HsaError::Timeout);
                }
                std::thread::sleep(FOREIGN_ERROR_POLL);
            }
            other => return other,
        }
    }
}

fn wait_epoch_once(
    dev: &DeviceShared,
    epoch: u64,
    timeout: Option<Duration>,
) -> Result<u64, HsaError> {
    let done = completed_epoch(dev);
    if done >= epoch {
        return Ok(done);
    }
    // value <= EPOCH_BASE - epoch  <=>  value < EPOCH_BASE - epoch + 1
    let target = EPOCH_BASE - epoch as i64 + 1;
    // Short work completes within microseconds: poll (yielding) for a while
    // before sleeping on the signal's event, whose wake-up alone costs more
    // than such work on a loaded machine.
    let spin = timeout.map_or(ACTIVE_WAIT, |t| t.min(ACTIVE_WAIT));
    match dev
        .epoch_signal
        .wait(WaitCondition::Lt, target, Some(spin), WaitHint::Active)
    {
        Err(HsaError::Timeout) => {
            let rest = timeout.map(|t| t.saturating_sub(spin));
            dev.epoch_signal
                .wait(WaitCondition::Lt, target, rest, WaitHint::Blocked)?;
        }
        other => {
            other?;
        }
    }
    Ok(completed_epoch(dev))
}

/// Retire completed submissions and run ready callbacks.
pub(crate) fn maintain(dev: &Arc<DeviceShared>) {
    let mut ready: Vec<Box<dyn FnOnce() + Send>> = Vec::new();
    {
        let mut state = dev.lock_state();
        state.retire(completed_epoch(dev));
        let completed = state.last_completed;
        let mut keep_waiting = VecDeque::new();
        let mut reg = dev.registry();
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
    for f in ready {
        f();
    }
}

fn timeout_of(poll_type: &PollType) -> Option<Duration> {
    match poll_type {
        wgpu_types::PollType::Wait { timeout, .. } => *timeout,
        wgpu_types::PollType::Poll => None,
    }
}

/// A mapping's work completed (or, with `fault`, was dropped by a GPU
/// queue fault): the buffer becomes mapped and host-owned (or unmapped).
fn complete_map(
    reg: &mut crate::registry::Registry,
    id: BufferId,
    fault: Option<&aqueduct_hsa::QueueError>,
) -> Result<(), BufferAsyncError> {
    let Some(s) = reg.buffers.get_mut(id) else {
        return Err(BufferAsyncError("the buffer is gone".into()));
    };
    match (std::mem::replace(&mut s.map, MapState::Unmapped), fault) {
        (MapState::Pending { mode, range, .. }, None) => {
            s.map = MapState::Mapped { mode, range };
            s.owner = Owner::Host;
            Ok(())
        }
        (MapState::Pending { .. }, Some(e)) => Err(BufferAsyncError(format!(
            "the GPU queue faulted before the mapping completed ({}); the buffer stays unmapped",
            e.reason
        ))),
        (other, _) => {
            s.map = other;
            Err(BufferAsyncError("the mapping was aborted".into()))
        }
    }
}

/// A map callback on the host-callback thread: its work completed, or a
/// GPU fault dropped it. Nothing happens if the mapping was aborted (its
/// callback already ran).
pub(crate) fn finish_host_map(
    dev: &DeviceShared,
    id: BufferId,
    outcome: Result<(), aqueduct_hsa::QueueError>,
) {
    let (callback, result) = {
        let mut state = dev.lock_state();
        let Some(callback) = state.host_maps.remove(&id) else {
            return;
        };
        let mut reg = dev.registry();
        (callback, complete_map(&mut reg, id, outcome.as_ref().err()))
    };
    callback(result)
}

/// `Device::poll`.
pub(crate) fn poll(dev: &Arc<DeviceShared>, poll_type: PollType) -> Result<PollStatus, PollError> {
    let timeout = timeout_of(&poll_type);
    let result = match poll_type {
        wgpu_types::PollType::Poll => Ok(PollStatus::Poll),
        wgpu_types::PollType::Wait {
            submission_index,
            timeout,
        } => {
            let last = dev.lock_state().last_submitted;
            let target = match submission_index {
                Some(SubmissionIndex(i)) if i > last => {
                    return Err(PollError::WrongSubmissionIndex(i, last));
                }
                Some(SubmissionIndex(i)) => i,
                None => last,
            };
            match wait_epoch(dev, target, timeout) {
                Ok(_) => Ok(PollStatus::WaitSucceeded),
                Err(HsaError::Timeout) => Err(PollError::Timeout),
                Err(e) => {
                    recover_from_queue_error(dev, &e);
                    Ok(PollStatus::WaitSucceeded)
                }
            }
        }
    };
    maintain(dev);
    // Host callbacks submitted before a wait have run when it returns.
    let result = match result {
        Ok(PollStatus::WaitSucceeded) => match crate::host_callback::drain(dev, timeout) {
            Ok(()) => Ok(PollStatus::WaitSucceeded),
            Err(HsaError::Timeout) => Err(PollError::Timeout),
            Err(e) => {
                tracing::warn!("waiting for host callbacks: {e}");
                Ok(PollStatus::WaitSucceeded)
            }
        },
        other => {
            crate::host_callback::raise_callback_panic(dev);
            other
        }
    };
    let state = dev.lock_state();
    let empty = state.last_completed >= state.last_submitted;
    drop(state);
    match result {
        Ok(PollStatus::Poll) if empty => Ok(PollStatus::QueueEmpty),
        Ok(PollStatus::WaitSucceeded) if empty => Ok(PollStatus::QueueEmpty),
        other => other,
    }
}

/// A queue fault stopped the packets of outstanding submissions: report it,
/// and count those submissions as completed so nothing waits forever. The
/// HSA queue is recreated at once. All of it happens under the state lock
/// and only while the queue is still in error: another thread (a submit, or
/// a poll whose wait failed on the same fault) may have recovered it since
/// this wait failed, and counting again would mark submissions already
/// running on the new queue complete (their memory freed while the GPU uses
/// it; a later store of the old count would lose their completions).
fn recover_from_queue_error(dev: &Arc<DeviceShared>, e: &HsaError) {
    let site = {
        let mut state = dev.lock_state();
        if dev.hsa_queue.error().is_none() {
            return;
        }
        let site = locate_fault(dev, &state);
        dev.epoch_signal.store(
            EPOCH_BASE - state.last_submitted as i64,
            MemoryOrder::Release,
        );
        // Recreate the GPU queue now rather than at the next submission:
        // that marks the signals of the packets it dropped failed, so host
        // callbacks waiting behind them run (with the error) without a later
        // submission.
        match dev.hsa_queue.recover() {
            Ok(()) => {
                note_recreation(dev, &mut state);
            }
            Err(r) => tracing::warn!("recreating the faulted GPU queue: {r}"),
        }
        site
    };
    report_queue_fault(dev, e, site);
}

/// The submission and kernel of the packet at the faulted queue's read
/// index (where the packet processor stopped). `None` once the queue was
/// recreated (its indices restart) or when no submission in flight holds
/// that packet.
fn locate_fault(dev: &DeviceShared, state: &QueueState) -> Option<FaultSite> {
    let queue = &dev.hsa_queue;
    let generation = queue.recreations();
    let read = queue.read_index();
    state.in_flight.iter().find_map(|f| {
        let (first, made_in) = f.first_packet?;
        let packets: u64 = f.ops.iter().map(|op| u64::from(op.count)).sum();
        if made_in != generation || read < first || read - first > packets {
            return None;
        }
        // The op whose run of packets holds the read index.
        let mut at = read - first;
        let op = f.ops.iter().find(|op| {
            let inside = at < u64::from(op.count);
            at = at.saturating_sub(u64::from(op.count));
            inside
        });
        let kernel = match op.map(|op| &op.work) {
            Some(Work::Dispatch(d)) => Some(d.kernel_name.clone()),
            Some(Work::Patch(_)) => Some(Arc::from("indirect-dispatch patch")),
            None => None,
        };
        Some(FaultSite {
            submission: f.epoch,
            kernel,
        })
    })
}

/// The one-line summary of a queue fault, e.g. `GPU fault in kernel
/// fault_at (submission 3): memory violation at GPU address 0x40`.
fn fault_summary(e: &HsaError, site: Option<&FaultSite>) -> String {
    let what = match e {
        HsaError::QueueError { reason, .. } => reason.to_string(),
        other => other.to_string(),
    };
    match site {
        Some(FaultSite {
            submission,
            kernel: Some(k),
        }) => format!("GPU fault in kernel {k} (submission {submission}): {what}"),
        Some(FaultSite {
            submission,
            kernel: None,
        }) => format!("GPU fault in a barrier packet (submission {submission}): {what}"),
        None => format!("GPU fault in an unidentified packet: {what}"),
    }
}

fn report_queue_fault(dev: &DeviceShared, e: &HsaError, site: Option<FaultSite>) {
    let summary = fault_summary(e, site.as_ref());
    tracing::error!("{summary}");
    // The device's own words (PC, workgroup, exact address, watchdog).
    let report = match e {
        HsaError::QueueError {
            detail: Some(detail),
            ..
        } => format!(" (device report: {detail})"),
        _ => String::new(),
    };
    dev.report(Error::Internal {
        description: format!(
            "{summary}; the GPU queue faulted, so the outstanding submissions did not complete \
             and their results are undefined; the device stays usable{report}"
        ),
        source: Box::new(InternalError(e.to_string())),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqueduct_hsa::QueueErrorReason;
    use std::sync::Mutex;
    use std::sync::mpsc;
    use std::time::Instant;

    use crate::device::Device;
    use crate::registry::MapMode;
    use crate::test_support::{device, fault_at_work};

    const TIMEOUT: Duration = Duration::from_secs(60);

    thread_local! {
        /// Runs once in this thread's next `submit`, after the fault check
        /// and before the packets are written.
        pub(super) static BEFORE_WRITE: std::cell::Cell<Option<Box<dyn FnOnce()>>> =
            const { std::cell::Cell::new(None) };
    }
    /// Clears per submission; the test ring holds 1.5 submissions' blocks.
    const CLEARS: usize = 6;

    /// Replace the kernarg ring by one holding `blocks` fill-kernel blocks
    /// (so a submission of CLEARS clears leaves no room for a second).
    fn shrink_kernarg_ring(dev: &Arc<DeviceShared>, blocks: u64) {
        let access = Access {
            range: 0x1000..0x1100,
            write: true,
            host_visible: true,
        };
        let ops = lower::fill_ops(&dev.blit, access, 0).expect("fill op");
        let Work::Dispatch(d) = &ops[0].work else {
            panic!("a fill is a dispatch")
        };
        let per = (d.kernarg.len() as u64).next_multiple_of(d.kernarg_align.max(1));
        let pool = dev.runtime.kernarg_pool(&dev.agent).expect("kernarg pool");
        let ring = Ring::new(pool, per * blocks).expect("small ring");
        dev.lock_state().kernargs = ring;
    }

    /// A barrier-AND on the GPU queue that holds every later packet until
    /// the returned signal is stored 0.
    fn gate(dev: &Arc<DeviceShared>) -> aqueduct_hsa::Signal {
        let gate = dev.runtime.create_signal(1).expect("gate signal");
        let _w = dev.submit_lock.lock().unwrap();
        let p = packet::barrier_and(&[gate.handle()], 0, PacketFence::SYSTEM_ORDERED)
            .expect("gate packet");
        dev.hsa_queue.submit(&p).expect("gate submitted");
        gate
    }

    fn readback_buffers(device: &Device, n: usize, size: u64) -> Vec<Buffer> {
        (0..n)
            .map(|_| {
                device.create_buffer(&wgpu_types::BufferDescriptor {
                    label: None,
                    size,
                    usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            })
            .collect()
    }

    fn clears(device: &Device, buffers: &[Buffer]) -> CommandBuffer {
        let mut enc = device.create_command_encoder(&Default::default());
        for b in buffers {
            enc.clear_buffer(b, 0, None);
        }
        enc.finish()
    }

    fn read(device: &Device, b: &Buffer) -> Vec<u8> {
        let (tx, rx) = mpsc::channel();
        b.map_async(MapMode::Read, .., move |r| tx.send(r).unwrap());
        device.poll(PollType::wait_indefinitely()).expect("poll");
        rx.recv_timeout(TIMEOUT).unwrap().expect("mapped");
        let bytes = b.get_mapped_range(..).expect("view").to_vec();
        b.unmap();
        bytes
    }

    /// Wait until a submission is being written (and so waits for ring
    /// space: the gate holds the GPU queue).
    fn wait_for_blocked_submit(dev: &Arc<DeviceShared>) {
        let start = Instant::now();
        while !dev.lock_state().in_submit {
            assert!(start.elapsed() < TIMEOUT, "the submission never started");
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(30));
        assert!(
            dev.lock_state().in_submit,
            "the submission finished while the GPU queue was held"
        );
    }

    /// A submission waiting for kernarg ring space holds the writer lock
    /// but not the queue-state lock: polls and write_buffer on another
    /// thread go on, and another thread's submission waits its turn and
    /// gets the next index; everything completes once the GPU goes on.
    #[test]
    fn a_submission_waiting_for_ring_space_lets_others_go_on() {
        let (device, queue) = device();
        let dev = queue.shared.clone();
        let buffers = readback_buffers(&device, 3 * CLEARS, 256);
        for b in &buffers {
            queue.write_buffer(b, 0, &[0xab; 256]);
        }
        queue.submit([]);
        device.poll(PollType::wait_indefinitely()).expect("setup");
        shrink_kernarg_ring(&dev, (CLEARS + CLEARS / 2) as u64);
        let gate = gate(&dev);
        let first = queue.submit([clears(&device, &buffers[..CLEARS])]);
        let indices = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            s.spawn(|| {
                let i = queue.submit([clears(&device, &buffers[CLEARS..2 * CLEARS])]);
                indices.lock().unwrap().push(("waiting", i));
            });
            wait_for_blocked_submit(&dev);
            s.spawn(|| {
                let i = queue.submit([clears(&device, &buffers[2 * CLEARS..])]);
                indices.lock().unwrap().push(("queued", i));
            });
            // The queue-state lock is free: a poll and an upload go through.
            let (tx, rx) = mpsc::channel();
            let (device, queue, buffers) = (&device, &queue, &buffers);
            s.spawn(move || {
                let status = device.poll(PollType::Poll);
                queue.write_buffer(&buffers[0], 0, &[0xcd; 8]);
                tx.send(status).unwrap();
            });
            let status = rx
                .recv_timeout(TIMEOUT)
                .expect("poll and write_buffer ran while a submission waited");
            assert!(matches!(status, Ok(PollStatus::Poll)), "{status:?}");
            std::thread::sleep(Duration::from_millis(20));
            assert!(
                indices.lock().unwrap().is_empty(),
                "both later submissions wait for the GPU queue"
            );
            gate.store(0, MemoryOrder::Release);
        });
        // The two threads record their index after submit returns, in
        // either order; what matters is which index each submission got.
        let mut indices = indices.into_inner().unwrap();
        indices.sort_by_key(|&(_, i)| i.0);
        assert_eq!(
            indices,
            vec![
                ("waiting", SubmissionIndex(first.0 + 1)),
                ("queued", SubmissionIndex(first.0 + 2))
            ]
        );
        device.poll(PollType::wait_indefinitely()).expect("drain");
        let mut expect_first = vec![0u8; 256];
        expect_first[..8].fill(0xcd);
        assert_eq!(read(&device, &buffers[0]), expect_first, "buffer 0");
        for (i, b) in buffers.iter().enumerate().skip(1) {
            assert_eq!(read(&device, b), vec![0u8; 256], "buffer {i}");
        }
    }

    /// A device whose uncaptured errors are collected, and `n` readback
    /// buffers holding 0xab.
    fn fault_fixture(n: usize) -> (Device, Queue, Arc<Mutex<Vec<String>>>, Vec<Buffer>) {
        let (device, queue) = device();
        let errors = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: Error| {
            sink.lock().unwrap().push(e.to_string())
        }));
        let buffers = readback_buffers(&device, n, 256);
        for b in &buffers {
            queue.write_buffer(b, 0, &[0xab; 256]);
        }
        queue.submit([]);
        device.poll(PollType::wait_indefinitely()).expect("setup");
        (device, queue, errors, buffers)
    }

    /// Exactly one uncaptured error reports the fault of `faulting`, naming
    /// its kernel and submission.
    fn assert_one_fault_report(errors: &Mutex<Vec<String>>, faulting: SubmissionIndex) {
        let errors = errors.lock().unwrap().clone();
        let summary = format!("GPU fault in kernel fault_at (submission {})", faulting.0);
        assert_eq!(
            errors.iter().filter(|e| e.contains(&summary)).count(),
            1,
            "one fault report naming the kernel: {errors:?}"
        );
    }

    /// A queue fault while a submission waits for ring space is a fault,
    /// not a completion: it is reported with its kernel, the outstanding
    /// submissions count as done, and the waiting submission runs on the
    /// recreated queue.
    #[test]
    fn a_fault_while_the_ring_is_full_is_recovered() {
        let (device, queue, errors, buffers) = fault_fixture(2 * CLEARS);
        let dev = queue.shared.clone();
        shrink_kernarg_ring(&dev, (CLEARS + CLEARS / 2) as u64);
        let gate = gate(&dev);
        let faulting = queue.submit([fault_at_work(&device)]);
        let dropped = queue.submit([clears(&device, &buffers[..CLEARS])]);
        std::thread::scope(|s| {
            let waiting = s.spawn(|| queue.submit([clears(&device, &buffers[CLEARS..])]));
            wait_for_blocked_submit(&dev);
            gate.store(0, MemoryOrder::Release);
            assert_eq!(
                waiting.join().unwrap(),
                SubmissionIndex(dropped.0 + 1),
                "the waiting submission went on after the fault"
            );
            assert!(
                !errors.lock().unwrap().is_empty(),
                "the waiter reported the fault, not took it for completion"
            );
        });
        device.poll(PollType::wait_indefinitely()).expect("drain");
        assert_one_fault_report(&errors, faulting);
        // The clears after the fault were dropped; the waiting ones ran.
        for (i, b) in buffers.iter().enumerate() {
            let expect = if i < CLEARS { 0xab } else { 0 };
            assert_eq!(read(&device, b), vec![expect; 256], "buffer {i}");
        }
    }

    /// A fault that shows up after a submission checked the queue and
    /// before its packets go on it (the race behind a rare hang under load):
    /// the submission the fault dropped is counted complete and reported
    /// once, and the new one runs on the recreated queue and completes.
    /// Before, the write recreated the queue on its own, the dropped
    /// submission was never counted, and waits for the new one hung.
    #[test]
    fn a_fault_between_the_check_and_the_write_is_counted() {
        let (device, queue, errors, buffers) = fault_fixture(2);
        let dev = queue.shared.clone();
        let gate = gate(&dev);
        let faulting = queue.submit([fault_at_work(&device)]);
        let watched = dev.clone();
        BEFORE_WRITE.set(Some(Box::new(move || {
            gate.store(0, MemoryOrder::Release);
            let start = Instant::now();
            while watched.hsa_queue.error().is_none() {
                assert!(start.elapsed() < TIMEOUT, "the fault never showed");
                std::thread::sleep(Duration::from_millis(1));
            }
        })));
        let after = queue.submit([clears(&device, &buffers)]);
        assert!(BEFORE_WRITE.take().is_none(), "the hook ran");
        assert_eq!(after, SubmissionIndex(faulting.0 + 1));
        let waited = device.poll(PollType::Wait {
            submission_index: Some(after),
            timeout: Some(Duration::from_secs(20)),
        });
        assert!(
            waited.is_ok(),
            "the submission after the fault completes: {waited:?}"
        );
        assert_one_fault_report(&errors, faulting);
        for (i, b) in buffers.iter().enumerate() {
            assert_eq!(read(&device, b), vec![0; 256], "buffer {i} cleared");
        }
    }

    fn violation(address: Option<u64>) -> HsaError {
        HsaError::QueueError {
            queue_id: 3,
            reason: QueueErrorReason::MemoryViolation { address },
            detail: Some(aqueduct_hsa::QueueFaultDetail::Device(
                "wave 0 of workgroup (0, 0, 0)".into(),
            )),
        }
    }

    #[test]
    fn fault_summaries_name_what_is_known() {
        let in_kernel = FaultSite {
            submission: 7,
            kernel: Some(Arc::from("saxpy")),
        };
        assert_eq!(
            fault_summary(&violation(Some(0x7f00_1000)), Some(&in_kernel)),
            "GPU fault in kernel saxpy (submission 7): memory violation at GPU address 0x7f001000"
        );
        let in_barrier = FaultSite {
            submission: 2,
            kernel: None,
        };
        assert_eq!(
            fault_summary(&violation(None), Some(&in_barrier)),
            "GPU fault in a barrier packet (submission 2): memory violation"
        );
        let illegal = HsaError::QueueError {
            queue_id: 1,
            reason: QueueErrorReason::IllegalInstruction,
            detail: None,
        };
        assert_eq!(
            fault_summary(&illegal, None),
            "GPU fault in an unidentified packet: illegal instruction"
        );
    }
}
