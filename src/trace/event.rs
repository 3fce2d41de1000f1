//! The trace's event model: the tracks (a GPU queue or a host activity of
//! one device) and the Chrome trace-event records drawn on them.
//!
//! Format: the JSON object form of Chrome's Trace Event Format ("Trace
//! Event Format", Google, the document chrome://tracing and
//! ui.perfetto.dev read): `ph` "X" is a complete slice (`ts` and `dur` in
//! microseconds), "C" a counter sample, "s"/"f" the two ends of a flow
//! arrow (bound to the enclosing slices, `bp` "e"), "M" the metadata that
//! names a process (`pid`: one per device) and a thread (`tid`: a track).

use std::sync::Arc;

use serde_json::{Value, json};

use super::args::{Args, Sample};
use super::json::JsonOut;

/// Where an event is drawn: one track of one device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Track {
    /// The device's compute (AQL) queue: dispatches and barrier packets.
    Compute,
    /// The device's SDMA queue: copies and fills.
    Sdma,
    /// Host: `Queue::submit`.
    Submit,
    /// Host: buffer mapping (`map_async` to its callback) and unmapping.
    Map,
    /// Host: blocking waits (`Device::poll` with `Wait`).
    Wait,
    /// Host: host callbacks running (`Queue::submit_host_callback`).
    HostCallback,
}

impl Track {
    /// The `tid` and the name shown for the track.
    pub(crate) fn id_and_name(self) -> (u32, &'static str) {
        match self {
            Track::Compute => (1, "GPU compute queue"),
            Track::Sdma => (2, "GPU SDMA queue"),
            Track::Submit => (10, "host: submit"),
            Track::Map => (11, "host: map/unmap"),
            Track::Wait => (12, "host: blocking waits"),
            Track::HostCallback => (13, "host: host callbacks"),
        }
    }
}

/// One event, with times in the HSA system clock (CLOCK_BOOTTIME ns,
/// `aqueduct_hsa::system_timestamp`); the writer makes them relative to
/// the session's start.
#[derive(Clone, Debug)]
pub(crate) struct TraceEvent {
    /// The device (the trace's `pid`).
    pub device: u64,
    pub track: Track,
    pub kind: EventKind,
    pub ts_ns: u64,
}

#[derive(Clone, Debug)]
pub(crate) enum EventKind {
    /// A slice of `dur_ns` named `name`, in category `cat`.
    Slice {
        name: Arc<str>,
        cat: &'static str,
        dur_ns: u64,
        args: Args,
    },
    /// A sample of the counter track `name`.
    Counter { name: &'static str, values: Sample },
    /// The start of flow arrow `id` (in the slice at `ts`).
    FlowStart { id: u64 },
    /// The end of flow arrow `id` (in the slice at `ts`).
    FlowEnd { id: u64 },
}

impl TraceEvent {
    /// Append the JSON record of the event, with `ts` relative to
    /// `origin_ns`, to `out`.
    pub(crate) fn write_json(&self, origin_ns: u64, out: &mut Vec<u8>) {
        let (tid, _) = self.track.id_and_name();
        let mut j = JsonOut { out };
        j.raw(b"{");
        j.key("name", true);
        let (ph, cat) = match &self.kind {
            EventKind::Slice { name, cat, .. } => {
                j.str(name);
                ("X", Some(*cat))
            }
            EventKind::Counter { name, .. } => {
                j.str(name);
                ("C", None)
            }
            EventKind::FlowStart { .. } => {
                j.raw(b"\"waits for\"");
                ("s", Some("flow"))
            }
            EventKind::FlowEnd { .. } => {
                j.raw(b"\"waits for\"");
                ("f", Some("flow"))
            }
        };
        if let Some(cat) = cat {
            j.key("cat", false);
            j.str(cat);
        }
        j.key("ph", false);
        j.str(ph);
        if let EventKind::FlowStart { id } | EventKind::FlowEnd { id } = &self.kind {
            j.field_u64("id", *id, false);
        }
        if let EventKind::FlowEnd { .. } = &self.kind {
            // Bound to the enclosing slice, not the next one.
            j.key("bp", false);
            j.raw(b"\"e\"");
        }
        j.field_u64("pid", self.device, false);
        j.field_u64("tid", u64::from(tid), false);
        j.key("ts", false);
        j.micros(self.ts_ns, origin_ns);
        match &self.kind {
            EventKind::Slice { dur_ns, args, .. } => {
                j.key("dur", false);
                j.micros(*dur_ns, 0);
                j.key("args", false);
                args.write_json(&mut j);
            }
            EventKind::Counter { values, .. } => {
                j.key("args", false);
                values.write_json(&mut j);
            }
            EventKind::FlowStart { .. } | EventKind::FlowEnd { .. } => {}
        }
        j.raw(b"}");
    }
}

/// The metadata record naming device `device`'s process.
pub(crate) fn process_name(device: u64) -> Value {
    json!({
        "name": "process_name", "ph": "M", "pid": device, "tid": 0,
        "args": { "name": format!("aqueduct device {device}") },
    })
}

/// The metadata record naming `track` of device `device`.
pub(crate) fn track_name(device: u64, track: Track) -> Value {
    let (tid, name) = track.id_and_name();
    json!({
        "name": "thread_name", "ph": "M", "pid": device, "tid": tid,
        "args": { "name": name },
    })
}
