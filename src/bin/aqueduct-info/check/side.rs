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

/// The ISAs the repository ships the checks' code objects for, which are
/// also the ISAs gfxsim simulates (`aqueduct::gfxsim::SimPart::for_isa`).
pub const SHIPPED_ISAS: [&str; 3] = ["gfx1100", "gfx942", "gfx90a"];

/// `table`'s code object for `side`'s ISA, or a skip naming `what`.
pub fn object_for<'a>(
    side: &Side,
    what: &str,
    table: &[(&str, &'a [u8])],
) -> Result<&'a [u8], super::CheckError> {
    table
        .iter()
        .find(|(isa, _)| *isa == side.isa())
        .map(|(_, co)| *co)
        .ok_or_else(|| super::CheckError::Unsupported {
            reason: format!(
                "{what} is built for {}, this GPU is {}",
                isas(table),
                side.isa()
            ),
        })
}

/// The ISAs of `table`, as "a, b and c".
fn isas(table: &[(&str, &[u8])]) -> String {
    let names: Vec<&str> = table.iter().map(|(isa, _)| *isa).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => (*last).to_string(),
        None => "no ISA".to_string(),
    }
}

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
                required_features: adapter.features() - aqueduct::Features::all_experimental_mask(),
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
    /// A gfxsim side for `selected` if gfxsim models its ISA: the part
    /// `AQUEDUCT_SIM_ISA` would pick for it, so an MI300X is compared with
    /// a simulated MI300X.
    pub fn for_selected(selected: &Side) -> Result<Reference, SideError> {
        match open_sim(selected.isa()).map_err(SideError::Sim)? {
            SimReference::Opened(sim) => Ok(Reference::Sim(Box::new(Side::open(sim)?))),
            SimReference::NotSimulated => Ok(Reference::Unavailable(format!(
                "gfxsim simulates {}, this GPU is {}",
                SHIPPED_ISAS.join(", "),
                selected.isa()
            ))),
            #[cfg(not(feature = "sim"))]
            SimReference::NoSim => Ok(Reference::Unavailable(
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

/// What [`open_sim`] found.
enum SimReference {
    Opened(Arc<dyn KfdDevice>),
    /// gfxsim simulates no part of this ISA.
    NotSimulated,
    /// This build has no gfxsim.
    #[cfg(not(feature = "sim"))]
    NoSim,
}

/// A gfxsim device of a part of `isa`, otherwise configured as the
/// default configuration says (`AQUEDUCT_SIM_*`).
#[cfg(feature = "sim")]
fn open_sim(isa: &str) -> Result<SimReference, aqueduct::kfd::KfdError> {
    use aqueduct::gfxsim::{SimConfig, SimDevice, SimPart, default_part};
    // The environment's part where it has this ISA (a simulated MI250X GCD
    // is compared with another), else the part AQUEDUCT_SIM_ISA would pick.
    let part = match default_part() {
        part if part.isa() == isa => part,
        _ => match SimPart::for_isa(isa) {
            Some(part) => part,
            None => return Ok(SimReference::NotSimulated),
        },
    };
    let sim: Arc<dyn KfdDevice> = SimDevice::new(SimConfig::with_part(part))?;
    Ok(SimReference::Opened(sim))
}

/// This build has no gfxsim.
#[cfg(not(feature = "sim"))]
fn open_sim(_isa: &str) -> Result<SimReference, aqueduct::kfd::KfdError> {
    Ok(SimReference::NoSim)
}
