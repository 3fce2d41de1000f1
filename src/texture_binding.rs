//! Texture bindings: which storage and sampled texture layout entries a
//! kernel can bind, how a texture view satisfies one (WebGPU's
//! `createBindGroup` rules for texture entries), and the layout type a
//! shader's texture binding asks for.

use wgpu_types::{
    BindGroupLayoutEntry, BindingType, BufferBindingType, Features, StorageTextureAccess,
    TextureAspect, TextureFormat, TextureFormatFeatureFlags, TextureFormatFeatures,
    TextureSampleType, TextureUsages, TextureViewDimension,
};

use aqueduct_isa::gfx11::image_desc::{ImageDescriptor, ImageFormat};

use crate::binding::{BoundBuffer, BoundCold};
use crate::buffer::Buffer;
use crate::device::DeviceShared;
use crate::error::TextureBindingError;
use crate::texture::{DEPTH_USAGES, SUPPORTED_USAGES, TextureView, image_format, is_depth};

/// Formats WebGPU allows `read_write` storage access for without tier
/// features.
const READ_WRITE_FORMATS: [TextureFormat; 3] = [
    TextureFormat::R32Float,
    TextureFormat::R32Uint,
    TextureFormat::R32Sint,
];

/// Formats `atomic` storage access binds with `TEXTURE_ATOMIC` (wgpu's
/// `TextureFormatFeatureFlags::STORAGE_ATOMIC` formats without 64-bit
/// texels; the `image_atomic_*` instructions work on their 32-bit texels).
const ATOMIC_FORMATS: [TextureFormat; 2] = [TextureFormat::R32Uint, TextureFormat::R32Sint];

/// What the device does with textures of `format` (wgpu's
/// `Adapter::get_texture_format_features`), by the rules `create_texture`
/// and bind group layouts apply here: no usage for formats without an
/// image format; depth formats copy and bind as sampled textures only;
/// other formats also bind as read-only and write-only storage (bgra8unorm
/// only with `BGRA8UNORM_STORAGE`, the sRGB formats never), the three
/// `READ_WRITE_FORMATS` as read-write storage and, with `TEXTURE_ATOMIC`,
/// the `ATOMIC_FORMATS` as atomic storage; `FILTERABLE` where the
/// format's sample type is filterable with `features`. Render attachments
/// and multisampling do not exist in a compute-only device.
pub(crate) fn format_features(format: TextureFormat, features: Features) -> TextureFormatFeatures {
    let none = TextureFormatFeatures {
        allowed_usages: TextureUsages::empty(),
        flags: TextureFormatFeatureFlags::empty(),
    };
    if image_format(format).is_none() {
        return none;
    }
    let mut flags = TextureFormatFeatureFlags::empty();
    let filterable = format.sample_type(Some(TextureAspect::All), Some(features))
        == Some(TextureSampleType::Float { filterable: true });
    if filterable {
        flags |= TextureFormatFeatureFlags::FILTERABLE;
    }
    if is_depth(format) {
        return TextureFormatFeatures {
            allowed_usages: DEPTH_USAGES,
            flags,
        };
    }
    // bgra8unorm is a storage format only with BGRA8UNORM_STORAGE
    // (WebGPU's "bgra8unorm-storage"); the sRGB formats never are (WebGPU's
    // "Plain color formats" table has no storage for them).
    let no_storage = match format {
        TextureFormat::Bgra8Unorm => !features.contains(Features::BGRA8UNORM_STORAGE),
        f => f.is_srgb(),
    };
    if no_storage {
        return TextureFormatFeatures {
            allowed_usages: SUPPORTED_USAGES - TextureUsages::STORAGE_BINDING,
            flags,
        };
    }
    flags |= TextureFormatFeatureFlags::STORAGE_READ_ONLY
        | TextureFormatFeatureFlags::STORAGE_WRITE_ONLY;
    if READ_WRITE_FORMATS.contains(&format) {
        flags |= TextureFormatFeatureFlags::STORAGE_READ_WRITE;
    }
    if ATOMIC_FORMATS.contains(&format) && features.contains(Features::TEXTURE_ATOMIC) {
        flags |= TextureFormatFeatureFlags::STORAGE_ATOMIC;
    }
    TextureFormatFeatures {
        allowed_usages: SUPPORTED_USAGES,
        flags,
    }
}

/// WebGPU's `createBindGroupLayout` (wgpu-core's `StorageTextureCube`):
/// storage textures have no cube views.
fn check_storage_dimension(
    view_dimension: TextureViewDimension,
) -> Result<(), TextureBindingError> {
    match view_dimension {
        TextureViewDimension::Cube | TextureViewDimension::CubeArray => {
            Err(TextureBindingError::ViewDimension { view_dimension })
        }
        _ => Ok(()),
    }
}

/// `Ok` when a layout's texture entry `ty` is one a kernel can bind on a
/// device with `features`. Storage entries follow the format table
/// ([`format_features`]), as wgpu-core's `create_bind_group_layout` checks
/// the format's features.
pub(crate) fn check_layout_entry(
    ty: &BindingType,
    features: Features,
) -> Result<(), TextureBindingError> {
    match *ty {
        BindingType::StorageTexture {
            access,
            format,
            view_dimension,
        } => {
            check_storage_dimension(view_dimension)?;
            let table = format_features(format, features);
            if !table
                .allowed_usages
                .contains(TextureUsages::STORAGE_BINDING)
            {
                if format == TextureFormat::Bgra8Unorm {
                    return Err(TextureBindingError::MissingFeature {
                        format,
                        feature: Features::BGRA8UNORM_STORAGE,
                    });
                }
                // Depth formats and formats without an image format.
                return Err(TextureBindingError::StorageFormat { format });
            }
            // wgpu-core's `create_bind_group_layout`: atomic access needs
            // TEXTURE_ATOMIC and a format with STORAGE_ATOMIC.
            if access == StorageTextureAccess::Atomic
                && !table
                    .flags
                    .contains(TextureFormatFeatureFlags::STORAGE_ATOMIC)
            {
                if ATOMIC_FORMATS.contains(&format) {
                    return Err(TextureBindingError::MissingFeature {
                        format,
                        feature: Features::TEXTURE_ATOMIC,
                    });
                }
                return Err(TextureBindingError::AtomicFormat { format });
            }
            let read_write = access == StorageTextureAccess::ReadWrite;
            if read_write
                && !table
                    .flags
                    .contains(TextureFormatFeatureFlags::STORAGE_READ_WRITE)
            {
                return Err(TextureBindingError::ReadWriteFormat { access, format });
            }
            Ok(())
        }
        BindingType::Texture { multisampled, .. } => {
            if multisampled {
                return Err(TextureBindingError::Multisampled);
            }
            Ok(())
        }
        other => Err(TextureBindingError::ResourceKind {
            layout: other,
            resource: "a texture view",
        }),
    }
}

/// Whether a view of `format` gives what a layout's `wanted` sample type
/// reads (an unfilterable-float entry takes any float format and depth
/// formats; a filterable one the formats filterable with the device's
/// `features`, e.g. FLOAT32_FILTERABLE for r32float; a depth entry only
/// depth formats): wgpu-core's `validate_texture_binding`, WebGPU's
/// "Depth-stencil formats" (depth aspects bind as `depth` or
/// `unfilterable-float`).
fn sample_type_fits(
    wanted: TextureSampleType,
    format: TextureFormat,
    features: wgpu_types::Features,
) -> bool {
    let Some(have) = format.sample_type(Some(TextureAspect::All), Some(features)) else {
        return false;
    };
    match (wanted, have) {
        (
            TextureSampleType::Float { filterable },
            TextureSampleType::Float {
                filterable: format_filterable,
            },
        ) => format_filterable || !filterable,
        (TextureSampleType::Float { filterable: false }, TextureSampleType::Depth) => true,
        (a, b) => a == b,
    }
}

/// The bound entry for `view` at layout entry `le`, after WebGPU's checks,
/// and the texture's buffer (the bind group keeps the handle alive).
pub(crate) fn bind_view(
    device: &DeviceShared,
    le: &BindGroupLayoutEntry,
    view: &TextureView,
) -> Result<((BoundBuffer, BoundCold), Buffer), TextureBindingError> {
    let shape = &view.inner.shape;
    let texture = view.texture();
    let (needed, layout_dimension, write) = match le.ty {
        BindingType::StorageTexture {
            access,
            format,
            view_dimension,
        } => {
            if shape.format != format {
                return Err(TextureBindingError::Format {
                    layout: format,
                    view: shape.format,
                });
            }
            let count = shape.mip_levels.len() as u32;
            if count != 1 {
                return Err(TextureBindingError::StorageMipLevels { count });
            }
            let write = access != StorageTextureAccess::ReadOnly;
            (TextureUsages::STORAGE_BINDING, view_dimension, write)
        }
        BindingType::Texture {
            sample_type,
            view_dimension,
            ..
        } => {
            if !sample_type_fits(sample_type, shape.format, device.features) {
                return Err(TextureBindingError::SampleType {
                    layout: sample_type,
                    format: shape.format,
                });
            }
            (TextureUsages::TEXTURE_BINDING, view_dimension, false)
        }
        other => {
            return Err(TextureBindingError::ResourceKind {
                layout: other,
                resource: "a texture view",
            });
        }
    };
    let (Some(mut image), true) = (shape.image, view.inner.valid) else {
        return Err(TextureBindingError::InvalidView);
    };
    if needed == TextureUsages::STORAGE_BINDING {
        storage_descriptor(&mut image);
    }
    let Some((_, buffer)) = texture.usable(device) else {
        return Err(TextureBindingError::InvalidView);
    };
    if !shape.usage.contains(needed) {
        return Err(TextureBindingError::MissingUsage {
            usage: shape.usage,
            needed,
        });
    }
    if shape.dimension != layout_dimension {
        return Err(TextureBindingError::Dimension {
            layout: layout_dimension,
            view: shape.dimension,
        });
    }
    let (hot, mut cold) = BoundBuffer::new(
        le.binding,
        buffer,
        shape.range.start,
        shape.range.end - shape.range.start,
        BufferBindingType::Storage { read_only: !write },
        false,
        Some(image),
    );
    cold.subresources = Some((shape.mip_levels.clone(), shape.layers.clone()));
    Ok(((hot, cold), buffer.clone()))
}

/// A storage binding's T#: a bgra8unorm view binds as the same bytes under
/// the identity-swizzled `8_8_8_8` UNORM format, since the compiler swaps
/// red and blue in the shader for bgra8unorm storage textures (shaderc
/// `is_bgra_storage`: no public source has image stores apply DST_SEL).
fn storage_descriptor(image: &mut ImageDescriptor) {
    if image.format == ImageFormat::Bgra8Unorm {
        image.format = ImageFormat::Rgba8Unorm;
        image.dst_sel = ImageFormat::Rgba8Unorm.dst_sel();
    }
}

/// Whether a layout entry of type `layout` holds the texture a shader
/// declares as `shader` (the float sample types match whatever their
/// filterability: kernels do not sample).
pub(crate) fn layout_holds(shader: &BindingType, layout: &BindingType) -> bool {
    match (*shader, *layout) {
        (
            BindingType::Texture {
                sample_type: TextureSampleType::Float { .. },
                view_dimension: a,
                multisampled: ma,
            },
            BindingType::Texture {
                sample_type: TextureSampleType::Float { .. },
                view_dimension: b,
                multisampled: mb,
            },
        ) => a == b && ma == mb,
        (a, b) => a == b,
    }
}
