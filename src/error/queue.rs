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
    /// The buffer given to `write_buffer` is invalid, destroyed or of another device.
    #[error("write_buffer: {0}")]
    WriteUnusable(#[source] UnusableBuffer),
    /// The buffer lacks `BufferUsages::COPY_DST`.
    #[error("write_buffer: {buffer} lacks COPY_DST usage; add it to write with queue.write_buffer")]
    WriteMissingCopyDst {
        /// The buffer.
        buffer: BufferIdent,
    },
    /// The offset or the data's size is not a multiple of `COPY_BUFFER_ALIGNMENT`.
    #[error(
        "write_buffer: offset {offset} and size {size} must be multiples of \
         COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})"
    )]
    WriteUnaligned {
        /// The offset in bytes.
        offset: u64,
        /// The data's size in bytes.
        size: u64,
    },
    /// The written range runs past the end of the buffer.
    #[error("write_buffer: {offset}..{end} overruns {buffer} ({} bytes)", buffer.size)]
    WriteOverrun {
        /// The range's start in bytes.
        offset: u64,
        /// Past `u64::MAX` when the range overflows.
        end: u128,
        /// The buffer.
        buffer: BufferIdent,
    },
    /// The buffer is mapped or has a mapping pending.
    #[error("write_buffer: {buffer} is mapped; unmap it first")]
    WriteMapped {
        /// The buffer.
        buffer: BufferIdent,
    },
    /// A command buffer was recorded on another device.
    #[error("submit: command buffer {index} was recorded on another device")]
    ForeignCommandBuffer {
        /// The command buffer's index in the submitted list.
        index: usize,
    },
    /// A command buffer is invalid: a command failed while it was recorded.
    #[error("submit: command buffer {index} is invalid ({source})")]
    InvalidCommandBuffer {
        /// The command buffer's index in the submitted list.
        index: usize,
        /// The first command that failed.
        #[source]
        source: Box<CommandError>,
    },
    /// A command buffer uses a buffer the device no longer holds (its last handle was dropped).
    #[error("submit: command buffer {index} uses {buffer}, which is gone")]
    BufferGone {
        /// The command buffer's index in the submitted list.
        index: usize,
        /// The buffer.
        buffer: BufferIdent,
    },
    /// A command buffer uses a destroyed buffer.
    #[error("submit: command buffer {index} uses {buffer}, which has been destroyed")]
    BufferDestroyed {
        /// The command buffer's index in the submitted list.
        index: usize,
        /// The buffer.
        buffer: BufferIdent,
    },
    /// A command buffer uses a buffer that is mapped or has a mapping pending.
    #[error(
        "submit: command buffer {index} uses {buffer}, which is mapped or has a mapping pending; \
         unmap it before submitting work that uses it"
    )]
    BufferMapped {
        /// The command buffer's index in the submitted list.
        index: usize,
        /// The buffer.
        buffer: BufferIdent,
    },
}
