//! Validation errors of bind group layouts and bind groups.

use wgpu_types::{BindingType, BufferBindingType, BufferUsages, ShaderStages};

use crate::binding_limits::BindingCountKind;

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
    /// Two layout entries have the same binding number.
    #[error(
        "create_bind_group_layout{}: binding {binding} is declared twice",
        label_suffix(label)
    )]
    DuplicateBinding {
        /// The layout's label, if it has one.
        label: Option<String>,
        /// The repeated binding number.
        binding: u32,
    },
    /// A binding number is at or above the device's `max_bindings_per_bind_group` limit.
    #[error(
        "create_bind_group_layout{}: binding {binding} is not below max_bindings_per_bind_group ({max})",
        label_suffix(label)
    )]
    BindingLimit {
        /// The layout's label, if it has one.
        label: Option<String>,
        /// The binding number.
        binding: u32,
        /// The device's `max_bindings_per_bind_group`.
        max: u32,
    },
    /// An entry has a `count`, which would make it a binding array.
    #[error(
        "create_bind_group_layout{}: binding {binding}: binding arrays (count) are not supported",
        label_suffix(label)
    )]
    BindingArray {
        /// The layout's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
    },
    /// An entry's type is not a buffer binding type.
    #[error(
        "create_bind_group_layout{}: binding {binding}: {ty:?} is not a buffer binding; Aqueduct \
         is compute-only and supports buffer bindings only",
        label_suffix(label)
    )]
    NotBuffer {
        /// The layout's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
        /// The entry's binding type.
        ty: BindingType,
    },
    /// A texture entry the device cannot bind.
    #[error(
        "create_bind_group_layout{}: binding {binding}: {source}",
        label_suffix(label)
    )]
    Texture {
        /// The layout's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
        /// Why the entry is refused.
        #[source]
        source: super::TextureBindingError,
    },
    /// More bindings of a kind than a binding-count limit allows.
    #[error("create_bind_group_layout{}: {source}", label_suffix(label))]
    TooManyBindings {
        /// The layout's label, if it has one.
        label: Option<String>,
        /// The count and the limit it exceeds.
        source: TooManyBindings,
    },
}

/// A binding count past its limit (WebGPU's binding slot limits; wgpu-core's
/// `BindingTypeMaxCountError`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{count} {} {} exceed {} ({limit})",
    kind_words(*.kind),
    zone_words(.stages),
    .kind.limit_name()
)]
pub struct TooManyBindings {
    /// The kind of binding counted.
    pub kind: BindingCountKind,
    /// The stages with the largest count, for a per-stage limit; `None`
    /// for a per-pipeline-layout one (the dynamic-offset kinds).
    pub stages: Option<ShaderStages>,
    /// How many there are.
    pub count: u32,
    /// The device's limit.
    pub limit: u32,
}

fn kind_words(kind: BindingCountKind) -> &'static str {
    match kind {
        BindingCountKind::DynamicUniformBuffers => "dynamic-offset uniform buffers",
        BindingCountKind::DynamicStorageBuffers => "dynamic-offset storage buffers",
        BindingCountKind::SampledTextures => "sampled textures",
        BindingCountKind::Samplers => "samplers",
        BindingCountKind::StorageBuffers => "storage buffers",
        BindingCountKind::StorageTextures => "storage textures",
        BindingCountKind::UniformBuffers => "uniform buffers",
    }
}

fn zone_words(stages: &Option<ShaderStages>) -> String {
    match stages {
        Some(s) => format!("visible to the {s:?} stage"),
        None => "in one pipeline layout".to_string(),
    }
}

/// Why `create_bind_group` failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BindGroupError {
    /// An object of another device was given.
    #[error(transparent)]
    WrongDevice(#[from] super::DeviceMismatch),
    /// The layout is invalid: its creation failed.
    #[error("create_bind_group{}: {layout} is invalid", label_suffix(label))]
    InvalidLayout {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The layout.
        layout: LayoutIdent,
    },
    /// The number of entries differs from the layout's.
    #[error(
        "create_bind_group{}: {given} entries given but {layout} has {expected} entries; a bind \
         group must bind every layout entry exactly once",
        label_suffix(label)
    )]
    EntryCount {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// How many entries the descriptor gives.
        given: usize,
        /// The layout.
        layout: LayoutIdent,
        /// How many entries the layout has.
        expected: usize,
    },
    /// Two entries have the same binding number.
    #[error(
        "create_bind_group{}: binding {binding} is given twice",
        label_suffix(label)
    )]
    DuplicateBinding {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The repeated binding number.
        binding: u32,
    },
    /// An entry's binding number is not in the layout.
    #[error(
        "create_bind_group{}: binding {binding} is not in {layout}",
        label_suffix(label)
    )]
    NotInLayout {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
        /// The layout.
        layout: LayoutIdent,
    },
    /// An entry binds something other than a buffer.
    #[error(
        "create_bind_group{}: binding {binding} is not a buffer binding",
        label_suffix(label)
    )]
    NotBufferBinding {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
    },
    /// A texture binding's view does not fit its layout entry.
    #[error(
        "create_bind_group{}: binding {binding}: {source}",
        label_suffix(label)
    )]
    Texture {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
        /// Why the view does not fit.
        #[source]
        source: super::TextureBindingError,
    },
    /// A sampler entry that does not fit its layout entry.
    #[error(
        "create_bind_group{}: binding {binding}: {source}",
        label_suffix(label)
    )]
    Sampler {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
        /// Why the sampler does not fit.
        #[source]
        source: super::SamplerBindingError,
    },
    /// A bound buffer is invalid, destroyed or of another device.
    #[error("create_bind_group{}: {source}", label_suffix(label))]
    Unusable {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// What is wrong with the buffer, and for which binding.
        #[source]
        source: UnusableBuffer,
    },
    /// A bound buffer lacks the usage its binding type needs (`UNIFORM` or `STORAGE`).
    #[error(
        "create_bind_group{}: binding {binding}: {buffer} has usage {usage:?}, which lacks \
         {needed:?} needed for a {} binding; add it when creating the buffer",
        label_suffix(label),
        binding_kind(ty)
    )]
    MissingUsage {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
        /// The bound buffer.
        buffer: BufferIdent,
        /// The buffer's usage.
        usage: BufferUsages,
        /// The usage the binding needs.
        needed: BufferUsages,
        /// The layout entry's buffer binding type.
        ty: BufferBindingType,
    },
    /// An entry's offset is not a multiple of the device's offset alignment for its type.
    #[error(
        "create_bind_group{}: binding {binding}: offset {offset} is not a multiple of \
         min_{}_buffer_offset_alignment ({alignment})",
        label_suffix(label),
        binding_kind(ty)
    )]
    UnalignedOffset {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
        /// The offset in bytes.
        offset: u64,
        /// The device's `min_uniform_buffer_offset_alignment` or
        /// `min_storage_buffer_offset_alignment`, in bytes.
        alignment: u32,
        /// The layout entry's buffer binding type.
        ty: BufferBindingType,
    },
    /// An entry's offset lies past the end of its buffer.
    #[error(
        "create_bind_group{}: binding {binding}: offset {offset} is past the end of {buffer} ({} bytes)",
        label_suffix(label),
        buffer.size
    )]
    OffsetPastEnd {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
        /// The offset in bytes.
        offset: u64,
        /// The bound buffer.
        buffer: BufferIdent,
    },
    /// An entry's offset plus size runs past the end of its buffer.
    #[error(
        "create_bind_group{}: binding {binding}: range {offset}..{end} overruns {buffer} ({} bytes)",
        label_suffix(label),
        buffer.size
    )]
    Overrun {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
        /// The range's start in bytes.
        offset: u64,
        /// The range's end in bytes.
        end: u128,
        /// The bound buffer.
        buffer: BufferIdent,
    },
    /// An entry binds zero bytes.
    #[error(
        "create_bind_group{}: binding {binding}: the bound range is empty; bind at least 4 bytes",
        label_suffix(label)
    )]
    EmptyRange {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
    },
    /// An entry binds fewer bytes than the layout entry's `min_binding_size`.
    #[error(
        "create_bind_group{}: binding {binding}: the bound size {size} is below the layout's \
         min_binding_size {min}",
        label_suffix(label)
    )]
    BelowMinBindingSize {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
        /// The bound size in bytes.
        size: u64,
        /// The layout entry's `min_binding_size` in bytes.
        min: u64,
    },
    /// An entry binds more bytes than the device's binding size limit for its type.
    #[error(
        "create_bind_group{}: binding {binding}: the bound size {size} exceeds \
         max_{}_buffer_binding_size ({max})",
        label_suffix(label),
        binding_kind(ty)
    )]
    BindingTooLarge {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
        /// The bound size in bytes.
        size: u64,
        /// The device's `max_uniform_buffer_binding_size` or `max_storage_buffer_binding_size`, in
        /// bytes.
        max: u64,
        /// The layout entry's buffer binding type.
        ty: BufferBindingType,
    },
    /// A storage entry's bound size is not a multiple of 4.
    #[error(
        "create_bind_group{}: binding {binding}: a storage binding's size must be a multiple of \
         4, not {size}",
        label_suffix(label)
    )]
    UnalignedStorageSize {
        /// The bind group's label, if it has one.
        label: Option<String>,
        /// The entry's binding number.
        binding: u32,
        /// The bound size in bytes.
        size: u64,
    },
}
