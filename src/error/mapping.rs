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
    #[error("map_async: {0}")]
    Unusable(UnusableBuffer),
    #[error("map_async: the range is inverted or overflows")]
    InvertedRange,
    #[error("map_async: {buffer} lacks {needed:?} usage needed for MapMode::{mode:?}")]
    MissingUsage {
        buffer: BufferIdent,
        needed: BufferUsages,
        mode: MapMode,
    },
    #[error("map_async: the range {}..{} is outside the buffer ({size} bytes)", range.start, range.end)]
    OutOfBounds { range: Range<u64>, size: u64 },
    #[error("map_async: the offset {offset} is not a multiple of MAP_ALIGNMENT ({MAP_ALIGNMENT})")]
    UnalignedOffset { offset: u64 },
    #[error("map_async: the size {size} is not a multiple of 4")]
    UnalignedSize { size: u64 },
    #[error("map_async: {buffer} is already mapped or has a mapping pending; unmap it first")]
    AlreadyMapped { buffer: BufferIdent },
    #[error("unmap: {buffer} still has {views} live mapped view(s); drop them before unmapping")]
    LiveViews { buffer: BufferIdent, views: usize },
}

/// What a map callback receives when the mapping did not happen.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BufferAsyncError {
    /// `map_async` was invalid (also reported to the error scopes).
    #[error("buffer mapping failed: {0}")]
    Validation(MapError),
    #[error("buffer mapping failed: the buffer is gone")]
    BufferGone,
    #[error("buffer mapping failed: the buffer was dropped before the mapping completed")]
    Dropped,
    #[error("buffer mapping failed: the buffer was unmapped before the mapping completed")]
    Unmapped,
    #[error("buffer mapping failed: the buffer was destroyed before the mapping completed")]
    Destroyed,
    #[error("buffer mapping failed: the device was destroyed")]
    DeviceLost,
    #[error("buffer mapping failed: the mapping was aborted")]
    Aborted,
    #[error(
        "buffer mapping failed: the GPU queue faulted before the mapping completed ({reason}); \
         the buffer stays unmapped"
    )]
    QueueFault { reason: QueueErrorReason },
}

/// Why `get_mapped_range*` failed: the range is not mapped, or overlaps a
/// live view.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MapRangeError {
    #[error("the range is inverted or overflows")]
    InvertedRange,
    #[error("the buffer is gone")]
    BufferGone,
    #[error("the buffer is invalid")]
    InvalidBuffer,
    #[error("{buffer} is not mapped; call map_async and poll until its callback ran")]
    NotMapped { buffer: BufferIdent },
    #[error("get_mapped_range_mut on a buffer mapped with MapMode::Read")]
    MappedForRead,
    #[error(
        "the range {}..{} is outside the mapped range {}..{}",
        range.start, range.end, mapped.start, mapped.end
    )]
    OutsideMapped {
        range: Range<u64>,
        mapped: Range<u64>,
    },
    #[error(
        "the range {}..{} must start at a multiple of 8 and have a size that is a multiple of 4",
        range.start, range.end
    )]
    Unaligned { range: Range<u64> },
    #[error(
        "the range {}..{} overlaps a live view of {}..{}; drop that view first",
        range.start, range.end, view.start, view.end
    )]
    OverlapsView { range: Range<u64>, view: Range<u64> },
    #[error("the buffer's memory is not host mapped")]
    NotHostMapped,
}
