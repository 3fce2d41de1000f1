//! What gfxsim's sanitizer (book/src/sanitizer.md) found in a dispatch of a
//! submission: the source of an `Error::Internal` the device reports once
//! the submission completes, one per finding (folded over the
//! submission's dispatches by tool, kernel and instruction).

use std::ops::Range;
use std::sync::Arc;

use aqueduct_gfxsim::{Finding, SanitizerReport, Tool};

use crate::binding::BindingSlot;

/// One sanitizer finding of a completed submission.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "sanitizer {tool}: kernel {kernel}+{offset:#x}: {finding}{}{} (submission {submission})",
    bound_at(.binding),
    times(.count)
)]
pub struct SanitizerError {
    /// The tool that found it.
    pub tool: Tool,
    /// The kernel's name.
    pub kernel: Arc<str>,
    /// The submission whose dispatch it happened in.
    pub submission: u64,
    /// The instruction's offset from the kernel's first instruction.
    pub offset: u64,
    /// The GPU address the access was at (global memory findings; LDS and
    /// private offsets are in `finding`).
    pub address: Option<u64>,
    /// The bind group slot whose bound range the access was in or
    /// nearest to (global memory findings of compute-pass dispatches).
    pub binding: Option<BindingSlot>,
    /// How many times it happened in the submission (once per wave
    /// instruction, or per barrier release).
    pub count: u64,
    /// The finding itself, with the wave, lane and every detail.
    pub finding: Finding,
}

/// The ranges a sanitized dispatch binds, each with its bind group slot.
pub(crate) type BoundRanges = [(Range<u64>, BindingSlot)];

impl SanitizerError {
    /// The finding `report` of a dispatch of `submission` that bound
    /// `bound`.
    pub(crate) fn new(
        report: SanitizerReport,
        submission: u64,
        bound: &BoundRanges,
    ) -> SanitizerError {
        SanitizerError {
            binding: slot_of(&report.finding, bound),
            tool: report.tool(),
            kernel: report.kernel,
            submission,
            offset: report.finding.site().offset,
            address: report.finding.address(),
            count: report.count,
            finding: report.finding,
        }
    }
}

/// The slot of the bound range `finding`'s access was in or nearest to:
/// for a binding overrun the range gfxsim names, for an allocation overrun
/// the bound range of that allocation nearest the address, otherwise the
/// range holding the address.
fn slot_of(finding: &Finding, bound: &BoundRanges) -> Option<BindingSlot> {
    let slot = |r: &Range<u64>| bound.iter().find(|(b, _)| b == r).map(|(_, s)| *s);
    match finding {
        Finding::BindingOverrun { binding, .. } => slot(binding),
        Finding::GlobalOverrun {
            allocation,
            address,
            ..
        } => bound
            .iter()
            .filter(|(r, _)| allocation.base <= r.start && r.end <= allocation.end())
            .min_by_key(|(r, _)| address.abs_diff(r.end.saturating_sub(1)))
            .map(|(_, s)| *s),
        other => {
            let address = other.address()?;
            bound
                .iter()
                .find(|(r, _)| r.contains(&address))
                .map(|(_, s)| *s)
        }
    }
}

/// The slot named after a finding, if known.
fn bound_at(slot: &Option<BindingSlot>) -> String {
    match slot {
        Some(s) => format!(" (binding {} of group {})", s.binding, s.group),
        None => String::new(),
    }
}

/// The count after a finding that happened more than once.
fn times(count: &u64) -> String {
    if *count > 1 {
        format!(" ({count} times)")
    } else {
        String::new()
    }
}
