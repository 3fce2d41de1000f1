//! The vmem API's error: one variant per documented failure of the ROCm
//! `hsa_amd_vmem_*` calls, each naming the HSA status code ROCr returns for
//! it ([`VmemError::status`]), so code ported from ROCm can match on the
//! same cases.

use aqueduct_kfd::KfdError;

use crate::error::HsaError;

pub type VmemResult<T> = Result<T, VmemError>;

#[derive(Debug, thiserror::Error)]
pub enum VmemError {
    /// `HSA_STATUS_ERROR_INVALID_ARGUMENT`: a size, offset, alignment or
    /// address that the call does not accept.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// `HSA_STATUS_ERROR_INVALID_ALLOCATION`: no reserved range, handle or
    /// mapping is known by that address or value.
    #[error("invalid allocation: {0}")]
    InvalidAllocation(String),
    /// `HSA_STATUS_ERROR_INVALID_AGENT`: an agent this runtime does not have.
    #[error("invalid agent: {0}")]
    InvalidAgent(String),
    /// `HSA_STATUS_ERROR_OUT_OF_RESOURCES`: no VA range, memory or file
    /// descriptor left.
    #[error("out of resources: {0}")]
    OutOfResources(String),
    /// `HSA_STATUS_ERROR_RESOURCE_FREE`: the range is still in use (freeing
    /// a reserved range that still has mappings).
    #[error("resource in use: {0}")]
    ResourceInUse(String),
    /// `HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS`: an fd to import that is
    /// not a dma-buf of this system's GPUs.
    #[error("incompatible arguments: {0}")]
    IncompatibleArguments(String),
    /// `HSA_STATUS_ERROR`: the driver refused a request the runtime made.
    #[error(transparent)]
    Kfd(#[from] KfdError),
    /// `HSA_STATUS_ERROR`: another runtime failure (host mapping, ...).
    #[error(transparent)]
    Runtime(#[from] HsaError),
}

impl VmemError {
    /// The `hsa_status_t` ROCr returns for this case.
    pub fn status(&self) -> u32 {
        match self {
            VmemError::InvalidArgument(_) => 0x1001,
            VmemError::InvalidAllocation(_) => 0x1003,
            VmemError::InvalidAgent(_) => 0x1004,
            VmemError::OutOfResources(_) => 0x1008,
            VmemError::ResourceInUse(_) => 0x100A,
            VmemError::IncompatibleArguments(_) => 0x100D,
            VmemError::Kfd(_) | VmemError::Runtime(_) => 0x1000,
        }
    }

    /// The status code's name (`"HSA_STATUS_ERROR_RESOURCE_FREE"`...).
    pub fn status_name(&self) -> &'static str {
        match self {
            VmemError::InvalidArgument(_) => "HSA_STATUS_ERROR_INVALID_ARGUMENT",
            VmemError::InvalidAllocation(_) => "HSA_STATUS_ERROR_INVALID_ALLOCATION",
            VmemError::InvalidAgent(_) => "HSA_STATUS_ERROR_INVALID_AGENT",
            VmemError::OutOfResources(_) => "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
            VmemError::ResourceInUse(_) => "HSA_STATUS_ERROR_RESOURCE_FREE",
            VmemError::IncompatibleArguments(_) => "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS",
            VmemError::Kfd(_) | VmemError::Runtime(_) => "HSA_STATUS_ERROR",
        }
    }

    /// A driver failure, as OutOfResources when the driver ran out of
    /// memory or descriptors (ENOMEM, EMFILE, ENFILE), otherwise as is.
    pub(crate) fn from_driver(what: &str, e: KfdError) -> VmemError {
        use rustix::io::Errno;
        let exhausted = [Errno::NOMEM, Errno::MFILE, Errno::NFILE]
            .iter()
            .any(|n| e.errno() == Some(n.raw_os_error()));
        if exhausted {
            VmemError::OutOfResources(format!("{what}: {e}"))
        } else {
            VmemError::Kfd(e)
        }
    }
}
