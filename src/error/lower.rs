//! Errors of lowering a command to packets: a blit that does not fit one
//! packet, or a kernel argument block that cannot be built.

use aqueduct_hsa::code_object::CodeObjectError;

/// Why a command could not be lowered to a dispatch packet.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    #[error(transparent)]
    Kernarg(#[from] CodeObjectError),
    #[error("a {what} of {size} bytes is too large (at most 4 GiB - 16 bytes per command)")]
    BlitTooLarge { what: &'static str, size: u64 },
    #[error("blit kernel `{kernel}` has no binding {binding}")]
    MissingBlitBinding { kernel: String, binding: u32 },
    #[error("blit kernel `{kernel}` lacks its params argument")]
    MissingParamsArgument { kernel: String },
}
