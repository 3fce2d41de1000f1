//! Errors of opening and using a device as a whole.

use std::sync::Arc;

use aqueduct_hsa::HsaError;
use wgpu_types::Features;

use super::shader::ShaderLoadError;

/// A call on a device that can no longer take work.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// The device was destroyed (`Device::destroy`) and takes no more work.
    #[error("{call}: the device was destroyed")]
    Destroyed {
        /// The call that was refused, e.g. `create_buffer`.
        call: &'static str,
    },
}

/// One requested limit above what the adapter allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitFailure {
    /// The `Limits` field, e.g. `max_bind_groups`.
    pub name: &'static str,
    /// The requested value.
    pub requested: u64,
    /// The adapter's value.
    pub allowed: u64,
}

impl std::fmt::Display for LimitFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: requested {}, the adapter allows {}",
            self.name, self.requested, self.allowed
        )
    }
}

/// Why [`crate::Adapter::request_device`] failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum RequestDeviceError {
    /// `DeviceDescriptor::required_features` names features the adapter lacks.
    #[error("the adapter does not support features {missing:?} (it offers {available:?})")]
    UnsupportedFeatures {
        /// The requested features the adapter lacks.
        missing: Features,
        /// All features the adapter offers.
        available: Features,
    },
    /// `DeviceDescriptor::required_features` names `EXPERIMENTAL_*` features
    /// without `experimental_features` enabled (wgpu-core's
    /// `ExperimentalFeaturesNotEnabled`, in `instance.rs`).
    #[error(
        "Some experimental features, {requested:?}, were requested, but experimental features \
         are not enabled (DeviceDescriptor::experimental_features)"
    )]
    ExperimentalFeaturesNotEnabled {
        /// The experimental features requested.
        requested: Features,
    },
    /// `DeviceDescriptor::required_limits` asks for more than the adapter allows.
    #[error(
        "the requested limits exceed the adapter's: {}",
        failures.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    )]
    LimitsExceeded {
        /// One entry per limit that is too high.
        failures: Vec<LimitFailure>,
    },
    /// The device could not be set up on its agent (HSA queue, memory pools or blit kernels).
    #[error("opening the device on {agent}: {source}")]
    Open {
        /// The agent's name, e.g. `gfx1100`.
        agent: String,
        /// What failed.
        #[source]
        source: Arc<DeviceInitError>,
    },
}

/// Why a device could not be set up on its agent.
#[derive(Debug, thiserror::Error)]
pub enum DeviceInitError {
    /// The HSA runtime refused a call.
    #[error(transparent)]
    Hsa(#[from] HsaError),
    /// The blit kernels (fills and copies) are not built for the agent's ISA target.
    #[error(
        "Aqueduct has no blit kernels for {target} (built for: {}); add the target to \
         src/blit_kernels/build.sh and `aqueduct-shaderc build shaders`",
        built.join(", ")
    )]
    NoBlitKernels {
        /// The agent's ISA target, e.g. `gfx1100`.
        target: String,
        /// The targets the blit kernels are built for.
        built: Vec<&'static str>,
    },
    /// A built-in blit kernel for this target does not load.
    #[error("blit kernel {name}: {source}")]
    BlitKernel {
        /// The blit kernel's name.
        name: &'static str,
        /// Why the code object does not load.
        #[source]
        source: ShaderLoadError,
    },
    /// The blit code object lacks one of the kernels the facade needs.
    #[error("blit object has no entry point {name}")]
    MissingBlitEntryPoint {
        /// The missing kernel's name.
        name: &'static str,
    },
}
