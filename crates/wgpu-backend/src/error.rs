//! How Aqueduct's errors become wgpu's, and the compute-only error.
//!
//! The facade already routes its validation, out-of-memory and internal
//! errors to error scopes (per thread) and to the uncaptured-error handler;
//! this backend keeps that routing and converts each error to
//! `wgpu::Error` where wgpu code sees it (a popped scope, the handler). The
//! calls wgpu has and Aqueduct does not (render, textures, samplers,
//! surfaces, ray tracing) are reported through the same routing as
//! [`ComputeOnlyError`] validation errors, so they never panic.

/// A wgpu call with no meaning on a compute-only backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComputeOnlyError {
    /// The wgpu call, e.g. `Device::create_texture`.
    pub call: &'static str,
}

impl std::fmt::Display for ComputeOnlyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: the Aqueduct wgpu backend is compute-only (buffers, compute \
             pipelines, compute passes, queries); render, texture, sampler, \
             surface and acceleration-structure calls are not supported",
            self.call
        )
    }
}

impl std::error::Error for ComputeOnlyError {}

/// A validation error of this backend itself: a wgpu call or argument it
/// cannot pass on to the facade.
#[derive(Clone, Debug, thiserror::Error)]
pub enum BackendValidationError {
    /// An argument made by another wgpu backend (or of another kind).
    #[error("{0} does not belong to the Aqueduct wgpu backend")]
    ForeignObject(ObjectRef),
    /// An argument this backend made invalid earlier.
    #[error("{0} is invalid")]
    InvalidObject(ObjectRef),
    /// A command on an encoder that `finish` already consumed.
    #[error("{}the command encoder is already finished", call.map(|c| format!("{c}: ")).unwrap_or_default())]
    EncoderFinished { call: Option<&'static str> },
    /// What made an encoder invalid, reported by `finish`.
    #[error("CommandEncoder::finish: {0}")]
    InvalidEncoder(Box<BackendValidationError>),
    #[error(transparent)]
    ComputeOnly(#[from] ComputeOnlyError),
    #[error("{call}: pipeline statistics queries are not supported by the Aqueduct wgpu backend")]
    PipelineStatistics { call: &'static str },
    #[error(
        "create_shader_module{}: the Aqueduct wgpu backend takes WGSL only",
        label_suffix(label.as_deref())
    )]
    NotWgsl { label: Option<String> },
    #[error(
        "create_shader_module_passthrough{}: passthrough shaders are not supported by the \
         Aqueduct wgpu backend; use WGSL (precompiled objects are matched by its text)",
        label_suffix(label.as_deref())
    )]
    Passthrough { label: Option<String> },
    #[error(
        "create_bind_group: binding {binding} is a buffer array; the Aqueduct wgpu backend binds \
         single buffers"
    )]
    BufferArray { binding: u32 },
    #[error("get_bind_group_layout({index}): the compute pipeline is invalid")]
    LayoutOfInvalidPipeline { index: u32 },
    #[error("Queue::write_buffer_with: {size} bytes do not fit in host memory")]
    StagingTooLarge { size: u64 },
    #[error(
        "Queue::submit: {invalid} command buffer(s) are invalid or were already submitted; \
         nothing in this submission runs"
    )]
    InvalidSubmission { invalid: usize },
    #[error(
        "get_mapped_range({}..{}): {source}; the view reads zeros and its writes are lost",
        range.start, range.end
    )]
    MappedRange {
        range: std::ops::Range<u64>,
        #[source]
        source: aqueduct::MapRangeError,
    },
    #[error(
        "get_mapped_range({}..{}): the buffer is not mapped; the view reads zeros and its writes \
         are lost",
        range.start, range.end
    )]
    NotMapped { range: std::ops::Range<u64> },
    #[error(
        "get_mapped_range({}..{}): the range is outside the mapped range {}..{}; the view reads \
         zeros and its writes are lost",
        range.start, range.end, mapped.start, mapped.end
    )]
    OutsideMapped {
        range: std::ops::Range<u64>,
        mapped: std::ops::Range<u64>,
    },
    #[error(
        "get_mapped_range_mut: the buffer is mapped with MapMode::Read; map it with \
         MapMode::Write to write (the writes are lost)"
    )]
    MappedForRead,
}

/// Which argument of which call an error is about, e.g. `create_bind_group
/// `g`: the buffer of binding 2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectRef {
    /// The wgpu call, e.g. `create_bind_group`.
    pub call: &'static str,
    /// The label of the object the call creates, if any.
    pub label: Option<String>,
    pub object: ObjectKind,
}

impl ObjectRef {
    pub(crate) fn new(call: &'static str, object: ObjectKind) -> Self {
        ObjectRef {
            call,
            label: None,
            object,
        }
    }

    pub(crate) fn labelled(call: &'static str, label: wgpu::Label<'_>, object: ObjectKind) -> Self {
        ObjectRef {
            call,
            label: label.map(str::to_string),
            object,
        }
    }
}

impl std::fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}{}: {}",
            self.call,
            label_suffix(self.label.as_deref()),
            self.object
        )
    }
}

/// The kind of argument an [`ObjectRef`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    Buffer,
    /// Two buffers of a copy.
    Buffers,
    /// The buffer of a bind group entry.
    BindingBuffer(u32),
    /// A pipeline layout's bind group layout at this index.
    GroupLayout(u32),
    /// The layout a bind group or pipeline is made with.
    Layout,
    ShaderModule,
    ComputePipeline,
    /// The bind group set at this index.
    BindGroup(u32),
    QuerySet,
    TimestampQuerySet,
    /// The query set and destination buffer of a resolve.
    QuerySetOrBuffer,
    /// `write_buffer_with`'s staging view.
    StagingBuffer,
}

impl std::fmt::Display for ObjectKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ObjectKind::Buffer => f.write_str("the buffer"),
            ObjectKind::Buffers => f.write_str("a buffer"),
            ObjectKind::BindingBuffer(b) => write!(f, "the buffer of binding {b}"),
            ObjectKind::GroupLayout(i) => write!(f, "bind group layout {i}"),
            ObjectKind::Layout => f.write_str("the layout"),
            ObjectKind::ShaderModule => f.write_str("the shader module"),
            ObjectKind::ComputePipeline => f.write_str("the compute pipeline"),
            ObjectKind::BindGroup(i) => write!(f, "bind group {i}"),
            ObjectKind::QuerySet => f.write_str("the query set"),
            ObjectKind::TimestampQuerySet => f.write_str("the timestamp query set"),
            ObjectKind::QuerySetOrBuffer => f.write_str("the query set or buffer"),
            ObjectKind::StagingBuffer => f.write_str("the staging buffer"),
        }
    }
}

/// `error` as wgpu's error type (same variants, same source).
pub(crate) fn to_wgpu(error: aqueduct::Error) -> wgpu::Error {
    match error {
        aqueduct::Error::OutOfMemory { source } => wgpu::Error::OutOfMemory { source },
        aqueduct::Error::Validation {
            source,
            description,
        } => wgpu::Error::Validation {
            source,
            description,
        },
        aqueduct::Error::Internal {
            source,
            description,
        } => wgpu::Error::Internal {
            source,
            description,
        },
    }
}

pub(crate) fn filter_from_wgpu(filter: wgpu::ErrorFilter) -> aqueduct::ErrorFilter {
    match filter {
        wgpu::ErrorFilter::OutOfMemory => aqueduct::ErrorFilter::OutOfMemory,
        wgpu::ErrorFilter::Validation => aqueduct::ErrorFilter::Validation,
        wgpu::ErrorFilter::Internal => aqueduct::ErrorFilter::Internal,
    }
}

/// `` `label` `` (after a space) for a message naming a labelled object,
/// else nothing.
pub(crate) fn label_suffix(label: wgpu::Label<'_>) -> String {
    label.map(|l| format!(" `{l}`")).unwrap_or_default()
}

/// Report that `call` is not supported, on `device`'s error routing.
pub(crate) fn report_compute_only(device: &aqueduct::Device, call: &'static str) {
    let error = ComputeOnlyError { call };
    tracing::debug!("{error}");
    device.report_error(aqueduct::Error::Validation {
        description: error.to_string(),
        source: Box::new(error),
    });
}

/// Report a validation error of this backend on `device`'s error routing.
pub(crate) fn report_validation(device: &aqueduct::Device, error: BackendValidationError) {
    device.report_error(aqueduct::Error::Validation {
        description: error.to_string(),
        source: Box::new(error),
    });
}
