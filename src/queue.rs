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
//! each packet written is a trace event naming the kernel, grid, workgroup,
//! barrier bit and fence scopes. Disabled, they cost a level check and no
//! allocation. A submission in flight keeps its ops and the queue index of
//! its first packet, so a queue fault is reported as one line naming the
//! kernel at the queue's read index (gfxsim and the CP stop at the failing
//! packet), its submission, the fault kind and the GPU address.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use aqueduct_hsa::queue::AqlPacket;
use aqueduct_hsa::queue::packet;
use aqueduct_hsa::{HsaError, KernelDispatch, MemoryOrder, PacketFence, WaitCondition, WaitHint};
use aqueduct_kfd::abi::{RawPacket, packet_type};
use wgpu_types::{BufferUsages, COPY_BUFFER_ALIGNMENT, PollError, PollStatus};

use crate::buffer::Buffer;
use crate::command::encoder::CommandBuffer;
use crate::command::hazard::Access;
use crate::command::lower::{self, Op, PacketRole, UniformInKernarg, Work};
use crate::device::DeviceShared;
use crate::error::{BufferAsyncError, Error, InternalError, ValidationError};
use crate::registry::{BufferId, MapState, Owner};
use crate::ring::Ring;

/// Initial value of the epoch signal.
pub(crate) const EPOCH_BASE: i64 = 1 << 40;
/// How long a wait polls the epoch signal before sleeping on its event.
const ACTIVE_WAIT: Duration = Duration::from_micros(200);
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
    /// The submission's ops (packet `first_packet + i` is op `i`; the next
    /// one is the completion barrier), kept to name a faulting kernel.
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
    /// The HSA queue's recreation count when last seen (see `submit`).
    queue_recreations: u64,
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
            queue_recreations: 0,
        }
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

    pub(crate) fn pending_touches(&self, id: BufferId) -> bool {
        self.pending.iter().any(|p| p.buffer == Some(id))
    }

    pub(crate) fn push_map_callback(&mut self, epoch: u64, id: BufferId, callback: Callback) {
        self.callbacks.push_back(PendingCallback {
            epoch,
            kind: CallbackKind::Map { id, callback },
        });
    }

    pub(crate) fn take_map_callback(&mut self, id: BufferId) -> Option<Callback> {
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
        let check = || -> Result<(), String> {
            buffer.check_usable("the buffer")?;
            if !buffer.usage().contains(BufferUsages::COPY_DST) {
                return Err(format!(
                    "{} lacks COPY_DST usage; add it to write with queue.write_buffer",
                    buffer.describe()
                ));
            }
            let len = data.len() as u64;
            if !offset.is_multiple_of(COPY_BUFFER_ALIGNMENT)
                || !len.is_multiple_of(COPY_BUFFER_ALIGNMENT)
            {
                return Err(format!(
                    "offset {offset} and size {len} must be multiples of COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})"
                ));
            }
            if offset.checked_add(len).is_none_or(|e| e > buffer.size()) {
                return Err(format!(
                    "{offset}..{} overruns {} ({} bytes)",
                    offset as u128 + len as u128,
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
        if let Err(msg) = check() {
            return dev.report(ValidationError::Queue(format!("write_buffer: {msg}")));
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

    /// Run `callback` once all work submitted so far (and pending uploads)
    /// has completed, after earlier-registered callbacks.
    pub fn on_submitted_work_done(&self, callback: impl FnOnce() + Send + 'static) {
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
    let mut state = dev.lock_state();
    let epoch = state.last_submitted + 1;
    let (src_va, keep): (u64, Option<KeepAlive>) = if len <= state.staging.capacity() / 2 {
        let block = loop {
            if let Some(b) = state.staging.alloc(len, 64, epoch) {
                break b;
            }
            // Full: wait for the oldest submission holding staging blocks.
            let oldest = state.staging.oldest_epoch().unwrap_or(epoch);
            if oldest >= epoch {
                // Only this epoch's pending uploads fill it: flush them.
                drop(state);
                submit(dev, Vec::new());
                state = dev.lock_state();
                continue;
            }
            drop(state);
            let completed = wait_epoch(dev, oldest, None).unwrap_or(oldest);
            state = dev.lock_state();
            state.last_completed = state.last_completed.max(completed);
            state.staging.reclaim(completed);
        };
        // SAFETY: the block is len bytes of host-mapped staging memory reserved for this upload.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), block.host, data.len()) };
        (block.va, None)
    } else {
        let pool = dev
            .runtime
            .pool(&dev.agent, aqueduct_hsa::PoolKind::FineSystem)?;
        let mut alloc = pool.allocate(len)?;
        let bytes = alloc.as_mut_slice().ok_or_else(|| {
            HsaError::InvalidAllocation("staging memory is not host mapped".into())
        })?;
        bytes.copy_from_slice(data);
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
        let mut state = dev.lock_state();
        let epoch = state.last_submitted + 1;
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
        // A fault no wait has seen yet: the faulted queue runs nothing more,
        // so count the outstanding submissions complete before this one's
        // packets go to the recreated queue (after them the signal would
        // race with its own completion).
        let fault = dev
            .hsa_queue
            .error()
            .filter(|_| completed_epoch(dev) < state.last_submitted);
        let fault_site = fault.as_ref().and_then(|_| locate_fault(dev, &state));
        if fault.is_some() {
            dev.epoch_signal.store(
                EPOCH_BASE - state.last_submitted as i64,
                MemoryOrder::Release,
            );
        }
        let written = write_packets(dev, &mut state, &ops, epoch, &mut keep);
        // Writing to a queue that faulted recreated it first, and the
        // recreation marked the signals of the dropped packets failed: the
        // epoch signal among them. The facade already counted those
        // submissions complete (`recover_from_queue_error`), and the signal
        // lives on for later submissions, so its failure mark goes.
        let recreations = dev.hsa_queue.recreations();
        if recreations != state.queue_recreations {
            state.queue_recreations = recreations;
            dev.runtime
                .event_hub()
                .clear_signal_failure(dev.epoch_signal.handle());
        }
        let first_packet = match written {
            Ok(first) => first.map(|f| (f, recreations)),
            Err(e) => {
                drop(state);
                dev.report(Error::Internal {
                    description: format!("submit: writing AQL packets failed: {e}"),
                    source: Box::new(e),
                });
                state = dev.lock_state();
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
        state.in_flight.push_back(InFlight {
            epoch,
            ops,
            first_packet,
            _keep: keep,
        });
        drop(state);
        if let Some(e) = fault {
            report_queue_fault(dev, &HsaError::from(e), fault_site);
        }
        SubmissionIndex(epoch)
    };
    maintain(dev);
    index
}

/// Write the packets of `ops` plus the completion packet; returns the
/// queue index of the first one when all are consecutive.
fn write_packets(
    dev: &Arc<DeviceShared>,
    state: &mut QueueState,
    ops: &[Op],
    epoch: u64,
    keep: &mut Vec<KeepAlive>,
) -> Result<Option<u64>, HsaError> {
    let fences = lower::plan(ops);
    // Kernarg blocks for every dispatch op (patch ops need their target's).
    // Consecutive ops sharing one dispatch (a repeated dispatch) share its
    // block: kernels never write their kernargs; patched dispatches (whose
    // block counts the patch kernel writes) get their own.
    let mut kernarg_va = vec![0u64; ops.len()];
    let mut previous: Option<(&Arc<lower::DispatchWork>, u64)> = None;
    for (i, op) in ops.iter().enumerate() {
        if let Work::Dispatch(d) = &op.work {
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
            )?;
            previous = Some((d, kernarg_va[i]));
        }
    }
    let queue = &dev.hsa_queue;
    let ring_size = queue.size() as u64;
    let total = ops.len() + 1;
    let mut next = 0usize;
    let mut first_packet: Option<u64> = None;
    let mut consecutive = true;
    // The last dispatch packet built: a repeated dispatch with the same
    // kernarg block and fence is the same packet.
    let mut last_packet: Option<(&Arc<lower::DispatchWork>, u64, PacketFence, RawPacket)> = None;
    while next < total {
        let count = (total - next).min(RESERVE_CHUNK);
        let mut r = queue.reserve(count as u32)?;
        let chunk_first = r.index(0);
        match first_packet {
            None => first_packet = Some(chunk_first),
            Some(f) => consecutive &= chunk_first == f + next as u64,
        }
        for k in 0..count {
            let i = next + k;
            let id = r.index(k as u32);
            let fence = fences[i];
            if i == ops.len() {
                tracing::trace!(
                    packet = id,
                    barrier = fence.barrier,
                    acquire = ?fence.acquire,
                    release = ?fence.release,
                    "completion barrier"
                );
                let done = packet::barrier_and(&[], dev.epoch_signal.handle(), fence)?;
                r.write(k as u32, &done)?;
                continue;
            }
            if let Work::Dispatch(d) = &ops[i].work {
                tracing::trace!(
                    packet = id,
                    kernel = %d.kernel_name,
                    grid = ?d.grid,
                    workgroup = ?d.workgroup,
                    barrier = fence.barrier,
                    acquire = ?fence.acquire,
                    release = ?fence.release,
                    indirect = d.patched,
                    "dispatch"
                );
            }
            let raw: RawPacket = match &ops[i].work {
                Work::Dispatch(d)
                    if last_packet.as_ref().is_some_and(|(w, kva, f, _)| {
                        Arc::ptr_eq(w, d) && *kva == kernarg_va[i] && *f == fence
                    }) =>
                {
                    last_packet.as_ref().map_or(RawPacket::default(), |l| l.3)
                }
                Work::Dispatch(d) => {
                    let mut kd =
                        KernelDispatch::new(d.kernel_object, kernarg_va[i], d.grid, d.workgroup);
                    kd.group_segment_size = d.group_segment;
                    kd.private_segment_size = d.private_segment;
                    kd.fence = fence;
                    if d.patched {
                        kd.dimensions = 3;
                    }
                    let mut raw = kd.to_packet()?.to_raw();
                    if d.patched {
                        // Held at INVALID until the patch kernel publishes it.
                        let bytes: &mut [u8] = bytemuck::bytes_of_mut(&mut raw);
                        bytes[0..2].copy_from_slice(&packet_type::INVALID.to_le_bytes());
                    }
                    last_packet = Some((d, kernarg_va[i], fence, raw));
                    raw
                }
                Work::Patch(p) => {
                    let target = i + 1;
                    let Some(Work::Dispatch(td)) = ops.get(target).map(|o| &o.work) else {
                        return Err(HsaError::InvalidArgument(
                            "an indirect patch without its dispatch".into(),
                        ));
                    };
                    let mut kd = KernelDispatch::new(
                        td.kernel_object,
                        kernarg_va[target],
                        td.grid,
                        td.workgroup,
                    );
                    kd.dimensions = 3;
                    kd.fence = fences[target];
                    let word = kd.to_packet()?.to_raw();
                    let header_dispatch = u32::from_le_bytes(
                        bytemuck::bytes_of(&word)[0..4]
                            .try_into()
                            .unwrap_or_default(),
                    );
                    let nop = packet::nop(aqueduct_hsa::PacketFence {
                        barrier: fences[target].barrier,
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
                    .map_err(HsaError::InvalidArgument)?;
                    let kva = alloc_kernarg(
                        dev,
                        state,
                        &work.kernarg,
                        work.kernarg_align,
                        None,
                        epoch,
                        keep,
                    )?;
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
                        KernelDispatch::new(work.kernel_object, kva, work.grid, work.workgroup);
                    kd.fence = fence;
                    kd.to_packet()?.to_raw()
                }
            };
            r.write(k as u32, &raw)?;
        }
        r.commit();
        next += count;
    }
    Ok(first_packet.filter(|_| consecutive))
}

/// Place a kernarg block; with `uniform`, its pointer argument is set to
/// the uniform bytes at the end of the block.
fn alloc_kernarg(
    dev: &Arc<DeviceShared>,
    state: &mut QueueState,
    bytes: &[u8],
    align: u64,
    uniform: Option<UniformInKernarg>,
    epoch: u64,
    keep: &mut Vec<KeepAlive>,
) -> Result<u64, HsaError> {
    if bytes.is_empty() {
        return Ok(0);
    }
    let len = bytes.len() as u64;
    if let Some(u) = uniform
        && (u.arg_offset as usize + 8 > bytes.len() || u.data_offset as usize > bytes.len())
    {
        return Err(HsaError::InvalidArgument(
            "a kernarg uniform lies outside its block".into(),
        ));
    }
    let uniform_ptr =
        |va: u64| uniform.map(|u| (u.arg_offset as usize, va + u64::from(u.data_offset)));
    if len > state.kernargs.capacity() / 4 {
        let mut alloc = dev.runtime.kernarg_pool(&dev.agent)?.allocate(len)?;
        let va = alloc.gpu_va();
        let slice = alloc.as_mut_slice().ok_or_else(|| {
            HsaError::InvalidAllocation("kernarg memory is not host mapped".into())
        })?;
        slice[..bytes.len()].copy_from_slice(bytes);
        if let Some((at, ptr)) = uniform_ptr(va) {
            slice[at..at + 8].copy_from_slice(&ptr.to_le_bytes());
        }
        keep.push(Box::new(alloc));
        return Ok(va);
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
            return Ok(b.va);
        }
        let oldest = state.kernargs.oldest_epoch().unwrap_or(epoch);
        if oldest >= epoch {
            return Err(HsaError::OutOfResources(
                "one submission needs more kernarg space than the kernarg ring holds; split it"
                    .into(),
            ));
        }
        let completed = wait_epoch(dev, oldest, None).unwrap_or(oldest);
        state.last_completed = state.last_completed.max(completed);
        state.kernargs.reclaim(completed);
        state.staging.reclaim(completed);
    }
}

fn completed_epoch(dev: &DeviceShared) -> u64 {
    (EPOCH_BASE - dev.epoch_signal.load(MemoryOrder::Acquire)).max(0) as u64
}

/// Wait until `epoch` has completed; returns the completed count.
fn wait_epoch(dev: &DeviceShared, epoch: u64, timeout: Option<Duration>) -> Result<u64, HsaError> {
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
        let completed = completed_epoch(dev).max(state.last_completed);
        state.last_completed = completed;
        while state
            .in_flight
            .front()
            .is_some_and(|f| f.epoch <= completed)
        {
            state.in_flight.pop_front();
        }
        state.kernargs.reclaim(completed);
        state.staging.reclaim(completed);
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
                    let result = match reg.buffers.get_mut(id) {
                        Some(s) => match std::mem::replace(&mut s.map, MapState::Unmapped) {
                            MapState::Pending { mode, range, .. } => {
                                s.map = MapState::Mapped { mode, range };
                                s.owner = Owner::Host;
                                Ok(())
                            }
                            other => {
                                s.map = other;
                                Err(BufferAsyncError("the mapping was aborted".into()))
                            }
                        },
                        None => Err(BufferAsyncError("the buffer is gone".into())),
                    };
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

/// `Device::poll`.
pub(crate) fn poll(dev: &Arc<DeviceShared>, poll_type: PollType) -> Result<PollStatus, PollError> {
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
/// HSA queue is recreated on its next use.
fn recover_from_queue_error(dev: &Arc<DeviceShared>, e: &HsaError) {
    let (last, site) = {
        let state = dev.lock_state();
        (state.last_submitted, locate_fault(dev, &state))
    };
    dev.epoch_signal
        .store(EPOCH_BASE - last as i64, MemoryOrder::Release);
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
        if made_in != generation || read < first || read - first > f.ops.len() as u64 {
            return None;
        }
        let kernel = match f.ops.get((read - first) as usize).map(|op| &op.work) {
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
    dev.report(Error::Internal {
        description: format!(
            "{summary}; the GPU queue faulted, so the outstanding submissions did not complete \
             and their results are undefined; the device stays usable"
        ),
        source: Box::new(InternalError(e.to_string())),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqueduct_hsa::QueueErrorReason;

    fn violation(address: Option<u64>) -> HsaError {
        HsaError::QueueError {
            queue_id: 3,
            reason: QueueErrorReason::MemoryViolation { address },
            detail: Some("wave 0 of workgroup (0, 0, 0)".into()),
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
