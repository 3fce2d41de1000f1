//! Errors of lowering a command to packets: a blit that does not fit one
//! packet, or a kernel argument block that cannot be built.

use aqueduct_hsa::code_object::CodeObjectError;

/// Why a command could not be lowered to a dispatch packet.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    /// A kernel argument block could not be built from the kernel's metadata.
    #[error(transparent)]
    Kernarg(#[from] CodeObjectError),
    /// A copy or clear is larger than one blit dispatch covers.
    #[error("a {what} of {size} bytes is too large (at most 4 GiB - 16 bytes per command)")]
    BlitTooLarge {
        /// Which command: `copy`, `clear` or `blit`.
        what: &'static str,
        /// The command's size in bytes.
        size: u64,
    },
    /// A blit kernel's reflection lacks a buffer binding the lowering writes.
    #[error("blit kernel `{kernel}` has no binding {binding}")]
    MissingBlitBinding {
        /// The blit kernel's name.
        kernel: String,
        /// The missing binding number.
        binding: u32,
    },
    /// A blit kernel's reflection lacks its parameter block.
    #[error("blit kernel `{kernel}` lacks its params argument")]
    MissingParamsArgument {
        /// The blit kernel's name.
        kernel: String,
    },
}
