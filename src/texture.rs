//! Textures and texture views.
//!
//! A texture is a linear (`SW_LINEAR`) gfx11 image and its mip chain in a
//! buffer of its own: texel (x, y, z or layer) of a level lies where
//! [`aqueduct_isa::gfx11::image_desc::linear_texel_offset`] says, rows
//! padded to 256 bytes (ARCHITECTURE.md, "Textures"). The backing buffer is
//! created like any buffer, so a texture is zero-initialised, destroyed and
//! hazard-tracked as one: a dispatch binding a view accesses a byte range
//! covering the view's levels and layers, and copies are copies between
//! buffer ranges.
//!
//! Mip levels: every texture (1D, 2D, 2D-array, cube, 3D) is one linear
//! mip chain as the hardware places it behind one descriptor, a single
//! level being a chain of one: each slice (layer, or 3D depth slice) holds
//! the whole chain, smallest level first, each level's rows at its own
//! 256-byte pitch, and slices are one chain apart, so a level's layers or
//! depth slices are a whole chain apart (`aqueduct_isa::gfx11::image_desc`
//! sources the placement from addrlib). A level has
//! `max(1, size >> level)` texels per dimension (3D depth included; the
//! layers of a 2D texture unchanged). A view's T# names the chain
//! (MAX_MIP), the view's levels (BASE_LEVEL, LAST_LEVEL) and layers, so a
//! sampled view of several levels samples across them; copies address a
//! level's texels row by row, and clears fill a level's bytes slice by
//! slice.
//!
//! A view fixes format, dimension, level and layer range; its image
//! descriptor (T#) is built when the view is created, with the base address
//! relative to the texture's buffer, and completed with the buffer's
//! address when a dispatch writes it into the kernel arguments.

use std::ops::Range;
use std::sync::Arc;

use aqueduct_isa::gfx11::image_desc::{ImageDescriptor, ImageDim, ImageFormat, linear_size};
use wgpu_types::{
    BufferUsages, Extent3d, TextureAspect, TextureDimension, TextureFormat, TextureUsages,
    TextureViewDimension,
};

use crate::Label;
use crate::buffer::{Buffer, BufferDescriptor};
use crate::device::DeviceShared;
use crate::error::{CreateTextureError, TextureError, TextureIdent, TextureViewError};

/// Describes a texture (wgpu's `TextureDescriptor`).
pub type TextureDescriptor<'a> = wgpu_types::TextureDescriptor<Label<'a>, &'a [TextureFormat]>;

/// Describes a texture view (wgpu's `TextureViewDescriptor`).
pub type TextureViewDescriptor<'a> = wgpu_types::TextureViewDescriptor<Label<'a>>;

/// The usages a depth texture can have: WebGPU's depth formats have no
/// storage binding ("Depth-stencil formats" table; wgpu-core's
/// `describe_format_features`, checked in `create_texture`).
pub(crate) const DEPTH_USAGES: TextureUsages = TextureUsages::COPY_SRC
    .union(TextureUsages::COPY_DST)
    .union(TextureUsages::TEXTURE_BINDING);

/// Whether `format` is one of the depth formats textures support.
pub(crate) fn is_depth(format: TextureFormat) -> bool {
    matches!(
        format,
        TextureFormat::Depth16Unorm | TextureFormat::Depth24Plus | TextureFormat::Depth32Float
    )
}

/// Whether `format` has `aspect` (wgpu-types' `aspect_specific_format`:
/// `All` for every single-plane format, `DepthOnly` for depth formats).
pub(crate) fn has_aspect(format: TextureFormat, aspect: TextureAspect) -> bool {
    format.aspect_specific_format(aspect).is_some()
}

/// The usages a compute-only texture can have.
pub(crate) const SUPPORTED_USAGES: TextureUsages = TextureUsages::COPY_SRC
    .union(TextureUsages::COPY_DST)
    .union(TextureUsages::TEXTURE_BINDING)
    .union(TextureUsages::STORAGE_BINDING);

/// The gfx11 image format of a texture format, None for formats without
/// a linear layout here (stencil, compressed, 64-bit).
///
/// Depth formats read as the single-channel colour format of their bits,
/// as Mesa's radv samples them (`radv_translate_tex_dataformat`: D16 is
/// `16` UNORM, D32 is `32` FLOAT): the texture unit returns the depth in
/// x and compares x for the `_c` instructions. `Depth24Plus` is stored as
/// `Depth32Float` (WebGPU lets an implementation pick any format of at
/// least 24 bits, and no copy can observe its bytes).
pub(crate) fn image_format(format: TextureFormat) -> Option<ImageFormat> {
    use ImageFormat as I;
    use TextureFormat as T;
    Some(match format {
        T::Depth16Unorm => I::R16Unorm,
        T::Depth32Float | T::Depth24Plus => I::R32Float,
        T::R8Unorm => I::R8Unorm,
        T::R8Snorm => I::R8Snorm,
        T::R8Uint => I::R8Uint,
        T::R8Sint => I::R8Sint,
        T::R16Unorm => I::R16Unorm,
        T::R16Snorm => I::R16Snorm,
        T::R16Uint => I::R16Uint,
        T::R16Sint => I::R16Sint,
        T::R16Float => I::R16Float,
        T::Rg8Unorm => I::Rg8Unorm,
        T::Rg8Snorm => I::Rg8Snorm,
        T::Rg8Uint => I::Rg8Uint,
        T::Rg8Sint => I::Rg8Sint,
        T::R32Uint => I::R32Uint,
        T::R32Sint => I::R32Sint,
        T::R32Float => I::R32Float,
        T::Rg16Unorm => I::Rg16Unorm,
        T::Rg16Snorm => I::Rg16Snorm,
        T::Rg16Uint => I::Rg16Uint,
        T::Rg16Sint => I::Rg16Sint,
        T::Rg16Float => I::Rg16Float,
        T::Rg11b10Ufloat => I::Rg11b10Ufloat,
        T::Rgb10a2Unorm => I::Rgb10a2Unorm,
        T::Rgb10a2Uint => I::Rgb10a2Uint,
        T::Rgba8Unorm => I::Rgba8Unorm,
        T::Rgba8Snorm => I::Rgba8Snorm,
        T::Rgba8Uint => I::Rgba8Uint,
        T::Rgba8Sint => I::Rgba8Sint,
        T::Bgra8Unorm => I::Bgra8Unorm,
        // `8_8_8_8_SRGB`: reads decode sRGB to linear in the texture unit.
        T::Rgba8UnormSrgb => I::Rgba8UnormSrgb,
        T::Bgra8UnormSrgb => I::Bgra8UnormSrgb,
        T::Rg32Uint => I::Rg32Uint,
        T::Rg32Sint => I::Rg32Sint,
        T::Rg32Float => I::Rg32Float,
        T::Rgba16Unorm => I::Rgba16Unorm,
        T::Rgba16Snorm => I::Rgba16Snorm,
        T::Rgba16Uint => I::Rgba16Uint,
        T::Rgba16Sint => I::Rgba16Sint,
        T::Rgba16Float => I::Rgba16Float,
        T::Rgba32Uint => I::Rgba32Uint,
        T::Rgba32Sint => I::Rgba32Sint,
        T::Rgba32Float => I::Rgba32Float,
        _ => return None,
    })
}

/// Where one mip level's texels lie in its texture's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TextureLayout {
    /// The texture's whole mip chain, its base address relative to the
    /// buffer (offset 0): 1D, 2D-array (2D is an array of one layer) or 3D,
    /// BASE_LEVEL and LAST_LEVEL this level.
    pub image: ImageDescriptor,
    /// The level within `image`.
    pub level: u32,
    /// Bytes per texel.
    pub texel_bytes: u32,
    /// Bytes from one row to the next.
    pub row_bytes: u64,
    /// Bytes the level occupies in one slice (layer or 3D depth slice):
    /// contiguous there, its rows padding included.
    pub level_bytes: u64,
    /// The slices the level has: the layers of a 1D or 2D texture, the
    /// level's depth `max(1, depth >> level)` of a 3D one.
    pub slices: u32,
}

impl TextureLayout {
    /// Level `level` of `chain`, the texture's chain at buffer offset 0.
    fn in_chain(chain: ImageDescriptor, level: u32) -> Self {
        let image = chain.with_levels(chain.max_mip + 1, level, level);
        let texel_bytes = image.format.bytes_per_texel();
        let slices = match image.dim {
            ImageDim::D3 => image.level_extent(level)[2],
            _ => image.layers(),
        };
        TextureLayout {
            image,
            level,
            texel_bytes,
            row_bytes: u64::from(image.level_pitch(level)) * u64::from(texel_bytes),
            level_bytes: image.level_bytes(level),
            slices,
        }
    }

    /// Byte offset of texel (x, y, z or layer) in the texture's buffer.
    pub fn offset(&self, x: u32, y: u32, z: u32) -> u64 {
        self.image.base_address
            + aqueduct_isa::gfx11::image_desc::linear_texel_offset(&self.image, x, y, z, self.level)
    }

    /// The bytes of the texture's buffer the level occupies in slice `z`.
    pub fn slice_range(&self, z: u32) -> Range<u64> {
        let start = self.offset(0, 0, z);
        start..start + self.level_bytes
    }

    /// The level's width in texels.
    pub fn width(&self) -> u32 {
        self.image.level_extent(self.level)[0]
    }
}

/// The layouts of `levels` mip levels of a texture of `size` and the bytes
/// its buffer holds. Every texture is one linear mip chain (a single
/// level is a chain of one): each slice holds the whole chain, smallest
/// level first, and slices are one chain apart (module comment). A
/// level's size is wgpu's `Extent3d::mip_level_size` (WebGPU's "logical
/// miplevel-specific texture extent": `max(1, size >> level)`, layers of
/// 2D textures unchanged), which is the chain's `level_extent`.
fn level_layouts(
    format: ImageFormat,
    dimension: TextureDimension,
    size: Extent3d,
    levels: u32,
) -> (Vec<TextureLayout>, u64) {
    let (dim, height, depth) = match dimension {
        TextureDimension::D1 => (ImageDim::D1, 1, 1),
        TextureDimension::D2 => (ImageDim::D2Array, size.height, size.depth_or_array_layers),
        TextureDimension::D3 => (ImageDim::D3, size.height, size.depth_or_array_layers),
    };
    let chain = ImageDescriptor::linear(0, format, dim, size.width, height, depth).with_levels(
        levels,
        0,
        levels - 1,
    );
    let layouts = (0..levels)
        .map(|level| TextureLayout::in_chain(chain, level))
        .collect();
    (layouts, linear_size(&chain))
}

#[derive(Debug)]
pub(crate) struct TextureInner {
    pub device: Arc<DeviceShared>,
    pub label: Option<String>,
    pub size: Extent3d,
    pub mip_level_count: u32,
    pub sample_count: u32,
    pub dimension: TextureDimension,
    pub format: TextureFormat,
    /// The other formats views may have (`view_formats`).
    pub view_formats: Vec<TextureFormat>,
    pub usage: TextureUsages,
    /// The layout of each mip level and the backing buffer; None for an
    /// invalid texture.
    pub storage: Option<(Vec<TextureLayout>, Buffer)>,
}

/// A texture (cheap to clone).
#[derive(Clone, Debug)]
pub struct Texture {
    pub(crate) inner: Arc<TextureInner>,
}

impl PartialEq for Texture {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

fn extent(size: Extent3d) -> [u32; 3] {
    [size.width, size.height, size.depth_or_array_layers]
}

fn check_descriptor(
    device: &DeviceShared,
    desc: &TextureDescriptor<'_>,
) -> Result<ImageFormat, CreateTextureError> {
    let size = extent(desc.size);
    if size.contains(&0) {
        return Err(CreateTextureError::ZeroSize { size });
    }
    let limits = &device.limits;
    let too_large = |max: u32, limit: &'static str| CreateTextureError::TooLarge {
        dimension: desc.dimension,
        size,
        max,
        limit,
    };
    match desc.dimension {
        TextureDimension::D1 => {
            if size[1] != 1 || size[2] != 1 {
                return Err(CreateTextureError::Not1D { size });
            }
            if size[0] > limits.max_texture_dimension_1d {
                return Err(too_large(
                    limits.max_texture_dimension_1d,
                    "max_texture_dimension_1d",
                ));
            }
        }
        TextureDimension::D2 => {
            let max = limits.max_texture_dimension_2d;
            if size[0] > max || size[1] > max {
                return Err(too_large(max, "max_texture_dimension_2d"));
            }
            if size[2] > limits.max_texture_array_layers {
                return Err(too_large(
                    limits.max_texture_array_layers,
                    "max_texture_array_layers",
                ));
            }
        }
        TextureDimension::D3 => {
            let max = limits.max_texture_dimension_3d;
            if size.iter().any(|&s| s > max) {
                return Err(too_large(max, "max_texture_dimension_3d"));
            }
        }
    }
    // WebGPU's "maximum mipLevel count" (wgpu-types' `Extent3d::max_mips`):
    // floor(log2(max(width, height[, depth for 3D]))) + 1 levels, 1 for 1D.
    let max_levels = desc.size.max_mips(desc.dimension);
    if desc.mip_level_count == 0 || desc.mip_level_count > max_levels {
        return Err(CreateTextureError::MipLevelCount {
            requested: desc.mip_level_count,
            max: max_levels,
        });
    }
    if desc.sample_count != 1 {
        return Err(CreateTextureError::SampleCount {
            count: desc.sample_count,
        });
    }
    let format = image_format(desc.format).ok_or(CreateTextureError::UnsupportedFormat {
        format: desc.format,
    })?;
    // wgpu-core's `create_texture`: depth textures are 2D.
    if is_depth(desc.format) && desc.dimension != TextureDimension::D2 {
        return Err(CreateTextureError::DepthDimension {
            format: desc.format,
            dimension: desc.dimension,
        });
    }
    if desc.usage.is_empty() {
        return Err(CreateTextureError::EmptyUsage);
    }
    let unsupported = desc.usage - SUPPORTED_USAGES;
    if !unsupported.is_empty() {
        return Err(CreateTextureError::UnsupportedUsage {
            usage: desc.usage,
            unsupported,
        });
    }
    // The format's own usages (wgpu-core checks the format features'
    // allowed usages): depth formats have no storage, bgra8unorm has it only
    // with BGRA8UNORM_STORAGE.
    let allowed =
        crate::texture_binding::format_features(desc.format, device.features).allowed_usages;
    if !allowed.contains(desc.usage) {
        return Err(CreateTextureError::FormatUsage {
            format: desc.format,
            usage: desc.usage,
            allowed,
        });
    }
    // WebGPU's "texture view format compatible" (wgpu-core's
    // `create_texture`): the format itself or its sRGB twin, which has the
    // same bits (rgba8unorm and rgba8unorm-srgb, bgra8unorm and
    // bgra8unorm-srgb).
    if let Some(&view) = desc
        .view_formats
        .iter()
        .find(|&&f| f.remove_srgb_suffix() != desc.format.remove_srgb_suffix())
    {
        return Err(CreateTextureError::ViewFormat {
            format: desc.format,
            view,
        });
    }
    Ok(format)
}

pub(crate) fn create_texture(device: &Arc<DeviceShared>, desc: &TextureDescriptor<'_>) -> Texture {
    let label = desc.label.map(str::to_string);
    let storage = match check_descriptor(device, desc) {
        Ok(format) => {
            let (layouts, size) =
                level_layouts(format, desc.dimension, desc.size, desc.mip_level_count);
            let buffer = device.create_buffer(&BufferDescriptor {
                label: desc.label,
                size,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            buffer.memory().is_some().then_some((layouts, buffer))
        }
        Err(source) => {
            device.report(TextureError::Create {
                label: label.clone(),
                source,
            });
            None
        }
    };
    Texture {
        inner: Arc::new(TextureInner {
            device: device.clone(),
            label,
            size: desc.size,
            mip_level_count: desc.mip_level_count,
            sample_count: desc.sample_count,
            dimension: desc.dimension,
            format: desc.format,
            view_formats: desc.view_formats.to_vec(),
            usage: desc.usage,
            storage,
        }),
    }
}

impl Texture {
    /// Width, height and depth or layers.
    pub fn size(&self) -> Extent3d {
        self.inner.size
    }
    /// The width in texels.
    pub fn width(&self) -> u32 {
        self.inner.size.width
    }
    /// The height in texels.
    pub fn height(&self) -> u32 {
        self.inner.size.height
    }
    /// The depth (3D) or array layer count (1D, 2D).
    pub fn depth_or_array_layers(&self) -> u32 {
        self.inner.size.depth_or_array_layers
    }
    /// The mip level count.
    pub fn mip_level_count(&self) -> u32 {
        self.inner.mip_level_count
    }
    /// The sample count.
    pub fn sample_count(&self) -> u32 {
        self.inner.sample_count
    }
    /// The dimension.
    pub fn dimension(&self) -> TextureDimension {
        self.inner.dimension
    }
    /// The texel format.
    pub fn format(&self) -> TextureFormat {
        self.inner.format
    }
    /// The usages.
    pub fn usage(&self) -> TextureUsages {
        self.inner.usage
    }

    /// Free the texture's memory once the GPU is done with it; later uses
    /// are validation errors.
    pub fn destroy(&self) {
        if let Some((_, buffer)) = &self.inner.storage {
            buffer.destroy();
        }
    }

    /// The texture as error messages name it.
    pub(crate) fn ident(&self) -> TextureIdent {
        TextureIdent {
            label: self.inner.label.clone(),
            size: extent(self.inner.size),
            format: self.inner.format,
        }
    }

    /// The level layouts and backing buffer of a valid texture of
    /// `device` that is not destroyed.
    pub(crate) fn usable(&self, device: &DeviceShared) -> Option<(&[TextureLayout], &Buffer)> {
        let (layouts, buffer) = self.inner.storage.as_ref()?;
        buffer
            .check_usable(device, crate::error::BufferRole::Buffer)
            .ok()?;
        Some((layouts, buffer))
    }

    /// The array layers a view can see (1 for 3D textures).
    fn layers(&self) -> u32 {
        match self.inner.dimension {
            TextureDimension::D3 => 1,
            _ => self.inner.size.depth_or_array_layers,
        }
    }

    /// Create a view; a failure reports an error and gives an invalid view.
    pub fn create_view(&self, desc: &TextureViewDescriptor<'_>) -> TextureView {
        let resolved = self.resolve_view(desc);
        let (view, valid) = match resolved {
            Ok(view) => (view, true),
            Err(source) => {
                self.inner.device.report(TextureError::View {
                    label: desc.label.map(str::to_string),
                    source,
                });
                (
                    ViewShape {
                        format: desc.format.unwrap_or(self.inner.format),
                        dimension: desc.dimension.unwrap_or(TextureViewDimension::D2),
                        usage: desc.usage.unwrap_or(self.inner.usage),
                        mip_levels: 0..0,
                        layers: 0..0,
                        image: None,
                        range: 0..0,
                    },
                    false,
                )
            }
        };
        TextureView {
            inner: Arc::new(TextureViewInner {
                texture: self.clone(),
                label: desc.label.map(str::to_string),
                shape: view,
                valid,
            }),
        }
    }

    fn resolve_view(
        &self,
        desc: &TextureViewDescriptor<'_>,
    ) -> Result<ViewShape, TextureViewError> {
        let t = &self.inner;
        let Some((layouts, _)) = self.usable(&t.device) else {
            return Err(TextureViewError::InvalidTexture {
                texture: self.ident(),
            });
        };
        // wgpu-core's `create_texture_view`: the aspect must be one the
        // format has; a depth-only format's `DepthOnly` view has the
        // texture's format.
        if !has_aspect(t.format, desc.aspect) {
            return Err(TextureViewError::Aspect {
                format: t.format,
                aspect: desc.aspect,
            });
        }
        // The texture's format or one of its `view_formats` (WebGPU's
        // `createView`); a view of the other sRGB twin reads the same bits
        // under its own FORMAT (sRGB decode or none).
        let format = desc.format.unwrap_or(t.format);
        let view_image_format = image_format(format)
            .filter(|_| format == t.format || t.view_formats.contains(&format))
            .ok_or(TextureViewError::Format {
                texture: t.format,
                view: format,
            })?;
        let usage = desc.usage.unwrap_or(t.usage);
        if !t.usage.contains(usage) {
            return Err(TextureViewError::Usage {
                texture: t.usage,
                view: usage,
            });
        }
        // WebGPU's "resolving GPUTextureViewDescriptor defaults": the
        // dimension follows the texture's (2D with several layers: an
        // array), the layer count is 1 for single-layer dimensions and the
        // rest of the layers for arrays.
        let layers = self.layers();
        let dimension = desc.dimension.unwrap_or(match t.dimension {
            TextureDimension::D1 => TextureViewDimension::D1,
            TextureDimension::D2 if layers > 1 => TextureViewDimension::D2Array,
            TextureDimension::D2 => TextureViewDimension::D2,
            TextureDimension::D3 => TextureViewDimension::D3,
        });
        let layer_count = desc.array_layer_count.unwrap_or(match dimension {
            TextureViewDimension::D2Array | TextureViewDimension::CubeArray => {
                layers.saturating_sub(desc.base_array_layer)
            }
            TextureViewDimension::Cube => 6,
            _ => 1,
        });
        let fits = matches!(
            (t.dimension, dimension),
            (TextureDimension::D1, TextureViewDimension::D1)
                | (TextureDimension::D2, TextureViewDimension::D2)
                | (TextureDimension::D2, TextureViewDimension::D2Array)
                | (TextureDimension::D2, TextureViewDimension::Cube)
                | (TextureDimension::D2, TextureViewDimension::CubeArray)
                | (TextureDimension::D3, TextureViewDimension::D3)
        );
        if !fits {
            return Err(TextureViewError::Dimension {
                texture: t.dimension,
                view: dimension,
            });
        }
        let mip_count = desc
            .mip_level_count
            .unwrap_or(t.mip_level_count.saturating_sub(desc.base_mip_level).max(1));
        let mip_end = u64::from(desc.base_mip_level) + u64::from(mip_count);
        if mip_count == 0 || mip_end > u64::from(t.mip_level_count) {
            return Err(TextureViewError::MipRange {
                base: desc.base_mip_level,
                end: mip_end,
                levels: t.mip_level_count,
            });
        }
        let layer_end = u64::from(desc.base_array_layer) + u64::from(layer_count);
        if layer_count == 0 || layer_end > u64::from(layers) {
            return Err(TextureViewError::LayerRange {
                base: desc.base_array_layer,
                end: layer_end,
                layers,
            });
        }
        // wgpu-core's `create_texture_view`: a cube has 6 layers, a cube
        // array a multiple of 6, and both square faces.
        let layers_fit = match dimension {
            TextureViewDimension::D2Array => true,
            TextureViewDimension::Cube => layer_count == 6,
            TextureViewDimension::CubeArray => layer_count.is_multiple_of(6),
            _ => layer_count == 1,
        };
        if !layers_fit {
            return Err(TextureViewError::LayerCount {
                view: dimension,
                count: layer_count,
            });
        }
        let cube = matches!(
            dimension,
            TextureViewDimension::Cube | TextureViewDimension::CubeArray
        );
        if cube && t.size.width != t.size.height {
            return Err(TextureViewError::CubeNotSquare {
                width: t.size.width,
                height: t.size.height,
            });
        }
        // The view's T# is the texture's chain naming the view's levels
        // (BASE_LEVEL, LAST_LEVEL) and layers.
        let first = &layouts[desc.base_mip_level as usize];
        let last = &layouts[(desc.base_mip_level + mip_count - 1) as usize];
        let base = desc.base_array_layer;
        let whole = &first.image;
        let mut image = *whole;
        image.format = view_image_format;
        image.dst_sel = view_image_format.dst_sel();
        image.last_level = last.level;
        let slices = match dimension {
            TextureViewDimension::D1 => {
                image.dim = ImageDim::D1;
                0..1
            }
            TextureViewDimension::D2 => {
                // One layer: a 2D chain of its own one chain per layer
                // further on (a chain is whole 256-byte rows, so aligned).
                image.dim = ImageDim::D2;
                image.depth = 1;
                image.base_address = whole.base_address + u64::from(base) * whole.slice_bytes();
                base..base + 1
            }
            TextureViewDimension::D2Array
            | TextureViewDimension::Cube
            | TextureViewDimension::CubeArray => {
                // Cube views are the same layers under the cube TYPE: six
                // faces per cube, +X, -X, +Y, -Y, +Z, -Z (the layer order
                // of WebGPU's cube views and of the face ids the texture
                // unit selects).
                image.dim = if cube {
                    ImageDim::Cube
                } else {
                    ImageDim::D2Array
                };
                image.base_array = base;
                image.depth = layer_count;
                base..base + layer_count
            }
            _ => 0..first.slices,
        };
        // Within each slice the view's levels lie together, its last
        // (smallest) level first; the range covers them from the first
        // slice to the last, with the other levels of the slices between
        // (a conservative cover: hazards never miss a byte the T# reaches).
        let range = last.slice_range(slices.start).start..first.slice_range(slices.end - 1).end;
        image.encode().map_err(TextureViewError::Descriptor)?;
        Ok(ViewShape {
            format,
            dimension,
            usage,
            mip_levels: desc.base_mip_level..desc.base_mip_level + mip_count,
            layers: base..base + layer_count,
            image: Some(image),
            range,
        })
    }
}

/// What a view sees of its texture.
#[derive(Clone, Debug)]
pub(crate) struct ViewShape {
    pub format: TextureFormat,
    pub dimension: TextureViewDimension,
    pub usage: TextureUsages,
    pub mip_levels: Range<u32>,
    pub layers: Range<u32>,
    /// The image descriptor, its base address relative to the texture's
    /// buffer (None for an invalid view).
    pub image: Option<ImageDescriptor>,
    /// A range of the texture's buffer covering every byte of the view's
    /// levels and layers (with the other levels between them).
    pub range: Range<u64>,
}

#[derive(Debug)]
pub(crate) struct TextureViewInner {
    pub texture: Texture,
    pub label: Option<String>,
    pub shape: ViewShape,
    pub valid: bool,
}

/// A view of a texture (cheap to clone).
#[derive(Clone, Debug)]
pub struct TextureView {
    pub(crate) inner: Arc<TextureViewInner>,
}

impl TextureView {
    /// The texture the view is of.
    pub fn texture(&self) -> &Texture {
        &self.inner.texture
    }
    /// The view's format.
    pub fn format(&self) -> TextureFormat {
        self.inner.shape.format
    }
    /// The view's dimension.
    pub fn dimension(&self) -> TextureViewDimension {
        self.inner.shape.dimension
    }
    /// The array layers the view sees.
    pub fn array_layers(&self) -> Range<u32> {
        self.inner.shape.layers.clone()
    }
    /// The mip levels the view sees.
    pub fn mip_levels(&self) -> Range<u32> {
        self.inner.shape.mip_levels.clone()
    }
    /// The view's label, if it has one.
    pub fn label(&self) -> Option<&str> {
        self.inner.label.as_deref()
    }
}

/// A buffer side of a texel copy (wgpu's `TexelCopyBufferInfo`).
pub type TexelCopyBufferInfo<'a> = wgpu_types::TexelCopyBufferInfo<&'a Buffer>;

/// A texture side of a texel copy (wgpu's `TexelCopyTextureInfo`).
pub type TexelCopyTextureInfo<'a> = wgpu_types::TexelCopyTextureInfo<&'a Texture>;
