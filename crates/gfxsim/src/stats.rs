//! Device-level execution counters, for benchmarks and tests.

use std::sync::atomic::{AtomicU64, Ordering};

/// A snapshot of [`crate::SimDevice::stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Wave instructions executed (counted once per wave, not per lane).
    pub wave_instructions: u64,
    /// Kernel dispatches completed or failed.
    pub dispatches: u64,
    /// Workgroups run.
    pub workgroups: u64,
}

#[derive(Debug, Default)]
pub struct StatsCounters {
    pub wave_instructions: AtomicU64,
    pub dispatches: AtomicU64,
    pub workgroups: AtomicU64,
}

impl StatsCounters {
    pub fn snapshot(&self) -> SimStats {
        SimStats {
            wave_instructions: self.wave_instructions.load(Ordering::Relaxed),
            dispatches: self.dispatches.load(Ordering::Relaxed),
            workgroups: self.workgroups.load(Ordering::Relaxed),
        }
    }
}
