//! `--sanitize LIST`: run the kernel under gfxsim's sanitizer (memcheck,
//! racecheck, initcheck, synccheck, or all, and racecheck-global;
//! book/src/sanitizer.md). gfxsim
//! prints each finding as its dispatch ends; after the runs `aqueduct-run`
//! adds the source line of each finding's PC when the code object has DWARF
//! line info, and a count, and exits with status 3 when anything was found.
//! `AQUEDUCT_SIM_SANITIZE` turns the same checks on without the flag.

#[cfg(feature = "sim")]
pub use aqueduct::gfxsim::{SanitizeParseError, SanitizerConfig, SanitizerReport};

use crate::fault_location::Entries;

/// The exit status of a run whose kernel ran but the sanitizer found
/// something.
pub const FOUND_STATUS: u8 = 3;

/// The tools `--sanitize`'s value names.
#[cfg(feature = "sim")]
pub fn parse(list: &str) -> Result<SanitizerConfig, SanitizeParseError> {
    SanitizerConfig::parse(list)
}

/// After the runs: the source line of each finding that has one (gfxsim
/// printed the findings themselves), then how many there were.
#[cfg(feature = "sim")]
pub fn summarize(reports: &[SanitizerReport], entries: &Entries) {
    if reports.is_empty() {
        return;
    }
    for r in reports {
        let location = entries.locate(r.finding.site().pc);
        if location.contains(" at ") {
            eprintln!("  {} {location}", r.tool());
        }
    }
    let occurrences: u64 = reports.iter().map(|r| r.count).sum();
    eprintln!(
        "aqueduct-run: the sanitizer found {} problem{} ({occurrences} occurrence{})",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        if occurrences == 1 { "" } else { "s" }
    );
}
