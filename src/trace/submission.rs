//! A traced submission: the completion signals its packets get, and the
//! events made of them once it retires.
//!
//! Dispatch packets complete no signal of their own (the submission's
//! closing barrier carries the epoch signal), so a traced submission gets
//! a block of `amd_signal_t`s in its kernarg ring space, one per dispatch
//! packet, two per SDMA op (its gate and wait barriers) and one for the
//! end of the submission, and each of those packets completes one. The
//! epoch signal is shared by every submission, so its stamps may belong to
//! a later one by the time this one retires: a traced submission instead
//! writes one more barrier-AND (barrier bit, no fences, no dependencies)
//! just before its closing barrier, completing the last slot, and its
//! stamps show when everything before it had completed. The device's queue has profiling on
//! (`src/device.rs`), so the CP writes each packet's start and end into
//! its signal: a dispatch from launch to its last workgroup, a barrier from
//! when its condition held to completion. The gate barrier of an SDMA op
//! already completes the op's gate signal when it has one; its stamps are
//! read there. When the submission retires (`QueueState::retire`, before
//! its ring space is reused), the stamps are read ([`SubmissionTrace::read`]);
//! `maintain` hands them to the trace thread, which turns them into events
//! ([`record_retired`]) through the runtime's clock translation, with gfxsim's per-dispatch
//! counters (`SimDevice::dispatch_counters`, by the signal's address) as
//! arguments. A packet whose signal was never stamped (dropped by a queue
//! fault) leaves no event.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use aqueduct_kfd::abi::{AMD_SIGNAL_KIND_USER, AmdSignal};
use serde_json::{Map, Value, json};

use aqueduct_hsa::{Agent, Runtime};

use super::{Args, DispatchArgs, EventKind, TraceEvent, Track, in_background, write_events};
use crate::command::lower::{Op, SdmaWork, Work};
use crate::device::DeviceShared;
use crate::device_select::DispatchCounterSource;
use crate::queue::sdma::SdmaGates;

/// Bytes of one packet's signal.
pub(crate) const SLOT: u64 = std::mem::size_of::<AmdSignal>() as u64;

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

/// A submission's traced packets, in queue order, and their signals.
pub(crate) struct SubmissionTrace {
    pub epoch: u64,
    packets: Vec<TracedPacket>,
    /// GPU address of the signal block (slot k at `va + 64 k`).
    va: u64,
    /// Its host address.
    host: usize,
}

/// Write `slots` signals at `host`, each kind USER, value 1, no mailbox,
/// in place (a traced submission of many dispatches has a signal per
/// dispatch, so no copy is made of them).
///
/// # Safety
/// `host` is the start of `slots * 64` writable bytes, aligned to 64
/// (`AmdSignal`'s alignment).
pub(crate) unsafe fn write_initial_signals(host: *mut u8, slots: u64) {
    let signal = AmdSignal {
        kind: AMD_SIGNAL_KIND_USER,
        value: 1,
        ..AmdSignal::default()
    };
    let first = host.cast::<AmdSignal>();
    for k in 0..slots as usize {
        // SAFETY: slot k lies inside the caller's block (k < slots), aligned.
        unsafe { first.add(k).write(signal) };
    }
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

    /// `packets` with their signal block at GPU address `va`, host `host`.
    pub(crate) fn new(epoch: u64, packets: Vec<TracedPacket>, va: u64, host: *mut u8) -> Self {
        SubmissionTrace {
            epoch,
            packets,
            va,
            host: host as usize,
        }
    }

    /// The GPU address of the block (slot k at `va + 64 k`, in the order
    /// the packets are written).
    pub(crate) fn va(&self) -> u64 {
        self.va
    }

    /// The stamps of slot `k`, when the CP wrote both.
    fn ticks(&self, k: u64) -> Option<(u64, u64)> {
        let p = (self.host as *const u8).wrapping_add((k * SLOT) as usize) as *const AmdSignal;
        // SAFETY: the block holds every slot's 64 bytes of host-mapped kernarg memory (ring space, or an allocation the submission keeps) that stays the submission's until `retire` is past this read; its packets completed, so the CP writes it no more.
        let s = unsafe { std::ptr::read_volatile(p) };
        (s.start_ts != 0 && s.end_ts >= s.start_ts).then_some((s.start_ts, s.end_ts))
    }

    /// Read the stamps (the submission completed; its ring space is still
    /// reserved).
    pub(crate) fn read(self) -> RetiredTrace {
        let mut k = 0;
        let mut packets = Vec::with_capacity(self.packets.len());
        for p in &self.packets {
            let signal = self.va + k * SLOT;
            packets.push(match p {
                TracedPacket::Dispatch {
                    kernel,
                    grid,
                    workgroup,
                    count,
                } => RetiredPacket::Dispatch {
                    kernel: kernel.clone(),
                    grid: *grid,
                    workgroup: *workgroup,
                    runs: (0..u64::from(*count))
                        .map(|r| (signal + r * SLOT, self.ticks(k + r)))
                        .collect(),
                },
                TracedPacket::Sdma { work, gates } => RetiredPacket::Sdma {
                    work: *work,
                    gate: match gates.gate_completion() {
                        0 => self.ticks(k),
                        _ => gates.gate.dispatch_ticks().ok(),
                    },
                    wait: self.ticks(k + 1),
                },
                TracedPacket::End => RetiredPacket::End {
                    ticks: self.ticks(k),
                },
            });
            k += p.slots();
        }
        RetiredTrace {
            epoch: self.epoch,
            packets,
        }
    }
}

/// A retired submission's packets and their stamps (GPU ticks).
pub(crate) struct RetiredTrace {
    epoch: u64,
    packets: Vec<RetiredPacket>,
}

enum RetiredPacket {
    /// A dispatch op's packets: each one's signal and stamps.
    Dispatch {
        kernel: Arc<str>,
        grid: [u32; 3],
        workgroup: [u16; 3],
        runs: Vec<(u64, Option<(u64, u64)>)>,
    },
    Sdma {
        work: SdmaWork,
        gate: Option<(u64, u64)>,
        wait: Option<(u64, u64)>,
    },
    /// The barrier ending the submission.
    End { ticks: Option<(u64, u64)> },
}

/// Flow arrows' ids (unique in the process).
static NEXT_FLOW: AtomicU64 = AtomicU64::new(1);

/// A new flow arrow id.
pub(super) fn next_flow_id() -> u64 {
    NEXT_FLOW.fetch_add(1, Ordering::Relaxed)
}

/// Events of one device, with the GPU's ticks translated.
struct Events {
    runtime: Arc<Runtime>,
    agent: Agent,
    device: u64,
    out: Vec<TraceEvent>,
}

impl Events {
    /// `(start, end)` ticks in the system clock.
    fn time(&self, ticks: (u64, u64)) -> Option<(u64, u64)> {
        let t = self
            .runtime
            .ticks_to_system(&self.agent, ticks.0, ticks.1)
            .ok()?;
        Some((t.start, t.end))
    }

    fn push(&mut self, track: Track, ts_ns: u64, kind: EventKind) {
        self.out.push(TraceEvent {
            device: self.device,
            track,
            ts_ns,
            kind,
        });
    }

    fn slice(
        &mut self,
        track: Track,
        name: String,
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

/// Record the events of `retired` submissions of `dev` (on the trace thread).
pub(crate) fn record_retired(dev: &DeviceShared, retired: Vec<RetiredTrace>) {
    if retired.is_empty() {
        return;
    }
    let counters = DispatchCounterSource::of(dev.runtime.device());
    let ev = Events {
        runtime: dev.runtime.clone(),
        agent: dev.agent.clone(),
        device: dev.id.number(),
        out: Vec::new(),
    };
    in_background(Box::new(move || events_of(ev, counters, retired)));
}

/// Make and record the events of `retired`.
fn events_of(mut ev: Events, counters: Option<DispatchCounterSource>, retired: Vec<RetiredTrace>) {
    for sub in retired {
        // The last dispatch slice: what a later barrier (barrier bit) waited for.
        let mut last_dispatch: Option<u64> = None;
        // The last compute-queue slice of the submission (a dispatch or an
        // SDMA wait barrier): what the ending barrier waited for.
        let mut last_work: Option<u64> = None;
        for p in sub.packets {
            match p {
                RetiredPacket::Dispatch {
                    kernel,
                    grid,
                    workgroup,
                    runs,
                } => {
                    for (signal, ticks) in runs {
                        let Some(time) = ticks.and_then(|t| ev.time(t)) else {
                            continue;
                        };
                        let counters = counters.as_ref().and_then(|s| s.take(signal));
                        if let Some(c) = &counters {
                            // Each series holds its value for the slice, 0 after it.
                            for (name, values) in c.samples() {
                                let at = EventKind::Counter { name, values };
                                ev.push(Track::Compute, time.0, at);
                                let after = EventKind::Counter {
                                    name,
                                    values: values.zeroed(),
                                };
                                ev.push(Track::Compute, time.1, after);
                            }
                        }
                        let a = Args::Dispatch(Box::new(DispatchArgs {
                            submission: sub.epoch,
                            grid,
                            workgroup,
                            counters,
                        }));
                        ev.slice(Track::Compute, kernel.to_string(), "dispatch", time, a);
                        last_dispatch = Some(time.1.saturating_sub(1).max(time.0));
                        last_work = last_dispatch;
                    }
                }
                RetiredPacket::Sdma { work, gate, wait } => {
                    let gate = gate.and_then(|t| ev.time(t));
                    let wait = wait.and_then(|t| ev.time(t));
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
                        let (name, a) = match work {
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
                        ev.slice(Track::Sdma, name, "sdma", span, a);
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
                RetiredPacket::End { ticks } => {
                    let Some(time) = ticks.and_then(|t| ev.time(t)) else {
                        continue;
                    };
                    let a = args([("submission", json!(sub.epoch))]);
                    let name = "barrier: end of submission".to_string();
                    ev.slice(Track::Compute, name, "barrier", time, a);
                    if let Some(w) = last_work {
                        ev.flow(Track::Compute, w, Track::Compute, time.0);
                    }
                }
            }
        }
    }
    write_events(ev.out);
}
