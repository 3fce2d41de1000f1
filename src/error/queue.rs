//! Validation errors of the queue: `write_buffer` and `submit`.

use wgpu_types::COPY_BUFFER_ALIGNMENT;

use super::encoder::CommandError;
use super::ident::{BufferIdent, UnusableBuffer};

/// Why `Queue::write_buffer` or `Queue::submit` was refused.
#[derive(Clone, Debug, thiserror::Error)]
pub enum QueueError {
    /// An object of another device was given.
    #[error(transparent)]
    WrongDevice(#[from] super::DeviceMismatch),
    #[error("write_buffer: {0}")]
    WriteUnusable(#[source] UnusableBuffer),
    #[error("write_buffer: {buffer} lacks COPY_DST usage; add it to write with queue.write_buffer")]
    WriteMissingCopyDst { buffer: BufferIdent },
    #[error(
        "write_buffer: offset {offset} and size {size} must be multiples of \
         COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})"
    )]
    WriteUnaligned { offset: u64, size: u64 },
    #[error("write_buffer: {offset}..{end} overruns {buffer} ({} bytes)", buffer.size)]
    WriteOverrun {
        offset: u64,
        /// Past `u64::MAX` when the range overflows.
        end: u128,
        buffer: BufferIdent,
    },
    #[error("write_buffer: {buffer} is mapped; unmap it first")]
    WriteMapped { buffer: BufferIdent },
    #[error("submit: command buffer {index} was recorded on another device")]
    ForeignCommandBuffer { index: usize },
    #[error("submit: command buffer {index} is invalid ({source})")]
    InvalidCommandBuffer {
        index: usize,
        #[source]
        source: Box<CommandError>,
    },
    #[error("submit: command buffer {index} uses {buffer}, which is gone")]
    BufferGone { index: usize, buffer: BufferIdent },
    #[error("submit: command buffer {index} uses {buffer}, which has been destroyed")]
    BufferDestroyed { index: usize, buffer: BufferIdent },
    #[error(
        "submit: command buffer {index} uses {buffer}, which is mapped or has a mapping pending; \
         unmap it before submitting work that uses it"
    )]
    BufferMapped { index: usize, buffer: BufferIdent },
}
