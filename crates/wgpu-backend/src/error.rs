//! How Aqueduct's errors become wgpu's, the compute-only error, and what
//! happens to an error nothing catches.
//!
//! The facade already routes its validation, out-of-memory and internal
//! errors to error scopes (per thread) and to the uncaptured-error handler;
//! this backend keeps that routing and converts each error to
//! `wgpu::Error` where wgpu code sees it (a popped scope, the handler), with
//! wgpu's description text. The calls wgpu has and Aqueduct does not
//! (render, surfaces, ray tracing) are reported through
//! the same routing as [`ComputeOnlyError`] validation errors. An error no
//! scope catches and no handler takes panics with wgpu's message, as wgpu's
//! default handler does; [`log_uncaptured_error`] is the opt-in handler
//! that logs instead.

use std::fmt::Write as _;

/// A wgpu call with no meaning on a compute-only backend.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{call}: the Aqueduct wgpu backend is compute-only (buffers, compute pipelines, compute \
     passes, queries, textures and samplers for kernels); render, surface and \
     acceleration-structure calls are not supported"
)]
pub struct ComputeOnlyError {
    /// The wgpu call, e.g. `Device::create_texture`.
    pub call: &'static str,
}

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
        "create_shader_module{}: the Aqueduct wgpu backend takes WGSL, SPIR-V and GLSL compute \
         shaders, not {source_kind}",
        label_suffix(label.as_deref())
    )]
    UnsupportedSource {
        label: Option<String>,
        /// What was given, e.g. "a GLSL vertex shader".
        source_kind: &'static str,
    },
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
    #[error(
        "Device::create_pipeline_cache: pipeline caches need Features::PIPELINE_CACHE, which the \
         Aqueduct wgpu backend does not offer; leave the pipeline descriptors' `cache` as None"
    )]
    PipelineCacheUnsupported,
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
        "get_mapped_range_mut: the buffer is mapped with MapMode::Read; map it with \
         MapMode::Write to write (the writes are lost)"
    )]
    MappedForRead,
}

/// Why `get_mapped_range` cannot give the bytes asked for. wgpu answers
/// these with `Err(wgpu::MapRangeError)`, which a backend cannot build (its
/// constructor is private to wgpu), so the backend panics with wgpu's text
/// for it (`Buffer view error: ` and the reason) rather than hand out bytes
/// that are not the buffer's.
#[derive(Clone, Debug, thiserror::Error)]
pub enum MappedRangeError {
    /// The facade refused the view (the mapping is pending or failed).
    #[error("get_mapped_range({}..{}): {source}", range.start, range.end)]
    Refused {
        range: std::ops::Range<u64>,
        #[source]
        source: aqueduct::MapRangeError,
    },
    #[error("get_mapped_range({}..{}): the buffer is not mapped", range.start, range.end)]
    NotMapped { range: std::ops::Range<u64> },
    #[error(
        "get_mapped_range({}..{}): the range is outside the mapped range {}..{}",
        range.start, range.end, mapped.start, mapped.end
    )]
    OutsideMapped {
        range: std::ops::Range<u64>,
        mapped: std::ops::Range<u64>,
    },
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
    /// The pipeline cache of a pipeline descriptor.
    PipelineCache,
    /// The texture or buffer of a texel copy.
    TextureCopy,
    /// The texture of `clear_texture` or `write_texture`.
    Texture,
    /// The texture view of a bind group entry.
    BindingTextureView(u32),
    /// The sampler of a bind group entry.
    BindingSampler(u32),
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
            ObjectKind::PipelineCache => f.write_str("the pipeline cache"),
            ObjectKind::TextureCopy => f.write_str("the texture or buffer of the copy"),
            ObjectKind::Texture => f.write_str("the texture"),
            ObjectKind::BindingTextureView(b) => write!(f, "the texture view of binding {b}"),
            ObjectKind::BindingSampler(b) => write!(f, "the sampler of binding {b}"),
        }
    }
}

/// `error` as wgpu's error type (same variants, same source), described
/// as wgpu describes its own.
pub(crate) fn to_wgpu(error: aqueduct::Error) -> wgpu::Error {
    match error {
        aqueduct::Error::OutOfMemory { source } => wgpu::Error::OutOfMemory { source },
        aqueduct::Error::Validation { source, .. } => wgpu::Error::Validation {
            description: wgpu_description("Validation Error", source.as_ref()),
            source,
        },
        aqueduct::Error::Internal { source, .. } => wgpu::Error::Internal {
            description: wgpu_description("Internal Error", source.as_ref()),
            source,
        },
    }
}

/// wgpu's text for an error: a heading, then the chain of causes, each one
/// level deeper (`ContextWgpuCore::format_error` in wgpu's
/// `src/backend/wgpu_core.rs`). A cause whose text the one above it
/// already quotes is left out: the facade's messages often include their
/// source's.
fn wgpu_description(heading: &str, error: &(dyn std::error::Error + 'static)) -> String {
    let mut out = format!("{heading}\n\nCaused by:\n");
    let mut level = 1;
    let mut above = String::new();
    let mut cause = Some(error);
    while let Some(e) = cause {
        let text = e.to_string();
        if !above.contains(&text) {
            let _ = writeln!(out, "{}{text}", "  ".repeat(level));
            level += 1;
        }
        above = text;
        cause = e.source();
    }
    out
}

/// The whole text of `error`: wgpu's `Display` leaves out an out-of-memory
/// error's source, which says what failed to allocate.
fn full_text(error: &wgpu::Error) -> String {
    match error {
        wgpu::Error::OutOfMemory { source } => format!("{error}: {source}"),
        _ => error.to_string(),
    }
}

/// wgpu's default for an error no scope catches and no handler takes:
/// logged (through `log` and `tracing`), then a panic with the text of
/// wgpu's `default_error_handler` (wgpu's `src/backend/wgpu_core.rs`).
/// While the thread already unwinds the error is only logged, as a second
/// panic would abort.
pub(crate) fn default_uncaptured(error: wgpu::Error) {
    let text = full_text(&error);
    log::error!(target: "aqueduct_wgpu", "Handling wgpu errors as fatal by default: {text}");
    tracing::error!(target: "aqueduct_wgpu", "Handling wgpu errors as fatal by default: {text}");
    if !std::thread::panicking() {
        panic!("wgpu error: {error}\n");
    }
}

/// The opt-in logging mode of the uncaptured-error handler, for wgpu code:
/// `device.on_uncaptured_error(Arc::new(aqueduct_wgpu::log_uncaptured_error))`.
/// Errors no scope catches are logged through `log` and `tracing`, and on
/// stderr when neither has a consumer (see `aqueduct::log_uncaptured`);
/// the calls that raised them return, leaving invalid objects behind.
pub fn log_uncaptured_error(error: wgpu::Error) {
    aqueduct::log_uncaptured(&full_text(&error));
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
