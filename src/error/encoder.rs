//! Errors of command encoders: the command that made an encoder invalid
//! (copies, clears, query resolves, timestamps, a compute pass) and what
//! `finish` reports.

use wgpu_types::{COPY_BUFFER_ALIGNMENT, QUERY_RESOLVE_BUFFER_ALIGNMENT};

use super::ident::{BufferIdent, UnusableBuffer, label_suffix};
use super::lower::LowerError;
use super::pass::PassError;
use super::query::{QueryUseError, TimestampError};

/// What `CommandEncoder::finish` reports.
#[derive(Clone, Debug, thiserror::Error)]
pub enum EncoderError {
    #[error("command encoder{} is invalid: {source}", label_suffix(label))]
    Invalid {
        label: Option<String>,
        #[source]
        source: Box<CommandError>,
    },
    #[error("finish: a compute pass is still open; drop it before finishing the encoder")]
    PassStillOpen,
}

impl EncoderError {
    /// The command that made the encoder invalid.
    pub fn command(&self) -> Option<&CommandError> {
        match self {
            EncoderError::Invalid { source, .. } => Some(source),
            EncoderError::PassStillOpen => None,
        }
    }
}

/// The first command that failed on an encoder (the command buffer it
/// finishes into is invalid for this reason).
#[derive(Clone, Debug, thiserror::Error)]
pub enum CommandError {
    #[error(
        "{command}: the encoder is locked while a compute pass is open; end (drop) the pass first"
    )]
    Locked { command: &'static str },
    #[error("begin_compute_pass: a compute pass is already open on this encoder")]
    PassAlreadyOpen,
    #[error("the encoder was finished with an open compute pass")]
    FinishedWithOpenPass,
    #[error("copy_buffer_to_buffer: {0}")]
    Copy(#[source] CopyError),
    #[error("clear_buffer: {0}")]
    Clear(#[source] ClearError),
    #[error("write_timestamp: {0}")]
    WriteTimestamp(#[source] TimestampError),
    #[error("resolve_query_set: {0}")]
    ResolveQuerySet(#[source] ResolveQueryError),
    #[error(
        "{}{source}",
        label.as_deref().map(|l| format!("compute pass `{l}`: ")).unwrap_or_default()
    )]
    Pass {
        label: Option<String>,
        #[source]
        source: PassError,
    },
}

/// Which value of a copy is not aligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyField {
    Size,
    SourceOffset,
    DestinationOffset,
}

impl std::fmt::Display for CopyField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CopyField::Size => "copy size",
            CopyField::SourceOffset => "source offset",
            CopyField::DestinationOffset => "destination offset",
        })
    }
}

/// Which side of a copy overruns its buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopySide {
    Source,
    Destination,
}

impl std::fmt::Display for CopySide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CopySide::Source => "source",
            CopySide::Destination => "destination",
        })
    }
}

/// Why `copy_buffer_to_buffer` failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum CopyError {
    #[error(transparent)]
    Unusable(#[from] UnusableBuffer),
    #[error("source and destination are the same buffer ({buffer}); copy through a second buffer")]
    SameBuffer { buffer: BufferIdent },
    #[error("{buffer} lacks COPY_SRC usage")]
    MissingCopySrc { buffer: BufferIdent },
    #[error("{buffer} lacks COPY_DST usage")]
    MissingCopyDst { buffer: BufferIdent },
    #[error("source offset {offset} is past the end of {buffer}")]
    SourceOffsetPastEnd { offset: u64, buffer: BufferIdent },
    #[error("{field} {value} is not a multiple of COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})")]
    Unaligned { field: CopyField, value: u64 },
    #[error("the {side} range {offset}..{end} overruns {buffer} ({} bytes)", buffer.size)]
    Overrun {
        side: CopySide,
        offset: u64,
        /// Past `u64::MAX` when the range overflows.
        end: u128,
        buffer: BufferIdent,
    },
    #[error(transparent)]
    Lower(#[from] LowerError),
}

/// Why `clear_buffer` failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ClearError {
    #[error(transparent)]
    Unusable(#[from] UnusableBuffer),
    #[error("{buffer} lacks COPY_DST usage")]
    MissingCopyDst { buffer: BufferIdent },
    #[error("offset {offset} is not a multiple of COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})")]
    UnalignedOffset { offset: u64 },
    #[error("offset {offset} is past the end of {buffer}")]
    OffsetPastEnd { offset: u64, buffer: BufferIdent },
    #[error("size {size} is not a multiple of COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})")]
    UnalignedSize { size: u64 },
    #[error("the range {offset}..{end} overruns {buffer} ({} bytes)", buffer.size)]
    Overrun {
        offset: u64,
        end: u128,
        buffer: BufferIdent,
    },
    #[error(transparent)]
    Lower(#[from] LowerError),
}

/// Why `resolve_query_set` failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ResolveQueryError {
    #[error(transparent)]
    Query(#[from] QueryUseError),
    #[error(transparent)]
    Unusable(#[from] UnusableBuffer),
    #[error(
        "query range {start}..{end} is not inside 0..{count} of query set{}",
        label_suffix(query_set)
    )]
    RangeOutOfBounds {
        start: u32,
        end: u32,
        count: u32,
        query_set: Option<String>,
    },
    #[error("{buffer} lacks QUERY_RESOLVE usage")]
    MissingQueryResolve { buffer: BufferIdent },
    #[error(
        "destination offset {offset} is not a multiple of QUERY_RESOLVE_BUFFER_ALIGNMENT \
         ({QUERY_RESOLVE_BUFFER_ALIGNMENT})"
    )]
    UnalignedOffset { offset: u64 },
    #[error("the {size} bytes of results at {offset} overrun {buffer} ({} bytes)", buffer.size)]
    Overrun {
        size: u64,
        offset: u64,
        buffer: BufferIdent,
    },
    #[error(transparent)]
    Lower(#[from] LowerError),
}
