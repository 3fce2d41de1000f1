//! Arguments of trace events, serialized straight into the file's bytes.
//!
//! A traced dispatch's slice carries a dozen counters and feeds four
//! counter tracks; building them as `serde_json::Value` maps cost several
//! allocations per field on the trace thread, which on a 2-core host
//! competes with the work it traces. Dispatch arguments and counter samples
//! are plain structs here, written by serde's derive; the rare host slices
//! keep a `serde_json::Map`.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// The arguments of a slice.
#[derive(Clone, Debug)]
pub(crate) enum Args {
    /// Free-form (host slices, barriers, copies).
    Map(Map<String, Value>),
    /// A dispatch's.
    Dispatch(Box<DispatchArgs>),
}

impl Default for Args {
    fn default() -> Self {
        Args::Map(Map::new())
    }
}

impl From<Map<String, Value>> for Args {
    fn from(m: Map<String, Value>) -> Self {
        Args::Map(m)
    }
}

impl Serialize for Args {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Args::Map(m) => m.serialize(s),
            Args::Dispatch(d) => d.serialize(s),
        }
    }
}

/// A dispatch slice's arguments: the packet, and gfxsim's counters.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct DispatchArgs {
    pub submission: u64,
    pub grid: [u32; 3],
    pub workgroup: [u16; 3],
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub counters: Option<DispatchCounterValues>,
}

/// One dispatch's counters as the trace shows them (gfxsim's
/// `DispatchCounters`, reached through `DispatchCounterSource`).
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct DispatchCounterValues {
    pub dispatch_id: u64,
    pub workgroups: u64,
    pub wave_instructions: u64,
    /// Wave instructions by class name, in the class order.
    pub instructions: NamedCounts,
    pub global_read_bytes: u64,
    pub global_written_bytes: u64,
    pub lds_bank_conflicts: u64,
    pub occupancy: OccupancyValues,
}

/// Occupancy as the trace shows it.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct OccupancyValues {
    pub waves_per_simd: u32,
    pub limited_by: &'static str,
    pub vgprs: u32,
    pub sgprs: u32,
    pub lds_bytes: u32,
    pub waves_per_workgroup: u32,
}

/// Named counts, serialized as a JSON object in their order.
#[derive(Clone, Debug, Default)]
pub(crate) struct NamedCounts(pub Vec<(&'static str, u64)>);

impl Serialize for NamedCounts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// A counter track's sample: at most two series.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample {
    pairs: [(&'static str, u64); 2],
    len: u8,
}

impl Sample {
    /// One series.
    pub(crate) fn one(name: &'static str, value: u64) -> Sample {
        Sample {
            pairs: [(name, value), ("", 0)],
            len: 1,
        }
    }

    /// Two series.
    pub(crate) fn two(a: (&'static str, u64), b: (&'static str, u64)) -> Sample {
        Sample {
            pairs: [a, b],
            len: 2,
        }
    }

    /// The same series at 0.
    pub(crate) fn zeroed(mut self) -> Sample {
        for p in &mut self.pairs {
            p.1 = 0;
        }
        self
    }
}

impl Serialize for Sample {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let pairs = &self.pairs[..usize::from(self.len)];
        let mut m = s.serialize_map(Some(pairs.len()))?;
        for (k, v) in pairs {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl DispatchCounterValues {
    /// The counter tracks' samples while the dispatch runs.
    pub(crate) fn samples(&self) -> [(&'static str, Sample); 3] {
        [
            (
                "waves per SIMD",
                Sample::one("waves", u64::from(self.occupancy.waves_per_simd)),
            ),
            (
                "global memory bytes",
                Sample::two(
                    ("read", self.global_read_bytes),
                    ("written", self.global_written_bytes),
                ),
            ),
            (
                "LDS bank conflicts",
                Sample::one("cycles", self.lds_bank_conflicts),
            ),
        ]
    }
}
