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

use std::sync::Mutex;

use aqueduct_kfd::KfdResult;
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

/// GET_CLOCK_COUNTERS of one device (`KfdDevice::get_clock_counters`).
pub(crate) type ClockSampler =
    Box<dyn Fn(&mut GetClockCountersArgs) -> KfdResult<()> + Send + Sync>;

/// Translation of one GPU's timestamp ticks into the system clock.
pub(crate) struct GpuClock {
    sampler: ClockSampler,
    gpu_id: u32,
    /// None until a first sample succeeds.
    samples: Mutex<Option<Samples>>,
}

impl std::fmt::Debug for GpuClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuClock")
            .field("gpu_id", &self.gpu_id)
            .field("samples", &self.samples)
            .finish_non_exhaustive()
    }
}

impl GpuClock {
    /// Take `t0` now with `sampler`. A device that cannot sample its
    /// clocks leaves the clock unsampled: the first translation tries
    /// again and reports the failure.
    pub(crate) fn new(gpu_id: u32, sampler: ClockSampler) -> GpuClock {
        let clock = GpuClock {
            sampler,
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
        (self.sampler)(&mut args).map_err(|source| ProfilingError::ClockCounters {
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
        // `CheckClockTicks`).
        if samples.t1.gpu == samples.t0.gpu {
            self.resync(samples)?;
        }
        // Nor is a tick more than a quarter of the sampled interval past t1
        // extrapolated.
        let interval = samples.t1.gpu - samples.t0.gpu;
        if samples.t1.gpu.saturating_add(interval / 4) < tick {
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

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::Arc;

    use aqueduct_kfd::KfdError;

    use super::*;

    /// (GPU counter, system clock) answers still to be given.
    type Answers = Arc<Mutex<VecDeque<(u64, u64)>>>;

    /// A clock whose GET_CLOCK_COUNTERS answers are (gpu, system) pairs
    /// taken in order (at `freq` system ticks per second); past the last
    /// one it fails with EINVAL. The pairs left are shared with the test.
    fn scripted(freq: u64, answers: &[(u64, u64)]) -> (GpuClock, Answers) {
        let left = Arc::new(Mutex::new(answers.iter().copied().collect::<VecDeque<_>>()));
        let queue = left.clone();
        let sampler: ClockSampler = Box::new(move |args| {
            let (gpu, system) = queue.lock().unwrap().pop_front().ok_or(KfdError::ioctl(
                "GET_CLOCK_COUNTERS",
                rustix::io::Errno::INVAL.raw_os_error(),
            ))?;
            args.gpu_clock_counter = gpu;
            args.system_clock_counter = system;
            args.system_clock_freq = freq;
            Ok(())
        });
        (GpuClock::new(1, sampler), left)
    }

    const GHZ: u64 = 1_000_000_000;

    #[test]
    fn ticks_between_the_samples_are_interpolated() {
        // t0 at init; the first translation takes t1 (t0 alone gives no ratio).
        let (clock, left) = scripted(GHZ, &[(1_000, 50_000), (3_000, 70_000)]);
        assert_eq!(clock.to_system(2_000).unwrap(), 60_000);
        assert_eq!(clock.to_system(3_000).unwrap(), 70_000);
        assert_eq!(clock.to_system(1_500).unwrap(), 55_000);
        assert!(left.lock().unwrap().is_empty());
    }

    #[test]
    fn ticks_before_t0_keep_the_first_ratio() {
        let (clock, _) = scripted(GHZ, &[(1_000, 50_000), (2_000, 60_000), (3_000, 80_000)]);
        // Ratio 10 from (t0, t1) fixes the historical ratio.
        assert_eq!(clock.to_system(500).unwrap(), 45_000);
        // A tick past a quarter of the interval after t1 resyncs: ratio 15.
        assert_eq!(clock.to_system(2_900).unwrap(), 80_000 - 1_500);
        // Before t0 the first ratio still holds.
        assert_eq!(clock.to_system(900).unwrap(), 49_000);
    }

    #[test]
    fn a_tick_past_a_quarter_of_the_interval_resyncs() {
        let (clock, left) = scripted(GHZ, &[(0, 0), (1_000, 10_000), (1_400, 14_700)]);
        assert_eq!(clock.to_system(1_000).unwrap(), 10_000);
        // Within 1000 + 1000 / 4: extrapolated from t1.
        assert_eq!(clock.to_system(1_250).unwrap(), 12_500);
        assert_eq!(left.lock().unwrap().len(), 1);
        // Past it: t1 becomes (1400, 14700), ratio 10.5.
        assert_eq!(clock.to_system(1_300).unwrap(), 14_700 - 1_050);
        assert!(left.lock().unwrap().is_empty());
    }

    #[test]
    fn an_extrapolation_past_a_sixteenth_of_a_second_resyncs() {
        // 16 000 system ticks per second: at most 1 000 of extrapolation.
        let (clock, left) = scripted(16_000, &[(0, 0), (10_000, 100_000), (12_800, 129_600)]);
        assert_eq!(clock.to_system(10_000).unwrap(), 100_000);
        // 10 099 is within the quarter interval and 990 ticks from t1.
        assert_eq!(clock.to_system(10_099).unwrap(), 100_990);
        assert_eq!(left.lock().unwrap().len(), 1);
        // 12 000 is within the quarter interval but 20 000 ticks away:
        // resync, ratio 10.125.
        assert_eq!(clock.to_system(12_000).unwrap(), 129_600 - 8_100);
        assert!(left.lock().unwrap().is_empty());
    }

    #[test]
    fn a_dispatch_time_translates_end_then_start_with_the_same_samples() {
        let (clock, _) = scripted(GHZ, &[(0, 0), (100, 1_000), (1_000, 20_000)]);
        // The end (900) is past t1 + 25: t1 becomes (1000, 20000), ratio
        // 20, for the start too (first, the start would have used ratio
        // 10: 1100).
        let t = clock.dispatch_time(110, 900).unwrap();
        assert_eq!(
            t,
            DispatchTime {
                start: 2_200,
                end: 18_000
            }
        );
    }

    #[test]
    fn a_stalled_counter_and_a_failed_sample_are_errors() {
        let (clock, _) = scripted(GHZ, &[(5, 10), (5, 20)]);
        assert!(matches!(
            clock.to_system(5),
            Err(ProfilingError::GpuCounterStalled {
                gpu_id: 1,
                ticks: 5
            })
        ));
        let (clock, _) = scripted(GHZ, &[]);
        assert!(matches!(
            clock.to_system(5),
            Err(ProfilingError::ClockCounters { gpu_id: 1, .. })
        ));
    }

    #[test]
    fn a_clock_unsampled_at_init_samples_at_first_use() {
        let (clock, left) = scripted(GHZ, &[]);
        left.lock().unwrap().extend([(100, 1_000), (200, 2_000)]);
        assert_eq!(clock.to_system(150).unwrap(), 1_500);
    }
}
