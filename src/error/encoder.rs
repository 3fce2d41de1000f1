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
    /// A command failed on the encoder, so the command buffer is invalid.
    #[error("command encoder{} is invalid: {source}", label_suffix(label))]
    Invalid {
        /// The encoder's label, if it has one.
        label: Option<String>,
        /// The first command that failed.
        #[source]
        source: Box<CommandError>,
    },
    /// `finish` was called while a compute pass of the encoder is still open.
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
    /// A command was recorded on the encoder while one of its compute passes is open.
    #[error(
        "{command}: the encoder is locked while a compute pass is open; end (drop) the pass first"
    )]
    Locked {
        /// The command, e.g. `copy_buffer_to_buffer`.
        command: &'static str,
    },
    /// `begin_compute_pass` was called while another pass of the encoder is open.
    #[error("begin_compute_pass: a compute pass is already open on this encoder")]
    PassAlreadyOpen,
    /// The encoder was finished while a compute pass was open.
    #[error("the encoder was finished with an open compute pass")]
    FinishedWithOpenPass,
    /// `copy_buffer_to_buffer` failed.
    #[error("copy_buffer_to_buffer: {0}")]
    Copy(#[source] CopyError),
    /// `clear_buffer` failed.
    #[error("clear_buffer: {0}")]
    Clear(#[source] ClearError),
    /// A texture copy or `clear_texture` failed.
    #[error("{command}: {source}")]
    Texture {
        /// The command (`copy_buffer_to_texture`, `copy_texture_to_buffer`,
        /// `copy_texture_to_texture`, `clear_texture`).
        command: &'static str,
        /// Why it failed.
        #[source]
        source: super::TextureCopyError,
    },
    /// `write_timestamp` failed.
    #[error("write_timestamp: {0}")]
    WriteTimestamp(#[source] TimestampError),
    /// `resolve_query_set` failed.
    #[error("resolve_query_set: {0}")]
    ResolveQuerySet(#[source] ResolveQueryError),
    /// A compute pass command failed.
    #[error(
        "{}{source}",
        label.as_deref().map(|l| format!("compute pass `{l}`: ")).unwrap_or_default()
    )]
    Pass {
        /// The pass's label, if it has one.
        label: Option<String>,
        /// Why the pass command failed.
        #[source]
        source: PassError,
    },
}

/// Which value of a copy is not aligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyField {
    /// The number of bytes to copy.
    Size,
    /// The offset into the source.
    SourceOffset,
    /// The offset into the destination.
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
    /// The buffer copied from.
    Source,
    /// The buffer copied to.
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
    /// The source or the destination is invalid, destroyed or of another device.
    #[error(transparent)]
    Unusable(#[from] UnusableBuffer),
    /// The source and the destination are the same buffer.
    #[error("source and destination are the same buffer ({buffer}); copy through a second buffer")]
    SameBuffer {
        /// The buffer.
        buffer: BufferIdent,
    },
    /// The source lacks `BufferUsages::COPY_SRC`.
    #[error("{buffer} lacks COPY_SRC usage")]
    MissingCopySrc {
        /// The source buffer.
        buffer: BufferIdent,
    },
    /// The destination lacks `BufferUsages::COPY_DST`.
    #[error("{buffer} lacks COPY_DST usage")]
    MissingCopyDst {
        /// The destination buffer.
        buffer: BufferIdent,
    },
    /// The source offset lies past the end of the source.
    #[error("source offset {offset} is past the end of {buffer}")]
    SourceOffsetPastEnd {
        /// The source offset in bytes.
        offset: u64,
        /// The source buffer.
        buffer: BufferIdent,
    },
    /// The size or an offset is not a multiple of `COPY_BUFFER_ALIGNMENT`.
    #[error("{field} {value} is not a multiple of COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})")]
    Unaligned {
        /// Which value is not aligned.
        field: CopyField,
        /// The value in bytes.
        value: u64,
    },
    /// The copied range runs past the end of the source or the destination.
    #[error("the {side} range {offset}..{end} overruns {buffer} ({} bytes)", buffer.size)]
    Overrun {
        /// Which side overruns.
        side: CopySide,
        /// The range's start in bytes.
        offset: u64,
        /// Past `u64::MAX` when the range overflows.
        end: u128,
        /// The buffer that is overrun.
        buffer: BufferIdent,
    },
    /// The copy could not be lowered to packets.
    #[error(transparent)]
    Lower(#[from] LowerError),
}

/// Why `clear_buffer` failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ClearError {
    /// The buffer is invalid, destroyed or of another device.
    #[error(transparent)]
    Unusable(#[from] UnusableBuffer),
    /// The buffer lacks `BufferUsages::COPY_DST`.
    #[error("{buffer} lacks COPY_DST usage")]
    MissingCopyDst {
        /// The buffer.
        buffer: BufferIdent,
    },
    /// The offset is not a multiple of `COPY_BUFFER_ALIGNMENT`.
    #[error("offset {offset} is not a multiple of COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})")]
    UnalignedOffset {
        /// The offset in bytes.
        offset: u64,
    },
    /// The offset lies past the end of the buffer.
    #[error("offset {offset} is past the end of {buffer}")]
    OffsetPastEnd {
        /// The offset in bytes.
        offset: u64,
        /// The buffer.
        buffer: BufferIdent,
    },
    /// The size is not a multiple of `COPY_BUFFER_ALIGNMENT`.
    #[error("size {size} is not a multiple of COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})")]
    UnalignedSize {
        /// The size in bytes.
        size: u64,
    },
    /// The cleared range runs past the end of the buffer.
    #[error("the range {offset}..{end} overruns {buffer} ({} bytes)", buffer.size)]
    Overrun {
        /// The range's start in bytes.
        offset: u64,
        /// The range's end in bytes; past `u64::MAX` when the range overflows.
        end: u128,
        /// The buffer.
        buffer: BufferIdent,
    },
    /// The clear could not be lowered to packets.
    #[error(transparent)]
    Lower(#[from] LowerError),
}

/// Why `resolve_query_set` failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ResolveQueryError {
    /// The query set cannot be used (invalid, destroyed or of another device).
    #[error(transparent)]
    Query(#[from] QueryUseError),
    /// The destination is invalid, destroyed or of another device.
    #[error(transparent)]
    Unusable(#[from] UnusableBuffer),
    /// The query range is not inside the query set.
    #[error(
        "query range {start}..{end} is not inside 0..{count} of query set{}",
        label_suffix(query_set)
    )]
    RangeOutOfBounds {
        /// The first query.
        start: u32,
        /// One past the last query.
        end: u32,
        /// How many queries the set holds.
        count: u32,
        /// The query set's label, if it has one.
        query_set: Option<String>,
    },
    /// The destination lacks `BufferUsages::QUERY_RESOLVE`.
    #[error("{buffer} lacks QUERY_RESOLVE usage")]
    MissingQueryResolve {
        /// The destination buffer.
        buffer: BufferIdent,
    },
    /// The destination offset is not a multiple of `QUERY_RESOLVE_BUFFER_ALIGNMENT`.
    #[error(
        "destination offset {offset} is not a multiple of QUERY_RESOLVE_BUFFER_ALIGNMENT \
         ({QUERY_RESOLVE_BUFFER_ALIGNMENT})"
    )]
    UnalignedOffset {
        /// The offset in bytes.
        offset: u64,
    },
    /// The results run past the end of the destination.
    #[error("the {size} bytes of results at {offset} overrun {buffer} ({} bytes)", buffer.size)]
    Overrun {
        /// The results' size in bytes (`QUERY_SIZE` per query).
        size: u64,
        /// The destination offset in bytes.
        offset: u64,
        /// The destination buffer.
        buffer: BufferIdent,
    },
    /// The resolve could not be lowered to packets.
    #[error(transparent)]
    Lower(#[from] LowerError),
}
