//! The one error type of the code-object loader. Every malformed input (bad
//! ELF, bad note, bad msgpack, bad bundle, bad relocation) ends here instead
//! of in a panic; messages say what was wrong and where.

use thiserror::Error;

use super::bundle_error::BundleError;
use super::descriptor_rules::DescriptorFault;
use super::elf_error::{ElfFault, ObjectError, RelocationFault, TruncatedPart, Unsupported};
use super::kernarg_error::{ArgLabel, DispatchShapeError};
use super::metadata_error::MetadataError;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CodeObjectError {
    #[error("not an ELF file (bad magic or header)")]
    NotElf,
    #[error("not an AMDGPU code object: e_machine is {e_machine}, expected 224 (EM_AMDGPU)")]
    NotAmdgpu { e_machine: u16 },
    #[error("unsupported code object: {0}")]
    Unsupported(Unsupported),
    #[error(
        "code object is not loadable: e_type {e_type} (the loader needs ET_DYN, as made by `ld.lld -shared`)"
    )]
    NotLoadable { e_type: u16 },
    #[error("truncated input: {0}")]
    Truncated(TruncatedPart),
    #[error("malformed ELF: {0}")]
    MalformedElf(ElfFault),
    #[error("bad note: {source}")]
    BadNote {
        #[source]
        source: ObjectError,
    },
    #[error("kernel `{kernel}`: its kernel descriptor does not suit {gfx}: {fault}")]
    BadDescriptor {
        kernel: String,
        gfx: String,
        fault: DescriptorFault,
    },
    #[error("code object has no NT_AMDGPU_METADATA note")]
    MissingMetadata,
    #[error("bad metadata: {0}")]
    BadMetadata(#[from] MetadataError),
    #[error("bad metadata: {0}")]
    MetadataShape(#[from] MsgpackShapeError),
    #[error("relocation at offset {offset:#x}: {fault}")]
    Relocation { offset: u64, fault: RelocationFault },
    #[error("image buffer too small: need {needed} bytes, got {got}")]
    ImageTooSmall { needed: u64, got: u64 },
    #[error("load base {load_base:#x} is not aligned to the image alignment {align:#x}")]
    MisalignedBase { load_base: u64, align: u64 },
    #[error(transparent)]
    Bundle(#[from] BundleError),
    #[error(
        "no code object for agent {agent}; available: {}",
        if available.is_empty() { "none".to_string() } else { available.join(", ") }
    )]
    NoMatchingIsa {
        agent: String,
        available: Vec<String>,
    },
    #[error("kernel `{name}` not found; available: {}", available.join(", "))]
    KernelNotFound {
        name: String,
        available: Vec<String>,
    },
    #[error(
        "kernel argument {index} of kernel `{kernel}`: the kernel has {count} explicit arguments"
    )]
    ArgIndexOutOfRange {
        kernel: String,
        index: usize,
        count: usize,
    },
    #[error("kernel argument `{name}` of kernel `{kernel}`: no explicit argument has this name")]
    UnknownArgName { kernel: String, name: String },
    #[error("kernel argument {arg}: {given} bytes given, the argument is {expected} bytes")]
    ArgSizeMismatch {
        arg: ArgLabel,
        given: usize,
        expected: usize,
    },
    #[error("kernel argument {arg} was not set")]
    MissingArg { arg: ArgLabel },
    #[error("bad dispatch shape: {0}")]
    BadDispatchShape(#[from] DispatchShapeError),
}

/// Why the MessagePack of a metadata note cannot be decoded safely: the
/// shape check runs before the recursive decoder (code_object/metadata.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum MsgpackShapeError {
    /// The value ends past the note (at the item starting at `offset`).
    #[error("truncated MessagePack (at byte {offset})")]
    Truncated { offset: usize },
    /// A marker MessagePack leaves unused (0xc1).
    #[error("invalid MessagePack marker {marker:#x} at byte {offset}")]
    InvalidMarker { marker: u8, offset: usize },
    /// Containers nested deeper than the decoder accepts.
    #[error("MessagePack nested deeper than {limit} levels")]
    TooDeep { limit: usize },
}
