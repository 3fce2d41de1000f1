//! `--profile`: a table of each run's GPU time (the CP's stamps in the
//! completion signal) and, on gfxsim, its per-dispatch counters (wave
//! instructions by class, global-memory bytes, LDS bank-conflict cycles,
//! occupancy and its limit;
//! `SimDevice::dispatch_counters`).

use std::fmt::Write;

#[cfg(feature = "sim")]
use aqueduct::gfxsim::{DispatchCounters, InstClass};

/// One dispatch's row.
pub struct ProfileRow {
    /// GPU time in nanoseconds, when the CP stamped the signal.
    pub gpu_ns: Option<u64>,
    #[cfg(feature = "sim")]
    pub counters: Option<DispatchCounters>,
}

/// The table of `rows` (one per run), with a header.
pub fn table(rows: &[ProfileRow]) -> String {
    let mut out = String::new();
    let _ = write!(out, "{:>4} {:>10}", "run", "gpu us");
    #[cfg(feature = "sim")]
    {
        for c in InstClass::ALL {
            let _ = write!(out, " {:>11}", c.name());
        }
        let _ = write!(
            out,
            " {:>11} {:>12} {:>12} {:>14} {:>10}  limited by",
            "total", "read B", "written B", "LDS conflicts", "waves/SIMD"
        );
    }
    out.push('\n');
    for (i, row) in rows.iter().enumerate() {
        let gpu = row
            .gpu_ns
            .map_or("-".to_string(), |ns| format!("{:.1}", ns as f64 / 1e3));
        let _ = write!(out, "{:>4} {gpu:>10}", i + 1);
        #[cfg(feature = "sim")]
        if let Some(c) = &row.counters {
            for class in InstClass::ALL {
                let _ = write!(out, " {:>11}", c.classes.get(class));
            }
            let o = &c.occupancy;
            let _ = write!(
                out,
                " {:>11} {:>12} {:>12} {:>14} {:>10}  {}",
                c.classes.total(),
                c.global_read_bytes,
                c.global_written_bytes,
                c.lds_bank_conflicts,
                o.waves_per_simd,
                o.limit.name()
            );
        }
        out.push('\n');
    }
    out
}
