//! Choosing the device under the runtime: the real /dev/kfd when it lists a
//! GPU, gfxsim otherwise. `AQUEDUCT_DEVICE=kfd|sim|auto` overrides, and
//! `Instance::from_device` takes any `KfdDevice` a caller built (a gfxsim
//! configured with a `SimConfig` value, say).
//!
//! This is the only place above the KfdDevice boundary that names gfxsim:
//! the choice is made once, and everything after it sees `dyn KfdDevice`
//! (the trace reaches gfxsim's per-dispatch counters through
//! `DispatchCounterSource`, and the queue its sanitizer's findings through
//! `SanitizerSource`, downcasts of that handle).
//! gfxsim is the `sim` feature (on by default); without it `Sim` is an error
//! and `Auto` means the real device only.

use std::sync::Arc;

use aqueduct_kfd::{DevKfd, KfdDevice, KfdError};

/// Which device backs the runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// Real KFD if it has a GPU, else gfxsim.
    Auto,
    /// Only the real /dev/kfd.
    Kfd,
    /// Only the simulator.
    Sim,
}

/// Why the device under the runtime could not be chosen.
#[derive(Debug, thiserror::Error)]
pub enum DeviceSelectError {
    /// `AQUEDUCT_DEVICE` holds a value other than `kfd`, `sim` or `auto`.
    #[error("AQUEDUCT_DEVICE={0:?} is not one of kfd, sim, auto")]
    BadChoice(String),
    /// The real device was asked for, but /dev/kfd could not be opened or lists no GPU.
    #[error("AQUEDUCT_DEVICE=kfd but the real device is unavailable: {0}")]
    KfdUnavailable(#[source] KfdError),
    /// gfxsim was asked for, but the simulated device could not be created.
    #[error("the gfxsim device could not be created: {0}")]
    Sim(#[source] KfdError),
    /// gfxsim was asked for but this build has no `sim` feature.
    #[error("gfxsim is not part of this build (the `sim` feature of the aqueduct crate is off)")]
    SimNotBuilt,
}

impl DeviceChoice {
    /// Parse an `AQUEDUCT_DEVICE` value (case-insensitive; empty = auto).
    pub fn parse(value: &str) -> Result<Self, DeviceSelectError> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(DeviceChoice::Auto),
            "kfd" | "hw" | "amdgpu" => Ok(DeviceChoice::Kfd),
            "sim" | "gfxsim" => Ok(DeviceChoice::Sim),
            _ => Err(DeviceSelectError::BadChoice(value.to_string())),
        }
    }

    /// The choice the environment asks for.
    pub fn from_env() -> Result<Self, DeviceSelectError> {
        match std::env::var("AQUEDUCT_DEVICE") {
            Ok(v) => Self::parse(&v),
            Err(_) => Ok(DeviceChoice::Auto),
        }
    }
}

/// A gfxsim device with the default configuration (which reads the
/// `AQUEDUCT_SIM_*` variables).
#[cfg(feature = "sim")]
fn default_sim() -> Result<Arc<dyn KfdDevice>, DeviceSelectError> {
    use aqueduct_gfxsim::{SimConfig, SimDevice};
    match SimDevice::new(SimConfig::default()) {
        Ok(dev) => Ok(dev),
        Err(e) => Err(DeviceSelectError::Sim(e)),
    }
}

#[cfg(not(feature = "sim"))]
fn default_sim() -> Result<Arc<dyn KfdDevice>, DeviceSelectError> {
    Err(DeviceSelectError::SimNotBuilt)
}

/// Open the device `choice` asks for.
pub fn open_device(choice: DeviceChoice) -> Result<Arc<dyn KfdDevice>, DeviceSelectError> {
    match choice {
        DeviceChoice::Sim => default_sim(),
        DeviceChoice::Kfd => match DevKfd::open() {
            Ok(dev) => Ok(dev),
            Err(e) => Err(DeviceSelectError::KfdUnavailable(e)),
        },
        DeviceChoice::Auto => match DevKfd::open() {
            Ok(dev) => Ok(dev),
            Err(e) if cfg!(feature = "sim") => {
                tracing::info!("no usable /dev/kfd ({e}); using gfxsim");
                default_sim()
            }
            Err(e) => Err(DeviceSelectError::KfdUnavailable(e)),
        },
    }
}

/// The default device: `AQUEDUCT_DEVICE`, else auto.
pub fn default_device() -> Result<Arc<dyn KfdDevice>, DeviceSelectError> {
    open_device(DeviceChoice::from_env()?)
}

/// gfxsim's per-dispatch counters (`SimDevice::dispatch_counters`),
/// reached through the device handle: the trace's one use of gfxsim's own
/// API. None on any other device.
pub(crate) struct DispatchCounterSource {
    #[cfg(feature = "sim")]
    sim: Arc<aqueduct_gfxsim::SimDevice>,
}

impl DispatchCounterSource {
    /// The counters of `device`, when it is gfxsim.
    #[cfg(feature = "sim")]
    pub(crate) fn of(device: &Arc<dyn KfdDevice>) -> Option<Self> {
        let any: Arc<dyn std::any::Any + Send + Sync> = device.clone();
        any.downcast::<aqueduct_gfxsim::SimDevice>()
            .ok()
            .map(|sim| DispatchCounterSource { sim })
    }

    #[cfg(not(feature = "sim"))]
    pub(crate) fn of(_device: &Arc<dyn KfdDevice>) -> Option<Self> {
        None
    }

    /// Count the dispatches launched from now on, or stop counting.
    pub(crate) fn set_counting(&self, on: bool) {
        #[cfg(feature = "sim")]
        self.sim.set_dispatch_counters(on);
        #[cfg(not(feature = "sim"))]
        let _ = on;
    }

    /// The counters of the dispatch that completed `signal`, as the trace
    /// shows them.
    pub(crate) fn take(&self, signal: u64) -> Option<crate::trace::DispatchCounterValues> {
        #[cfg(feature = "sim")]
        {
            use crate::trace::{DispatchCounterValues, NamedCounts, OccupancyValues};
            const {
                assert!(aqueduct_gfxsim::InstClass::ALL.len() <= NamedCounts::MAX);
            }
            let c = self.sim.dispatch_counters(signal)?;
            let o = &c.occupancy;
            Some(DispatchCounterValues {
                dispatch_id: c.dispatch_id,
                workgroups: c.workgroups,
                wave_instructions: c.classes.total(),
                instructions: NamedCounts::new(
                    aqueduct_gfxsim::InstClass::ALL
                        .iter()
                        .map(|k| (k.name(), c.classes.get(*k))),
                ),
                global_read_bytes: c.global_read_bytes,
                global_written_bytes: c.global_written_bytes,
                lds_bank_conflicts: c.lds_bank_conflicts,
                occupancy: OccupancyValues {
                    waves_per_simd: o.waves_per_simd,
                    limited_by: o.limit.name(),
                    vgprs: o.vgprs,
                    sgprs: o.sgprs,
                    lds_bytes: o.lds_bytes,
                    waves_per_workgroup: o.waves_per_workgroup,
                },
            })
        }
        #[cfg(not(feature = "sim"))]
        {
            let _ = signal;
            None
        }
    }
}

/// A dispatch a submission noted with the sanitizer: its packet's kernarg
/// address (gfxsim keeps its findings under it), the name the facade knows
/// its kernel by, and the ranges its bind groups bound with their slots.
#[derive(Debug)]
#[cfg_attr(
    not(feature = "sim"),
    allow(dead_code, reason = "only gfxsim's sanitizer reads them")
)]
pub(crate) struct SanitizedDispatch {
    pub kernarg: u64,
    pub kernel: Arc<str>,
    pub bound: Vec<(std::ops::Range<u64>, crate::binding::BindingSlot)>,
}

/// gfxsim's sanitizer, reached through the device handle: the queue notes
/// the ranges each of its dispatches binds (`KfdDevice::note_dispatch_bindings`,
/// through the handle) and takes their findings here when their submission
/// completes. None on any other device, and while the sanitizer is off,
/// so a device without it does no work for it.
pub(crate) struct SanitizerSource {
    #[cfg(feature = "sim")]
    sim: Arc<aqueduct_gfxsim::SimDevice>,
}

impl SanitizerSource {
    /// The sanitizer of `device`, when it is gfxsim with the sanitizer on.
    #[cfg(feature = "sim")]
    pub(crate) fn of(device: &Arc<dyn KfdDevice>) -> Option<Self> {
        let any: Arc<dyn std::any::Any + Send + Sync> = device.clone();
        any.downcast::<aqueduct_gfxsim::SimDevice>()
            .ok()
            .filter(|sim| sim.sanitizes())
            .map(|sim| SanitizerSource { sim })
    }

    #[cfg(not(feature = "sim"))]
    pub(crate) fn of(_device: &Arc<dyn KfdDevice>) -> Option<Self> {
        None
    }

    /// The findings of the dispatches of submission `submission`
    /// (`dispatches`, named as the facade knows each kernel: its entry
    /// point, where gfxsim knows only the code object's symbol), folded by
    /// (tool, kernel, instruction) with their counts added, as errors for
    /// the device to report. A finding names the bind group slot of the
    /// range it hit where it can (`SanitizerError::binding`).
    pub(crate) fn take(
        &self,
        submission: u64,
        dispatches: &[SanitizedDispatch],
    ) -> Vec<crate::error::Error> {
        #[cfg(feature = "sim")]
        {
            use crate::error::{Error, InternalError, SanitizerError};
            let mut folded: Vec<(aqueduct_gfxsim::SanitizerReport, &SanitizedDispatch)> =
                Vec::new();
            for d in dispatches {
                for mut r in self.sim.take_dispatch_findings(d.kernarg) {
                    r.kernel = d.kernel.clone();
                    let same = |f: &aqueduct_gfxsim::SanitizerReport| {
                        f.tool() == r.tool()
                            && f.kernel_object == r.kernel_object
                            && f.finding.site().pc == r.finding.site().pc
                    };
                    match folded.iter_mut().find(|(f, _)| same(f)) {
                        Some((f, _)) => f.count += r.count,
                        None => folded.push((r, d)),
                    }
                }
            }
            folded
                .into_iter()
                .map(|(r, d)| {
                    let e = SanitizerError::new(r, submission, &d.bound);
                    // Internal, not Validation: a kernel's own bad access is
                    // found only as it runs on the device, the same bug a
                    // GPU queue fault (also Internal) shows without the
                    // sanitizer, while a Validation error promises that
                    // nothing reached the GPU.
                    Error::Internal {
                        description: e.to_string(),
                        source: Box::new(InternalError::Sanitizer(e)),
                    }
                })
                .collect()
        }
        #[cfg(not(feature = "sim"))]
        {
            let _ = (submission, dispatches);
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_choices() {
        assert_eq!(DeviceChoice::parse("").unwrap(), DeviceChoice::Auto);
        assert_eq!(DeviceChoice::parse("SIM").unwrap(), DeviceChoice::Sim);
        assert_eq!(DeviceChoice::parse(" kfd ").unwrap(), DeviceChoice::Kfd);
        let err = DeviceChoice::parse("cuda").unwrap_err();
        assert!(
            matches!(&err, DeviceSelectError::BadChoice(v) if v == "cuda"),
            "{err}"
        );
    }
}
