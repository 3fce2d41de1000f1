//! Errors of the device underneath (HSA runtime, GPU queue faults), the
//! sources of `Error::Internal` and `Error::OutOfMemory`.

use std::sync::Arc;

use aqueduct_hsa::HsaError;

use super::ident::label_suffix;
use super::lower::LowerError;
use crate::placement::Placement;

/// An error of the device underneath.
#[derive(Debug, thiserror::Error)]
pub enum InternalError {
    #[error(
        "create_buffer{}: {size} bytes in the {placement:?} pool: {source}",
        label_suffix(label)
    )]
    BufferAllocation {
        label: Option<String>,
        size: u64,
        placement: Placement,
        #[source]
        source: HsaError,
    },
    #[error("write_buffer: {source}")]
    Staging {
        #[source]
        source: QueueWriteError,
    },
    #[error("submit: writing AQL packets failed: {source}")]
    WritePackets {
        #[source]
        source: QueueWriteError,
    },
    #[error("submit_host_callback: {source}")]
    HostCallback {
        #[source]
        source: QueueWriteError,
    },
    /// The GPU queue faulted; `kernel` and `submission` say where, as far
    /// as the host can tell.
    #[error("{source}")]
    QueueFault {
        submission: Option<u64>,
        kernel: Option<Arc<str>>,
        #[source]
        source: HsaError,
    },
}

/// Why packets, a staging upload or a kernarg block could not be written
/// to the device's queue and rings.
#[derive(Debug, thiserror::Error)]
pub enum QueueWriteError {
    #[error(transparent)]
    Hsa(#[from] HsaError),
    #[error(transparent)]
    Lower(#[from] LowerError),
    #[error("the GPU queue faulted again with nothing on it")]
    FaultedAgain,
    #[error("the system has no CPU agent for host callbacks")]
    NoCpuAgent,
    #[error("staging memory is not host mapped")]
    StagingNotHostMapped,
    #[error("kernarg memory is not host mapped")]
    KernargNotHostMapped,
    #[error("a kernarg uniform lies outside its block")]
    UniformOutsideBlock,
    #[error("one submission needs more kernarg space than the kernarg ring holds; split it")]
    KernargRingTooSmall,
    #[error("an indirect patch without its dispatch")]
    PatchWithoutDispatch,
    #[error("an indirect patch without its kernarg block")]
    PatchWithoutBlock,
    #[error("an indirect patch's kernargs outgrew their block")]
    PatchKernargOverflow,
    #[error("more packets written than the submission counted")]
    TooManyPackets,
    #[error("no reservation")]
    NoReservation,
}
