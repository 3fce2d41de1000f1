//! The HSA system clock and the translation of a GPU's timestamp ticks
//! into it.
//!
//! The system clock is CLOCK_BOOTTIME in nanoseconds (ROCr's
//! `os::ReadSystemClock`, `core/util/lnx/os_linux.cpp`), the clock KFD's
//! GET_CLOCK_COUNTERS samples as `system_clock_counter`. The CP stamps
//! packets with the GPU's own counter (`amd_signal_t.start_ts`/`end_ts`),
//! so a time in the system clock is interpolated between two
//! GET_CLOCK_COUNTERS samples of that GPU, as ROCr's
//! `GpuAgent::TranslateTime` (`core/runtime/amd_gpu_agent.cpp`) does:
//! `t0` is taken at init and `t1` refreshed whenever a tick lies more than
//! a quarter of the sampled interval past it, or its extrapolation would
//! exceed 1/16 s, so drift between the two clocks stays bounded; ticks
//! before `t0` are extrapolated with the first ratio used.

use std::sync::{Arc, Mutex};

use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::uapi::GetClockCountersArgs;
use rustix::time::{ClockId, clock_gettime};

use crate::error::ProfilingError;

/// The HSA system clock now: CLOCK_BOOTTIME in nanoseconds (what
/// `hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP)` reads).
pub fn system_timestamp() -> u64 {
    let t = clock_gettime(ClockId::Boottime);
    (t.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(t.tv_nsec as u64)
}

/// A packet's start and end in the system clock (nanoseconds), as
/// `hsa_amd_profiling_dispatch_time_t` gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DispatchTime {
    pub start: u64,
    pub end: u64,
}

/// One GET_CLOCK_COUNTERS sample: the GPU counter and the system clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ClockSample {
    gpu: u64,
    system: u64,
    system_freq: u64,
}

#[derive(Debug)]
struct Samples {
    t0: ClockSample,
    t1: ClockSample,
    /// System ticks per GPU tick for ticks before `t0` (fixed at first use).
    historical_ratio: Option<f64>,
}

impl Samples {
    fn ratio(&self) -> f64 {
        (self.t1.system - self.t0.system) as f64 / (self.t1.gpu - self.t0.gpu) as f64
    }

    /// System ticks between `t1` and `tick` (negative before `t1`).
    fn elapsed(&self, tick: u64) -> i64 {
        (self.ratio() * tick.wrapping_sub(self.t1.gpu) as i64 as f64) as i64
    }
}

/// Translation of one GPU's timestamp ticks into the system clock.
#[derive(Debug)]
pub(crate) struct GpuClock {
    device: Arc<dyn KfdDevice>,
    gpu_id: u32,
    /// None until a first sample succeeds.
    samples: Mutex<Option<Samples>>,
}

impl GpuClock {
    /// Take `t0` now. A device that cannot sample its clocks leaves the
    /// clock unsampled: the first translation tries again and reports the
    /// failure.
    pub(crate) fn new(device: Arc<dyn KfdDevice>, gpu_id: u32) -> GpuClock {
        let clock = GpuClock {
            device,
            gpu_id,
            samples: Mutex::new(None),
        };
        match clock.sample() {
            Ok(t0) => {
                *clock.samples.lock().unwrap_or_else(|p| p.into_inner()) = Some(Samples {
                    t0,
                    t1: t0,
                    historical_ratio: None,
                });
            }
            Err(e) => tracing::debug!("{e}; dispatch times are unavailable until it succeeds"),
        }
        clock
    }

    fn sample(&self) -> Result<ClockSample, ProfilingError> {
        let mut args = GetClockCountersArgs {
            gpu_id: self.gpu_id,
            ..Default::default()
        };
        self.device
            .get_clock_counters(&mut args)
            .map_err(|source| ProfilingError::ClockCounters {
                gpu_id: self.gpu_id,
                source,
            })?;
        Ok(ClockSample {
            gpu: args.gpu_clock_counter,
            system: args.system_clock_counter,
            system_freq: args.system_clock_freq,
        })
    }

    /// Replace `t1` with a fresh sample; the GPU counter must have moved
    /// on from `t0` for a ratio to exist.
    fn resync(&self, samples: &mut Samples) -> Result<(), ProfilingError> {
        samples.t1 = self.sample()?;
        if samples.t1.gpu <= samples.t0.gpu {
            return Err(ProfilingError::GpuCounterStalled {
                gpu_id: self.gpu_id,
                ticks: samples.t1.gpu,
            });
        }
        Ok(())
    }

    /// `tick` of the GPU counter in the system clock.
    pub(crate) fn to_system(&self, tick: u64) -> Result<u64, ProfilingError> {
        let mut guard = self.samples.lock().unwrap_or_else(|p| p.into_inner());
        let samples = match &mut *guard {
            Some(samples) => samples,
            None => {
                let t0 = self.sample()?;
                guard.insert(Samples {
                    t0,
                    t1: t0,
                    historical_ratio: None,
                })
            }
        };
        // Two samples at one GPU tick give no ratio (ROCr's
        // `CheckClockTicks`), nor does a tick a quarter of the sampled
        // interval past t1 get extrapolated.
        let interval = samples.t1.gpu - samples.t0.gpu;
        if interval == 0 || samples.t1.gpu.saturating_add(interval / 4) < tick {
            self.resync(samples)?;
        }
        let max_extrapolation = (samples.t1.system_freq >> 4) as i64;
        let mut elapsed = samples.elapsed(tick);
        if elapsed >= max_extrapolation {
            self.resync(samples)?;
            elapsed = samples.elapsed(tick);
        }
        if tick < samples.t0.gpu {
            let ratio = *samples.historical_ratio.get_or_insert(samples.ratio());
            let before_t0 = (ratio * (samples.t0.gpu - tick) as f64) as u64;
            return Ok(samples.t0.system.saturating_sub(before_t0));
        }
        Ok(samples.t1.system.saturating_add_signed(elapsed))
    }

    /// A packet's (start, end) ticks in the system clock. The end is
    /// translated first, as ROCr does: any resync happens for the later
    /// tick, so both use the same samples and the interval is not skewed
    /// by a resync between them.
    pub(crate) fn dispatch_time(
        &self,
        start: u64,
        end: u64,
    ) -> Result<DispatchTime, ProfilingError> {
        let end = self.to_system(end)?;
        let start = self.to_system(start)?;
        Ok(DispatchTime { start, end })
    }
}
