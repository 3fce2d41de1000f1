//! [`ProfilingError`]: reading a packet's timestamps and translating GPU
//! ticks into the system clock.

use aqueduct_kfd::KfdError;

use super::HsaStatus;

#[derive(Debug, thiserror::Error)]
pub enum ProfilingError {
    /// A completion signal whose `start_ts`/`end_ts` the CP did not write:
    /// its packet ran on a queue without profiling, has not completed, or
    /// the signal completed no packet. (ROCr returns the zeros as times and
    /// only logs "time stamps may be invalid".)
    #[error(
        "signal {signal:#x} holds no dispatch timestamps (start {start}, end {end}): \
         its packet ran without profiling or has not completed"
    )]
    NoTimestamps { signal: u64, start: u64, end: u64 },
    /// A timestamp pair whose end precedes its start.
    #[error("signal {signal:#x} has end timestamp {end} before start timestamp {start}")]
    EndBeforeStart { signal: u64, start: u64, end: u64 },
    /// GET_CLOCK_COUNTERS failed, so GPU ticks cannot be translated.
    #[error("cannot sample the clocks of GPU {gpu_id:#x}: {source}")]
    ClockCounters {
        gpu_id: u32,
        #[source]
        source: KfdError,
    },
    /// Two clock samples with the same GPU counter (or a GPU counter of 0:
    /// KFD's answer for a gpu_id without a device): no tick rate follows.
    #[error("the GPU counter of GPU {gpu_id:#x} does not advance ({ticks} in two samples)")]
    GpuCounterStalled { gpu_id: u32, ticks: u64 },
}

impl ProfilingError {
    /// The HSA status ROCr returns for this case.
    pub fn status(&self) -> HsaStatus {
        match self {
            ProfilingError::NoTimestamps { .. } | ProfilingError::EndBeforeStart { .. } => {
                HsaStatus::InvalidSignal
            }
            ProfilingError::ClockCounters { .. } | ProfilingError::GpuCounterStalled { .. } => {
                HsaStatus::Error
            }
        }
    }
}
