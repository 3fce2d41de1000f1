//! The check report: one line per check as it completes, a summary (GPU,
//! ISA, KFD version, kernel release, counts), and the `--json` object.

use serde::Serialize;

use super::{CheckRecord, Reference, Side, Status};

/// The head of the report: what ran where, and the counts.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub aqueduct_version: &'static str,
    /// The GPU's product name.
    pub gpu: String,
    pub isa: String,
    /// "kfd" (a real GPU) or "gfxsim".
    pub device: &'static str,
    pub kfd_version: String,
    /// The running Linux kernel (`uname -r`).
    pub kernel_release: String,
    /// What the results were compared with.
    pub reference: String,
    pub checks: usize,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub seconds: f64,
}

/// `--check --json`: the summary and every check.
#[derive(Debug, Serialize)]
pub struct CheckReport {
    pub summary: Summary,
    pub checks: Vec<CheckRecord>,
}

/// The kernel release as /proc reports it (what `uname -r` prints).
fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".to_string())
}

impl Summary {
    pub fn new(
        selected: &Side,
        reference: &Reference,
        records: &[CheckRecord],
        seconds: f64,
    ) -> Summary {
        let count = |s: Status| records.iter().filter(|r| r.status == s).count();
        let (major, minor) = selected.runtime.kfd_version();
        Summary {
            aqueduct_version: env!("CARGO_PKG_VERSION"),
            gpu: selected.agent.product_name.clone(),
            isa: selected
                .agent
                .isa_name
                .clone()
                .unwrap_or_else(|| selected.agent.name.clone()),
            device: selected.device.backend_name(),
            kfd_version: format!("{major}.{minor}"),
            kernel_release: kernel_release(),
            reference: reference.describe(),
            checks: records.len(),
            passed: count(Status::Pass),
            failed: count(Status::Fail),
            skipped: count(Status::Skip),
            seconds,
        }
    }
}

/// Width of the name column.
const NAME_WIDTH: usize = 40;

/// One check's line: `PASS  kfd.alloc_map_free.vram  (0.4 ms)  note`.
pub fn line(r: &CheckRecord) -> String {
    let mut out = format!(
        "{}  {:<width$}  ({:.1} ms)",
        r.status.label(),
        r.name,
        r.ms,
        width = NAME_WIDTH
    );
    if !r.detail.is_empty() {
        out.push_str("  ");
        out.push_str(&r.detail);
    }
    out
}

/// The summary block printed after the lines.
pub fn summary(s: &Summary) -> String {
    format!(
        "\nAqueduct:       {}\n\
         GPU:            {} ({})\n\
         Device:         {}\n\
         KFD version:    {}\n\
         Kernel release: {}\n\
         Compared with:  {}\n\
         Checks:         {} run, {} passed, {} failed, {} skipped in {:.1} s\n",
        s.aqueduct_version,
        s.gpu,
        s.isa,
        s.device,
        s.kfd_version,
        s.kernel_release,
        s.reference,
        s.checks,
        s.passed,
        s.failed,
        s.skipped,
        s.seconds
    )
}
