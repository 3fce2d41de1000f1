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
    /// The pass descriptor's `timestamp_writes` cannot be used.
    #[error("timestamp_writes: {0}")]
    TimestampWrites(#[source] TimestampError),
    /// `write_timestamp` cannot write the given query.
    #[error("write_timestamp({index}): {source}")]
    WriteTimestamp {
        /// The query index.
        index: u32,
        /// Why the query cannot be written.
        #[source]
        source: TimestampError,
    },
    /// `set_pipeline` got a pipeline whose creation failed.
    #[error("set_pipeline: compute pipeline{} is invalid", label_suffix(pipeline))]
    InvalidPipeline {
        /// The pipeline's label, if it has one.
        pipeline: Option<String>,
    },
    /// `set_bind_group` got an index at or above the device's `max_bind_groups` limit.
    #[error("set_bind_group: index {index} is not below max_bind_groups ({max})")]
    BindGroupIndex {
        /// The bind group index.
        index: u32,
        /// The device's `max_bind_groups`.
        max: u32,
    },
    /// `set_bind_group` got a bind group whose creation failed.
    #[error("set_bind_group({index}): the bind group is invalid")]
    InvalidBindGroup {
        /// The bind group index.
        index: u32,
    },
    /// `set_bind_group` got a number of dynamic offsets other than the bind group's number of
    /// dynamic bindings.
    #[error(
        "set_bind_group({index}): {given} dynamic offsets given, the bind group has {expected} \
         dynamic bindings"
    )]
    DynamicOffsetCount {
        /// The bind group index.
        index: u32,
        /// How many dynamic offsets were given.
        given: usize,
        /// How many dynamic bindings the bind group has.
        expected: usize,
    },
    /// A dynamic offset is not a multiple of the device's offset alignment for its binding type.
    #[error(
        "set_bind_group({index}): dynamic offset {offset} of binding {binding} is not a multiple \
         of {alignment}"
    )]
    UnalignedDynamicOffset {
        /// The bind group index.
        index: u32,
        /// The binding the offset applies to.
        binding: u32,
        /// The dynamic offset in bytes.
        offset: u32,
        /// The device's `min_uniform_buffer_offset_alignment` or
        /// `min_storage_buffer_offset_alignment`, in bytes.
        alignment: u32,
    },
    /// A dynamic offset moves its binding's range past the end of the buffer.
    #[error(
        "set_bind_group({index}): dynamic offset {offset} of binding {binding} moves its range \
         {start}..{end} past the end of {buffer} ({} bytes)",
        buffer.size
    )]
    DynamicOffsetOverrun {
        /// The bind group index.
        index: u32,
        /// The binding the offset applies to.
        binding: u32,
        /// The dynamic offset in bytes.
        offset: u32,
        /// The moved range's start in bytes.
        start: u64,
        /// The moved range's end in bytes.
        end: u64,
        /// The bound buffer.
        buffer: BufferIdent,
    },
    /// `set_immediates` got an offset or a size that is not a multiple of 4.
    #[error("set_immediates: offset {offset} and size {size} must be multiples of 4")]
    UnalignedImmediates {
        /// The offset in bytes.
        offset: u32,
        /// The data's size in bytes.
        size: usize,
    },
    /// `set_immediates` writes past the device's `max_immediate_size` limit.
    #[error("set_immediates: bytes {offset}..{end} exceed max_immediate_size ({max})")]
    ImmediatesOverrun {
        /// The offset in bytes.
        offset: u32,
        /// The end of the written bytes.
        end: usize,
        /// The device's `max_immediate_size` in bytes.
        max: usize,
    },
    /// `dispatch_workgroups` cannot dispatch.
    #[error("dispatch_workgroups({}, {}, {}): {source}", counts[0], counts[1], counts[2])]
    Dispatch {
        /// The workgroup counts in x, y and z.
        counts: [u32; 3],
        /// Why the dispatch cannot run.
        #[source]
        source: DispatchError,
    },
    /// `dispatch_workgroups_indirect` cannot dispatch.
    #[error("dispatch_workgroups_indirect(offset {offset}): {source}")]
    DispatchIndirect {
        /// The offset of the arguments in the indirect buffer, in bytes.
        offset: u64,
        /// Why the dispatch cannot run.
        #[source]
        source: DispatchError,
    },
}

/// Why a dispatch failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum DispatchError {
    /// No pipeline was set in the pass before the dispatch.
    #[error("no pipeline is set; call set_pipeline first")]
    NoPipeline,
    /// The pass's pipeline is invalid: its creation failed.
    #[error("compute pipeline{} is invalid", label_suffix(pipeline))]
    InvalidPipeline {
        /// The pipeline's label, if it has one.
        pipeline: Option<String>,
    },
    /// The pipeline's layout has a bind group that the pass did not set.
    /// (The message carries wgpu's words for the same error.)
    #[error(
        "The current set ComputePipeline with '{}' label expects a BindGroup to be set at index \
         {index}: bind group {index} is not set; the pipeline's layout needs one",
        pipeline.as_deref().unwrap_or("")
    )]
    MissingBindGroup {
        /// The bind group index.
        index: u32,
        /// The pipeline's label.
        pipeline: Option<String>,
    },
    /// A bind group's layout is not compatible with the pipeline's layout at its index.
    #[error(
        "the bind group at index {index} was made with {bound}, which is incompatible with \
         {expected} that the pipeline expects (derived layouts are only compatible with their own \
         pipeline)"
    )]
    IncompatibleBindGroup {
        /// The bind group index.
        index: u32,
        /// The layout the bind group was made with.
        bound: LayoutIdent,
        /// The layout the pipeline expects.
        expected: LayoutIdent,
    },
    /// The bind group lacks a binding the shader uses.
    #[error("bind group {group} has no binding {binding}")]
    MissingBinding {
        /// The bind group index.
        group: u32,
        /// The binding number.
        binding: u32,
    },
    /// A bound range is smaller than the shader's minimum binding size for it.
    #[error(
        "@group({group}) @binding({binding}) is bound with {size} bytes but the shader needs at \
         least {min} (its minimum binding size)"
    )]
    BindingTooSmall {
        /// The bind group index.
        group: u32,
        /// The binding number.
        binding: u32,
        /// The bound size in bytes.
        size: u64,
        /// The shader's minimum binding size in bytes.
        min: u64,
    },
    /// A bound buffer is invalid: its creation failed.
    #[error("@group({group}) @binding({binding}): the buffer is invalid")]
    InvalidBindingBuffer {
        /// The bind group index.
        group: u32,
        /// The binding number.
        binding: u32,
    },
    /// A bound texture view's image descriptor cannot be encoded at its
    /// texture's address.
    #[error("group {group} binding {binding}: the texture's image descriptor: {source}")]
    TextureDescriptor {
        /// The bind group index.
        group: u32,
        /// The binding number.
        binding: u32,
        /// Why it cannot be encoded.
        #[source]
        source: aqueduct_isa::gfx11::image_desc::ImageDescriptorError,
    },
    /// The kernel argument block could not be built from the kernel's metadata.
    #[error(transparent)]
    Kernarg(#[from] CodeObjectError),
    /// A buffer bound as writable storage overlaps another binding of the same dispatch.
    #[error(
        "{buffer} is bound as writable storage and bound again (overlapping) in the same \
         dispatch; a writable storage binding must not alias another binding"
    )]
    WritableAlias {
        /// The buffer.
        buffer: BufferIdent,
    },
    /// A workgroup count is above the device's `max_compute_workgroups_per_dimension` limit.
    #[error("a workgroup count exceeds max_compute_workgroups_per_dimension ({limit})")]
    InvalidGroupCount {
        /// The workgroup counts in x, y and z.
        current: [u32; 3],
        /// The device's `max_compute_workgroups_per_dimension`.
        limit: u32,
    },
    /// In one dimension, the workgroup count times the workgroup size does not fit 32 bits.
    #[error("the grid ({count} workgroups of {workgroup}) overflows 32 bits")]
    GridOverflow {
        /// The workgroup count in that dimension.
        count: u32,
        /// The workgroup size in that dimension.
        workgroup: u32,
    },
    /// The grid has more work-items than the GPU's grid max size.
    #[error(
        "the grid ({counts:?} workgroups of {workgroup:?}) holds {work_items} work-items, above the \
         {max} the GPU runs in one dispatch (its grid max size); split the dispatch"
    )]
    GridTooLarge {
        /// The workgroup counts in x, y and z.
        counts: [u32; 3],
        /// The workgroup size in x, y and z.
        workgroup: [u32; 3],
        /// The grid's total number of work-items.
        work_items: u128,
        /// The agent's grid max size in work-items.
        max: u32,
    },
    /// The indirect buffer is invalid, destroyed or of another device.
    #[error(transparent)]
    IndirectUnusable(UnusableBuffer),
    /// The indirect buffer lacks `BufferUsages::INDIRECT`.
    #[error("{buffer} lacks INDIRECT usage")]
    MissingIndirectUsage {
        /// The indirect buffer.
        buffer: BufferIdent,
    },
    /// The indirect offset is not a multiple of 4.
    #[error("the indirect offset {offset} is not a multiple of 4")]
    UnalignedIndirectOffset {
        /// The offset in bytes.
        offset: u64,
    },
    /// The 12 bytes of arguments at the offset run past the end of the indirect buffer.
    #[error(
        "Indirect buffer uses bytes {offset}..{} which overruns indirect buffer of size {}: the \
         12 bytes of indirect arguments at {offset} overrun {buffer}",
        offset.saturating_add(12),
        buffer.size
    )]
    IndirectOverrun {
        /// The offset in bytes.
        offset: u64,
        /// The indirect buffer.
        buffer: BufferIdent,
    },
    /// The pipeline's shader reads immediate bytes the pass never set
    /// with `set_immediates` (wgpu's `MissingImmediateData`).
    #[error(
        "not all immediate data the pipeline reads has been set with set_immediates (missing \
         bytes: {})",
        slot_ranges(*missing)
    )]
    MissingImmediateData {
        /// The unset 4-byte slots (bit n: bytes 4n..4n + 4).
        missing: u64,
    },
    /// The dispatch could not be lowered to packets.
    #[error(transparent)]
    Lower(#[from] LowerError),
}

/// `0..8, 16..32`: the byte ranges of the set bits of a slot mask.
fn slot_ranges(mask: u64) -> String {
    let mut ranges = Vec::new();
    let mut n = 0u32;
    while n < 64 {
        if mask >> n & 1 == 0 {
            n += 1;
            continue;
        }
        let start = n;
        while n < 64 && mask >> n & 1 == 1 {
            n += 1;
        }
        ranges.push(format!("{}..{}", 4 * start, 4 * n));
    }
    ranges.join(", ")
}
