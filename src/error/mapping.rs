//! Errors of buffer mapping: `map_async` and `unmap` validation, what a
//! map callback receives, and why `get_mapped_range*` failed.

use std::ops::Range;

use aqueduct_hsa::QueueErrorReason;
use wgpu_types::{BufferUsages, MAP_ALIGNMENT};

use super::ident::{BufferIdent, UnusableBuffer};
use crate::registry::MapMode;

/// Why `map_async` or `unmap` was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    /// The buffer is invalid, destroyed or of another device.
    #[error("map_async: {0}")]
    Unusable(UnusableBuffer),
    /// The range's end is below its start, or the end overflows `u64`.
    #[error("map_async: the range is inverted or overflows")]
    InvertedRange,
    /// The buffer lacks the usage the map mode needs (`MAP_READ` or `MAP_WRITE`).
    #[error("map_async: {buffer} lacks {needed:?} usage needed for MapMode::{mode:?}")]
    MissingUsage {
        /// The buffer.
        buffer: BufferIdent,
        /// The usage the mode needs.
        needed: BufferUsages,
        /// The requested map mode.
        mode: MapMode,
    },
    /// The range does not lie inside the buffer.
    #[error("map_async: the range {}..{} is outside the buffer ({size} bytes)", range.start, range.end)]
    OutOfBounds {
        /// The requested range in bytes.
        range: Range<u64>,
        /// The buffer's size in bytes.
        size: u64,
    },
    /// The offset is not a multiple of `MAP_ALIGNMENT`.
    #[error("map_async: the offset {offset} is not a multiple of MAP_ALIGNMENT ({MAP_ALIGNMENT})")]
    UnalignedOffset {
        /// The offset in bytes.
        offset: u64,
    },
    /// The range's size is not a multiple of 4.
    #[error("map_async: the size {size} is not a multiple of 4")]
    UnalignedSize {
        /// The size in bytes.
        size: u64,
    },
    /// The buffer is mapped or has a mapping pending.
    #[error("map_async: {buffer} is already mapped or has a mapping pending; unmap it first")]
    AlreadyMapped {
        /// The buffer.
        buffer: BufferIdent,
    },
    /// `unmap` was called while views of the mapped range are alive.
    #[error("unmap: {buffer} still has {views} live mapped view(s); drop them before unmapping")]
    LiveViews {
        /// The buffer.
        buffer: BufferIdent,
        /// How many views are alive.
        views: usize,
    },
}

/// What a map callback receives when the mapping did not happen.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BufferAsyncError {
    /// `map_async` was invalid (also reported to the error scopes).
    #[error("buffer mapping failed: {0}")]
    Validation(MapError),
    /// The device no longer holds the buffer: its last handle was dropped.
    #[error("buffer mapping failed: the buffer is gone")]
    BufferGone,
    /// The buffer was dropped while the mapping was pending.
    #[error("buffer mapping failed: the buffer was dropped before the mapping completed")]
    Dropped,
    /// The buffer was unmapped while the mapping was pending.
    #[error("buffer mapping failed: the buffer was unmapped before the mapping completed")]
    Unmapped,
    /// The buffer was destroyed while the mapping was pending.
    #[error("buffer mapping failed: the buffer was destroyed before the mapping completed")]
    Destroyed,
    /// The device was destroyed before the mapping completed.
    #[error("buffer mapping failed: the device was destroyed")]
    DeviceLost,
    /// The mapping was no longer pending when its work completed.
    #[error("buffer mapping failed: the mapping was aborted")]
    Aborted,
    /// A GPU queue fault dropped the work the mapping waited on; the buffer stays unmapped.
    #[error(
        "buffer mapping failed: the GPU queue faulted before the mapping completed ({reason}); \
         the buffer stays unmapped"
    )]
    QueueFault {
        /// What the queue fault was.
        reason: QueueErrorReason,
    },
}

/// Why `get_mapped_range*` failed: the range is not mapped, or overlaps a
/// live view.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MapRangeError {
    /// The range's end is below its start, or the end overflows `u64`.
    #[error("the range is inverted or overflows")]
    InvertedRange,
    /// The device no longer holds the buffer: its last handle was dropped.
    #[error("the buffer is gone")]
    BufferGone,
    /// The buffer is invalid: its creation failed.
    #[error("the buffer is invalid")]
    InvalidBuffer,
    /// The buffer is not mapped (or its mapping is still pending).
    #[error("{buffer} is not mapped; call map_async and poll until its callback ran")]
    NotMapped {
        /// The buffer.
        buffer: BufferIdent,
    },
    /// `get_mapped_range_mut` was called on a buffer mapped for reading.
    #[error("get_mapped_range_mut on a buffer mapped with MapMode::Read")]
    MappedForRead,
    /// The range does not lie inside the mapped range.
    #[error(
        "the range {}..{} is outside the mapped range {}..{}",
        range.start, range.end, mapped.start, mapped.end
    )]
    OutsideMapped {
        /// The requested range in bytes.
        range: Range<u64>,
        /// The mapped range in bytes.
        mapped: Range<u64>,
    },
    /// The range does not start at a multiple of 8 or its size is not a multiple of 4.
    #[error(
        "the range {}..{} must start at a multiple of 8 and have a size that is a multiple of 4",
        range.start, range.end
    )]
    Unaligned {
        /// The requested range in bytes.
        range: Range<u64>,
    },
    /// The range overlaps a view that is still alive.
    #[error(
        "the range {}..{} overlaps a live view of {}..{}; drop that view first",
        range.start, range.end, view.start, view.end
    )]
    OverlapsView {
        /// The requested range in bytes.
        range: Range<u64>,
        /// The live view's range in bytes.
        view: Range<u64>,
    },
    /// The buffer's memory has no host address.
    #[error("the buffer's memory is not host mapped")]
    NotHostMapped,
}
