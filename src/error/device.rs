//! Errors of opening and using a device as a whole.

use std::sync::Arc;

use aqueduct_hsa::HsaError;
use wgpu_types::Features;

use super::shader::ShaderLoadError;

/// A call on a device that can no longer take work.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    #[error("{call}: the device was destroyed")]
    Destroyed { call: &'static str },
}

/// One requested limit above what the adapter allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitFailure {
    /// The `Limits` field, e.g. `max_bind_groups`.
    pub name: &'static str,
    pub requested: u64,
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
    #[error("the adapter does not support features {missing:?} (it offers {available:?})")]
    UnsupportedFeatures {
        missing: Features,
        available: Features,
    },
    #[error(
        "the requested limits exceed the adapter's: {}",
        failures.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    )]
    LimitsExceeded { failures: Vec<LimitFailure> },
    #[error("opening the device on {agent}: {source}")]
    Open {
        agent: String,
        #[source]
        source: Arc<DeviceInitError>,
    },
}

/// Why a device could not be set up on its agent.
#[derive(Debug, thiserror::Error)]
pub enum DeviceInitError {
    #[error(transparent)]
    Hsa(#[from] HsaError),
    #[error(
        "Aqueduct has no blit kernels for {target} (built for: {}); add the target to \
         src/blit_kernels/build.sh and `aqueduct-shaderc build shaders`",
        built.join(", ")
    )]
    NoBlitKernels {
        target: String,
        built: Vec<&'static str>,
    },
    #[error("blit kernel {name}: {source}")]
    BlitKernel {
        name: &'static str,
        #[source]
        source: ShaderLoadError,
    },
    #[error("blit object has no entry point {name}")]
    MissingBlitEntryPoint { name: &'static str },
}
