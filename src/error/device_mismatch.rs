//! Objects used with a device other than the one that created them.
//!
//! Every facade object carries the [`DeviceId`] of its device; a call on
//! device A that is given an object of device B is a validation error, as
//! in wgpu (`wgpu-core`'s device-mismatch check). Without it, a buffer of B
//! would be looked up by its key in A's registry, where the key may name an
//! unrelated buffer.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// A device's identity, unique in the process (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceId(u64);

impl DeviceId {
    /// A fresh identity.
    pub(crate) fn next() -> DeviceId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        DeviceId(NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// The identity as a number (a trace's process id).
    pub(crate) fn number(self) -> u64 {
        self.0
    }
}

impl fmt::Display for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "device #{}", self.0)
    }
}

/// The kind of object a device mismatch is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    /// A [`crate::Buffer`].
    Buffer,
    /// A [`crate::BindGroupLayout`].
    BindGroupLayout,
    /// A [`crate::BindGroup`].
    BindGroup,
    /// A [`crate::PipelineLayout`].
    PipelineLayout,
    /// A [`crate::ShaderModule`].
    ShaderModule,
    /// A [`crate::ComputePipeline`].
    ComputePipeline,
    /// A [`crate::QuerySet`].
    QuerySet,
    /// A [`crate::CommandBuffer`].
    CommandBuffer,
    /// A [`crate::Sampler`].
    Sampler,
}

impl fmt::Display for ObjectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ObjectKind::Buffer => "buffer",
            ObjectKind::BindGroupLayout => "bind group layout",
            ObjectKind::BindGroup => "bind group",
            ObjectKind::PipelineLayout => "pipeline layout",
            ObjectKind::ShaderModule => "shader module",
            ObjectKind::ComputePipeline => "compute pipeline",
            ObjectKind::QuerySet => "query set",
            ObjectKind::CommandBuffer => "command buffer",
            ObjectKind::Sampler => "sampler",
        })
    }
}

/// An object of one device given to a call on another.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{kind}{} belongs to {object_device}, not to {device} it is used on; objects cannot be shared \
     between devices",
    label.as_deref().map(|l| format!(" `{l}`")).unwrap_or_default()
)]
pub struct DeviceMismatch {
    /// The kind of object.
    pub kind: ObjectKind,
    /// The object's label, if it has one.
    pub label: Option<String>,
    /// The device that created the object.
    pub object_device: DeviceId,
    /// The device of the call.
    pub device: DeviceId,
}

/// `Ok` when `object_device` is `device`, else the mismatch.
pub(crate) fn same_device(
    kind: ObjectKind,
    label: Option<&str>,
    object_device: DeviceId,
    device: DeviceId,
) -> Result<(), DeviceMismatch> {
    if object_device == device {
        Ok(())
    } else {
        Err(DeviceMismatch {
            kind,
            label: label.map(str::to_string),
            object_device,
            device,
        })
    }
}
