//! Validation errors of pipeline layouts and compute pipelines.

use wgpu_types::BufferBindingType;

use super::ident::label_suffix;
use super::shader::{EntryPointError, ShaderLoadError, ShaderModuleError};

/// Why `create_pipeline_layout` failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PipelineLayoutError {
    /// An object of another device was given.
    #[error(transparent)]
    WrongDevice(#[from] super::DeviceMismatch),
    /// More bind group layouts than the device's `max_bind_groups` limit allows.
    #[error(
        "create_pipeline_layout{}: {count} bind group layouts exceed max_bind_groups ({max})",
        label_suffix(label)
    )]
    TooManyGroups {
        /// The pipeline layout's label, if it has one.
        label: Option<String>,
        /// How many bind group layouts were given.
        count: usize,
        /// The device's `max_bind_groups`.
        max: u32,
    },
    /// `immediate_size` is above the device's `max_immediate_size` limit.
    #[error(
        "create_pipeline_layout{}: immediate_size {size} exceeds max_immediate_size ({max}); \
         request a larger limit (and Features::IMMEDIATES) when creating the device",
        label_suffix(label)
    )]
    ImmediateSizeLimit {
        /// The pipeline layout's label, if it has one.
        label: Option<String>,
        /// The requested immediate size in bytes.
        size: u32,
        /// The device's `max_immediate_size` in bytes.
        max: u32,
    },
    /// A non-zero `immediate_size` on a device without `Features::IMMEDIATES`.
    #[error(
        "create_pipeline_layout{}: immediate_size {size} needs Features::IMMEDIATES, which the \
         device was not opened with",
        label_suffix(label)
    )]
    ImmediatesNeedFeature {
        /// The pipeline layout's label, if it has one.
        label: Option<String>,
        /// The requested immediate size in bytes.
        size: u32,
    },
    /// `immediate_size` is not a multiple of 4.
    #[error(
        "create_pipeline_layout{}: immediate_size {size} is not a multiple of 4",
        label_suffix(label)
    )]
    UnalignedImmediateSize {
        /// The pipeline layout's label, if it has one.
        label: Option<String>,
        /// The requested immediate size in bytes.
        size: u32,
    },
    /// A bind group layout is invalid: its creation failed.
    #[error(
        "create_pipeline_layout{}: bind group layout {index} is invalid",
        label_suffix(label)
    )]
    InvalidGroupLayout {
        /// The pipeline layout's label, if it has one.
        label: Option<String>,
        /// The layout's index in `bind_group_layouts`.
        index: usize,
    },
    /// The groups together have more bindings of a kind than a
    /// binding-count limit allows.
    #[error("create_pipeline_layout{}: {source}", label_suffix(label))]
    TooManyBindings {
        /// The pipeline layout's label, if it has one.
        label: Option<String>,
        /// The count and the limit it exceeds.
        source: super::TooManyBindings,
    },
}

/// Why a pipeline layout's entry cannot hold what the shader binds.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutMismatch {
    /// The layout entry is not a buffer binding.
    #[error("the layout entry is not a buffer")]
    NotBuffer,
    /// The shader binds a texture and the layout entry is another texture
    /// type, or not a texture.
    #[error("the shader declares {shader:?} but the layout has {layout:?}")]
    Texture {
        /// The type the shader declares.
        shader: wgpu_types::BindingType,
        /// The layout entry's type.
        layout: wgpu_types::BindingType,
    },
    /// The shader binds a sampler (`comparison`: a `sampler_comparison`)
    /// and the layout entry is not a sampler of that kind (wgpu-core's
    /// `BindingError::WrongSamplerComparison`).
    #[error(
        "the shader declares a {} but the layout has {layout:?}",
        if *comparison { "sampler_comparison" } else { "sampler" }
    )]
    Sampler {
        /// Whether the shader's sampler compares.
        comparison: bool,
        /// The layout entry's type.
        layout: wgpu_types::BindingType,
    },
    /// The layout entry's visibility lacks `ShaderStages::COMPUTE`.
    #[error("the layout entry is not visible to the COMPUTE stage")]
    NotComputeVisible,
    /// The shader and the layout entry declare different buffer binding types.
    #[error("the shader declares {shader:?} but the layout has {layout:?}")]
    Type {
        /// The type the shader declares.
        shader: BufferBindingType,
        /// The type the layout entry has.
        layout: BufferBindingType,
    },
    /// The layout entry's `min_binding_size` is below the size the shader needs.
    #[error("the layout's min_binding_size {layout} is below the shader's {shader}")]
    MinBindingSize {
        /// The layout entry's `min_binding_size` in bytes.
        layout: u64,
        /// The shader's minimum binding size in bytes.
        shader: u64,
    },
}

/// Why `create_compute_pipeline` or `get_bind_group_layout` failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ComputePipelineError {
    /// The entry point samples a texture whose layout entry cannot be
    /// filtered with a sampler whose layout entry is `Filtering`
    /// (wgpu-core's `FilteringError::Integer` and `FilteringError::Float`).
    #[error(
        "create_compute_pipeline{}: texture (group {}, binding {}) is {sample_type:?}, which \
         the Filtering sampler (group {}, binding {}) cannot sample; use a NonFiltering sampler \
         or a filterable texture",
        label_suffix(label),
        texture[0],
        texture[1],
        sampler[0],
        sampler[1]
    )]
    Filtering {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// The texture's (group, binding).
        texture: [u32; 2],
        /// The sampler's (group, binding).
        sampler: [u32; 2],
        /// The texture layout entry's sample type.
        sample_type: wgpu_types::TextureSampleType,
    },
    /// An object of another device was given.
    #[error(transparent)]
    WrongDevice(#[from] super::DeviceMismatch),
    /// The shader module is invalid: its creation failed.
    #[error(
        "create_compute_pipeline{}: its shader module is invalid ({module})",
        label_suffix(label)
    )]
    InvalidModule {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// Why the module is invalid.
        module: Box<ShaderModuleError>,
    },
    /// Pipeline-overridable constants were given for a code-object module, which has none.
    #[error(
        "create_compute_pipeline{}: pipeline-overridable constants {names:?} were given, but the \
         shader module is a code object, which has no overrides; only WGSL modules take constants",
        label_suffix(label)
    )]
    ConstantsOnCodeObject {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// The names of the given constants.
        names: Vec<String>,
    },
    /// The named entry point is not in the module, or none is named and the module has several.
    #[error("create_compute_pipeline{}: {source}", label_suffix(label))]
    EntryPoint {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// What is wrong with the entry point.
        #[source]
        source: EntryPointError,
    },
    /// The WGSL variant for the pipeline's constants did not resolve.
    #[error("create_compute_pipeline{}: {source}", label_suffix(label))]
    Variant {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// Why the variant did not resolve.
        #[source]
        source: ShaderLoadError,
    },
    /// The workgroup size is above the device's limits or the kernel's maximum.
    #[error(
        "create_compute_pipeline{}: workgroup size {size:?} exceeds the device limits (x {}, y {}, \
         z {}, {max_invocations} invocations) or the kernel's maximum of {kernel_max} work-items",
        label_suffix(label),
        max_size[0],
        max_size[1],
        max_size[2]
    )]
    WorkgroupSizeLimit {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// The shader's workgroup size in x, y and z.
        size: [u32; 3],
        /// The device's `max_compute_workgroup_size_x`, `_y` and `_z`.
        max_size: [u32; 3],
        /// The device's `max_compute_invocations_per_workgroup`.
        max_invocations: u32,
        /// The most work-items per workgroup the kernel allows.
        kernel_max: u32,
    },
    /// The kernel's workgroup memory is above the device's `max_compute_workgroup_storage_size`
    /// limit.
    #[error(
        "create_compute_pipeline{}: the kernel uses {size} bytes of workgroup memory, above \
         max_compute_workgroup_storage_size ({max})",
        label_suffix(label)
    )]
    WorkgroupStorageLimit {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// The kernel's workgroup memory in bytes.
        size: u32,
        /// The device's `max_compute_workgroup_storage_size` in bytes.
        max: u32,
    },
    /// The pipeline layout is invalid: its creation failed.
    #[error(
        "create_compute_pipeline{}: its pipeline layout is invalid",
        label_suffix(label)
    )]
    InvalidLayout {
        /// The pipeline's label, if it has one.
        label: Option<String>,
    },
    /// The shader uses a bind group the pipeline layout has no bind group layout for.
    #[error(
        "create_compute_pipeline{}: the shader uses @group({group}) @binding({binding}) but the \
         pipeline layout has no bind group layout {group}",
        label_suffix(label)
    )]
    MissingGroupLayout {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// The bind group index the shader uses.
        group: u32,
        /// A binding of that group the shader uses.
        binding: u32,
    },
    /// The shader uses a binding the bind group layout lacks.
    #[error(
        "create_compute_pipeline{}: the shader uses @group({group}) @binding({binding}) but bind \
         group layout {group} has no binding {binding}",
        label_suffix(label)
    )]
    MissingLayoutBinding {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// The bind group index.
        group: u32,
        /// The binding number.
        binding: u32,
    },
    /// A layout entry cannot hold what the shader binds there.
    #[error(
        "create_compute_pipeline{}: @group({group}) @binding({binding}): {source}",
        label_suffix(label)
    )]
    BindingMismatch {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// The bind group index.
        group: u32,
        /// The binding number.
        binding: u32,
        /// How the entry and the shader disagree.
        #[source]
        source: LayoutMismatch,
    },
    /// The kernel takes more bytes of immediates than the pipeline layout's `immediate_size`.
    #[error(
        "create_compute_pipeline{}: the kernel takes {size} bytes of immediates but the pipeline \
         layout's immediate_size is {layout_size}",
        label_suffix(label)
    )]
    ImmediatesExceedLayout {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// The kernel's immediates in bytes.
        size: u32,
        /// The pipeline layout's `immediate_size` in bytes.
        layout_size: u32,
    },
    /// With a derived layout, the shader uses a bind group index at or above `max_bind_groups`.
    #[error(
        "create_compute_pipeline{}: the shader uses group {group} but max_bind_groups is {max}",
        label_suffix(label)
    )]
    GroupLimit {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// The highest bind group index the shader uses.
        group: u32,
        /// The device's `max_bind_groups`.
        max: u32,
    },
    /// With a derived layout, the shader binds more of a kind than a
    /// binding-count limit allows.
    #[error("create_compute_pipeline{}: {source}", label_suffix(label))]
    TooManyBindings {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// The count and the limit it exceeds.
        source: super::TooManyBindings,
    },
    /// The kernel's immediates are above the device's `max_immediate_size` limit.
    #[error(
        "create_compute_pipeline{}: the kernel takes {size} bytes of immediates (by-value \
         arguments) but max_immediate_size is {max}; request Features::IMMEDIATES and a larger \
         max_immediate_size",
        label_suffix(label)
    )]
    ImmediateSizeLimit {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// The kernel's immediates in bytes.
        size: u32,
        /// The device's `max_immediate_size` in bytes.
        max: u32,
    },
    /// `get_bind_group_layout` got an index the pipeline has no bind group layout at.
    #[error(
        "get_bind_group_layout({index}): the pipeline{} has {count} bind group layouts{}",
        label_suffix(label),
        if *pipeline_valid { "" } else { " (it is invalid)" }
    )]
    BindGroupLayoutIndex {
        /// The pipeline's label, if it has one.
        label: Option<String>,
        /// The requested index.
        index: u32,
        /// How many bind group layouts the pipeline has.
        count: usize,
        /// Whether the pipeline is valid (an invalid one has none).
        pipeline_valid: bool,
    },
}
