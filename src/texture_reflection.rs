//! The texture fields of a shader's reflection (`NAME.reflect.json`, see
//! aqueduct-shaderc's `reflect.rs`): view dimension, storage access and
//! format, sample type, and the bind group layout entry type they make.

use serde::Deserialize;
use wgpu_types::{
    BindingType, StorageTextureAccess, TextureFormat, TextureSampleType, TextureViewDimension,
};

/// A texture binding as the reflection describes it (names as written
/// there: `d2_array`, `read_write`, `rgba8unorm`, `float`).
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct TextureReflection {
    view_dimension: String,
    #[serde(default)]
    access: Option<String>,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    sample_type: Option<String>,
    #[serde(default)]
    multisampled: bool,
}

/// Storage texture formats by their WGSL names.
const FORMATS: [(&str, TextureFormat); 40] = [
    ("r8unorm", TextureFormat::R8Unorm),
    ("r8snorm", TextureFormat::R8Snorm),
    ("r8uint", TextureFormat::R8Uint),
    ("r8sint", TextureFormat::R8Sint),
    ("r16uint", TextureFormat::R16Uint),
    ("r16sint", TextureFormat::R16Sint),
    ("r16float", TextureFormat::R16Float),
    ("rg8unorm", TextureFormat::Rg8Unorm),
    ("rg8snorm", TextureFormat::Rg8Snorm),
    ("rg8uint", TextureFormat::Rg8Uint),
    ("rg8sint", TextureFormat::Rg8Sint),
    ("r32uint", TextureFormat::R32Uint),
    ("r32sint", TextureFormat::R32Sint),
    ("r32float", TextureFormat::R32Float),
    ("rg16uint", TextureFormat::Rg16Uint),
    ("rg16sint", TextureFormat::Rg16Sint),
    ("rg16float", TextureFormat::Rg16Float),
    ("rgba8unorm", TextureFormat::Rgba8Unorm),
    ("rgba8snorm", TextureFormat::Rgba8Snorm),
    ("rgba8uint", TextureFormat::Rgba8Uint),
    ("rgba8sint", TextureFormat::Rgba8Sint),
    ("bgra8unorm", TextureFormat::Bgra8Unorm),
    ("rgb10a2uint", TextureFormat::Rgb10a2Uint),
    ("rgb10a2unorm", TextureFormat::Rgb10a2Unorm),
    ("rg11b10ufloat", TextureFormat::Rg11b10Ufloat),
    ("rg32uint", TextureFormat::Rg32Uint),
    ("rg32sint", TextureFormat::Rg32Sint),
    ("rg32float", TextureFormat::Rg32Float),
    ("rgba16uint", TextureFormat::Rgba16Uint),
    ("rgba16sint", TextureFormat::Rgba16Sint),
    ("rgba16float", TextureFormat::Rgba16Float),
    ("rgba32uint", TextureFormat::Rgba32Uint),
    ("rgba32sint", TextureFormat::Rgba32Sint),
    ("rgba32float", TextureFormat::Rgba32Float),
    ("r16unorm", TextureFormat::R16Unorm),
    ("r16snorm", TextureFormat::R16Snorm),
    ("rg16unorm", TextureFormat::Rg16Unorm),
    ("rg16snorm", TextureFormat::Rg16Snorm),
    ("rgba16unorm", TextureFormat::Rgba16Unorm),
    ("rgba16snorm", TextureFormat::Rgba16Snorm),
];

impl TextureReflection {
    /// The layout entry type the binding needs (None: a name this facade
    /// does not know). Float textures ask for unfilterable floats, which
    /// every float format gives; an auto layout makes those a sampler
    /// samples filterable (`crate::pipeline`).
    pub(crate) fn binding_type(&self) -> Option<BindingType> {
        let view_dimension = match self.view_dimension.as_str() {
            "d1" => TextureViewDimension::D1,
            "d2" => TextureViewDimension::D2,
            "d2_array" => TextureViewDimension::D2Array,
            "d3" => TextureViewDimension::D3,
            "cube" => TextureViewDimension::Cube,
            "cube_array" => TextureViewDimension::CubeArray,
            _ => return None,
        };
        if let Some(access) = &self.access {
            let access = match access.as_str() {
                "write_only" => StorageTextureAccess::WriteOnly,
                "read_only" => StorageTextureAccess::ReadOnly,
                "read_write" => StorageTextureAccess::ReadWrite,
                "atomic" => StorageTextureAccess::Atomic,
                _ => return None,
            };
            let name = self.format.as_deref()?;
            let format = FORMATS.iter().find(|(n, _)| *n == name)?.1;
            return Some(BindingType::StorageTexture {
                access,
                format,
                view_dimension,
            });
        }
        let sample_type = match self.sample_type.as_deref()? {
            "float" => TextureSampleType::Float { filterable: false },
            "sint" => TextureSampleType::Sint,
            "uint" => TextureSampleType::Uint,
            "depth" => TextureSampleType::Depth,
            _ => return None,
        };
        Some(BindingType::Texture {
            sample_type,
            view_dimension,
            multisampled: self.multisampled,
        })
    }
}
