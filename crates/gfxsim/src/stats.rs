//! Device-level execution counters, for benchmarks and tests, and the
//! switch and log of per-dispatch counters (dispatch_counters.rs).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::dispatch_counters::CounterLog;

/// A snapshot of [`crate::SimDevice::stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Wave instructions executed (counted once per wave, not per lane).
    pub wave_instructions: u64,
    /// Of `wave_instructions`, those run by translated blocks (the
    /// translator, AQUEDUCT_SIM_JIT), their call-outs included.
    pub translated_wave_instructions: u64,
    /// Of `translated_wave_instructions`, those the translations handed to
    /// the interpreter through call-outs instead of running them inline.
    pub called_out_wave_instructions: u64,
    /// Barriers at which a translated region went on with the workgroup's
    /// next wave itself, without a return to the wave loop (aqueduct-isa
    /// gfx11/round.rs).
    pub barrier_switches: u64,
    /// Blocks the wave loops entered (aqueduct-isa `WorkgroupStats::
    /// block_entries`): the translator's entries and exits, for the same
    /// wave instructions fewer when more of the run stays in host code.
    pub block_entries: u64,
    /// Kernel dispatches completed or failed.
    pub dispatches: u64,
    /// Workgroups run.
    pub workgroups: u64,
    /// Host nanoseconds workers spent running workgroups (the wave loop,
    /// translated blocks and call-outs), summed over workers: a dispatch's
    /// execution without the command processor's and the memory manager's
    /// work around it.
    pub workgroup_nanos: u64,
}

#[derive(Debug, Default)]
pub struct StatsCounters {
    pub wave_instructions: AtomicU64,
    pub translated_wave_instructions: AtomicU64,
    pub called_out_wave_instructions: AtomicU64,
    pub barrier_switches: AtomicU64,
    pub block_entries: AtomicU64,
    pub dispatches: AtomicU64,
    pub workgroups: AtomicU64,
    pub workgroup_nanos: AtomicU64,
    /// Dispatches launched from now on count (`SimDevice::set_dispatch_counters`).
    pub per_dispatch: AtomicBool,
    /// Completed counting dispatches' records.
    pub log: Mutex<CounterLog>,
}

impl StatsCounters {
    pub fn snapshot(&self) -> SimStats {
        SimStats {
            wave_instructions: self.wave_instructions.load(Ordering::Relaxed),
            translated_wave_instructions: self.translated_wave_instructions.load(Ordering::Relaxed),
            called_out_wave_instructions: self.called_out_wave_instructions.load(Ordering::Relaxed),
            barrier_switches: self.barrier_switches.load(Ordering::Relaxed),
            block_entries: self.block_entries.load(Ordering::Relaxed),
            dispatches: self.dispatches.load(Ordering::Relaxed),
            workgroups: self.workgroups.load(Ordering::Relaxed),
            workgroup_nanos: self.workgroup_nanos.load(Ordering::Relaxed),
        }
    }
}
