//! Query sets: timestamp queries (WebGPU `GPUQuerySet`, compute subset).
//!
//! A query set is `count` 64-bit slots in a device-local buffer of its own.
//! A timestamp write is one work-item of the `write_timestamp` blit kernel
//! with the barrier bit (it reads the GPU's 100 MHz realtime counter after
//! all earlier work), and `resolve_query_set` copies slots into a
//! QUERY_RESOLVE buffer with the copy blit. Unwritten slots resolve to 0
//! (the storage is zero-filled at creation). Occlusion queries belong to
//! render passes, which Aqueduct does not have.

use std::sync::Arc;

use wgpu_types::{BufferUsages, Features, QUERY_SET_MAX_QUERIES, QUERY_SIZE, QueryType};

use crate::buffer::{Buffer, BufferDescriptor};
use crate::command::hazard::Access;
use crate::device::DeviceShared;
use crate::error::{
    BufferRole, DeviceMismatch, ObjectKind, QuerySetError, QueryUseError, UnusableBuffer,
};

pub type QuerySetDescriptor<'a> = wgpu_types::QuerySetDescriptor<crate::Label<'a>>;

/// Nanoseconds per timestamp tick: the realtime counter runs at 100 MHz
/// (gfxsim, and gfx11/gfx9 hardware alike).
pub(crate) const TIMESTAMP_PERIOD_NS: f32 = 10.0;

#[derive(Debug)]
pub(crate) struct QuerySetInner {
    pub ty: QueryType,
    pub count: u32,
    pub label: Option<String>,
    /// The slots (None: the query set is invalid).
    pub storage: Option<Buffer>,
}

/// A set of queries (cheap to clone).
#[derive(Clone, Debug)]
pub struct QuerySet {
    pub(crate) inner: Arc<QuerySetInner>,
}

impl QuerySet {
    pub fn count(&self) -> u32 {
        self.inner.count
    }

    pub fn ty(&self) -> QueryType {
        self.inner.ty
    }

    pub(crate) fn label(&self) -> Option<String> {
        self.inner.label.clone()
    }

    /// Destroy the query set (WebGPU `GPUQuerySet.destroy`): recording a
    /// command that uses it afterwards is a validation error, and so is
    /// submitting a command buffer recorded before that uses it. Its storage
    /// is released once in-flight work no longer needs it. Destroying twice,
    /// or destroying an invalid query set, does nothing.
    pub fn destroy(&self) {
        if let Some(storage) = &self.inner.storage {
            storage.destroy();
        }
    }

    /// The slots of a valid query set that has not been destroyed.
    pub(crate) fn storage(&self, device: &DeviceShared) -> Result<&Buffer, QueryUseError> {
        let storage = self
            .inner
            .storage
            .as_ref()
            .ok_or_else(|| QueryUseError::Invalid {
                label: self.label(),
            })?;
        storage
            .check_usable(device, BufferRole::QueryStorage)
            .map_err(|e| match e {
                UnusableBuffer::WrongDevice { source, .. } => {
                    QueryUseError::WrongDevice(DeviceMismatch {
                        kind: ObjectKind::QuerySet,
                        label: self.label(),
                        ..source
                    })
                }
                _ => QueryUseError::Destroyed {
                    label: self.label(),
                },
            })?;
        Ok(storage)
    }

    /// The storage of a valid timestamp query set and the write access to
    /// slot `index`, after checking `index < count`.
    pub(crate) fn timestamp_slot(
        &self,
        device: &DeviceShared,
        index: u32,
    ) -> Result<(&Buffer, Access), QueryUseError> {
        let storage = self.storage(device)?;
        if !matches!(self.inner.ty, QueryType::Timestamp) {
            return Err(QueryUseError::NotTimestamp {
                label: self.label(),
                ty: self.inner.ty,
            });
        }
        if index >= self.inner.count {
            return Err(QueryUseError::IndexOutOfRange {
                label: self.label(),
                index,
                count: self.inner.count,
            });
        }
        let at = u64::from(index) * u64::from(QUERY_SIZE);
        Ok((
            storage,
            storage.access(at..at + u64::from(QUERY_SIZE), true),
        ))
    }
}

/// Timestamps a compute pass writes at its beginning and end
/// (wgpu `ComputePassTimestampWrites`).
#[derive(Clone, Debug)]
pub struct ComputePassTimestampWrites<'a> {
    pub query_set: &'a QuerySet,
    pub beginning_of_pass_write_index: Option<u32>,
    pub end_of_pass_write_index: Option<u32>,
}

pub(crate) fn create_query_set(dev: &Arc<DeviceShared>, desc: &QuerySetDescriptor<'_>) -> QuerySet {
    let label = desc.label.map(str::to_string);
    let check = || -> Result<(), QuerySetError> {
        match desc.ty {
            QueryType::Timestamp => {
                if !dev.features.contains(Features::TIMESTAMP_QUERY) {
                    return Err(QuerySetError::MissingTimestampFeature {
                        label: label.clone(),
                    });
                }
            }
            ty => {
                return Err(QuerySetError::UnsupportedType {
                    label: label.clone(),
                    ty,
                });
            }
        }
        if desc.count > QUERY_SET_MAX_QUERIES {
            return Err(QuerySetError::TooManyQueries {
                label: label.clone(),
                count: desc.count,
            });
        }
        Ok(())
    };
    let storage = match check() {
        Ok(()) => {
            let size = u64::from(desc.count.max(1)) * u64::from(QUERY_SIZE);
            // Named after its query set, so a submit naming a destroyed
            // query set's storage says which one.
            let storage_label = match desc.label {
                Some(l) => format!("query set storage for {l}"),
                None => "query set storage".to_string(),
            };
            let buffer = dev.create_buffer(&BufferDescriptor {
                label: Some(&storage_label),
                size,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            buffer.memory().is_some().then_some(buffer)
        }
        Err(e) => {
            dev.report(e);
            None
        }
    };
    QuerySet {
        inner: Arc::new(QuerySetInner {
            ty: desc.ty,
            count: desc.count,
            label,
            storage,
        }),
    }
}
