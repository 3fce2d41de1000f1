//! The trace's event model: the tracks (a GPU queue or a host activity of
//! one device) and the Chrome trace-event records drawn on them.
//!
//! Format: the JSON object form of Chrome's Trace Event Format ("Trace
//! Event Format", Google, the document chrome://tracing and
//! ui.perfetto.dev read): `ph` "X" is a complete slice (`ts` and `dur` in
//! microseconds), "C" a counter sample, "s"/"f" the two ends of a flow
//! arrow (bound to the enclosing slices, `bp` "e"), "M" the metadata that
//! names a process (`pid`: one per device) and a thread (`tid`: a track).

use serde::Serialize;
use serde_json::{Value, json};

use super::args::{Args, Sample};

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
        name: String,
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

/// Microseconds from `origin_ns` to `ns`, as the format's `ts` wants them.
fn micros(ns: u64, origin_ns: u64) -> f64 {
    (ns as i128 - origin_ns as i128) as f64 / 1000.0
}

/// One record of the file, as serde writes it.
#[derive(Serialize)]
struct Record<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'a str>,
    ph: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bp: Option<&'static str>,
    pid: u64,
    tid: u32,
    ts: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<RecordArgs<'a>>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum RecordArgs<'a> {
    Slice(&'a Args),
    Sample(&'a Sample),
}

impl TraceEvent {
    /// Append the JSON record of the event, with `ts` relative to
    /// `origin_ns`, to `out`.
    pub(crate) fn write_json(&self, origin_ns: u64, out: &mut Vec<u8>) {
        let (tid, _) = self.track.id_and_name();
        let base = Record {
            name: "",
            cat: None,
            ph: "X",
            id: None,
            bp: None,
            pid: self.device,
            tid,
            ts: micros(self.ts_ns, origin_ns),
            dur: None,
            args: None,
        };
        let record = match &self.kind {
            EventKind::Slice {
                name,
                cat,
                dur_ns,
                args,
            } => Record {
                name,
                cat: Some(cat),
                dur: Some(*dur_ns as f64 / 1000.0),
                args: Some(RecordArgs::Slice(args)),
                ..base
            },
            EventKind::Counter { name, values } => Record {
                name,
                ph: "C",
                args: Some(RecordArgs::Sample(values)),
                ..base
            },
            EventKind::FlowStart { id } => Record {
                name: "waits for",
                cat: Some("flow"),
                ph: "s",
                id: Some(*id),
                ..base
            },
            EventKind::FlowEnd { id } => Record {
                name: "waits for",
                cat: Some("flow"),
                ph: "f",
                id: Some(*id),
                bp: Some("e"),
                ..base
            },
        };
        // Writing into a Vec cannot fail, and every field serializes.
        let _ = serde_json::to_writer(out, &record);
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
