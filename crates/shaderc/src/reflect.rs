//! Reflection: what the facade needs to build bind group layouts and fill
//! kernel arguments without re-parsing WGSL at run time. Written next to
//! each code object as `NAME.reflect.json`.
//!
//! Schema (version 1):
//! ```json
//! { "version": 1, "source": "fill.wgsl",
//!   "source_hash": "9f86d08188…",
//!   "entry_points": [ {
//!     "name": "main", "kernel": "main", "workgroup_size": [64, 1, 1],
//!     "workgroup_memory_size": 0, "uses_subgroups": false,
//!     "bindings": [ { "group": 0, "binding": 0, "kind": "storage_read_write",
//!                     "min_binding_size": 4, "array_stride": 4,
//!                     "arg": "g0_b0", "size_arg": "g0_b0_size", "name": "out" } ] } ] }
//! ```
//!
//! A texture binding (`kind` `storage_texture` or `sampled_texture`) is
//! one by-value kernel argument `arg` of 32 bytes, 32-byte aligned: the
//! gfx11 image resource descriptor (T#) the facade writes there. It adds
//! `"texture": { "view_dimension": "d2", "access": "write_only",
//! "format": "rgba8unorm" }` (storage) or `"texture": { "view_dimension":
//! "d2", "sample_type": "float" }` (sampled; `"depth"` for
//! `texture_depth_*`); `min_binding_size` is 0.
//!
//! A sampler binding (`kind` `sampler`) is one by-value kernel argument
//! `arg` of 16 bytes, 16-byte aligned: the gfx11 sampler descriptor (S#).
//! It adds `"sampler": { "comparison": false, "textures": [[0, 1]] }`
//! (`comparison` true for `sampler_comparison`; `textures` the (group,
//! binding) of the textures the entry point samples with it);
//! `min_binding_size` is 0.
//!
//! `source_hash` is the lowercase hex SHA-256 of the source (the UTF-8 WGSL
//! text, or the SPIR-V bytes): `crate::source_hash`. A run-time compiler
//! keys its cache by it; readers of older files without it see "".
//! `constants` (optional, written only when there are some) maps the
//! override constants the object was built with (`--define`) to their
//! values: `"constants": { "scale": 2.0 }`; with the hash it says which
//! specialisation of the source the object is.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The reflection schema version written by this compiler.
pub const REFLECTION_VERSION: u32 = 1;

/// How a binding is accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BindingKind {
    /// `var<storage, read>`
    StorageRead,
    /// `var<storage, read_write>`
    StorageReadWrite,
    /// `var<uniform>`
    Uniform,
    /// `texture_storage_*<format, access>`: a T# kernel argument.
    StorageTexture,
    /// `texture_1d/2d/2d_array/3d<T>` and `texture_depth_2d/2d_array`: a
    /// T# kernel argument.
    SampledTexture,
    /// `sampler` or `sampler_comparison`: an S# kernel argument.
    Sampler,
}

/// What a sampler binding declares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SamplerReflection {
    /// `sampler_comparison` (true) or `sampler`.
    pub comparison: bool,
    /// The (group, binding) of each texture the entry point samples or
    /// gathers with it, in order: what WebGPU's filtering rule checks
    /// (a filtering sampler with an unfilterable-float texture is an
    /// error).
    #[serde(default)]
    pub textures: Vec<[u32; 2]>,
}

/// The view dimension a texture binding declares (WGSL's texture type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextureViewDimension {
    D1,
    D2,
    D2Array,
    D3,
    Cube,
    CubeArray,
}

/// A storage texture's access mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StorageTextureAccess {
    WriteOnly,
    ReadOnly,
    ReadWrite,
    /// `atomic` access (r32uint and r32sint; wgpu's `TEXTURE_ATOMIC`).
    Atomic,
}

/// The component type a sampled texture returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextureSampleType {
    Float,
    Sint,
    Uint,
    /// `texture_depth_*`: one f32 depth component, sampled with or without
    /// a comparison.
    Depth,
}

/// A storage texture's texel format, by its WGSL name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageTextureFormat {
    R8Unorm,
    R8Snorm,
    R8Uint,
    R8Sint,
    R16Uint,
    R16Sint,
    R16Float,
    Rg8Unorm,
    Rg8Snorm,
    Rg8Uint,
    Rg8Sint,
    R32Uint,
    R32Sint,
    R32Float,
    Rg16Uint,
    Rg16Sint,
    Rg16Float,
    Rgba8Unorm,
    Rgba8Snorm,
    Rgba8Uint,
    Rgba8Sint,
    Bgra8Unorm,
    Rgb10a2Uint,
    Rgb10a2Unorm,
    Rg11b10Ufloat,
    Rg32Uint,
    Rg32Sint,
    Rg32Float,
    Rgba16Uint,
    Rgba16Sint,
    Rgba16Float,
    Rgba32Uint,
    Rgba32Sint,
    Rgba32Float,
    R16Unorm,
    R16Snorm,
    Rg16Unorm,
    Rg16Snorm,
    Rgba16Unorm,
    Rgba16Snorm,
}

impl StorageTextureFormat {
    /// The number of components a texel holds (what an `image_store`
    /// writes: its dmask has this many low bits set).
    pub fn components(self) -> u32 {
        use StorageTextureFormat as F;
        match self {
            F::R8Unorm
            | F::R8Snorm
            | F::R8Uint
            | F::R8Sint
            | F::R16Uint
            | F::R16Sint
            | F::R16Float
            | F::R32Uint
            | F::R32Sint
            | F::R32Float
            | F::R16Unorm
            | F::R16Snorm => 1,
            F::Rg8Unorm
            | F::Rg8Snorm
            | F::Rg8Uint
            | F::Rg8Sint
            | F::Rg16Uint
            | F::Rg16Sint
            | F::Rg16Float
            | F::Rg32Uint
            | F::Rg32Sint
            | F::Rg32Float
            | F::Rg16Unorm
            | F::Rg16Snorm => 2,
            F::Rg11b10Ufloat => 3,
            _ => 4,
        }
    }
}

/// What a texture binding declares beyond its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextureReflection {
    pub view_dimension: TextureViewDimension,
    /// Storage textures: the access mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<StorageTextureAccess>,
    /// Storage textures: the texel format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StorageTextureFormat>,
    /// Sampled textures: the component type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_type: Option<TextureSampleType>,
    /// Multisampled textures (`texture_multisampled_2d`,
    /// `texture_depth_multisampled_2d`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multisampled: bool,
}

/// One resource binding of an entry point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BindingReflection {
    pub group: u32,
    pub binding: u32,
    pub kind: BindingKind,
    /// The smallest buffer binding size the shader accepts: the type's size,
    /// with one element for a trailing runtime-sized array.
    pub min_binding_size: u64,
    /// Element stride of the trailing runtime-sized array, if any.
    pub array_stride: Option<u32>,
    /// The kernel argument holding the binding's address (`g{group}_b{binding}`).
    pub arg: String,
    /// The u32 kernel argument holding the binding's byte size, present
    /// when the type ends in a runtime-sized array (`g{group}_b{binding}_size`).
    pub size_arg: Option<String>,
    /// The WGSL variable name.
    pub name: Option<String>,
    /// Texture bindings: dimension, access, format or sample type (absent
    /// from the JSON for buffers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texture: Option<TextureReflection>,
    /// Sampler bindings: whether it compares (absent from the JSON
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler: Option<SamplerReflection>,
}

/// One compute entry point (one kernel).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryReflection {
    /// The WGSL entry point name.
    pub name: String,
    /// The kernel symbol in the code object (the same name; the descriptor
    /// is `<kernel>.kd`).
    pub kernel: String,
    pub workgroup_size: [u32; 3],
    /// Bytes of `var<workgroup>` memory the entry point uses.
    pub workgroup_memory_size: u32,
    /// Whether the entry point (or a function it calls) uses subgroup
    /// builtins, operations or barriers. The subgroup size is the target's
    /// wave size ([`crate::wave_size`]: 32 on gfx10+, 64 on gfx9).
    #[serde(default)]
    pub uses_subgroups: bool,
    /// In (group, binding) order, which is also kernel argument order.
    pub bindings: Vec<BindingReflection>,
    /// The entry point's `var<immediate>`, the kernel argument after the
    /// bindings' (absent from the JSON when it uses none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub immediates: Option<ImmediateReflection>,
}

/// An entry point's immediate data (`var<immediate>`): one by-value kernel
/// argument holding the variable's bytes at its WGSL layout, which a pass's
/// `set_immediates` bytes `offset..offset + size` fill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImmediateReflection {
    /// The by-value kernel argument (`immediates`).
    pub arg: String,
    /// Where the variable starts in the immediate data (WGSL puts the one
    /// `var<immediate>` of an entry point at 0).
    pub offset: u32,
    /// The variable type's size in bytes: the argument's size.
    pub size: u32,
    /// The 4-byte slots of the immediate data the entry point reads (bit
    /// n: bytes 4n..4n + 4; padding and members it never loads are left
    /// out, as naga's validator counts them): what a pass must have set
    /// before a dispatch, as wgpu checks.
    #[serde(default)]
    pub slots: u64,
    /// The WGSL variable name.
    pub name: Option<String>,
}

impl EntryReflection {
    /// Bytes of immediate data the entry point reads, rounded up to the
    /// 4-byte granularity of `set_immediates`: the smallest pipeline
    /// layout `immediate_size` it runs with.
    pub fn immediate_size(&self) -> u32 {
        self.immediates
            .as_ref()
            .map_or(0, |i| (i.offset + i.size).next_multiple_of(4))
    }
}

/// Reflection for one compiled shader (PartialEq only: constants are f64).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reflection {
    pub version: u32,
    /// The source file name the shader was compiled from.
    pub source: String,
    /// Lowercase hex SHA-256 of the source ([`crate::source_hash`] for WGSL;
    /// of the module's bytes for SPIR-V).
    #[serde(default)]
    pub source_hash: String,
    /// The override constants the object was specialised with (`--define
    /// NAME=VALUE`), by name; absent from the JSON when there are none (so
    /// objects built without defines keep their exact reflection).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub constants: BTreeMap<String, f64>,
    pub entry_points: Vec<EntryReflection>,
}

impl Reflection {
    /// The entry point named `name`.
    pub fn entry_point(&self, name: &str) -> Option<&EntryReflection> {
        self.entry_points.iter().find(|e| e.name == name)
    }

    /// Pretty JSON with a trailing newline (the checked-in format).
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        let mut s = serde_json::to_string_pretty(self)?;
        s.push('\n');
        Ok(s)
    }

    pub fn from_json(text: &str) -> Result<Reflection, serde_json::Error> {
        serde_json::from_str(text)
    }
}
