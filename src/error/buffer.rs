//! Validation errors of buffer creation and slicing.

use wgpu_types::BufferUsages;

use super::ident::{BufferIdent, label_suffix};

/// Why `create_buffer`, `Buffer::slice` or binding a slice failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BufferError {
    #[error(
        "create_buffer{}: usage is empty; give the buffer at least one usage",
        label_suffix(label)
    )]
    EmptyUsage { label: Option<String> },
    #[error(
        "create_buffer{}: size {size} exceeds max_buffer_size ({max})",
        label_suffix(label)
    )]
    TooLarge {
        label: Option<String>,
        size: u64,
        max: u64,
    },
    #[error(
        "create_buffer{}: a buffer mapped at creation needs a size that is a multiple of 4, not {size}",
        label_suffix(label)
    )]
    UnalignedMappedAtCreation { label: Option<String>, size: u64 },
    #[error(
        "create_buffer{}: usage {usage:?}: MAP_READ may only be combined with COPY_DST (copy \
         results into a separate MAP_READ buffer, or enable Features::MAPPABLE_PRIMARY_BUFFERS)",
        label_suffix(label)
    )]
    MapReadCombined {
        label: Option<String>,
        usage: BufferUsages,
    },
    #[error(
        "create_buffer{}: usage {usage:?}: MAP_WRITE may only be combined with COPY_SRC (upload \
         through a separate MAP_WRITE buffer or queue.write_buffer, or enable \
         Features::MAPPABLE_PRIMARY_BUFFERS)",
        label_suffix(label)
    )]
    MapWriteCombined {
        label: Option<String>,
        usage: BufferUsages,
    },
    #[error(
        "slice: the range is outside {buffer} ({} bytes); using an empty slice",
        buffer.size
    )]
    SliceOutOfRange { buffer: BufferIdent },
    #[error("slice: the sub-range is outside the slice ({slice_size} bytes); using an empty slice")]
    SubSliceOutOfRange { slice_size: u64 },
    #[error("an empty buffer slice cannot be bound")]
    EmptyBinding,
}
