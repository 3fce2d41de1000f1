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

/// A validation error of this backend itself (a wgpu argument it cannot
/// pass on, such as a non-WGSL shader source).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendValidationError(pub String);

impl std::fmt::Display for BackendValidationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BackendValidationError {}

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
pub(crate) fn report_validation(device: &aqueduct::Device, message: String) {
    device.report_error(aqueduct::Error::Validation {
        description: message.clone(),
        source: Box::new(BackendValidationError(message)),
    });
}
