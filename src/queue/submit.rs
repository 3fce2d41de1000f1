//! Submission: validating command buffers, then writing one submission's
//! packets (dispatches with their kernarg blocks, indirect patches,
//! timestamp markers, the completion barrier carrying the epoch signal) to
//! the GPU queue in reservations of at most `RESERVE_CHUNK` slots.

use std::sync::Arc;

use aqueduct_hsa::queue::{AqlPacket, packet};
use aqueduct_hsa::{HsaError, KernelDispatch, MemoryOrder, PacketFence, Reservation};
use aqueduct_kfd::abi::{RawPacket, packet_type};

use crate::binding::BindingSlot;
use crate::command::arena::OpArena;
use crate::command::encoder::CommandBuffer;
use crate::command::hazard::HazardTracker;
use crate::command::lower::{self, Op, PacketRole, Work};
use crate::device::DeviceShared;
use crate::device_select::SanitizedDispatch;
use crate::error::{BufferIdent, DeviceError, Error, InternalError, QueueError, QueueWriteError};
use crate::registry::{BufferId, MapState, Owner};
use crate::ring::RingBlock;
use crate::trace::signal_pool::{SLOT, SignalPages};
use crate::trace::submission::SubmissionTrace;

use super::SubmissionIndex;
use super::lifetime::{InFlight, KeepAlive, StateLock, completed_epoch, maintain};
use super::recovery::{
    SeenFault, drop_faulted_write, note_recreation, recover_before_write, report_queue_fault,
};
use super::sdma::SdmaGates;
use super::staging::alloc_kernarg;

/// Packets reserved on the ring at a time.
pub(super) const RESERVE_CHUNK: usize = 1024;

/// Validate, lower and write one submission.
pub(crate) fn submit(dev: &Arc<DeviceShared>, cbs: Vec<CommandBuffer>) -> SubmissionIndex {
    let traced_from = crate::trace::host_start();
    dev.count_dispatches(traced_from.is_some());
    // Submissions are written one at a time, in epoch order; the
    // queue-state lock may be let go while one waits for ring space.
    let mut writer = dev.submit_lock.lock_unpoisoned();
    // The epoch this submission takes (`last_submitted` changes only
    // under the submit lock).
    let mut epoch = dev.lock_state().last_submitted + 1;
    let valid = match validate_and_mark(dev, &cbs, epoch) {
        Ok(()) => true,
        Err(e) => {
            // Reported with the submit lock let go: an error handler may
            // submit.
            drop(writer);
            dev.report(e);
            writer = dev.submit_lock.lock_unpoisoned();
            epoch = dev.lock_state().last_submitted + 1;
            false
        }
    };
    let index = {
        let _writer = writer;
        let mut state = StateLock::new(dev);
        debug_assert_eq!(epoch, state.last_submitted + 1);
        state.in_submit = true;
        let _span = tracing::debug_span!("submit", submission = epoch).entered();
        let mut keep: Vec<KeepAlive> = std::mem::take(&mut state.pending_keep);
        // The submission's ops go into an arena of the state's spares (or
        // take over a command buffer's): its lists have room from earlier
        // submissions, so this allocates nothing per op.
        let mut ops: OpArena = state.spare_arenas.pop().unwrap_or_default();
        let mut touched: Vec<BufferId> = std::mem::take(&mut state.touched);
        touched.clear();
        if !state.pending.is_empty() {
            ops.append(&state.pending);
            state.pending.clear();
        }
        touched.append(&mut state.pending_buffers);
        if valid {
            for mut cb in cbs {
                if ops.is_empty() {
                    std::mem::swap(&mut ops, &mut cb.rec.ops);
                } else {
                    ops.append(&cb.rec.ops);
                }
                for b in &cb.rec.used {
                    if let Some(m) = b.memory() {
                        ops.memory.push(m.clone());
                    }
                }
                // The bound buffers were marked used by this epoch when
                // validated: their memory outlives it through the registry
                // (`Registry::forget`), with no per-buffer count here.
                keep.push(Box::new(std::mem::take(&mut cb.rec.executables)));
                dev.recordings.give(cb.rec);
            }
        }
        keep.push(Box::new(dev.blit.executables.clone()));
        let mut faults: Vec<SeenFault> =
            recover_before_write(dev, &mut state).into_iter().collect();
        #[cfg(test)]
        if let Some(hook) = super::tests::BEFORE_WRITE.take() {
            hook();
        }
        let mut trace = traced_from.map(|_| None);
        let written = write_packets(
            dev,
            &mut state,
            &ops,
            epoch,
            &mut keep,
            &mut faults,
            trace.as_mut(),
        );
        let recreations = note_recreation(dev, &mut state);
        let first_packet = match written {
            Ok(first) => first.map(|f| (f, recreations)),
            Err(Unwritten::Dropped) => None,
            Err(Unwritten::Failed(e)) => {
                state.unlocked(|| {
                    let e = InternalError::WritePackets { source: e };
                    dev.report(Error::Internal {
                        description: e.to_string(),
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
            for &id in &touched {
                if let Some(s) = reg.buffers.get_mut(id) {
                    s.last_use = epoch;
                    s.owner = Owner::Agent;
                }
            }
        }
        state.touched = touched;
        state.last_submitted = epoch;
        state.in_submit = false;
        let traced_ops = ops.len();
        let sanitized = std::mem::take(&mut state.sanitized_in_submit);
        state.in_flight.push_back(InFlight {
            epoch,
            ops,
            first_packet,
            trace: trace.flatten(),
            sanitized,
            _keep: keep,
        });
        drop(state);
        if let Some(start) = traced_from {
            let args = [
                ("submission".to_string(), serde_json::json!(epoch)),
                ("ops".to_string(), serde_json::json!(traced_ops)),
            ];
            crate::trace::host_slice(
                dev.id.number(),
                crate::trace::Track::Submit,
                "submit",
                start,
                args.into_iter().collect(),
            );
        }
        for (e, site) in faults {
            report_queue_fault(dev, HsaError::from(e), site);
        }
        SubmissionIndex(epoch)
    };
    maintain(dev);
    index
}

/// WebGPU's submit checks on every buffer the command buffers use (it
/// still exists, is not destroyed, not mapped and has no map pending);
/// when all pass, each is marked used by submission `epoch` and owned by
/// the agent, in the same hold of the registry lock, so no map or drop
/// slips between the check and the mark. A dropped buffer's memory then
/// lives until `epoch` completes (`Registry::forget`).
fn validate_and_mark(dev: &DeviceShared, cbs: &[CommandBuffer], epoch: u64) -> Result<(), Error> {
    if dev.lost.load(std::sync::atomic::Ordering::Acquire) {
        return Err(DeviceError::Destroyed { call: "submit" }.into());
    }
    let mut reg = dev.registry();
    for (index, cb) in cbs.iter().enumerate() {
        if !std::ptr::eq(Arc::as_ptr(&cb.device), dev) {
            return Err(QueueError::ForeignCommandBuffer { index }.into());
        }
        if let Some(e) = &cb.rec.error {
            return Err(QueueError::InvalidCommandBuffer {
                index,
                source: Box::new(e.clone()),
            }
            .into());
        }
        let check = |id: BufferId, buffer: &dyn Fn() -> BufferIdent| -> Result<(), Error> {
            match reg.buffers.get(id) {
                None => Err(QueueError::BufferGone {
                    index,
                    buffer: buffer(),
                }
                .into()),
                Some(s) if s.destroyed => Err(QueueError::BufferDestroyed {
                    index,
                    buffer: buffer(),
                }
                .into()),
                Some(s) if !matches!(s.map, MapState::Unmapped) => Err(QueueError::BufferMapped {
                    index,
                    buffer: buffer(),
                }
                .into()),
                Some(_) => Ok(()),
            }
        };
        for b in &cb.rec.used {
            check(b.inner.id, &|| b.ident())?;
        }
        for &id in &cb.rec.bound {
            check(id, &|| {
                cb.rec.bound_ident(id).unwrap_or(BufferIdent {
                    label: None,
                    size: 0,
                })
            })?;
        }
    }
    for cb in cbs {
        let ids = cb.rec.used.iter().map(|b| b.inner.id);
        for id in ids.chain(cb.rec.bound.iter().copied()) {
            if let Some(s) = reg.buffers.get_mut(id) {
                s.last_use = epoch;
                s.owner = Owner::Agent;
            }
        }
    }
    Ok(())
}

/// Why a submission's packets are not (all) on the GPU queue.
pub(super) enum Unwritten {
    /// A queue fault dropped them with the submissions before them; the
    /// submission is counted complete and the fault is in `faults`.
    Dropped,
    /// Something else went wrong (nothing was published, or no-ops were).
    Failed(QueueWriteError),
}

impl From<QueueWriteError> for Unwritten {
    fn from(e: QueueWriteError) -> Self {
        Unwritten::Failed(e)
    }
}

impl From<HsaError> for Unwritten {
    fn from(e: HsaError) -> Self {
        Unwritten::Failed(e.into())
    }
}

/// Write the packets of `ops` (each `op.count` times) plus the completion
/// packet; returns the queue index of the first one when all are
/// consecutive. A queue fault seen before any packet is published is
/// handled (`recover_before_write`, into `faults`) and the packets go to
/// the recreated queue; one seen after some were published drops the
/// submission (`drop_faulted_write`). With `trace` (a trace is being
/// written), the dispatch and SDMA packets complete signals of a block
/// placed here, described in the `SubmissionTrace` left there
/// (src/trace/submission.rs).
pub(super) fn write_packets(
    dev: &Arc<DeviceShared>,
    state: &mut StateLock<'_>,
    arena: &OpArena,
    epoch: u64,
    keep: &mut Vec<KeepAlive>,
    faults: &mut Vec<SeenFault>,
    trace: Option<&mut Option<SubmissionTrace>>,
) -> Result<Option<u64>, Unwritten> {
    let mut scratch = std::mem::take(&mut state.write_scratch);
    let r = write_packets_with(dev, state, arena, epoch, keep, faults, trace, &mut scratch);
    scratch.sdma_gates.clear();
    state.write_scratch = scratch;
    r
}

/// The per-op lists of writing a submission: kept in the queue state from
/// one submission to the next, so writing one allocates nothing per op.
#[derive(Default)]
pub(crate) struct WriteScratch {
    tracker: HazardTracker,
    fences: Vec<lower::RunFence>,
    kernarg_va: Vec<u64>,
    sdma_gates: Vec<Option<Arc<SdmaGates>>>,
}

/// `write_packets` with its lists in `scratch`.
#[allow(clippy::too_many_arguments)]
fn write_packets_with(
    dev: &Arc<DeviceShared>,
    state: &mut StateLock<'_>,
    arena: &OpArena,
    epoch: u64,
    keep: &mut Vec<KeepAlive>,
    faults: &mut Vec<SeenFault>,
    trace: Option<&mut Option<SubmissionTrace>>,
    scratch: &mut WriteScratch,
) -> Result<Option<u64>, Unwritten> {
    let WriteScratch {
        tracker,
        fences,
        kernarg_va,
        sdma_gates,
    } = scratch;
    lower::plan_runs_into(arena, tracker, fences);
    let ops = arena.ops();
    // Kernarg blocks for every dispatch op (patch ops need their target's).
    // An op's repeats share its block, and so do consecutive ops sharing
    // one dispatch: kernels never write their kernargs; patched dispatches
    // (whose block counts the patch kernel writes) get their own.
    kernarg_va.clear();
    kernarg_va.resize(ops.len(), 0);
    // Patch kernels' blocks are placed now too (filled once their target
    // packet's slot is known), so no wait for ring space happens while
    // queue slots are reserved; by op, made at the first patch op.
    let mut patch_block: Vec<Option<RingBlock>> = Vec::new();
    let mut previous: Option<(&lower::DispatchWork, u64)> = None;
    // The signals of each SDMA op (their commands go to the SDMA queue
    // once the compute packets are published).
    sdma_gates.clear();
    sdma_gates.resize(ops.len(), None);
    for (i, op) in ops.iter().enumerate() {
        match &op.work {
            Work::Sdma(_) => {
                let engine = dev
                    .copy_engine
                    .as_ref()
                    .ok_or(QueueWriteError::SdmaWithoutEngine)?;
                // Nothing before it in this submission, and every earlier
                // submission complete (and so visible to the engine).
                let idle = i == 0 && completed_epoch(dev) + 1 >= epoch;
                sdma_gates[i] = Some(engine.gates(&dev.runtime, idle)?);
            }
            Work::Dispatch(d) => {
                if let Some((p, va)) = previous
                    && p.same_as(d)
                    && !d.patched
                {
                    kernarg_va[i] = va;
                    continue;
                }
                kernarg_va[i] = alloc_kernarg(
                    dev,
                    state,
                    arena.kernarg(d.kernarg),
                    d.kernarg_align,
                    d.uniform_in_kernarg,
                    epoch,
                    keep,
                )?
                .va;
                previous = Some((d, kernarg_va[i]));
                if state.sanitizer.is_some()
                    && matches!(op.role, PacketRole::Dispatch | PacketRole::IndirectDispatch)
                {
                    // The bind groups' ranges (the op's accesses), for
                    // gfxsim's sanitizer to check the kernel's accesses
                    // against; its findings are taken by this block.
                    let accesses = arena.accesses(op);
                    let bindings: Vec<_> = accesses.iter().map(|a| a.range.clone()).collect();
                    dev.runtime
                        .device()
                        .note_dispatch_bindings(kernarg_va[i], &bindings);
                    let bound = accesses
                        .iter()
                        .filter_map(|a| {
                            let (group, binding) = a.bound_at()?;
                            Some((a.range.clone(), BindingSlot { group, binding }))
                        })
                        .collect();
                    state.sanitized_in_submit.push(SanitizedDispatch {
                        kernarg: kernarg_va[i],
                        kernel: d.kernel_name.clone(),
                        bound,
                    });
                }
            }
            Work::Patch(p) => {
                let (shape, bytes) = lower::patch_kernarg(&dev.blit, p, 0, 0, 0, 0)
                    .map_err(QueueWriteError::from)?;
                patch_block.resize(ops.len(), None);
                patch_block[i] = Some(alloc_kernarg(
                    dev,
                    state,
                    &bytes,
                    shape.kernarg_align,
                    None,
                    epoch,
                    keep,
                )?);
            }
            Work::Timestamp { .. } => {}
        }
    }
    // A traced submission's packets complete signals from the device's
    // pool (src/trace/signal_pool.rs), planned here and left in `trace`.
    let mut planned = None;
    if trace.is_some() {
        let packets = SubmissionTrace::plan(ops, sdma_gates);
        let slots = SubmissionTrace::slots(&packets);
        let signals = dev.trace_signals.take(slots)?;
        planned = Some(SubmissionTrace::new(epoch, packets, signals));
    }
    let signals = planned.as_ref().map(SubmissionTrace::signals);
    // The closing barrier, and the traced end-of-submission barrier.
    let closing = 1 + u64::from(signals.is_some());
    let total = ops.iter().map(|o| u64::from(o.packets())).sum::<u64>() + closing;
    let mut retried = false;
    loop {
        let mut slots = SlotWriter::new(&dev.hsa_queue, total);
        let written = write_slots(
            dev,
            ops,
            fences,
            kernarg_va,
            &patch_block,
            sdma_gates,
            signals,
            &mut slots,
        );
        let faulted = |e: &QueueWriteError| {
            matches!(e, QueueWriteError::Hsa(HsaError::QueueError { .. }))
                && dev.hsa_queue.error().is_some()
        };
        match written {
            Ok(()) => {
                let first = slots.finish();
                submit_sdma(dev, ops, sdma_gates, keep);
                if let Some(trace) = trace {
                    *trace = planned;
                }
                return Ok(first);
            }
            Err(e) if faulted(&e) && !slots.published() && !retried => {
                drop(slots);
                retried = true;
                faults.extend(recover_before_write(dev, state));
            }
            Err(e) if faulted(&e) => {
                abandon_trace(planned, &slots);
                drop(slots);
                faults.extend(drop_faulted_write(dev, state, epoch));
                return Err(Unwritten::Dropped);
            }
            Err(e) => {
                abandon_trace(planned, &slots);
                return Err(Unwritten::Failed(e));
            }
        }
    }
}

/// The trace of a submission whose write stopped part-way: once a packet
/// is published the CP may still complete its trace signal, with no
/// retire to say when, so the signals stay out of the pool for good.
fn abandon_trace(planned: Option<SubmissionTrace>, slots: &SlotWriter<'_>) {
    if let Some(trace) = planned
        && slots.published()
    {
        trace.abandon();
    }
}

/// Send the SDMA ops' commands to the SDMA queue, in order, each behind
/// its gate (the compute packets that complete and wait for their signals
/// are published); their signals live as long as the submission.
fn submit_sdma(
    dev: &DeviceShared,
    ops: &[Op],
    gates: &mut Vec<Option<Arc<SdmaGates>>>,
    keep: &mut Vec<KeepAlive>,
) {
    for (op, gates) in ops.iter().zip(gates.drain(..)) {
        let (Work::Sdma(work), Some(gates), Some(engine)) = (&op.work, gates, &dev.copy_engine)
        else {
            continue;
        };
        tracing::trace!(?work, "SDMA command");
        if let Err(e) = engine.submit(work, &gates) {
            let e = InternalError::WritePackets { source: e.into() };
            dev.report(Error::Internal {
                description: e.to_string(),
                source: Box::new(e),
            });
        }
        keep.push(Box::new(gates));
    }
}

/// A traced submission's signals, handed to its packets in order.
struct TraceSlots<'a> {
    signals: Option<&'a SignalPages>,
    /// The slot the next traced packet completes.
    next: u64,
}

impl TraceSlots<'_> {
    /// The next slot's signal address (None when untraced).
    fn next(&mut self) -> Option<u64> {
        let va = self.signals?.va(self.next);
        self.next += 1;
        va
    }

    /// The next `count` slots: the first one's index.
    fn take(&mut self, count: u64) -> u64 {
        let from = self.next;
        self.next += count;
        from
    }
}

/// The packet-writing half of `write_packets`, into `slots`. With
/// `trace`, each dispatch packet, each SDMA op's two barriers and a
/// barrier ending the submission complete the next of its signals, in
/// order.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_slots(
    dev: &DeviceShared,
    ops: &[Op],
    fences: &[lower::RunFence],
    kernarg_va: &[u64],
    patch_block: &[Option<RingBlock>],
    sdma_gates: &[Option<Arc<SdmaGates>>],
    trace: Option<&SignalPages>,
    slots: &mut SlotWriter<'_>,
) -> Result<(), QueueWriteError> {
    let mut trace_slots = TraceSlots {
        signals: trace,
        next: 0,
    };
    let queue = &dev.hsa_queue;
    let ring_size = queue.size() as u64;
    // The last dispatch packet built: a repeated dispatch with the same
    // kernarg block and fence is the same packet.
    let mut last_packet: Option<(&lower::DispatchWork, u64, PacketFence, RawPacket)> = None;
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
                let mut packet_for = |fence: PacketFence| -> Result<RawPacket, QueueWriteError> {
                    if let Some((w, kva, f, raw)) = &last_packet
                        && w.same_as(d)
                        && *kva == kernarg_va[i]
                        && *f == fence
                    {
                        return Ok(*raw);
                    }
                    // The same kernel and grid with other bindings: the
                    // packet differs in its kernarg address alone (held to
                    // the alignment `dispatch_packet` checks).
                    if let Some((w, _, f, raw)) = &last_packet
                        && w.same_but_kernarg(d)
                        && !d.patched
                        && *f == fence
                        && kernarg_va[i].is_multiple_of(16)
                    {
                        let mut raw = *raw;
                        raw.0[DISPATCH_KERNARG_ADDRESS_WORD] = kernarg_va[i];
                        last_packet = Some((d, kernarg_va[i], fence, raw));
                        return Ok(raw);
                    }
                    let (raw, _) = dispatch_packet(d, kernarg_va[i], fence)?;
                    last_packet = Some((d, kernarg_va[i], fence, raw));
                    Ok(raw)
                };
                let first = packet_for(fence)?;
                if let Some(signals) = trace {
                    // Traced: every packet completes a signal of its own,
                    // written a page of consecutive signals at a time.
                    let rest = packet_for(run.rest)?;
                    let from = trace_slots.take(u64::from(op.count));
                    let mut written = 0;
                    for (va, n) in signals.runs(from, u64::from(op.count)) {
                        let n = n as u32;
                        if written == 0 {
                            slots.write_run_signalled(&first, 1, va)?;
                            slots.write_run_signalled(&rest, n - 1, va + SLOT)?;
                        } else {
                            slots.write_run_signalled(&rest, n, va)?;
                        }
                        written += n;
                    }
                    if written != op.count {
                        return Err(QueueWriteError::TraceSignalsShort);
                    }
                    continue;
                }
                slots.write(&first)?;
                if op.count > 1 {
                    slots.write_run(&packet_for(run.rest)?, op.count - 1)?;
                }
            }
            Work::Patch(p) => {
                let id = slots.next_index()?;
                let target = i + 1;
                let Some(Work::Dispatch(td)) = ops.get(target).map(|o| &o.work) else {
                    return Err(QueueWriteError::PatchWithoutDispatch);
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
                let (work, kernarg) = lower::patch_kernarg(
                    &dev.blit,
                    p,
                    slot_va,
                    kernarg_va[target],
                    header_dispatch,
                    header_nop,
                )
                .map_err(QueueWriteError::from)?;
                let Some(block) = patch_block.get(i).copied().flatten() else {
                    return Err(QueueWriteError::PatchWithoutBlock);
                };
                if kernarg.len() as u64 > block.len {
                    return Err(QueueWriteError::PatchKernargOverflow);
                }
                // SAFETY: the block holds block.len >= kernarg.len() bytes of host-mapped kernarg memory reserved for this packet.
                unsafe {
                    std::ptr::copy_nonoverlapping(kernarg.as_ptr(), block.host, kernarg.len())
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
            Work::Sdma(work) => {
                let gates = sdma_gates[i]
                    .as_ref()
                    .ok_or(QueueWriteError::SdmaWithoutEngine)?;
                let id = slots.next_index()?;
                tracing::trace!(packet = id, ?work, "SDMA gate and wait");
                // Traced: a gate without a signal of its own completes a trace signal.
                let (gate_slot, wait_slot) = (trace_slots.next(), trace_slots.next());
                let gate_signal = match gates.gate_completion() {
                    0 => gate_slot.unwrap_or(0),
                    signal => signal,
                };
                let gate = packet::barrier_and(&[], gate_signal, fence)?;
                slots.write(&gate.to_raw())?;
                let wait = packet::barrier_and(
                    &[gates.done.handle()],
                    wait_slot.unwrap_or(0),
                    lower::sdma_wait_fence(),
                )?;
                slots.write(&wait.to_raw())?;
            }
            Work::Timestamp { signal } => {
                let id = slots.next_index()?;
                tracing::trace!(
                    packet = id,
                    signal = format_args!("{signal:#x}"),
                    barrier = fence.barrier,
                    acquire = ?fence.acquire,
                    release = ?fence.release,
                    "timestamp marker"
                );
                let marker = |fence: PacketFence| packet::barrier_and(&[], *signal, fence);
                slots.write(&marker(fence)?.to_raw())?;
                if op.count > 1 {
                    slots.write_run(&marker(run.rest)?.to_raw(), op.count - 1)?;
                }
            }
        }
    }
    if let Some(end_slot) = trace_slots.next() {
        // Traced: the end of the submission gets stamps of its own (the
        // epoch signal's are shared with later submissions).
        let end_fence = PacketFence {
            barrier: true,
            acquire: aqueduct_kfd::abi::FenceScope::None,
            release: aqueduct_kfd::abi::FenceScope::None,
        };
        slots.write(&packet::barrier_and(&[], end_slot, end_fence)?.to_raw())?;
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

/// The 64-bit word of a kernel-dispatch packet holding `kernarg_address`
/// (byte 40 of `hsa_kernel_dispatch_packet_t`, hsa.h).
pub(super) const DISPATCH_KERNARG_ADDRESS_WORD: usize = 5;

/// The packet of dispatch `d` with its kernarg block at `kernarg_va`, and
/// the header word that publishes it (a patched dispatch's packet holds
/// INVALID there until its patch kernel stores that word).
pub(super) fn dispatch_packet(
    d: &lower::DispatchWork,
    kernarg_va: u64,
    fence: PacketFence,
) -> Result<(RawPacket, u32), QueueWriteError> {
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
pub(super) struct SlotWriter<'q> {
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
    fn slot(&mut self) -> Result<(&mut Reservation<'q>, u32), QueueWriteError> {
        let full = self
            .reservation
            .as_ref()
            .is_none_or(|r| self.used == r.len());
        if full {
            if let Some(r) = self.reservation.take() {
                r.commit();
            }
            if self.unreserved == 0 {
                return Err(QueueWriteError::TooManyPackets);
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
            .ok_or(QueueWriteError::NoReservation)?;
        Ok((r, used))
    }

    /// The queue index the next packet will take.
    fn next_index(&mut self) -> Result<u64, QueueWriteError> {
        let (r, k) = self.slot()?;
        Ok(r.index(k))
    }

    fn write(&mut self, packet: &RawPacket) -> Result<(), QueueWriteError> {
        let (r, k) = self.slot()?;
        r.write(k, packet)?;
        self.used += 1;
        self.written += 1;
        Ok(())
    }

    /// Write `packet` `count` times (across reservations as needed).
    fn write_run(&mut self, packet: &RawPacket, mut count: u32) -> Result<(), QueueWriteError> {
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

    /// Write `count` copies of `packet` (across reservations as needed),
    /// the `k`-th completing the trace signal at `signal + 64 k`.
    fn write_run_signalled(
        &mut self,
        packet: &RawPacket,
        mut count: u32,
        mut signal: u64,
    ) -> Result<(), QueueWriteError> {
        while count > 0 {
            let (r, k) = self.slot()?;
            let n = count.min(r.len() - k);
            r.write_repeated_signalled(k, n, packet, signal, SLOT)?;
            self.used += n;
            self.written += u64::from(n);
            count -= n;
            signal += u64::from(n) * SLOT;
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
