//! Errors, the WebGPU way: API calls do not return `Result` for validation
//! failures; the failure becomes an [`Error`] delivered to the innermost
//! matching error scope (see `error_scope`) or to the uncaptured-error
//! handler (with none installed, the call panics, as in wgpu), and the
//! object it concerns becomes invalid. [`ValidationError`]
//! is the typed description behind every `Error::Validation` (its
//! `source` downcasts to it): one enum per concern (buffer creation,
//! mapping, bind groups, pipelines, shader modules, encoders, passes, the
//! queue, query sets, the device), in the files of this module, with
//! fields a caller can match and messages that say what was wrong and what
//! to do about it. [`InternalError`] is the source of `Error::Internal`
//! and of allocation failures; gfxsim's sanitizer findings are
//! `Error::Internal` too ([`InternalError::Sanitizer`]).

use std::fmt;

mod binding;
mod buffer;
mod device;
mod device_mismatch;
mod encoder;
mod ident;
mod internal;
mod lower;
mod mapping;
mod pass;
mod pipeline;
mod query;
mod queue;
mod sampler;
#[cfg(feature = "sim")]
mod sanitizer;
mod shader;
mod texture;

pub use binding::{BindGroupError, BindGroupLayoutError, TooManyBindings};
pub use buffer::BufferError;
pub use device::{DeviceError, DeviceInitError, LimitFailure, RequestDeviceError};
pub(crate) use device_mismatch::same_device;
pub use device_mismatch::{DeviceId, DeviceMismatch, ObjectKind};
pub use encoder::{
    ClearError, CommandError, CopyError, CopyField, CopySide, EncoderError, ResolveQueryError,
};
pub use ident::{BufferIdent, BufferRole, LayoutIdent, UnusableBuffer};
pub use internal::{InternalError, QueueWriteError};
pub use lower::LowerError;
pub use mapping::{BufferAsyncError, MapError, MapRangeError};
pub use pass::{DispatchError, PassError};
pub use pipeline::{ComputePipelineError, LayoutMismatch, PipelineLayoutError};
pub use query::{QuerySetError, QueryUseError, TimestampError};
pub use queue::QueueError;
pub use sampler::{CreateSamplerError, SamplerBindingError, SamplerError};
#[cfg(feature = "sim")]
pub use sanitizer::SanitizerError;
pub use shader::{
    EntryPointError, PrecompileHint, ReflectionError, ShaderLanguage, ShaderLoadError,
    ShaderModuleError, WgslError,
};
pub use texture::{
    CreateTextureError, TextureBindingError, TextureCopyError, TextureError, TextureIdent,
    TextureViewError,
};

/// What kind of error an error scope catches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorFilter {
    /// Allocation failures ([`Error::OutOfMemory`]).
    OutOfMemory,
    /// API misuse ([`Error::Validation`]).
    Validation,
    /// Failures of the device underneath ([`Error::Internal`]).
    Internal,
}

/// The source type carried by [`Error`] (as in wgpu).
pub type ErrorSource = Box<dyn std::error::Error + Send + Sync + 'static>;

/// An error reported by the device.
#[derive(Debug)]
pub enum Error {
    /// An allocation failed.
    OutOfMemory {
        /// The allocation's error: an [`InternalError`] or the HSA runtime's `HsaError`.
        source: ErrorSource,
    },
    /// The API was used against the WebGPU rules; nothing reached the GPU.
    Validation {
        /// The broken rule, a [`ValidationError`].
        source: ErrorSource,
        /// The message, as `Display` prints it.
        description: String,
    },
    /// The device failed underneath (a queue fault, a driver error).
    Internal {
        /// What failed, an [`InternalError`].
        source: ErrorSource,
        /// The message, as `Display` prints it.
        description: String,
    },
}

impl Error {
    /// The scope filter that catches this error.
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

/// What a validation error was about: one variant per concern, each
/// wrapping that concern's enum, whose variants carry the values a caller
/// matches on and whose messages name the rule that was broken and how to
/// satisfy it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ValidationError {
    /// Buffer creation or slicing.
    #[error(transparent)]
    Buffer(#[from] BufferError),
    /// `map_async` or `unmap`.
    #[error(transparent)]
    Mapping(#[from] MapError),
    /// Bind group layout creation.
    #[error(transparent)]
    BindGroupLayout(#[from] BindGroupLayoutError),
    /// Bind group creation.
    #[error(transparent)]
    BindGroup(#[from] BindGroupError),
    /// Pipeline layout creation.
    #[error(transparent)]
    PipelineLayout(#[from] PipelineLayoutError),
    /// Shader module creation or `register_precompiled`.
    #[error(transparent)]
    Shader(#[from] ShaderModuleError),
    /// Compute pipeline creation or `get_bind_group_layout`.
    #[error(transparent)]
    Pipeline(#[from] ComputePipelineError),
    /// A command encoder and its commands.
    #[error(transparent)]
    Encoder(#[from] EncoderError),
    /// A compute pass command.
    #[error(transparent)]
    Pass(#[from] PassError),
    /// `Queue::write_buffer` or `Queue::submit`.
    #[error(transparent)]
    Queue(#[from] QueueError),
    /// Query set creation.
    #[error(transparent)]
    QuerySet(#[from] QuerySetError),
    /// A call on a destroyed device.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// Texture creation, a view, or `Queue::write_texture`.
    #[error(transparent)]
    Texture(#[from] TextureError),
    /// Sampler creation.
    #[error(transparent)]
    Sampler(#[from] SamplerError),
}

impl From<ValidationError> for Error {
    fn from(e: ValidationError) -> Self {
        Error::Validation {
            description: e.to_string(),
            source: Box::new(e),
        }
    }
}

/// Each concern's error reports as a validation error.
macro_rules! validation_from {
    ($($concern:ty),* $(,)?) => {$(
        impl From<$concern> for Error {
            fn from(e: $concern) -> Self {
                ValidationError::from(e).into()
            }
        }
    )*};
}

validation_from!(
    BufferError,
    MapError,
    BindGroupLayoutError,
    BindGroupError,
    PipelineLayoutError,
    ShaderModuleError,
    ComputePipelineError,
    EncoderError,
    PassError,
    QueueError,
    QuerySetError,
    DeviceError,
    TextureError,
    SamplerError,
);
