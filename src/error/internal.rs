//! Errors of the device underneath (HSA runtime, GPU queue faults), the
//! sources of `Error::Internal` and `Error::OutOfMemory`.

use std::sync::Arc;

use aqueduct_hsa::HsaError;

use super::ident::label_suffix;
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
        source: HsaError,
    },
    #[error("submit: writing AQL packets failed: {source}")]
    WritePackets {
        #[source]
        source: HsaError,
    },
    #[error("submit_host_callback: {source}")]
    HostCallback {
        #[source]
        source: HsaError,
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
