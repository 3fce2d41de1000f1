//! One side of the comparison: a device with the runtime, an HSA queue
//! and a facade device over it, opened once and shared by every check.
//!
//! Everything on a side shares one HSA runtime (the facade adapter's):
//! KFD takes one event page per process, so a second runtime over the same
//! /dev/kfd cannot start. The reference is a separate gfxsim instance with
//! its own runtime, created only where gfxsim models the selected GPU's ISA.

use std::sync::Arc;

use aqueduct::hsa::{Agent, HsaError, Queue as HsaQueue, Runtime};
use aqueduct::kfd::KfdDevice;
use aqueduct::{
    DeviceDescriptor, Instance, RequestAdapterError, RequestAdapterOptions, RequestDeviceError,
};

/// The ISA gfxsim simulates.
pub const SIM_ISA: &str = "gfx1100";

/// Packets of each side's HSA queue.
const QUEUE_PACKETS: u32 = 256;

/// Why a side could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SideError {
    #[error("no GPU adapter: {0}")]
    Adapter(#[source] RequestAdapterError),
    #[error("facade device: {0}")]
    Device(#[source] RequestDeviceError),
    #[error("HSA queue: {0}")]
    Queue(#[source] HsaError),
    #[error("the gfxsim reference: {0}")]
    Sim(#[source] aqueduct::kfd::KfdError),
}

/// A device opened for the checks.
pub struct Side {
    pub device: Arc<dyn KfdDevice>,
    pub runtime: Arc<Runtime>,
    /// The GPU the checks run on (the first visible one).
    pub agent: Agent,
    /// An AQL queue on `agent` for the HSA-level checks.
    pub queue: HsaQueue,
    /// The facade's device and queue on the same runtime.
    pub gpu: aqueduct::Device,
    pub gpu_queue: aqueduct::Queue,
    _instance: Instance,
}

impl Side {
    pub fn open(device: Arc<dyn KfdDevice>) -> Result<Side, SideError> {
        let instance = Instance::from_device(device.clone());
        let adapter = instance
            .request_adapter_sync(&RequestAdapterOptions::default())
            .map_err(SideError::Adapter)?;
        let (gpu, gpu_queue) = adapter
            .request_device_sync(&DeviceDescriptor {
                label: Some("aqueduct-info --check"),
                required_features: adapter.features(),
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .map_err(SideError::Device)?;
        let runtime = adapter.runtime().clone();
        let agent = adapter.agent().clone();
        let queue = runtime
            .create_queue(&agent, QUEUE_PACKETS)
            .map_err(SideError::Queue)?;
        Ok(Side {
            device,
            runtime,
            agent,
            queue,
            gpu,
            gpu_queue,
            _instance: instance,
        })
    }

    /// The agent's ISA name ("gfx1100").
    pub fn isa(&self) -> &str {
        &self.agent.name
    }
}

/// What the selected device's results are compared with.
pub enum Reference {
    /// A gfxsim device of the same ISA, in this process.
    Sim(Box<Side>),
    /// No comparison possible, and why.
    Unavailable(String),
}

impl Reference {
    /// A gfxsim side for `selected` if gfxsim models its ISA.
    pub fn for_selected(selected: &Side) -> Result<Reference, SideError> {
        if selected.isa() != SIM_ISA {
            return Ok(Reference::Unavailable(format!(
                "gfxsim simulates {SIM_ISA} only, this GPU is {}",
                selected.isa()
            )));
        }
        match open_sim().map_err(SideError::Sim)? {
            Some(sim) => Ok(Reference::Sim(Box::new(Side::open(sim)?))),
            None => Ok(Reference::Unavailable(
                "this build has no gfxsim (the `sim` feature is off)".to_string(),
            )),
        }
    }

    /// One line on what the results are compared with.
    pub fn describe(&self) -> String {
        match self {
            Reference::Sim(side) => {
                format!("gfxsim {} (a second device in this process)", side.isa())
            }
            Reference::Unavailable(reason) => format!("none: {reason}"),
        }
    }
}

/// A gfxsim device with the default configuration (`AQUEDUCT_SIM_*`).
#[cfg(feature = "sim")]
fn open_sim() -> Result<Option<Arc<dyn KfdDevice>>, aqueduct::kfd::KfdError> {
    use aqueduct::gfxsim::{SimConfig, SimDevice};
    let sim: Arc<dyn KfdDevice> = SimDevice::new(SimConfig::default())?;
    Ok(Some(sim))
}

/// This build has no gfxsim.
#[cfg(not(feature = "sim"))]
fn open_sim() -> Result<Option<Arc<dyn KfdDevice>>, aqueduct::kfd::KfdError> {
    Ok(None)
}
