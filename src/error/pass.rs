//! Errors of compute passes: pass state (pipeline, bind groups,
//! immediates, timestamps) and dispatches.

use aqueduct_hsa::code_object::CodeObjectError;

use super::ident::{BufferIdent, LayoutIdent, UnusableBuffer, label_suffix};
use super::lower::LowerError;
use super::query::TimestampError;

/// Why a compute pass command failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum PassError {
    /// An object of another device was given.
    #[error(transparent)]
    WrongDevice(#[from] super::DeviceMismatch),
    #[error("timestamp_writes: {0}")]
    TimestampWrites(#[source] TimestampError),
    #[error("write_timestamp({index}): {source}")]
    WriteTimestamp {
        index: u32,
        #[source]
        source: TimestampError,
    },
    #[error("set_pipeline: compute pipeline{} is invalid", label_suffix(pipeline))]
    InvalidPipeline { pipeline: Option<String> },
    #[error("set_bind_group: index {index} is not below max_bind_groups ({max})")]
    BindGroupIndex { index: u32, max: u32 },
    #[error("set_bind_group({index}): the bind group is invalid")]
    InvalidBindGroup { index: u32 },
    #[error(
        "set_bind_group({index}): {given} dynamic offsets given, the bind group has {expected} \
         dynamic bindings"
    )]
    DynamicOffsetCount {
        index: u32,
        given: usize,
        expected: usize,
    },
    #[error(
        "set_bind_group({index}): dynamic offset {offset} of binding {binding} is not a multiple \
         of {alignment}"
    )]
    UnalignedDynamicOffset {
        index: u32,
        binding: u32,
        offset: u32,
        alignment: u32,
    },
    #[error(
        "set_bind_group({index}): dynamic offset {offset} of binding {binding} moves its range \
         {start}..{end} past the end of {buffer} ({} bytes)",
        buffer.size
    )]
    DynamicOffsetOverrun {
        index: u32,
        binding: u32,
        offset: u32,
        start: u64,
        end: u64,
        buffer: BufferIdent,
    },
    #[error("set_immediates: offset {offset} and size {size} must be multiples of 4")]
    UnalignedImmediates { offset: u32, size: usize },
    #[error("set_immediates: bytes {offset}..{end} exceed max_immediate_size ({max})")]
    ImmediatesOverrun { offset: u32, end: usize, max: usize },
    #[error("dispatch_workgroups({}, {}, {}): {source}", counts[0], counts[1], counts[2])]
    Dispatch {
        counts: [u32; 3],
        #[source]
        source: DispatchError,
    },
    #[error("dispatch_workgroups_indirect(offset {offset}): {source}")]
    DispatchIndirect {
        offset: u64,
        #[source]
        source: DispatchError,
    },
}

/// Why a dispatch failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum DispatchError {
    #[error("no pipeline is set; call set_pipeline first")]
    NoPipeline,
    #[error("compute pipeline{} is invalid", label_suffix(pipeline))]
    InvalidPipeline { pipeline: Option<String> },
    #[error("bind group {index} is not set; the pipeline's layout needs one")]
    MissingBindGroup { index: u32 },
    #[error(
        "the bind group at index {index} was made with {bound}, which is incompatible with \
         {expected} that the pipeline expects (derived layouts are only compatible with their own \
         pipeline)"
    )]
    IncompatibleBindGroup {
        index: u32,
        bound: LayoutIdent,
        expected: LayoutIdent,
    },
    #[error("bind group {group} has no binding {binding}")]
    MissingBinding { group: u32, binding: u32 },
    #[error(
        "@group({group}) @binding({binding}) is bound with {size} bytes but the shader needs at \
         least {min} (its minimum binding size)"
    )]
    BindingTooSmall {
        group: u32,
        binding: u32,
        size: u64,
        min: u64,
    },
    #[error("@group({group}) @binding({binding}): the buffer is invalid")]
    InvalidBindingBuffer { group: u32, binding: u32 },
    #[error(transparent)]
    Kernarg(#[from] CodeObjectError),
    #[error(
        "{buffer} is bound as writable storage and bound again (overlapping) in the same \
         dispatch; a writable storage binding must not alias another binding"
    )]
    WritableAlias { buffer: BufferIdent },
    #[error("a workgroup count exceeds max_compute_workgroups_per_dimension ({limit})")]
    InvalidGroupCount { current: [u32; 3], limit: u32 },
    #[error("the grid ({count} workgroups of {workgroup}) overflows 32 bits")]
    GridOverflow { count: u32, workgroup: u32 },
    #[error(
        "the grid ({counts:?} workgroups of {workgroup:?}) holds {work_items} work-items, above the \
         {max} the GPU runs in one dispatch (its grid max size); split the dispatch"
    )]
    GridTooLarge {
        counts: [u32; 3],
        workgroup: [u32; 3],
        work_items: u128,
        max: u32,
    },
    #[error(transparent)]
    IndirectUnusable(UnusableBuffer),
    #[error("{buffer} lacks INDIRECT usage")]
    MissingIndirectUsage { buffer: BufferIdent },
    #[error("the indirect offset {offset} is not a multiple of 4")]
    UnalignedIndirectOffset { offset: u64 },
    #[error(
        "the 12 bytes of indirect arguments at {offset} overrun {buffer} ({} bytes)",
        buffer.size
    )]
    IndirectOverrun { offset: u64, buffer: BufferIdent },
    #[error(transparent)]
    Lower(#[from] LowerError),
}
