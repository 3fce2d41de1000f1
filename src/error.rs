//! Errors, the WebGPU way: API calls do not return `Result` for validation
//! failures; the failure becomes an [`Error`] delivered to the innermost
//! matching error scope (see `error_scope`) or to the uncaptured-error
//! handler, and the object it concerns becomes invalid. [`ValidationError`]
//! is the typed description behind every `Error::Validation`; its messages
//! say what was wrong and what to do about it.

use std::fmt;

/// What kind of error an error scope catches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorFilter {
    OutOfMemory,
    Validation,
    Internal,
}

/// The source type carried by [`Error`] (as in wgpu).
pub type ErrorSource = Box<dyn std::error::Error + Send + Sync + 'static>;

/// An error reported by the device.
#[derive(Debug)]
pub enum Error {
    /// An allocation failed.
    OutOfMemory { source: ErrorSource },
    /// The API was used against the WebGPU rules; nothing reached the GPU.
    Validation {
        source: ErrorSource,
        description: String,
    },
    /// The device failed underneath (a queue fault, a driver error).
    Internal {
        source: ErrorSource,
        description: String,
    },
}

impl Error {
    pub fn filter(&self) -> ErrorFilter {
        match self {
            Error::OutOfMemory { .. } => ErrorFilter::OutOfMemory,
            Error::Validation { .. } => ErrorFilter::Validation,
            Error::Internal { .. } => ErrorFilter::Internal,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::OutOfMemory { source } => write!(f, "Out of memory: {source}"),
            Error::Validation { description, .. } => write!(f, "Validation Error: {description}"),
            Error::Internal { description, .. } => write!(f, "Internal error: {description}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::OutOfMemory { source }
            | Error::Validation { source, .. }
            | Error::Internal { source, .. } => Some(source.as_ref()),
        }
    }
}

/// What a validation error was about. Every message names the rule that was
/// broken and how to satisfy it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ValidationError {
    #[error("{0}")]
    Buffer(String),
    #[error("{0}")]
    Mapping(String),
    #[error("{0}")]
    BindGroupLayout(String),
    #[error("{0}")]
    BindGroup(String),
    #[error("{0}")]
    PipelineLayout(String),
    #[error("{0}")]
    Shader(String),
    #[error("{0}")]
    Pipeline(String),
    #[error("{0}")]
    Encoder(String),
    #[error("{0}")]
    Pass(String),
    #[error("{0}")]
    Queue(String),
    #[error("{0}")]
    QuerySet(String),
    #[error("{0}")]
    Device(String),
}

/// An error of the device underneath (HSA runtime, queue fault).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InternalError(pub String);

impl From<ValidationError> for Error {
    fn from(e: ValidationError) -> Self {
        Error::Validation {
            description: e.to_string(),
            source: Box::new(e),
        }
    }
}

/// Why [`crate::Adapter::request_device`] failed.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct RequestDeviceError(pub String);

impl RequestDeviceError {
    pub fn from_message(message: String) -> Self {
        Self(message)
    }
}

/// Map callbacks receive this when mapping failed or was aborted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("buffer mapping failed: {0}")]
pub struct BufferAsyncError(pub(crate) String);

/// `get_mapped_range*` failed: the range is not mapped, or overlaps a live view.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MapRangeError(pub(crate) String);
