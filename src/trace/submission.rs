//! A traced submission: the completion signals its packets get, and the
//! events made of them once it retires.
//!
//! Dispatch packets complete no signal of their own (the submission's
//! closing barrier carries the epoch signal), so a traced submission takes
//! `amd_signal_t`s from the device's pool (src/trace/signal_pool.rs), one
//! per dispatch packet, two per SDMA op (its gate and wait barriers) and
//! one for the end of the submission, and each of those packets completes
//! one. The epoch signal is shared by every submission, so its stamps may
//! belong to a later one by the time this one retires: a traced submission
//! instead writes one more barrier-AND (barrier bit, no fences, no
//! dependencies) just before its closing barrier, completing the last
//! slot, and its stamps show when everything before it had completed.
//! The device's queue has profiling on (`src/device.rs`), so the CP writes
//! each packet's start and end into its signal: a dispatch from launch to
//! its last workgroup, a barrier from when its condition held to
//! completion. The gate barrier of an SDMA op already completes the op's
//! gate signal when it has one; its stamps are read there. When the
//! submission retires (`QueueState::retire`), `maintain` hands it to the
//! trace thread ([`record_retired`]), which reads the stamps, turns them
//! into events through the runtime's clock translation, with gfxsim's
//! per-dispatch counters (`SimDevice::dispatch_counters`, by the signal's
//! address) as arguments, and gives the signals back to the pool. A packet
//! whose signal was never stamped (dropped by a queue fault) leaves no
//! event.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value, json};

use aqueduct_hsa::{Agent, Runtime};

use super::signal_pool::SignalPages;
use super::writer::TraceWriter;
use super::{Args, DispatchArgs, EventKind, TraceEvent, Track, in_background, writer};
use crate::command::lower::{Op, SdmaWork, Work};
use crate::device::DeviceShared;
use crate::device_select::DispatchCounterSource;
use crate::queue::sdma::SdmaGates;

/// What a traced packet is.
pub(crate) enum TracedPacket {
    /// A dispatch op's `count` packets (one slot each).
    Dispatch {
        kernel: Arc<str>,
        grid: [u32; 3],
        workgroup: [u16; 3],
        count: u32,
    },
    /// An SDMA op: its gate and wait barriers (two slots).
    Sdma {
        work: SdmaWork,
        gates: Arc<SdmaGates>,
    },
    /// The barrier that ends the submission (one slot, always last).
    End,
}

impl TracedPacket {
    fn slots(&self) -> u64 {
        match self {
            TracedPacket::Dispatch { count, .. } => u64::from(*count),
            TracedPacket::Sdma { .. } => 2,
            TracedPacket::End => 1,
        }
    }
}

/// A submission's traced packets, in queue order, and their signals
/// (slot k completed by the k-th traced packet).
pub(crate) struct SubmissionTrace {
    pub epoch: u64,
    packets: Vec<TracedPacket>,
    signals: SignalPages,
}

impl SubmissionTrace {
    /// The packets of `ops` to trace (each dispatch repeat is a packet);
    /// `gates`: each SDMA op's signals.
    pub(crate) fn plan(ops: &[Op], gates: &[Option<Arc<SdmaGates>>]) -> Vec<TracedPacket> {
        let mut packets = Vec::new();
        for (op, gates) in ops.iter().zip(gates) {
            match (&op.work, gates) {
                (Work::Dispatch(d), _) => packets.push(TracedPacket::Dispatch {
                    kernel: d.kernel_name.clone(),
                    grid: d.grid,
                    workgroup: d.workgroup,
                    count: op.count,
                }),
                (Work::Sdma(work), Some(gates)) => packets.push(TracedPacket::Sdma {
                    work: *work,
                    gates: gates.clone(),
                }),
                _ => {}
            }
        }
        packets.push(TracedPacket::End);
        packets
    }

    /// Slots `packets` need.
    pub(crate) fn slots(packets: &[TracedPacket]) -> u64 {
        packets.iter().map(TracedPacket::slots).sum()
    }

    /// `packets` completing `signals`, in order.
    pub(crate) fn new(epoch: u64, packets: Vec<TracedPacket>, signals: SignalPages) -> Self {
        SubmissionTrace {
            epoch,
            packets,
            signals,
        }
    }

    /// The signals the packets complete.
    pub(crate) fn signals(&self) -> &SignalPages {
        &self.signals
    }

    /// Keep the signals out of the pool: some packet may still complete
    /// one (a submission whose write stopped after publishing packets).
    pub(crate) fn abandon(self) {
        self.signals.abandon();
    }

    /// The trace of the submission once it completed: its stamps are read
    /// on the trace thread.
    pub(crate) fn retire(self) -> RetiredTrace {
        RetiredTrace(self)
    }
}

/// A completed submission's trace: every packet that completes one of its
/// signals is done, so they are read (and then reused) off the polling
/// thread.
pub(crate) struct RetiredTrace(SubmissionTrace);

/// Flow arrows' ids (unique in the process).
static NEXT_FLOW: AtomicU64 = AtomicU64::new(1);

/// A new flow arrow id.
pub(super) fn next_flow_id() -> u64 {
    NEXT_FLOW.fetch_add(1, Ordering::Relaxed)
}

/// Events of one device, with the GPU's ticks translated, written to the
/// session's file as they are made (no list of them is kept).
struct Events<'w> {
    runtime: &'w Runtime,
    agent: &'w Agent,
    device: u64,
    writer: &'w mut TraceWriter,
    /// Writing failed (reported once; the rest is left out).
    failed: bool,
}

impl Events<'_> {
    /// `(start, end)` ticks in the system clock.
    fn time(&self, ticks: (u64, u64)) -> Option<(u64, u64)> {
        let t = self
            .runtime
            .ticks_to_system(self.agent, ticks.0, ticks.1)
            .ok()?;
        Some((t.start, t.end))
    }

    fn push(&mut self, track: Track, ts_ns: u64, kind: EventKind) {
        if self.failed {
            return;
        }
        let event = TraceEvent {
            device: self.device,
            track,
            ts_ns,
            kind,
        };
        if let Err(e) = self.writer.push(&event) {
            tracing::warn!("{e}");
            self.failed = true;
        }
    }

    fn slice(
        &mut self,
        track: Track,
        name: Arc<str>,
        cat: &'static str,
        (start, end): (u64, u64),
        args: impl Into<Args>,
    ) {
        let kind = EventKind::Slice {
            name,
            cat,
            dur_ns: end - start,
            args: args.into(),
        };
        self.push(track, start, kind);
    }

    /// An arrow from the slice on `from` at `from_ts` to the one on `to` at `to_ts`.
    fn flow(&mut self, from: Track, from_ts: u64, to: Track, to_ts: u64) {
        let id = next_flow_id();
        self.push(from, from_ts, EventKind::FlowStart { id });
        self.push(to, to_ts, EventKind::FlowEnd { id });
    }
}

/// Object of `pairs` (JSON arguments).
fn args<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// Record the events of `retired` submissions of `dev` (on the trace
/// thread; their signals go back to the pool once read).
pub(crate) fn record_retired(dev: &DeviceShared, retired: Vec<RetiredTrace>) {
    if retired.is_empty() {
        return;
    }
    let counters = DispatchCounterSource::of(dev.runtime.device());
    let runtime = dev.runtime.clone();
    let agent = dev.agent.clone();
    let device = dev.id.number();
    in_background(Box::new(move || {
        let mut slot = writer();
        let Some(writer) = slot.as_mut() else {
            return;
        };
        let ev = Events {
            runtime: &runtime,
            agent: &agent,
            device,
            writer,
            failed: false,
        };
        events_of(ev, counters, retired);
    }));
}

/// Make and write the events of `retired`.
fn events_of(
    mut ev: Events<'_>,
    counters: Option<DispatchCounterSource>,
    retired: Vec<RetiredTrace>,
) {
    for RetiredTrace(sub) in retired {
        let signals = &sub.signals;
        // The slot of the packet at hand.
        let mut k = 0;
        // The counter samples of the last dispatch, and when it ended.
        let mut last_samples = None;
        // The last dispatch slice: what a later barrier (barrier bit) waited for.
        let mut last_dispatch: Option<u64> = None;
        // The last compute-queue slice of the submission (a dispatch or an
        // SDMA wait barrier): what the ending barrier waited for.
        let mut last_work: Option<u64> = None;
        for p in &sub.packets {
            let first = k;
            k += p.slots();
            match p {
                TracedPacket::Dispatch {
                    kernel,
                    grid,
                    workgroup,
                    ..
                } => {
                    for slot in first..k {
                        let Some(time) = signals.ticks(slot).and_then(|t| ev.time(t)) else {
                            continue;
                        };
                        let signal = signals.va(slot).unwrap_or(0);
                        let counters = counters.as_ref().and_then(|s| s.take(signal));
                        if let Some(c) = &counters {
                            // Each series holds the value of the dispatch
                            // that started last, until the submission's
                            // last dispatch ends (the writer leaves out
                            // samples that change nothing).
                            let samples = c.samples();
                            for (name, values) in samples {
                                let at = EventKind::Counter { name, values };
                                ev.push(Track::Compute, time.0, at);
                            }
                            last_samples = Some((time.1, samples));
                        }
                        let a = Args::Dispatch(Box::new(DispatchArgs {
                            submission: sub.epoch,
                            grid: *grid,
                            workgroup: *workgroup,
                            counters,
                        }));
                        ev.slice(Track::Compute, kernel.clone(), "dispatch", time, a);
                        last_dispatch = Some(time.1.saturating_sub(1).max(time.0));
                        last_work = last_dispatch;
                    }
                }
                TracedPacket::Sdma { work, gates } => {
                    let gate = match gates.gate_completion() {
                        0 => signals.ticks(first),
                        _ => gates.gate.dispatch_ticks().ok(),
                    };
                    let gate = gate.and_then(|t| ev.time(t));
                    let wait = signals.ticks(first + 1).and_then(|t| ev.time(t));
                    if let Some(g) = gate {
                        let a = args([("submission", json!(sub.epoch))]);
                        ev.slice(Track::Compute, "barrier: SDMA gate".into(), "barrier", g, a);
                        if let Some(d) = last_dispatch {
                            ev.flow(Track::Compute, d, Track::Compute, g.0);
                        }
                    }
                    if let Some(w) = wait {
                        let a = args([("submission", json!(sub.epoch))]);
                        ev.slice(
                            Track::Compute,
                            "barrier: wait for SDMA".into(),
                            "barrier",
                            w,
                            a,
                        );
                    }
                    if let (Some(g), Some(w)) = (gate, wait) {
                        let (name, a) = match *work {
                            SdmaWork::Copy { src, dst, bytes } => (
                                format!("copy {bytes} B"),
                                args([
                                    ("src", json!(format!("{src:#x}"))),
                                    ("dst", json!(format!("{dst:#x}"))),
                                    ("bytes", json!(bytes)),
                                ]),
                            ),
                            SdmaWork::Fill {
                                dst,
                                pattern,
                                bytes,
                            } => (
                                format!("fill {bytes} B"),
                                args([
                                    ("dst", json!(format!("{dst:#x}"))),
                                    ("pattern", json!(format!("{pattern:#010x}"))),
                                    ("bytes", json!(bytes)),
                                ]),
                            ),
                        };
                        // The engine starts once the gate completes and is
                        // done when the wait barrier's condition holds.
                        let span = (g.1, w.0.max(g.1));
                        ev.slice(Track::Sdma, name.into(), "sdma", span, a);
                        ev.flow(
                            Track::Compute,
                            g.1.saturating_sub(1).max(g.0),
                            Track::Sdma,
                            span.0,
                        );
                        ev.flow(Track::Sdma, span.0, Track::Compute, w.0);
                    }
                    if let Some(w) = wait {
                        last_work = Some(w.1.saturating_sub(1).max(w.0));
                    }
                    last_dispatch = None;
                }
                TracedPacket::End => {
                    let Some(time) = signals.ticks(first).and_then(|t| ev.time(t)) else {
                        continue;
                    };
                    let a = args([("submission", json!(sub.epoch))]);
                    let name = "barrier: end of submission".into();
                    ev.slice(Track::Compute, name, "barrier", time, a);
                    if let Some(w) = last_work {
                        ev.flow(Track::Compute, w, Track::Compute, time.0);
                    }
                }
            }
        }
        if let Some((end, samples)) = last_samples {
            for (name, values) in samples {
                let values = values.zeroed();
                ev.push(Track::Compute, end, EventKind::Counter { name, values });
            }
        }
    }
}
