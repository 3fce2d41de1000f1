//! Validation errors of buffer creation and slicing.

use wgpu_types::BufferUsages;

use super::ident::{BufferIdent, label_suffix};

/// Why `create_buffer`, `Buffer::slice` or binding a slice failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BufferError {
    /// The descriptor's usage is empty.
    #[error(
        "create_buffer{}: usage is empty; give the buffer at least one usage",
        label_suffix(label)
    )]
    EmptyUsage {
        /// The buffer's label, if it has one.
        label: Option<String>,
    },
    /// The size is above the device's `max_buffer_size` limit.
    #[error(
        "create_buffer{}: size {size} exceeds max_buffer_size ({max})",
        label_suffix(label)
    )]
    TooLarge {
        /// The buffer's label, if it has one.
        label: Option<String>,
        /// The requested size in bytes.
        size: u64,
        /// The device's `max_buffer_size` in bytes.
        max: u64,
    },
    /// The buffer is mapped at creation but its size is not a multiple of 4.
    #[error(
        "create_buffer{}: a buffer mapped at creation needs a size that is a multiple of 4, not {size}",
        label_suffix(label)
    )]
    UnalignedMappedAtCreation {
        /// The buffer's label, if it has one.
        label: Option<String>,
        /// The requested size in bytes.
        size: u64,
    },
    /// `MAP_READ` is combined with a usage other than `COPY_DST` without
    /// `MAPPABLE_PRIMARY_BUFFERS`.
    #[error(
        "create_buffer{}: usage {usage:?}: MAP_READ may only be combined with COPY_DST (copy \
         results into a separate MAP_READ buffer, or enable Features::MAPPABLE_PRIMARY_BUFFERS)",
        label_suffix(label)
    )]
    MapReadCombined {
        /// The buffer's label, if it has one.
        label: Option<String>,
        /// The requested usage.
        usage: BufferUsages,
    },
    /// `MAP_WRITE` is combined with a usage other than `COPY_SRC` without
    /// `MAPPABLE_PRIMARY_BUFFERS`.
    #[error(
        "create_buffer{}: usage {usage:?}: MAP_WRITE may only be combined with COPY_SRC (upload \
         through a separate MAP_WRITE buffer or queue.write_buffer, or enable \
         Features::MAPPABLE_PRIMARY_BUFFERS)",
        label_suffix(label)
    )]
    MapWriteCombined {
        /// The buffer's label, if it has one.
        label: Option<String>,
        /// The requested usage.
        usage: BufferUsages,
    },
    /// `Buffer::slice` got a range that does not lie inside the buffer; the slice is empty.
    #[error(
        "slice: the range is outside {buffer} ({} bytes); using an empty slice",
        buffer.size
    )]
    SliceOutOfRange {
        /// The sliced buffer.
        buffer: BufferIdent,
    },
    /// `BufferSlice::slice` got a range that does not lie inside the slice; the result is empty.
    #[error("slice: the sub-range is outside the slice ({slice_size} bytes); using an empty slice")]
    SubSliceOutOfRange {
        /// The outer slice's size in bytes.
        slice_size: u64,
    },
    /// A slice of zero bytes is turned into a binding.
    #[error("an empty buffer slice cannot be bound")]
    EmptyBinding,
}
