//! Validation errors of bind group layouts and bind groups.

use wgpu_types::{BindingType, BufferBindingType, BufferUsages};

use super::ident::{BufferIdent, LayoutIdent, UnusableBuffer, label_suffix};

/// `uniform` or `storage`, as limit names spell the binding type.
pub(crate) fn binding_kind(ty: &BufferBindingType) -> &'static str {
    match ty {
        BufferBindingType::Uniform => "uniform",
        BufferBindingType::Storage { .. } => "storage",
    }
}

/// Why `create_bind_group_layout` failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BindGroupLayoutError {
    #[error(
        "create_bind_group_layout{}: binding {binding} is declared twice",
        label_suffix(label)
    )]
    DuplicateBinding { label: Option<String>, binding: u32 },
    #[error(
        "create_bind_group_layout{}: binding {binding} is not below max_bindings_per_bind_group ({max})",
        label_suffix(label)
    )]
    BindingLimit {
        label: Option<String>,
        binding: u32,
        max: u32,
    },
    #[error(
        "create_bind_group_layout{}: binding {binding}: binding arrays (count) are not supported",
        label_suffix(label)
    )]
    BindingArray { label: Option<String>, binding: u32 },
    #[error(
        "create_bind_group_layout{}: binding {binding}: {ty:?} is not a buffer binding; Aqueduct \
         is compute-only and supports buffer bindings only",
        label_suffix(label)
    )]
    NotBuffer {
        label: Option<String>,
        binding: u32,
        ty: BindingType,
    },
    #[error(
        "create_bind_group_layout{}: {count} dynamic uniform buffers exceed \
         max_dynamic_uniform_buffers_per_pipeline_layout ({max})",
        label_suffix(label)
    )]
    TooManyDynamicUniform {
        label: Option<String>,
        count: u32,
        max: u32,
    },
    #[error(
        "create_bind_group_layout{}: {count} dynamic storage buffers exceed \
         max_dynamic_storage_buffers_per_pipeline_layout ({max})",
        label_suffix(label)
    )]
    TooManyDynamicStorage {
        label: Option<String>,
        count: u32,
        max: u32,
    },
}

/// Why `create_bind_group` failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BindGroupError {
    #[error("create_bind_group{}: {layout} is invalid", label_suffix(label))]
    InvalidLayout {
        label: Option<String>,
        layout: LayoutIdent,
    },
    #[error(
        "create_bind_group{}: {given} entries given but {layout} has {expected} entries; a bind \
         group must bind every layout entry exactly once",
        label_suffix(label)
    )]
    EntryCount {
        label: Option<String>,
        given: usize,
        layout: LayoutIdent,
        expected: usize,
    },
    #[error(
        "create_bind_group{}: binding {binding} is given twice",
        label_suffix(label)
    )]
    DuplicateBinding { label: Option<String>, binding: u32 },
    #[error(
        "create_bind_group{}: binding {binding} is not in {layout}",
        label_suffix(label)
    )]
    NotInLayout {
        label: Option<String>,
        binding: u32,
        layout: LayoutIdent,
    },
    #[error(
        "create_bind_group{}: binding {binding} is not a buffer binding",
        label_suffix(label)
    )]
    NotBufferBinding { label: Option<String>, binding: u32 },
    #[error("create_bind_group{}: {source}", label_suffix(label))]
    Unusable {
        label: Option<String>,
        #[source]
        source: UnusableBuffer,
    },
    #[error(
        "create_bind_group{}: binding {binding}: {buffer} has usage {usage:?}, which lacks \
         {needed:?} needed for a {} binding; add it when creating the buffer",
        label_suffix(label),
        binding_kind(ty)
    )]
    MissingUsage {
        label: Option<String>,
        binding: u32,
        buffer: BufferIdent,
        usage: BufferUsages,
        needed: BufferUsages,
        ty: BufferBindingType,
    },
    #[error(
        "create_bind_group{}: binding {binding}: offset {offset} is not a multiple of \
         min_{}_buffer_offset_alignment ({alignment})",
        label_suffix(label),
        binding_kind(ty)
    )]
    UnalignedOffset {
        label: Option<String>,
        binding: u32,
        offset: u64,
        alignment: u32,
        ty: BufferBindingType,
    },
    #[error(
        "create_bind_group{}: binding {binding}: offset {offset} is past the end of {buffer} ({} bytes)",
        label_suffix(label),
        buffer.size
    )]
    OffsetPastEnd {
        label: Option<String>,
        binding: u32,
        offset: u64,
        buffer: BufferIdent,
    },
    #[error(
        "create_bind_group{}: binding {binding}: range {offset}..{end} overruns {buffer} ({} bytes)",
        label_suffix(label),
        buffer.size
    )]
    Overrun {
        label: Option<String>,
        binding: u32,
        offset: u64,
        end: u128,
        buffer: BufferIdent,
    },
    #[error(
        "create_bind_group{}: binding {binding}: the bound range is empty; bind at least 4 bytes",
        label_suffix(label)
    )]
    EmptyRange { label: Option<String>, binding: u32 },
    #[error(
        "create_bind_group{}: binding {binding}: the bound size {size} is below the layout's \
         min_binding_size {min}",
        label_suffix(label)
    )]
    BelowMinBindingSize {
        label: Option<String>,
        binding: u32,
        size: u64,
        min: u64,
    },
    #[error(
        "create_bind_group{}: binding {binding}: the bound size {size} exceeds \
         max_{}_buffer_binding_size ({max})",
        label_suffix(label),
        binding_kind(ty)
    )]
    BindingTooLarge {
        label: Option<String>,
        binding: u32,
        size: u64,
        max: u64,
        ty: BufferBindingType,
    },
    #[error(
        "create_bind_group{}: binding {binding}: a storage binding's size must be a multiple of \
         4, not {size}",
        label_suffix(label)
    )]
    UnalignedStorageSize {
        label: Option<String>,
        binding: u32,
        size: u64,
    },
}
