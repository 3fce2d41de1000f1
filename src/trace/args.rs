//! Arguments of trace events, written straight into the file's bytes.
//!
//! A traced dispatch's slice carries a dozen counters and feeds three
//! counter tracks. Dispatch arguments and counter samples are plain
//! structs with a fixed layout, written by `JsonOut` (src/trace/json.rs
//! says why not through serde); the rare host slices keep a
//! `serde_json::Map`.

use serde_json::{Map, Value};

use super::json::JsonOut;

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

impl Args {
    /// The arguments as a JSON object.
    pub(crate) fn write_json(&self, j: &mut JsonOut<'_>) {
        match self {
            Args::Map(m) => j.serde(m),
            Args::Dispatch(d) => d.write_json(j),
        }
    }
}

/// A dispatch slice's arguments: the packet, and gfxsim's counters.
#[derive(Clone, Debug)]
pub(crate) struct DispatchArgs {
    pub submission: u64,
    pub grid: [u32; 3],
    pub workgroup: [u16; 3],
    pub counters: Option<DispatchCounterValues>,
}

impl DispatchArgs {
    fn write_json(&self, j: &mut JsonOut<'_>) {
        j.raw(b"{");
        j.field_u64("submission", self.submission, true);
        j.key("grid", false);
        j.array(self.grid.map(u64::from));
        j.key("workgroup", false);
        j.array(self.workgroup.map(u64::from));
        if let Some(c) = &self.counters {
            c.write_fields(j);
        }
        j.raw(b"}");
    }
}

/// One dispatch's counters as the trace shows them (gfxsim's
/// `DispatchCounters`, reached through `DispatchCounterSource`).
#[derive(Clone, Debug)]
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

impl DispatchCounterValues {
    /// The counters as fields of the enclosing object (after others).
    fn write_fields(&self, j: &mut JsonOut<'_>) {
        j.field_u64("dispatch_id", self.dispatch_id, false);
        j.field_u64("workgroups", self.workgroups, false);
        j.field_u64("wave_instructions", self.wave_instructions, false);
        j.key("instructions", false);
        self.instructions.write_json(j);
        j.field_u64("global_read_bytes", self.global_read_bytes, false);
        j.field_u64("global_written_bytes", self.global_written_bytes, false);
        j.field_u64("lds_bank_conflicts", self.lds_bank_conflicts, false);
        j.key("occupancy", false);
        self.occupancy.write_json(j);
    }

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

/// Occupancy as the trace shows it.
#[derive(Clone, Debug)]
pub(crate) struct OccupancyValues {
    pub waves_per_simd: u32,
    pub limited_by: &'static str,
    pub vgprs: u32,
    pub sgprs: u32,
    pub lds_bytes: u32,
    pub waves_per_workgroup: u32,
}

impl OccupancyValues {
    fn write_json(&self, j: &mut JsonOut<'_>) {
        j.raw(b"{");
        j.field_u64("waves_per_simd", self.waves_per_simd.into(), true);
        j.key("limited_by", false);
        j.str(self.limited_by);
        j.field_u64("vgprs", self.vgprs.into(), false);
        j.field_u64("sgprs", self.sgprs.into(), false);
        j.field_u64("lds_bytes", self.lds_bytes.into(), false);
        j.field_u64(
            "waves_per_workgroup",
            self.waves_per_workgroup.into(),
            false,
        );
        j.raw(b"}");
    }
}

/// Named counts (at most [`NamedCounts::MAX`]), written as a JSON object
/// in their order; held inline, so a dispatch's counters allocate nothing.
#[derive(Clone, Debug)]
pub(crate) struct NamedCounts {
    pairs: [(&'static str, u64); NamedCounts::MAX],
    len: u8,
}

impl NamedCounts {
    /// The most counts held.
    pub(crate) const MAX: usize = 16;

    /// The first [`NamedCounts::MAX`] of `pairs`.
    #[cfg_attr(
        not(feature = "sim"),
        allow(dead_code, reason = "only gfxsim counts instructions")
    )]
    pub(crate) fn new(pairs: impl IntoIterator<Item = (&'static str, u64)>) -> NamedCounts {
        let mut counts = NamedCounts {
            pairs: [("", 0); NamedCounts::MAX],
            len: 0,
        };
        for (slot, pair) in counts.pairs.iter_mut().zip(pairs) {
            *slot = pair;
            counts.len += 1;
        }
        counts
    }

    fn write_json(&self, j: &mut JsonOut<'_>) {
        j.object_u64(&self.pairs[..usize::from(self.len)]);
    }
}

/// A counter track's sample: at most two series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

    pub(crate) fn write_json(&self, j: &mut JsonOut<'_>) {
        j.object_u64(&self.pairs[..usize::from(self.len)]);
    }
}
