//! Query sets: timestamp queries (WebGPU `GPUQuerySet`, compute subset).
//!
//! The CP times packets itself: on a queue whose `amd_queue_t` has
//! `ENABLE_PROFILING` (the device's queue always does, `src/device.rs`),
//! it writes `start_ts`/`end_ts` into a packet's completion signal before
//! decrementing it (`crates/gfxsim/src/queue/command_processor.rs`; ROCr's
//! `hsa_amd_profiling_get_dispatch_time` reads them, and ROCm clr's HIP
//! events time barrier markers the same way). So a query set is `count`
//! `amd_signal_t`s (64 bytes each, kind USER, no event mailbox) in a
//! device-local buffer of its own, and a timestamp write is a marker
//! packet: a barrier-AND with the barrier bit and no dependencies whose
//! completion signal is the query's signal. The barrier bit holds it until
//! every earlier packet of the queue completed; its `end_ts` is the
//! timestamp. Nothing waits on a query's signal: the CP's decrements take
//! its value below 0 and nothing reads it. `resolve_query_set` gathers the
//! `end_ts` words (stride 64) into a QUERY_RESOLVE buffer with the
//! `copy_strided_u64` blit. Unwritten queries resolve to 0 (the storage is
//! zero at creation but for the kinds). Occlusion queries belong to render
//! passes, which Aqueduct does not have.

use std::ops::Range;
use std::sync::Arc;

use aqueduct_kfd::abi::{AMD_SIGNAL_END_TS_OFFSET, AMD_SIGNAL_KIND_USER, AmdSignal};
use wgpu_types::{BufferUsages, Features, QUERY_SET_MAX_QUERIES, QUERY_SIZE, QueryType};

use crate::buffer::{Buffer, BufferDescriptor};
use crate::command::hazard::Access;
use crate::device::DeviceShared;
use crate::error::{
    BufferRole, DeviceMismatch, ObjectKind, QuerySetError, QueryUseError, UnusableBuffer,
};

/// Describes a query set.
pub type QuerySetDescriptor<'a> = wgpu_types::QuerySetDescriptor<crate::Label<'a>>;

/// Nanoseconds per timestamp tick. The CP stamps signals with the GPU's
/// 100 MHz timestamp counter (the one `s_memrealtime` reads on gfx9 and
/// `s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME` on gfx11, and KFD's
/// GET_CLOCK_COUNTERS samples; gfxsim's is `aqueduct_isa::realtime`, and
/// `crates/hsa/src/clock.rs` translates its ticks into the system clock).
pub(crate) const TIMESTAMP_PERIOD_NS: f32 = 10.0;

/// Bytes of one query in the storage: one `amd_signal_t`.
pub(crate) const QUERY_SLOT_SIZE: u32 = std::mem::size_of::<AmdSignal>() as u32;

#[derive(Debug)]
pub(crate) struct QuerySetInner {
    pub ty: QueryType,
    pub count: u32,
    pub label: Option<String>,
    /// One `amd_signal_t` per query (None: the query set is invalid).
    pub storage: Option<Buffer>,
}

/// A set of queries (cheap to clone).
#[derive(Clone, Debug)]
pub struct QuerySet {
    pub(crate) inner: Arc<QuerySetInner>,
}

impl QuerySet {
    /// How many queries the set holds.
    pub fn count(&self) -> u32 {
        self.inner.count
    }

    /// The set's query type.
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

    /// The device address of query `index`'s `amd_signal_t`, whose
    /// `end_ts` the CP writes for each timestamp write of that query (a
    /// tool or test reads the CP's stamps there); None for an invalid query
    /// set or an index past `count`. The signal is in device memory.
    pub fn signal_address(&self, index: u32) -> Option<u64> {
        let storage = self.inner.storage.as_ref()?;
        (index < self.inner.count)
            .then(|| storage.memory().map(|m| m.va() + slot_offset(index)))
            .flatten()
    }

    /// The storage of a valid timestamp query set and the write access to
    /// slot `index` (the whole signal, which the CP writes), after checking
    /// `index < count`.
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
        let at = slot_offset(index);
        Ok((
            storage,
            storage.access(at..at + u64::from(QUERY_SLOT_SIZE), true),
        ))
    }

    /// The read access a resolve of the non-empty `range` makes to
    /// `storage`: from the first query's `end_ts` to the last one's.
    pub(crate) fn end_ts_access(&self, storage: &Buffer, range: Range<u32>) -> Access {
        let first = slot_offset(range.start) + AMD_SIGNAL_END_TS_OFFSET as u64;
        let last = slot_offset(range.end.saturating_sub(1)) + AMD_SIGNAL_END_TS_OFFSET as u64;
        storage.access(first..last + u64::from(QUERY_SIZE), false)
    }
}

/// Byte offset of query `index`'s signal in the storage.
fn slot_offset(index: u32) -> u64 {
    u64::from(index) * u64::from(QUERY_SLOT_SIZE)
}

/// The storage's initial bytes: `count` signals of kind USER, everything
/// else 0 (value, no mailbox, no timestamps).
fn initial_signals(count: u32) -> Vec<u8> {
    let signal = AmdSignal {
        kind: AMD_SIGNAL_KIND_USER,
        ..AmdSignal::default()
    };
    std::iter::repeat_n(signal, count as usize)
        .flat_map(|s| bytemuck::bytes_of(&s).to_vec())
        .collect()
}

/// Timestamps a compute pass writes at its beginning and end
/// (wgpu `ComputePassTimestampWrites`).
#[derive(Clone, Debug)]
pub struct ComputePassTimestampWrites<'a> {
    /// The query set the timestamps go to.
    pub query_set: &'a QuerySet,
    /// The query written when the pass begins, if any.
    pub beginning_of_pass_write_index: Option<u32>,
    /// The query written when the pass ends, if any.
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
            let count = desc.count.max(1);
            let size = slot_offset(count);
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
                mapped_at_creation: true,
            });
            buffer.memory().is_some().then(|| {
                // Mapped at creation, so the view exists; the unmap uploads
                // it before any later packet of the queue runs.
                match buffer.get_mapped_range_mut(..) {
                    Ok(mut view) => view.copy_from_slice(&initial_signals(count)),
                    Err(e) => tracing::error!("initialising query set storage: {e}"),
                }
                buffer.unmap();
                buffer
            })
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
