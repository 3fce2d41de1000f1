//! The device `aqueduct-run` runs on. gfxsim is created here rather than by
//! `aqueduct::open_device` so that its per-dispatch watchdog follows
//! `--timeout` (a kernel may run as long as the user waits for it) and so
//! that gfxsim's own account of a failed wave (its PC) can be shown.

use std::sync::Arc;
use std::time::Duration;

use aqueduct::kfd::KfdDevice;
use aqueduct::{DeviceChoice, DeviceSelectError, open_device};

/// The opened device, and gfxsim itself when that is what it is.
pub struct RunDevice {
    pub kfd: Arc<dyn KfdDevice>,
    #[cfg(feature = "sim")]
    sim: Option<Arc<aqueduct::gfxsim::SimDevice>>,
}

impl RunDevice {
    /// Open `choice`; gfxsim's watchdog lets a dispatch run past `timeout`
    /// (`None`: the user waits without a limit, so the watchdog is off).
    /// `sanitize`: the sanitizer tools gfxsim runs (None: as
    /// `AQUEDUCT_SIM_SANITIZE` says).
    pub fn open(
        choice: DeviceChoice,
        timeout: Option<Duration>,
        #[cfg(feature = "sim")] sanitize: Option<aqueduct::gfxsim::SanitizerConfig>,
    ) -> Result<Self, DeviceSelectError> {
        #[cfg(not(feature = "sim"))]
        let sanitize = None;
        let real = || open_device(DeviceChoice::Kfd);
        match choice {
            DeviceChoice::Kfd => Ok(Self::real(real()?)),
            DeviceChoice::Sim => Self::sim(timeout, sanitize),
            DeviceChoice::Auto => match real() {
                Ok(dev) => Ok(Self::real(dev)),
                Err(e) if cfg!(feature = "sim") => {
                    tracing::info!("{e}; using gfxsim");
                    Self::sim(timeout, sanitize)
                }
                Err(e) => Err(e),
            },
        }
    }

    fn real(kfd: Arc<dyn KfdDevice>) -> Self {
        Self {
            kfd,
            #[cfg(feature = "sim")]
            sim: None,
        }
    }

    #[cfg(feature = "sim")]
    fn sim(
        timeout: Option<Duration>,
        sanitize: Option<aqueduct::gfxsim::SanitizerConfig>,
    ) -> Result<Self, DeviceSelectError> {
        use aqueduct::gfxsim::{SimConfig, SimDevice};
        let mut config = SimConfig::default();
        config.dispatch_timeout = watchdog(config.dispatch_timeout, timeout);
        if let Some(tools) = sanitize {
            config.sanitize = tools;
        }
        let sim = SimDevice::new(config).map_err(DeviceSelectError::Sim)?;
        Ok(Self {
            kfd: sim.clone(),
            sim: Some(sim),
        })
    }

    #[cfg(not(feature = "sim"))]
    fn sim(_timeout: Option<Duration>, _sanitize: Option<()>) -> Result<Self, DeviceSelectError> {
        Err(DeviceSelectError::SimNotBuilt)
    }

    /// gfxsim's account of the last error of KFD queue `queue_id` (None on
    /// the real device, which reports no more than the runtime's error).
    pub fn wave_error(&self, queue_id: u32) -> Option<String> {
        #[cfg(feature = "sim")]
        {
            self.sim.as_ref().and_then(|s| s.wave_error(queue_id))
        }
        #[cfg(not(feature = "sim"))]
        {
            let _ = queue_id;
            None
        }
    }
}

impl RunDevice {
    /// Have gfxsim count the dispatches launched from now on (`--profile`);
    /// nothing on the real device.
    pub fn set_dispatch_counters(&self, on: bool) {
        #[cfg(feature = "sim")]
        if let Some(s) = &self.sim {
            s.set_dispatch_counters(on);
        }
        #[cfg(not(feature = "sim"))]
        let _ = on;
    }

    /// gfxsim's sanitizer findings so far (none on the real device).
    #[cfg(feature = "sim")]
    pub fn sanitizer_reports(&self) -> Vec<aqueduct::gfxsim::SanitizerReport> {
        self.sim
            .as_ref()
            .map_or_else(Vec::new, |s| s.sanitizer_reports())
    }

    /// gfxsim's counters of the dispatch that completed `signal`.
    #[cfg(feature = "sim")]
    pub fn dispatch_counters(&self, signal: u64) -> Option<aqueduct::gfxsim::DispatchCounters> {
        self.sim.as_ref()?.dispatch_counters(signal)
    }
}

/// How far past the wait the watchdog is raised: the watchdog counts from
/// the first workgroup, the wait from the submission, so with equal limits
/// either could end first; this way the wait does.
const WATCHDOG_GRACE: Duration = Duration::from_secs(1);

/// gfxsim's watchdog for a wait of `timeout`: the configured limit
/// (`AQUEDUCT_SIM_DISPATCH_TIMEOUT_MS`, 30 s when unset) raised past the
/// wait, never lowered; no limit when either has none.
pub fn watchdog(configured: Option<Duration>, timeout: Option<Duration>) -> Option<Duration> {
    Some(configured?.max(timeout?.saturating_add(WATCHDOG_GRACE)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watchdog_is_raised_to_the_timeout_never_lowered() {
        let s = Duration::from_secs;
        assert_eq!(watchdog(Some(s(30)), Some(s(120))), Some(s(121)));
        assert_eq!(watchdog(Some(s(30)), Some(s(1))), Some(s(30)));
        assert_eq!(watchdog(Some(s(30)), None), None);
        assert_eq!(watchdog(None, Some(s(5))), None);
    }
}
