//! The command processor of one AQL queue: a host thread ("gfxsim-cp-N")
//! that does what the CP firmware does for a compute queue.
//!
//! It sleeps until its doorbell is written (or a dispatch it launched
//! finishes, or, while a barrier packet waits, any event fires), then
//! consumes packets from its launch index:
//! - the header is loaded with acquire ordering; INVALID means "nothing
//!   more yet": sleep until the next wake-up;
//! - the barrier bit holds the packet until every earlier packet of the
//!   queue has completed; without it, dispatches overlap;
//! - KERNEL_DISPATCH is validated (dimensions 1..=3, workgroup size nonzero
//!   and at most 1024 work-items, grid nonzero, group segment <= 64 KiB,
//!   kernel object mapped and 64-byte aligned, private segment within what
//!   one wave's scratch can hold: `scratch.rs`), its kernel descriptor read
//!   from GPU memory, and its workgroups handed to the GPU's worker pool
//!   with the part's instruction set (`part.rs`: gfx11 or GFX9);
//! - BARRIER_AND waits until every nonzero dep signal's value is 0,
//!   BARRIER_OR until one of them is;
//! - VENDOR_SPECIFIC, AGENT_DISPATCH and unknown types are unsupported
//!   packets; reserved fence scopes are malformed packets.
//!
//! On a multi-XCC part (MI300X) the queue has one command processor per
//! XCC, as KFD gives a GC 9.4.3 queue one MQD per XCC: each dispatch's
//! workgroups spread over them round-robin from the logical XCC id the
//! queue got at creation (`Gpu::claim_xcc_spread`, aqueduct-isa's xcc.rs),
//! and a wave reads its XCC from HW_REG_XCC_ID. Here one thread stands for
//! all of them; only the XCC each workgroup is given is modelled.
//!
//! Packets complete in order: the completion signal is decremented, its
//! mailbox (if any) gets the event id and the event's interrupt is raised,
//! the slot's header becomes INVALID and read_dispatch_id advances.
//! The acquire/release fence scopes are decoded and kept per packet. By
//! default (one coherent host address space) they move no data; in strict
//! coherence mode the acquire runs when the packet launches (before its
//! workgroups start) and the release when it completes (before its
//! completion signal changes), as `coherence.rs` describes; a dispatch's
//! workgroups then run with its per-CU cache side
//! (`coherence/cu_cache.rs`), which its completion fence retires.
//!
//! Profiling: when the queue's `amd_queue_t.queue_properties` (read from
//! GPU memory at each launch, where ROCr's `Queue::SetProfiling` sets the
//! bit) has `AMD_QUEUE_PROPERTIES_ENABLE_PROFILING`, a kernel-dispatch or
//! barrier-AND/OR packet with a completion signal gets the GPU's realtime
//! counter (`aqueduct_isa::realtime`, what `s_memrealtime` reads) in its
//! signal's `start_ts` when it launches (a dispatch before its first
//! workgroup starts, a barrier once its condition holds) and in `end_ts`
//! when it completes, both written before the value is decremented, so a
//! waiter that sees the decrement sees them. ROCr's
//! `hsa_amd_profiling_get_dispatch_time` reads these two fields of any
//! completion signal (`core/inc/signal.h`, `GetRawTs`), and ROCm clr's
//! `Timestamp::checkGpuTime` (`rocclr/device/rocm/rocvirtual.cpp`) reads
//! them for the barrier markers of timed HIP events as well as for
//! kernels, so both packet kinds are stamped. Without the bit, or without
//! a completion signal, nothing is written.
//!
//! A dispatch whose next packet is not written yet (or has the barrier bit,
//! so it waits anyway) runs on the CP's own thread when it has one
//! workgroup or the GPU has a single worker thread: then no other thread
//! could run any of it sooner, and handing it over costs two thread
//! wake-ups (the worker's, then the CP's when it ends), most of a small
//! dispatch's round trip and, on a host of few cores, a tenth of a
//! single-thread run of the corpus (benches/corpus.rs). The scheduling
//! difference is that such a dispatch cannot wait for a packet written to
//! its queue after it starts (AQL gives no forward-progress promise between
//! packets; with one worker, a later dispatch waits for the worker anyway).
//! Queue destroy aborts it like a dispatch on the workers.
//!
//! Before sleeping, the CP polls for up to `dispatch::idle_spin()` (off
//! below 4 host cores) for the oldest dispatch in flight to end or for a
//! wake-up (a doorbell): back-to-back work then goes on without a futex
//! wake-up.
//!
//! A dispatch with private memory launches only once no other dispatch
//! using scratch is in flight (each job hands the backing's wave slots to
//! its own workgroups, so two at once would share slots), and only when
//! the queue's scratch holds it (`scratch.rs`): otherwise, once the packets
//! before it are done, the CP stores the insufficient-scratch code into the
//! queue's `queue_inactive_signal`, raises that signal's event and stops before the
//! packet until the runtime stores 0 there (it listens for events meanwhile,
//! as for a barrier packet); then it reads the scratch fields again. After
//! a dispatch launched with USE_SCRATCH_ONCE it stops the same way, once the
//! dispatch is done, with the reclaim code. The queue has asynchronous
//! scratch reclaim: the CP records each scratch dispatch in
//! `scratch_last_used_index` and checks at completion that its backing
//! memory was not freed under it (`scratch.rs`).
//!
//! Any error (a bad packet, a failed wave, a fault of the CP itself) is
//! reported through the context-save header and halts the queue: it
//! processes nothing more until destroyed. The failed packet's completion
//! signal is left untouched.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use aqueduct_kfd::abi::{
    AMD_QUEUE_PROPERTIES_ENABLE_PROFILING, AMD_QUEUE_PROPERTIES_OFFSET, AMD_SIGNAL_END_TS_OFFSET,
    AMD_SIGNAL_EVENT_ID_OFFSET, AMD_SIGNAL_EVENT_MAILBOX_OFFSET, AMD_SIGNAL_START_TS_OFFSET,
    AMD_SIGNAL_VALUE_OFFSET, BarrierPacket, FenceScope, KernelDescriptor, KernelDispatchPacket,
    PacketHeader, RawPacket, packet_type,
};
use aqueduct_kfd::uapi::exception_code;

use crate::coherence::PacketRef;
use crate::coherence::cu_cache::PacketLines;
use crate::dispatch::{Job, StrictSides, idle_spin, spin_until};
use crate::events::Events;
use crate::fault::{QueueError, report_queue_error};
use crate::gpu::{Gpu, LDS_APERTURE_BASE, SCRATCH_APERTURE_BASE};
use crate::memory::vm::VmView;
use crate::stats::StatsCounters;
use aqueduct_isa::gfx11::{Dispatch, WorkerContext};
use aqueduct_isa::realtime::realtime_ticks;
use aqueduct_isa::{Access, DispatchSetup, XccSpread};

use super::QueueShared;
use super::scratch::{
    INACTIVE_RECLAIM_USE_ONCE, QueueScratch, ScratchGrant, ScratchInUse, TmpringLayout,
    advertise_async_reclaim, check_private_segment, inactive_value, raise_inactive,
    record_scratch_use,
};
use super::validation::QueueConfig;
use crate::dispatch::{JobCounters, ScratchSlots};
use crate::dispatch_counters::Occupancy;

/// Most work-items in a workgroup.
const MAX_WORKGROUP_SIZE: u64 = 1024;
/// Most work-items in a grid: the agent's `HSA_AGENT_INFO_GRID_MAX_SIZE`
/// (UINT32_MAX in ROCr's `amd_gpu_agent.cpp`, as the topology reports). The
/// HSA runtime specification leaves a larger grid undefined; the packet
/// processor here rejects it as a malformed dispatch, so no grid's
/// workgroup count can overflow (2^64 workgroups would wrap to none).
const MAX_GRID_SIZE: u64 = u32::MAX as u64;
/// Most LDS bytes a workgroup may ask for.
const MAX_GROUP_SEGMENT_SIZE: u32 = 64 * 1024;
/// Dispatches of at most this many workgroups run on the command
/// processor's thread when nothing could overlap with them (any size does
/// when the GPU has one worker thread).
const INLINE_MAX_WORKGROUPS: u64 = 1;
enum Work {
    Dispatch(Arc<Job>),
    /// A barrier packet whose condition held.
    Satisfied,
}

struct InFlight {
    index: u64,
    completion_signal: u64,
    /// The realtime counter at launch, when the packet is profiled (the
    /// queue had profiling on and the packet has a completion signal).
    start_ts: Option<u64>,
    /// The release scope, applied at completion (strict coherence mode).
    release: FenceScope,
    /// The scratch backing a dispatch's waves use.
    scratch: Option<ScratchInUse>,
    work: Work,
}

impl InFlight {
    fn is_done(&self) -> bool {
        match &self.work {
            Work::Dispatch(job) => job.is_done(),
            Work::Satisfied => true,
        }
    }
}

/// What the CP made of a dispatch packet.
enum Prepared {
    /// The job, the `queue_inactive_signal` to stop on once it is done
    /// when it uses scratch given once, and the scratch it uses.
    Job(Arc<Job>, Option<u64>, Option<ScratchInUse>),
    /// The queue's scratch does not hold it: stop with `code`.
    NeedsScratch { signal: u64, code: u64 },
}

/// What one launch attempt did.
enum Launch {
    Launched,
    /// Nothing to do until the next wake-up.
    Idle,
}

pub struct CommandProcessor {
    queue: Arc<QueueShared>,
    gpu: Arc<Gpu>,
    events: Arc<Events>,
    stats: Arc<StatsCounters>,
    /// Index of the next packet to launch.
    next_index: u64,
    in_flight: VecDeque<InFlight>,
    aborted: bool,
    /// LDS and code copies for dispatches run inline.
    ctx: WorkerContext,
    /// The `queue_inactive_signal` the queue is stopped on (until it reads 0).
    inactive: Option<u64>,
    /// A dispatch used the queue's scratch once: after the packets in flight,
    /// stop on this `queue_inactive_signal` with the reclaim code.
    reclaim_on: Option<u64>,
    /// Which XCC runs each workgroup of the queue's dispatches (the
    /// logical XCC ids KFD gave the queue's MQDs: `Gpu::claim_xcc_spread`).
    xcc: XccSpread,
}

impl CommandProcessor {
    pub fn new(
        queue: Arc<QueueShared>,
        gpu: Arc<Gpu>,
        events: Arc<Events>,
        stats: Arc<StatsCounters>,
    ) -> Self {
        let config = queue.config();
        let next_index = {
            let view = gpu.vm.view();
            if let Err(e) = advertise_async_reclaim(&view, config.amd_queue_address()) {
                tracing::debug!("gfxsim: queue {}: {}", queue.id, e.detail);
            }
            view.atomic_u64(config.read_pointer, Access::Read)
                .map(|r| r.load(Ordering::Acquire))
                .unwrap_or(0)
        };
        let xcc = gpu.claim_xcc_spread();
        Self {
            queue,
            gpu,
            events,
            stats,
            next_index,
            in_flight: VecDeque::new(),
            aborted: false,
            ctx: WorkerContext::new(),
            inactive: None,
            reclaim_on: None,
            xcc,
        }
    }

    /// The thread body: runs until the queue is destroyed.
    pub fn run(mut self) {
        let wake = self.queue.wake.clone();
        loop {
            let seen = wake.seen();
            if let Err(error) = self.retire() {
                self.halt(error);
            }
            let stopping = self.queue.stopping();
            if stopping {
                if self.in_flight.is_empty() {
                    break;
                }
                if !self.aborted {
                    // Like preemption at destroy: no new workgroups start
                    // and running waves are cancelled.
                    for f in &self.in_flight {
                        if let Work::Dispatch(job) = &f.work {
                            job.abort();
                        }
                    }
                    self.aborted = true;
                }
            } else if !self.queue.is_halted() {
                let config = self.queue.config();
                if config.is_active() {
                    match self.launch(&config) {
                        Ok(Launch::Launched) => continue,
                        Ok(Launch::Idle) => {}
                        Err(error) => {
                            // Let earlier packets finish (and complete) first.
                            self.halt_after_in_flight(error);
                            continue;
                        }
                    }
                }
            }
            if self.spin_before_sleep(seen) {
                continue;
            }
            wake.wait_past(seen);
        }
        wake.set_wants_events(false);
        tracing::trace!(
            "gfxsim: command processor of queue {} stopped",
            self.queue.id
        );
    }

    /// Poll for up to [`idle_spin`] before sleeping: for the oldest packet
    /// in flight, if it is a running dispatch, to finish, and for a wake-up
    /// (a doorbell, an event) past `seen`; whether either happened.
    fn spin_before_sleep(&self, seen: u64) -> bool {
        if self.queue.is_halted() || self.queue.stopping() {
            return false;
        }
        let wake = &self.queue.wake;
        match self.in_flight.front() {
            Some(InFlight {
                work: Work::Dispatch(job),
                ..
            }) => spin_until(idle_spin(), || job.is_done() || wake.seen() != seen),
            _ => wake.spin_past(seen, idle_spin()),
        }
    }

    fn halt(&mut self, error: QueueError) {
        if self.queue.is_halted() {
            return;
        }
        self.queue.set_exception(&error.detail);
        self.queue.halted.store(true, Ordering::Release);
        if self.queue.stopping() {
            // A queue being destroyed reports nothing (its waves were
            // cancelled by the destroy itself).
            return;
        }
        let config = self.queue.config();
        report_queue_error(
            &self.events,
            &self.gpu.vm,
            self.gpu.gpu_id,
            config.ctx_save_restore,
            &error,
        );
    }

    /// An error found at launch: earlier packets still complete normally
    /// (they were launched), then the queue halts.
    fn halt_after_in_flight(&mut self, error: QueueError) {
        let wake = self.queue.wake.clone();
        while !self.in_flight.is_empty() {
            let seen = wake.seen();
            if let Err(e) = self.retire() {
                self.halt(e);
                return;
            }
            if self.in_flight.is_empty() {
                break;
            }
            if self.queue.stopping() {
                for f in &self.in_flight {
                    if let Work::Dispatch(job) = &f.work {
                        job.abort();
                    }
                }
            }
            wake.wait_past(seen);
        }
        self.halt(error);
    }

    /// Complete finished packets in order.
    fn retire(&mut self) -> Result<(), QueueError> {
        while self.in_flight.front().is_some_and(InFlight::is_done) {
            let Some(f) = self.in_flight.pop_front() else {
                break;
            };
            if self.queue.is_halted() {
                // Packets after the failed one never complete.
                continue;
            }
            if let Work::Dispatch(job) = &f.work {
                self.stats.dispatches.fetch_add(1, Ordering::Relaxed);
                // Before the completion (and before a fault is reported):
                // whoever sees either finds the findings.
                job.report_sanitizer();
                let scratch_freed = f
                    .scratch
                    .and_then(|s| s.check(&self.gpu.vm.view(), f.index).err());
                if let Some(error) = job
                    .error()
                    .map(|e| QueueError::from_wave(&e))
                    .or(scratch_freed)
                {
                    // Later packets were launched but the queue is dead:
                    // stop their workgroups too.
                    for later in &self.in_flight {
                        if let Work::Dispatch(j) = &later.work {
                            j.abort();
                        }
                    }
                    return Err(error);
                }
                if job.was_cancelled() && self.queue.stopping() {
                    // Preempted by the queue's destroy: KFD unmaps the queue
                    // (kfd_device_queue_manager.c `destroy_queue_cpsch` →
                    // `unmap_queues_cpsch`; kfd_packet_manager_v9.c
                    // `pm_unmap_queues_v9`, action preempt_queues), the
                    // waves are saved or dropped, and the CP never reaches
                    // the packet's end of pipe: no completion signal.
                    continue;
                }
                if f.completion_signal != 0
                    && let Some(record) = job.counters()
                {
                    // Kept before the signal completes, so whoever sees the
                    // completion finds the record.
                    self.stats
                        .log
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(f.completion_signal, record);
                }
                tracing::trace!(
                    "gfxsim: queue {} packet {} done: {} workgroups, {} wave instructions",
                    self.queue.id,
                    f.index,
                    job.workgroups(),
                    job.wave_instructions()
                );
            }
            self.complete(&f)?;
        }
        Ok(())
    }

    /// Signal completion of `f` and free its slot.
    fn complete(&self, f: &InFlight) -> Result<(), QueueError> {
        // The release fence, before anyone can see the completion.
        let lines = match &f.work {
            Work::Dispatch(job) => job.packet_lines(),
            Work::Satisfied => None,
        };
        self.gpu.vm.completion_fence(
            PacketRef {
                queue_id: self.queue.id,
                index: f.index,
                scope: f.release,
            },
            f.completion_signal != 0,
            lines,
        );
        let config = self.queue.config();
        let mut interrupt = None;
        {
            let view = self.gpu.vm.view();
            if f.completion_signal != 0 {
                let signal = f.completion_signal;
                if let Some(start_ts) = f.start_ts {
                    let end_ts = realtime_ticks();
                    for (offset, ts) in [
                        (AMD_SIGNAL_START_TS_OFFSET, start_ts),
                        (AMD_SIGNAL_END_TS_OFFSET, end_ts),
                    ] {
                        view.atomic_u64(signal + offset as u64, Access::Write)
                            .map_err(|e| QueueError::cp_fault(e, "writing a signal's timestamps"))?
                            .store(ts, Ordering::Relaxed);
                    }
                }
                let value = view
                    .atomic_u64(signal + AMD_SIGNAL_VALUE_OFFSET as u64, Access::Atomic)
                    .map_err(|e| QueueError::cp_fault(e, "decrementing a completion signal"))?;
                value.fetch_sub(1, Ordering::AcqRel);
                let mailbox: u64 = view
                    .read(signal + AMD_SIGNAL_EVENT_MAILBOX_OFFSET as u64)
                    .map_err(|e| QueueError::cp_fault(e, "reading a signal's mailbox"))?;
                if mailbox != 0 {
                    let event_id: u32 = view
                        .read(signal + AMD_SIGNAL_EVENT_ID_OFFSET as u64)
                        .map_err(|e| QueueError::cp_fault(e, "reading a signal's event id"))?;
                    view.atomic_u64(mailbox, Access::Write)
                        .map_err(|e| QueueError::cp_fault(e, "writing an event mailbox"))?
                        .store(event_id as u64, Ordering::Release);
                    interrupt = Some(event_id);
                }
            }
            let slot = config.ring_base + (f.index % config.packets()) * 64;
            view.atomic_u16(slot, Access::Write)
                .map_err(|e| QueueError::cp_fault(e, "invalidating a packet"))?
                .store(packet_type::INVALID, Ordering::Release);
            view.atomic_u64(config.read_pointer, Access::Write)
                .map_err(|e| QueueError::cp_fault(e, "advancing the read pointer"))?
                .store(f.index + 1, Ordering::Release);
        }
        if let Some(event_id) = interrupt {
            self.events.interrupt(event_id);
        }
        if f.completion_signal != 0 {
            // Other queues' barrier packets may wait on this signal.
            self.events.notify_listeners();
        }
        Ok(())
    }

    /// Whether the queue is stopped on its `queue_inactive_signal`: stopped
    /// now, or stopping now to have use-once scratch reclaimed once the
    /// packets in flight are done (ROCr `AqlQueue::DynamicQueueEventsHandler`,
    /// code 512).
    fn scratch_stop(&mut self) -> Result<bool, QueueError> {
        if let Some(signal) = self.inactive {
            if inactive_value(&self.gpu.vm.view(), signal)? != 0 {
                return Ok(true);
            }
            self.inactive = None;
            self.queue.wake.set_wants_events(false);
        }
        if let Some(signal) = self.reclaim_on {
            if !self.in_flight.is_empty() {
                return Ok(true);
            }
            self.reclaim_on = None;
            self.stop_inactive(signal, INACTIVE_RECLAIM_USE_ONCE)?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Stop the queue on `signal` with `code` (the packets in flight are done).
    fn stop_inactive(&mut self, signal: u64, code: u64) -> Result<(), QueueError> {
        // Listen for events before the runtime can answer, so its store of 0
        // (and the SET_EVENT after it) is not missed.
        self.queue.wake.set_wants_events(true);
        self.inactive = Some(signal);
        let event = raise_inactive(&self.gpu.vm.view(), signal, code)?;
        tracing::debug!(
            "gfxsim: queue {} inactive at packet {} (code {code:#x})",
            self.queue.id,
            self.next_index
        );
        if let Some(event_id) = event {
            self.events.interrupt(event_id);
        }
        Ok(())
    }

    /// A dispatch the queue's scratch does not hold: stop the queue once
    /// the packets before it are done.
    fn stop_for_scratch(
        &mut self,
        index: u64,
        signal: u64,
        code: u64,
    ) -> Result<Launch, QueueError> {
        if !self.in_flight.is_empty() {
            return Ok(Launch::Idle);
        }
        if signal == 0 {
            return Err(QueueError::packet(
                exception_code::EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID,
                format!(
                    "packet {index}: the queue's scratch does not hold the dispatch and \
                     the queue has no queue_inactive_signal to ask for more"
                ),
            ));
        }
        self.stop_inactive(signal, code)?;
        Ok(Launch::Idle)
    }

    /// Try to launch the packet at `next_index`.
    fn launch(&mut self, config: &QueueConfig) -> Result<Launch, QueueError> {
        if self.scratch_stop()? {
            return Ok(Launch::Idle);
        }
        let index = self.next_index;
        let slot = config.ring_base + (index % config.packets()) * 64;
        let view = self.gpu.vm.view();
        let header_bits = view
            .atomic_u16(slot, Access::Read)
            .map_err(|e| QueueError::cp_fault(e, "reading a packet header"))?
            .load(Ordering::Acquire);
        let kind = header_bits & 0xff;
        if kind == packet_type::INVALID {
            return Ok(Launch::Idle);
        }
        let header = PacketHeader::from_bits(header_bits).ok_or_else(|| {
            QueueError::packet(
                exception_code::EC_QUEUE_PACKET_RESERVED,
                format!("packet {index}: header {header_bits:#06x} has a reserved fence scope"),
            )
        })?;
        if header.barrier && !self.in_flight.is_empty() {
            return Ok(Launch::Idle);
        }
        let raw: RawPacket = view
            .read(slot)
            .map_err(|e| QueueError::cp_fault(e, "reading a packet"))?;
        // Fences need the view released (strict mode takes the GPU's fence
        // lock exclusively); each arm below takes a fresh one.
        drop(view);
        let acquire = PacketRef {
            queue_id: self.queue.id,
            index,
            scope: header.acquire,
        };
        let bytes = bytemuck::bytes_of(&raw);
        // Whether a dispatch runs on this thread (decided while its view is held).
        let mut inline = false;
        let mut scratch = None;
        let (completion_signal, work) = match kind {
            packet_type::KERNEL_DISPATCH => {
                let packet: KernelDispatchPacket = bytemuck::pod_read_unaligned(bytes);
                if packet.private_segment_size != 0
                    && self.in_flight.iter().any(|f| f.scratch.is_some())
                {
                    // A job hands out the backing's wave slots as its own
                    // (`dispatch.rs`, ScratchSlots): a second dispatch on
                    // the same scratch waits for the first to finish.
                    return Ok(Launch::Idle);
                }
                // The acquire fence, before the CP reads the kernel descriptor
                // and any workgroup runs.
                let lines = self.gpu.vm.launch_fence(acquire, true);
                let view = self.gpu.vm.view();
                let job =
                    match self.prepare_dispatch(&view, config, acquire, slot, &packet, lines)? {
                        Prepared::Job(job, reclaim_on, in_use) => {
                            if reclaim_on.is_some() {
                                self.reclaim_on = reclaim_on;
                            }
                            scratch = in_use;
                            job
                        }
                        Prepared::NeedsScratch { signal, code } => {
                            drop(view);
                            return self.stop_for_scratch(index, signal, code);
                        }
                    };
                let small =
                    job.workgroups() <= INLINE_MAX_WORKGROUPS || self.gpu.pool.workers() == 1;
                inline = small && nothing_to_overlap(&view, config, index);
                (packet.completion_signal, Work::Dispatch(job))
            }
            packet_type::BARRIER_AND | packet_type::BARRIER_OR => {
                let packet: BarrierPacket = bytemuck::pod_read_unaligned(bytes);
                // Listen for event fires before reading the dep signals, so
                // a set between the read and the sleep is not missed.
                self.queue.wake.set_wants_events(true);
                let view = self.gpu.vm.view();
                if !barrier_satisfied(&view, &packet, kind == packet_type::BARRIER_AND)? {
                    return Ok(Launch::Idle);
                }
                drop(view);
                self.queue.wake.set_wants_events(false);
                // The acquire fence, once the dependencies are met.
                self.gpu.vm.launch_fence(acquire, false);
                (packet.completion_signal, Work::Satisfied)
            }
            packet_type::VENDOR_SPECIFIC => {
                return Err(QueueError::packet(
                    exception_code::EC_QUEUE_PACKET_VENDOR_UNSUPPORTED,
                    format!("packet {index}: vendor-specific packets are not supported"),
                ));
            }
            other => {
                return Err(QueueError::packet(
                    exception_code::EC_QUEUE_PACKET_UNSUPPORTED,
                    format!("packet {index}: packet type {other} is not supported"),
                ));
            }
        };
        let start_ts = if completion_signal != 0 && self.profiling(config)? {
            Some(realtime_ticks())
        } else {
            None
        };
        if let Work::Dispatch(job) = &work {
            if inline {
                self.run_inline(job);
            } else {
                self.gpu.pool.submit(job.clone());
            }
        }
        self.in_flight.push_back(InFlight {
            index,
            completion_signal,
            start_ts,
            release: header.release,
            scratch,
            work,
        });
        self.next_index = index + 1;
        Ok(Launch::Launched)
    }

    /// Whether the queue's `amd_queue_t` asks for timestamps
    /// (`AMD_QUEUE_PROPERTIES_ENABLE_PROFILING` in `queue_properties`, as
    /// ROCr's `Queue::SetProfiling` writes it).
    fn profiling(&self, config: &QueueConfig) -> Result<bool, QueueError> {
        let properties: u32 = self
            .gpu
            .vm
            .view()
            .read(config.amd_queue_address() + AMD_QUEUE_PROPERTIES_OFFSET as u64)
            .map_err(|e| QueueError::cp_fault(e, "reading the queue's properties"))?;
        Ok(properties & AMD_QUEUE_PROPERTIES_ENABLE_PROFILING != 0)
    }

    /// Run a small dispatch's workgroups on the command processor's own
    /// thread: no worker wake-up, and no wake-up of this thread when it
    /// ends. Queue destroy aborts it through `QueueShared::inline_job`.
    fn run_inline(&mut self, job: &Arc<Job>) {
        self.queue.set_inline_job(Some(job.clone()));
        if self.queue.stopping() {
            job.abort();
        }
        job.run_here(&self.gpu.vm, &mut self.ctx, &self.stats);
        self.queue.set_inline_job(None);
    }

    fn prepare_dispatch(
        &self,
        view: &VmView<'_>,
        config: &QueueConfig,
        acquire: PacketRef,
        slot: u64,
        p: &KernelDispatchPacket,
        lines: Option<Arc<PacketLines>>,
    ) -> Result<Prepared, QueueError> {
        let index = acquire.index;
        let dimensions = (p.setup & 0x3) as u32;
        if !(1..=3).contains(&dimensions) {
            return Err(QueueError::packet(
                exception_code::EC_QUEUE_PACKET_DISPATCH_DIM_INVALID,
                format!("packet {index}: {dimensions} dimensions"),
            ));
        }
        let d = dimensions as usize;
        let mut workgroup_size = [
            p.workgroup_size_x as u32,
            p.workgroup_size_y as u32,
            p.workgroup_size_z as u32,
        ];
        let mut grid_size = [p.grid_size_x, p.grid_size_y, p.grid_size_z];
        for i in d..3 {
            workgroup_size[i] = 1;
            grid_size[i] = 1;
        }
        let items: u64 = workgroup_size.iter().map(|&s| s as u64).product();
        if workgroup_size.contains(&0) || items > MAX_WORKGROUP_SIZE {
            return Err(QueueError::packet(
                exception_code::EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID,
                format!("packet {index}: workgroup size {workgroup_size:?}"),
            ));
        }
        let grid_items: u128 = grid_size.iter().map(|&s| u128::from(s)).product();
        if grid_size.contains(&0) || grid_items > u128::from(MAX_GRID_SIZE) {
            return Err(QueueError::packet(
                exception_code::EC_QUEUE_PACKET_DISPATCH_DIM_INVALID,
                format!(
                    "packet {index}: grid size {grid_size:?} ({grid_items} work-items; \
                     1 to {MAX_GRID_SIZE})"
                ),
            ));
        }
        if p.group_segment_size > MAX_GROUP_SEGMENT_SIZE {
            return Err(QueueError::packet(
                exception_code::EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID,
                format!(
                    "packet {index}: group segment {} bytes > {MAX_GROUP_SEGMENT_SIZE}",
                    p.group_segment_size
                ),
            ));
        }
        let code_invalid = |what: String| {
            QueueError::packet(exception_code::EC_QUEUE_PACKET_DISPATCH_CODE_INVALID, what)
        };
        if p.kernel_object == 0 || !p.kernel_object.is_multiple_of(64) {
            return Err(code_invalid(format!(
                "packet {index}: kernel object {:#x} is not a 64-byte aligned address",
                p.kernel_object
            )));
        }
        let kd_bytes: [u8; KernelDescriptor::SIZE] = view.read(p.kernel_object).map_err(|_| {
            code_invalid(format!(
                "packet {index}: kernel object {:#x} is not mapped",
                p.kernel_object
            ))
        })?;
        let descriptor = KernelDescriptor::from_bytes(&kd_bytes);
        let mut scratch = None;
        let mut scratch_backing = Default::default();
        let mut reclaim_on = None;
        let mut in_use = None;
        if p.private_segment_size != 0 {
            let lanes = if descriptor.enable_wavefront_size32() {
                32
            } else {
                64
            };
            let layout = TmpringLayout::of(self.gpu.part);
            check_private_segment(index, p.private_segment_size, lanes, layout)?;
            let waves_per_group = items.div_ceil(lanes);
            record_scratch_use(view, config.amd_queue_address(), index)?;
            let queue = QueueScratch::read(view, config.amd_queue_address(), layout)?;
            match queue.grant(p.private_segment_size, lanes, waves_per_group) {
                ScratchGrant::Granted {
                    backing,
                    wave_slots,
                    use_once,
                } => {
                    scratch_backing = backing;
                    in_use = ScratchInUse::at(view, backing.base);
                    scratch = Some(ScratchSlots::new(wave_slots, waves_per_group as u32));
                    if use_once {
                        reclaim_on = Some(queue.inactive_signal);
                    }
                }
                ScratchGrant::Insufficient { code } => {
                    return Ok(Prepared::NeedsScratch {
                        signal: queue.inactive_signal,
                        code,
                    });
                }
            }
        }
        let setup = DispatchSetup {
            isa: self.gpu.part.isa_kind(),
            kernel_object: p.kernel_object,
            descriptor,
            packet_address: slot,
            queue_address: config.amd_queue_address(),
            kernarg_address: p.kernarg_address,
            dispatch_id: index,
            dimensions,
            grid_size,
            workgroup_size,
            group_segment_size: p.group_segment_size,
            private_segment_size: p.private_segment_size,
            shared_aperture_base: LDS_APERTURE_BASE,
            private_aperture_base: SCRATCH_APERTURE_BASE,
            scratch: scratch_backing,
        };
        let counting = self.stats.per_dispatch.load(Ordering::Relaxed);
        let counters = counting.then(|| {
            JobCounters::new(
                index,
                p.kernel_object,
                grid_size,
                workgroup_size,
                Occupancy::of(&descriptor, items as u32, p.group_segment_size),
            )
        });
        let dispatch = Dispatch::new(setup, self.gpu.code_cache.clone())
            .map_err(|e| QueueError::from_wave(&e))?
            .with_time_limit(self.gpu.dispatch_timeout)
            .with_counters(counting)
            .with_xcc_spread(self.xcc);
        let sanitizer = self.gpu.sanitizer.as_ref().map(|s| {
            let entry = p
                .kernel_object
                .wrapping_add_signed(descriptor.kernel_code_entry_byte_offset);
            s.dispatch(
                p.kernel_object,
                entry,
                p.private_segment_size,
                p.kernarg_address,
            )
        });
        // Strict coherence on a multi-XCC agent: the per-XCC L2s watch the
        // workgroups, each on the XCC the spread gives it.
        let xcc = self
            .gpu
            .vm
            .strict_coherence()
            .and_then(|c| c.xcc_l2s())
            .map(|l2s| {
                l2s.dispatch(
                    view.mappings(),
                    acquire,
                    p.kernel_object,
                    self.xcc,
                    dispatch.workgroup_count(),
                )
            });
        let job = Job::new(
            dispatch,
            self.queue.wake.clone(),
            scratch,
            StrictSides { lines, xcc },
            counters,
            sanitizer,
        );
        Ok(Prepared::Job(job, reclaim_on, in_use))
    }
}

/// Whether a barrier packet's condition holds (AND: every nonzero dep
/// signal is 0; OR: one is, or there are none).
fn barrier_satisfied(
    view: &VmView<'_>,
    packet: &BarrierPacket,
    and: bool,
) -> Result<bool, QueueError> {
    let mut any_dep = false;
    for &signal in packet.dep_signal.iter().filter(|&&s| s != 0) {
        any_dep = true;
        let value = view
            .atomic_u64(signal + AMD_SIGNAL_VALUE_OFFSET as u64, Access::Read)
            .map_err(|e| QueueError::cp_fault(e, "reading a dependency signal"))?
            .load(Ordering::Acquire) as i64;
        match (and, value == 0) {
            (true, false) => return Ok(false),
            (false, true) => return Ok(true),
            _ => {}
        }
    }
    Ok(and || !any_dep)
}

/// Whether the packet after `index` can wait for the one at `index` to
/// complete: it is not written yet, or it has the barrier bit (so it would
/// wait anyway). Then running packet `index` on the command processor's
/// thread delays nothing that could have overlapped with it.
fn nothing_to_overlap(view: &VmView<'_>, config: &QueueConfig, index: u64) -> bool {
    let next = config.ring_base + ((index + 1) % config.packets()) * 64;
    match view.atomic_u16(next, Access::Read) {
        Ok(header) => {
            let bits = header.load(Ordering::Acquire);
            bits & 0xff == packet_type::INVALID
                || PacketHeader::from_bits(bits).is_some_and(|h| h.barrier)
        }
        Err(_) => false,
    }
}
