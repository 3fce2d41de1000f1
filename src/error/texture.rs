//! Errors of textures: creation, views, texture bindings, and the copies
//! and writes that move texels (`Queue::write_texture`, the encoder's
//! texture copies and `clear_texture`).

use aqueduct_isa::gfx11::image_desc::ImageDescriptorError;
use wgpu_types::{
    BindingType, BufferUsages, COPY_BYTES_PER_ROW_ALIGNMENT, StorageTextureAccess, TextureAspect,
    TextureDimension, TextureFormat, TextureUsages, TextureViewDimension,
};

use super::ident::{BufferIdent, UnusableBuffer, label_suffix};
use super::lower::LowerError;

/// A texture as a message names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureIdent {
    /// The texture's label, if it has one.
    pub label: Option<String>,
    /// Width, height and depth or layers.
    pub size: [u32; 3],
    /// The texel format.
    pub format: TextureFormat,
}

impl std::fmt::Display for TextureIdent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.label {
            Some(l) => write!(f, "texture `{l}`"),
            None => write!(
                f,
                "a {}x{}x{} {:?} texture",
                self.size[0], self.size[1], self.size[2], self.format
            ),
        }
    }
}

/// A texture call that failed (reported as a validation error).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextureError {
    /// `Device::create_texture` failed; the texture is invalid.
    #[error("create_texture{}: {source}", label_suffix(label))]
    Create {
        /// The texture's label, if it has one.
        label: Option<String>,
        /// The broken rule.
        #[source]
        source: CreateTextureError,
    },
    /// `Texture::create_view` failed; the view is invalid.
    #[error("create_view{}: {source}", label_suffix(label))]
    View {
        /// The view's label, if it has one.
        label: Option<String>,
        /// The broken rule.
        #[source]
        source: TextureViewError,
    },
    /// `Queue::write_texture` failed; nothing was written.
    #[error("write_texture: {0}")]
    Write(#[source] TextureCopyError),
}

/// Why `Device::create_texture` failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CreateTextureError {
    /// A size component is 0.
    #[error("size {size:?} has a zero component")]
    ZeroSize {
        /// Width, height, depth or layers.
        size: [u32; 3],
    },
    /// A size component is above the device's limit for the dimension.
    #[error(
        "size {size:?} of a {dimension:?} texture is above the limit {max} \
         (`Limits::{limit}`)"
    )]
    TooLarge {
        /// The texture dimension.
        dimension: TextureDimension,
        /// Width, height, depth or layers.
        size: [u32; 3],
        /// The limit that is exceeded.
        max: u32,
        /// The limit's name.
        limit: &'static str,
    },
    /// A 1D texture with a height or depth other than 1.
    #[error("a 1D texture has height and depth 1, not {size:?}")]
    Not1D {
        /// The requested size.
        size: [u32; 3],
    },
    /// A mip level count of 0 or beyond the size's full mip chain.
    #[error(
        "mip_level_count {requested} is not between 1 and {max}, the levels of the full mip \
         chain of this size"
    )]
    MipLevelCount {
        /// The requested count.
        requested: u32,
        /// The full chain's level count for the size and dimension.
        max: u32,
    },
    /// Multisampling (compute has no use for it).
    #[error("sample_count {count} is not supported; textures have one sample")]
    SampleCount {
        /// The requested count.
        count: u32,
    },
    /// A format without a gfx11 linear layout here (stencil, combined
    /// depth-stencil, compressed, 64-bit formats).
    #[error("format {format:?} is not supported for textures")]
    UnsupportedFormat {
        /// The format.
        format: TextureFormat,
    },
    /// A depth format with a dimension other than 2D.
    #[error("depth format {format:?} needs a 2D texture, not {dimension:?}")]
    DepthDimension {
        /// The format.
        format: TextureFormat,
        /// The requested dimension.
        dimension: TextureDimension,
    },
    /// A usage the format does not allow (depth formats have no storage
    /// binding, nor have the sRGB formats; bgra8unorm has it only with
    /// `BGRA8UNORM_STORAGE`).
    #[error("usage {usage:?} is not allowed for format {format:?}, which allows {allowed:?}")]
    FormatUsage {
        /// The format.
        format: TextureFormat,
        /// The requested usage.
        usage: TextureUsages,
        /// The usages the format allows.
        allowed: TextureUsages,
    },
    /// The usage is empty.
    #[error("the usage is empty")]
    EmptyUsage,
    /// A usage compute devices do not have (render attachments,
    /// transient, storage atomics).
    #[error("usage {usage:?} includes {unsupported:?}, which compute-only textures do not have")]
    UnsupportedUsage {
        /// The requested usage.
        usage: TextureUsages,
        /// The part of it that is not supported.
        unsupported: TextureUsages,
    },
    /// A view format that is neither the texture's format nor its sRGB
    /// twin (WebGPU's "texture view format compatible").
    #[error("view format {view:?} is not compatible with the texture format {format:?}")]
    ViewFormat {
        /// The texture format.
        format: TextureFormat,
        /// The view format.
        view: TextureFormat,
    },
}

/// Why `Texture::create_view` failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextureViewError {
    /// The texture is invalid or destroyed.
    #[error("{texture} is invalid or destroyed")]
    InvalidTexture {
        /// The texture.
        texture: TextureIdent,
    },
    /// The view format is neither the texture's nor one of its
    /// `view_formats`.
    #[error(
        "view format {view:?} is neither the texture format {texture:?} nor one of its view formats"
    )]
    Format {
        /// The texture format.
        texture: TextureFormat,
        /// The view format.
        view: TextureFormat,
    },
    /// The view dimension does not fit the texture's dimension.
    #[error("a {view:?} view cannot be made of a {texture:?} texture")]
    Dimension {
        /// The texture dimension.
        texture: TextureDimension,
        /// The view dimension.
        view: TextureViewDimension,
    },
    /// A cube or cube-array view of a texture whose faces are not square.
    #[error("cube views need square faces, not {width}x{height}")]
    CubeNotSquare {
        /// The texture's width.
        width: u32,
        /// The texture's height.
        height: u32,
    },
    /// An aspect the texture's format does not have.
    #[error("format {format:?} has no aspect {aspect:?}")]
    Aspect {
        /// The texture's format.
        format: TextureFormat,
        /// The requested aspect.
        aspect: TextureAspect,
    },
    /// The mip range is empty or past the texture's levels.
    #[error("mip levels {base}..{end} are outside the texture's {levels} level(s)")]
    MipRange {
        /// The first level.
        base: u32,
        /// One past the last level.
        end: u64,
        /// The texture's levels.
        levels: u32,
    },
    /// The layer range is empty or past the texture's layers.
    #[error("array layers {base}..{end} are outside the texture's {layers} layer(s)")]
    LayerRange {
        /// The first layer.
        base: u32,
        /// One past the last layer.
        end: u64,
        /// The texture's layers.
        layers: u32,
    },
    /// A 1D, 2D or 3D view of more than one layer, a cube view of other
    /// than 6, a cube-array view of other than a multiple of 6.
    #[error(
        "a {view:?} view cannot have {count} array layers (1D, 2D, 3D: 1; cube: 6; cube \
         array: a multiple of 6)"
    )]
    LayerCount {
        /// The view dimension.
        view: TextureViewDimension,
        /// The requested layers.
        count: u32,
    },
    /// The view usage is not a subset of the texture's.
    #[error("view usage {view:?} is not a subset of the texture usage {texture:?}")]
    Usage {
        /// The texture usage.
        texture: TextureUsages,
        /// The view usage.
        view: TextureUsages,
    },
    /// The view's image descriptor cannot be built.
    #[error("the view's image descriptor: {0}")]
    Descriptor(#[source] ImageDescriptorError),
}

/// Why a texture binding of a layout or bind group is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextureBindingError {
    /// A multisampled texture binding.
    #[error("multisampled textures are not supported")]
    Multisampled,
    /// A storage texture entry with a cube view dimension (WebGPU has no
    /// cube storage textures).
    #[error("view dimension {view_dimension:?} is not allowed for storage textures")]
    ViewDimension {
        /// The view dimension.
        view_dimension: TextureViewDimension,
    },
    /// A storage format without a gfx11 layout here.
    #[error("format {format:?} is not supported for storage textures")]
    StorageFormat {
        /// The format.
        format: TextureFormat,
    },
    /// A storage format or access the device binds only with a feature it
    /// does not have (bgra8unorm needs `BGRA8UNORM_STORAGE`, atomic access
    /// to r32uint and r32sint `TEXTURE_ATOMIC`).
    #[error(
        "format {format:?} binds as this storage texture only with {feature:?}, which the device does not have"
    )]
    MissingFeature {
        /// The format.
        format: TextureFormat,
        /// The feature it needs.
        feature: wgpu_types::Features,
    },
    /// `read_write` access on a format WebGPU allows it for only with
    /// tier features (r32float, r32uint and r32sint have it everywhere).
    #[error("{access:?} access is only allowed for r32float, r32uint and r32sint, not {format:?}")]
    ReadWriteFormat {
        /// The access.
        access: StorageTextureAccess,
        /// The format.
        format: TextureFormat,
    },
    /// `atomic` access on a format without texture atomics (wgpu's
    /// `STORAGE_ATOMIC` formats: r32uint and r32sint here).
    #[error("atomic access is only allowed for r32uint and r32sint, not {format:?}")]
    AtomicFormat {
        /// The format.
        format: TextureFormat,
    },
    /// The layout entry is a texture but the resource is not a texture view,
    /// or the other way round.
    #[error("the layout entry is {layout:?} but the resource is {resource}")]
    ResourceKind {
        /// The layout entry's type.
        layout: BindingType,
        /// What the resource is (`a buffer`, `a texture view`).
        resource: &'static str,
    },
    /// The view (or its texture) is invalid or destroyed.
    #[error("the texture view is invalid or its texture was destroyed")]
    InvalidView,
    /// The texture lacks the usage the binding needs.
    #[error("the texture usage {usage:?} lacks {needed:?}")]
    MissingUsage {
        /// The texture's usage.
        usage: TextureUsages,
        /// The usage the binding needs.
        needed: TextureUsages,
    },
    /// The view's format differs from the layout's storage format.
    #[error("the layout's storage format is {layout:?} but the view's is {view:?}")]
    Format {
        /// The layout's format.
        layout: TextureFormat,
        /// The view's format.
        view: TextureFormat,
    },
    /// The view's dimension differs from the layout's.
    #[error("the layout's view dimension is {layout:?} but the view's is {view:?}")]
    Dimension {
        /// The layout's view dimension.
        layout: TextureViewDimension,
        /// The view's dimension.
        view: TextureViewDimension,
    },
    /// The view's format has another sample type than the layout's.
    #[error("the layout samples {layout:?} but the view's format {format:?} does not give that")]
    SampleType {
        /// The layout's sample type.
        layout: wgpu_types::TextureSampleType,
        /// The view's format.
        format: TextureFormat,
    },
    /// A storage binding of a view of more than one mip level.
    #[error("a storage texture view has one mip level, not {count}")]
    StorageMipLevels {
        /// The view's level count.
        count: u32,
    },
}

/// Why a texel copy, texture write or texture clear failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextureCopyError {
    /// The texture is invalid or destroyed.
    #[error("{texture} is invalid or destroyed")]
    InvalidTexture {
        /// The texture.
        texture: TextureIdent,
    },
    /// The buffer side cannot be used.
    #[error(transparent)]
    Buffer(#[from] UnusableBuffer),
    /// The texture lacks COPY_SRC or COPY_DST.
    #[error("{texture} has usage {usage:?}, without {needed:?}")]
    TextureUsage {
        /// The texture.
        texture: TextureIdent,
        /// Its usage.
        usage: TextureUsages,
        /// The usage the copy needs.
        needed: TextureUsages,
    },
    /// The buffer lacks COPY_SRC or COPY_DST.
    #[error("{buffer} has usage {usage:?}, without {needed:?}")]
    BufferUsage {
        /// The buffer.
        buffer: BufferIdent,
        /// Its usage.
        usage: BufferUsages,
        /// The usage the copy needs.
        needed: BufferUsages,
    },
    /// An aspect the texture's format does not have.
    #[error("format {format:?} has no aspect {aspect:?}")]
    Aspect {
        /// The texture's format.
        format: TextureFormat,
        /// The aspect.
        aspect: TextureAspect,
    },
    /// A copy of a depth format WebGPU forbids in this direction
    /// (`depth24plus` both ways, `depth32float` into a texture).
    #[error("format {format:?} cannot be copied {direction}")]
    DepthCopy {
        /// The format.
        format: TextureFormat,
        /// `from` or `into` the texture.
        direction: &'static str,
    },
    /// A depth copy that does not cover whole layers (WebGPU copies depth
    /// formats whole in x and y).
    #[error(
        "a copy of depth format {format:?} must cover whole layers: origin {origin:?} size \
         {size:?} of extent {extent:?}"
    )]
    PartialDepthCopy {
        /// The format.
        format: TextureFormat,
        /// The box's origin.
        origin: [u32; 3],
        /// The box's size.
        size: [u32; 3],
        /// The texture's extent.
        extent: [u32; 3],
    },
    /// The mip level does not exist.
    #[error("mip level {level} is past the texture's {levels} level(s)")]
    MipLevel {
        /// The level.
        level: u32,
        /// The texture's levels.
        levels: u32,
    },
    /// The copy box leaves the texture's mip level.
    #[error(
        "origin {origin:?} + size {size:?} leaves the extent {extent:?} of mip level {mip_level}"
    )]
    OutOfBounds {
        /// The mip level.
        mip_level: u32,
        /// The box's origin.
        origin: [u32; 3],
        /// The box's size.
        size: [u32; 3],
        /// The texture's extent at the level.
        extent: [u32; 3],
    },
    /// `bytes_per_row` is not a multiple of 256 (encoder copies).
    #[error("bytes_per_row {bytes_per_row} is not a multiple of {COPY_BYTES_PER_ROW_ALIGNMENT}")]
    BytesPerRowAlignment {
        /// The given value.
        bytes_per_row: u32,
    },
    /// `bytes_per_row` is missing though the copy has more than one row.
    #[error("bytes_per_row is required for a copy of more than one row")]
    BytesPerRowMissing,
    /// `bytes_per_row` is below one row of the copy.
    #[error("bytes_per_row {bytes_per_row} is below the copy's {row_bytes} bytes per row")]
    BytesPerRowTooSmall {
        /// The given value.
        bytes_per_row: u32,
        /// Bytes one row of the copy holds.
        row_bytes: u64,
    },
    /// `rows_per_image` is missing though the copy has more than one image.
    #[error("rows_per_image is required for a copy of more than one image")]
    RowsPerImageMissing,
    /// `rows_per_image` is below the copy's height.
    #[error("rows_per_image {rows_per_image} is below the copy height {height}")]
    RowsPerImageTooSmall {
        /// The given value.
        rows_per_image: u32,
        /// The copy's height.
        height: u32,
    },
    /// The buffer offset is not a multiple of the texel size, or of 4 for
    /// depth formats (encoder copies).
    #[error("buffer offset {offset} is not a multiple of {texel_bytes} bytes")]
    OffsetAlignment {
        /// The offset.
        offset: u64,
        /// The alignment: bytes per texel, or 4 for depth formats.
        texel_bytes: u32,
    },
    /// The buffer or data is too small for the layout and size.
    #[error("the copy needs bytes up to {end} but the {what} holds {len}")]
    Overrun {
        /// One past the last byte the copy touches.
        end: u64,
        /// The bytes the buffer or data holds.
        len: u64,
        /// `buffer` or `data`.
        what: &'static str,
    },
    /// A texture-to-texture copy between different formats.
    #[error("source format {source_format:?} differs from destination format {destination:?}")]
    FormatMismatch {
        /// The source format.
        source_format: TextureFormat,
        /// The destination format.
        destination: TextureFormat,
    },
    /// A texture-to-texture copy within one texture between overlapping
    /// subresources (the same mip level and overlapping layers).
    #[error("source and destination are the same subresources of one texture ({texture})")]
    SameTexture {
        /// The texture.
        texture: TextureIdent,
    },
    /// Lowering the copy to blits failed.
    #[error(transparent)]
    Lower(#[from] LowerError),
}
