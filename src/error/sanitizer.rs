//! What gfxsim's sanitizer (book/src/sanitizer.md) found in a dispatch of a
//! submission: the source of an `Error::Internal` the device reports once
//! the submission completes, one per finding (folded over the
//! submission's dispatches by tool, kernel and instruction).

use std::sync::Arc;

use aqueduct_gfxsim::{Finding, SanitizerReport, Tool};

/// One sanitizer finding of a completed submission.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "sanitizer {tool}: kernel {kernel}+{offset:#x}: {finding}{} (submission {submission})",
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
    /// How many times it happened in the submission (once per wave
    /// instruction, or per barrier release).
    pub count: u64,
    /// The finding itself, with the wave, lane and every detail.
    pub finding: Finding,
}

impl SanitizerError {
    /// The finding `report` of a dispatch of `submission`.
    pub(crate) fn new(report: SanitizerReport, submission: u64) -> SanitizerError {
        SanitizerError {
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

/// The count after a finding that happened more than once.
fn times(count: &u64) -> String {
    if *count > 1 {
        format!(" ({count} times)")
    } else {
        String::new()
    }
}
