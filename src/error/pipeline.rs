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
    #[error(
        "create_pipeline_layout{}: {count} bind group layouts exceed max_bind_groups ({max})",
        label_suffix(label)
    )]
    TooManyGroups {
        label: Option<String>,
        count: usize,
        max: u32,
    },
    #[error(
        "create_pipeline_layout{}: immediate_size {size} exceeds max_immediate_size ({max}); \
         request a larger limit (and Features::IMMEDIATES) when creating the device",
        label_suffix(label)
    )]
    ImmediateSizeLimit {
        label: Option<String>,
        size: u32,
        max: u32,
    },
    #[error(
        "create_pipeline_layout{}: immediate_size {size} is not a multiple of 4",
        label_suffix(label)
    )]
    UnalignedImmediateSize { label: Option<String>, size: u32 },
    #[error(
        "create_pipeline_layout{}: bind group layout {index} is invalid",
        label_suffix(label)
    )]
    InvalidGroupLayout { label: Option<String>, index: usize },
}

/// Why a pipeline layout's entry cannot hold what the shader binds.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutMismatch {
    #[error("the layout entry is not a buffer")]
    NotBuffer,
    #[error("the layout entry is not visible to the COMPUTE stage")]
    NotComputeVisible,
    #[error("the shader declares {shader:?} but the layout has {layout:?}")]
    Type {
        shader: BufferBindingType,
        layout: BufferBindingType,
    },
    #[error("the layout's min_binding_size {layout} is below the shader's {shader}")]
    MinBindingSize { layout: u64, shader: u64 },
}

/// Why `create_compute_pipeline` or `get_bind_group_layout` failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ComputePipelineError {
    /// An object of another device was given.
    #[error(transparent)]
    WrongDevice(#[from] super::DeviceMismatch),
    #[error(
        "create_compute_pipeline{}: its shader module is invalid ({module})",
        label_suffix(label)
    )]
    InvalidModule {
        label: Option<String>,
        module: Box<ShaderModuleError>,
    },
    #[error(
        "create_compute_pipeline{}: pipeline-overridable constants {names:?} were given, but the \
         shader module is a code object, which has no overrides; only WGSL modules take constants",
        label_suffix(label)
    )]
    ConstantsOnCodeObject {
        label: Option<String>,
        names: Vec<String>,
    },
    #[error("create_compute_pipeline{}: {source}", label_suffix(label))]
    EntryPoint {
        label: Option<String>,
        #[source]
        source: EntryPointError,
    },
    /// The WGSL variant for the pipeline's constants did not resolve.
    #[error("create_compute_pipeline{}: {source}", label_suffix(label))]
    Variant {
        label: Option<String>,
        #[source]
        source: ShaderLoadError,
    },
    #[error(
        "create_compute_pipeline{}: workgroup size {size:?} exceeds the device limits (x {}, y {}, \
         z {}, {max_invocations} invocations) or the kernel's maximum of {kernel_max} work-items",
        label_suffix(label),
        max_size[0],
        max_size[1],
        max_size[2]
    )]
    WorkgroupSizeLimit {
        label: Option<String>,
        size: [u32; 3],
        max_size: [u32; 3],
        max_invocations: u32,
        kernel_max: u32,
    },
    #[error(
        "create_compute_pipeline{}: the kernel uses {size} bytes of workgroup memory, above \
         max_compute_workgroup_storage_size ({max})",
        label_suffix(label)
    )]
    WorkgroupStorageLimit {
        label: Option<String>,
        size: u32,
        max: u32,
    },
    #[error(
        "create_compute_pipeline{}: its pipeline layout is invalid",
        label_suffix(label)
    )]
    InvalidLayout { label: Option<String> },
    #[error(
        "create_compute_pipeline{}: the shader uses @group({group}) @binding({binding}) but the \
         pipeline layout has no bind group layout {group}",
        label_suffix(label)
    )]
    MissingGroupLayout {
        label: Option<String>,
        group: u32,
        binding: u32,
    },
    #[error(
        "create_compute_pipeline{}: the shader uses @group({group}) @binding({binding}) but bind \
         group layout {group} has no binding {binding}",
        label_suffix(label)
    )]
    MissingLayoutBinding {
        label: Option<String>,
        group: u32,
        binding: u32,
    },
    #[error(
        "create_compute_pipeline{}: @group({group}) @binding({binding}): {source}",
        label_suffix(label)
    )]
    BindingMismatch {
        label: Option<String>,
        group: u32,
        binding: u32,
        #[source]
        source: LayoutMismatch,
    },
    #[error(
        "create_compute_pipeline{}: the kernel takes {size} bytes of immediates but the pipeline \
         layout's immediate_size is {layout_size}",
        label_suffix(label)
    )]
    ImmediatesExceedLayout {
        label: Option<String>,
        size: u32,
        layout_size: u32,
    },
    #[error(
        "create_compute_pipeline{}: the shader uses group {group} but max_bind_groups is {max}",
        label_suffix(label)
    )]
    GroupLimit {
        label: Option<String>,
        group: u32,
        max: u32,
    },
    #[error(
        "create_compute_pipeline{}: the kernel takes {size} bytes of immediates (by-value \
         arguments) but max_immediate_size is {max}; request Features::IMMEDIATES and a larger \
         max_immediate_size",
        label_suffix(label)
    )]
    ImmediateSizeLimit {
        label: Option<String>,
        size: u32,
        max: u32,
    },
    #[error(
        "get_bind_group_layout({index}): the pipeline{} has {count} bind group layouts{}",
        label_suffix(label),
        if *pipeline_valid { "" } else { " (it is invalid)" }
    )]
    BindGroupLayoutIndex {
        label: Option<String>,
        index: u32,
        count: usize,
        pipeline_valid: bool,
    },
}
