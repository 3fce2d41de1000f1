//! What can be wrong in the decoded NT_AMDGPU_METADATA note: the part of
//! [`CodeObjectError`](super::CodeObjectError) for a note that is valid
//! MessagePack but not valid metadata (a key missing or of the wrong type, an
//! argument outside the kernarg segment, a kernel whose descriptor is not in
//! the symbol tables).

use std::fmt;

use thiserror::Error;

use super::metadata::ValueKind;

/// The map of the note a fault is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetadataNode {
    /// The root map (`amdhsa.version`, `amdhsa.target`, `amdhsa.kernels`).
    Root,
    /// Entry `index` of `amdhsa.kernels`, before its `.name` is known.
    KernelEntry { index: usize },
    /// The map of the kernel called `kernel`.
    Kernel { kernel: String },
    /// Entry `index` of the `.args` of the kernel called `kernel`.
    Argument { kernel: String, index: usize },
}

impl fmt::Display for MetadataNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Root => f.write_str("metadata root"),
            Self::KernelEntry { index } => write!(f, "amdhsa.kernels[{index}]"),
            Self::Kernel { kernel } => write!(f, "kernel `{kernel}`"),
            Self::Argument { kernel, index } => write!(f, "kernel `{kernel}` argument {index}"),
        }
    }
}

/// The MessagePack type a metadata key must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataType {
    U32,
    Str,
    Bool,
    Array,
    /// An array of exactly `len` 32-bit unsigned integers.
    U32Array {
        len: usize,
    },
}

impl fmt::Display for MetadataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::U32 => f.write_str("a 32-bit unsigned integer"),
            Self::Str => f.write_str("a UTF-8 string"),
            Self::Bool => f.write_str("a boolean"),
            Self::Array => f.write_str("an array"),
            Self::U32Array { len } => write!(f, "an array of {len} 32-bit unsigned integers"),
        }
    }
}

/// Which read of rmpv's decoder failed (`rmpv::decode::Error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MsgpackRead {
    /// Reading a value's marker byte.
    Marker,
    /// Reading a value's payload.
    Data,
    /// The decoder's own nesting limit.
    DepthLimit,
}

impl fmt::Display for MsgpackRead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Marker => "cannot read a marker",
            Self::Data => "cannot read a value's data",
            Self::DepthLimit => "nested past the decoder's depth limit",
        })
    }
}

/// Why a decoded metadata note is unusable.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MetadataError {
    /// rmpv could not decode the note (after the shape check passed).
    #[error("invalid MessagePack: {read}")]
    Undecodable { read: MsgpackRead },
    /// A value that must be a map is something else.
    #[error("{node} is not a map")]
    NotAMap { node: MetadataNode },
    /// A required key is absent.
    #[error("{node} has no {key}")]
    MissingKey {
        node: MetadataNode,
        key: &'static str,
    },
    /// A key's value has the wrong type.
    #[error("{node}: {key} is not {expected}")]
    WrongType {
        node: MetadataNode,
        key: &'static str,
        expected: MetadataType,
    },
    /// `.kernarg_segment_size` is above what the loader accepts.
    #[error("kernel `{kernel}`: .kernarg_segment_size {size} is larger than {limit}")]
    KernargSegmentTooLarge {
        kernel: String,
        size: u32,
        limit: u64,
    },
    /// `.kernarg_segment_align` is not a power of two.
    #[error("kernel `{kernel}`: .kernarg_segment_align {align} is not a power of two")]
    KernargAlignNotPowerOfTwo { kernel: String, align: u32 },
    /// An argument's bytes `offset..end` reach past the kernarg segment.
    #[error(
        "kernel `{kernel}` argument {index} ({}) spans bytes {offset}..{end}, past the kernarg \
         segment size {segment_size}",
        value_kind.as_str()
    )]
    ArgumentOutsideSegment {
        kernel: String,
        index: usize,
        value_kind: ValueKind,
        offset: u32,
        end: u64,
        segment_size: u32,
    },
    /// An argument's `.address_space` is not one of the known names.
    #[error("kernel `{kernel}` argument {index}: unknown .address_space `{space}`")]
    UnknownAddressSpace {
        kernel: String,
        index: usize,
        space: String,
    },
    /// A kernel's `.symbol` (its descriptor) is in neither symbol table.
    #[error("kernel `{kernel}`: descriptor symbol `{symbol}` is not in the symbol tables")]
    MissingDescriptor { kernel: String, symbol: String },
    /// Two kernels of the note(s) share a `.name`.
    #[error("kernel `{kernel}` is described twice")]
    DuplicateKernel { kernel: String },
}
