//! Texel copies between linear memory and textures: WebGPU's validation of
//! a copy's texture side and buffer layout, and the row segments a copy
//! becomes. A texture is linear memory with padded rows
//! (`src/texture.rs`), so a copy is a list of byte-range copies: one per
//! texel row, merged where both sides are contiguous (a whole-width copy
//! whose `bytes_per_row` equals the texture's row pitch is one segment per
//! image, a whole-texture copy of such a layout one segment in all).

use wgpu_types::{
    COPY_BYTES_PER_ROW_ALIGNMENT, Extent3d, TexelCopyBufferLayout, TexelCopyTextureInfo,
    TextureFormat, TextureUsages,
};

use crate::buffer::Buffer;
use crate::device::DeviceShared;
use crate::error::TextureCopyError;
use crate::texture::{Texture, TextureLayout, has_aspect, is_depth};

/// One contiguous piece of a copy: `len` bytes at `linear` in the buffer
/// or data and at `texel` in the texture's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    pub linear: u64,
    pub texel: u64,
    pub len: u64,
}

/// The texture side of a copy, validated: its level's layout and buffer.
pub(crate) struct TextureSide<'a> {
    pub layout: &'a TextureLayout,
    pub buffer: &'a Buffer,
    pub origin: [u32; 3],
}

/// The extent of a texture's mip level as copies see it (WebGPU's
/// "physical miplevel-specific texture extent", which equals the logical
/// one for the uncompressed formats here; wgpu-types'
/// `Extent3d::mip_level_size`).
pub(crate) fn copy_extent(texture: &Texture, level: u32) -> [u32; 3] {
    let s = texture.size().mip_level_size(level, texture.dimension());
    [s.width, s.height, s.depth_or_array_layers]
}

/// Check the texture side of a copy of `size` that needs `needed` usage.
pub(crate) fn check_texture<'a>(
    device: &DeviceShared,
    info: &TexelCopyTextureInfo<&'a Texture>,
    size: Extent3d,
    needed: TextureUsages,
) -> Result<TextureSide<'a>, TextureCopyError> {
    let texture = info.texture;
    let (layouts, buffer) =
        texture
            .usable(device)
            .ok_or_else(|| TextureCopyError::InvalidTexture {
                texture: texture.ident(),
            })?;
    if !texture.usage().contains(needed) {
        return Err(TextureCopyError::TextureUsage {
            texture: texture.ident(),
            usage: texture.usage(),
            needed,
        });
    }
    // wgpu-core's `extract_texture_selector`: an aspect the format has.
    if !has_aspect(texture.format(), info.aspect) {
        return Err(TextureCopyError::Aspect {
            format: texture.format(),
            aspect: info.aspect,
        });
    }
    if info.mip_level >= texture.mip_level_count() {
        return Err(TextureCopyError::MipLevel {
            level: info.mip_level,
            levels: texture.mip_level_count(),
        });
    }
    let layout = &layouts[info.mip_level as usize];
    let origin = [info.origin.x, info.origin.y, info.origin.z];
    let size = [size.width, size.height, size.depth_or_array_layers];
    // WebGPU's "validating texture copy range": the box lies inside the
    // level's extent.
    let extent = copy_extent(texture, info.mip_level);
    let inside = (0..3).all(|i| u64::from(origin[i]) + u64::from(size[i]) <= u64::from(extent[i]));
    if !inside {
        return Err(TextureCopyError::OutOfBounds {
            mip_level: info.mip_level,
            origin,
            size,
            extent,
        });
    }
    // WebGPU's "validating texture copy range" (wgpu-core's
    // `validate_texture_copy_range`): depth formats copy whole in x and y,
    // any range of layers.
    let whole = origin[..2] == [0, 0] && size[..2] == extent[..2];
    if is_depth(texture.format()) && !whole {
        return Err(TextureCopyError::PartialDepthCopy {
            format: texture.format(),
            origin,
            size,
            extent,
        });
    }
    Ok(TextureSide {
        layout,
        buffer,
        origin,
    })
}

/// Check that a copy between a buffer and `texture` may move its texels
/// in this direction (`into` the texture or out of it): WebGPU's
/// "Depth-stencil formats" table, wgpu-core's
/// `validate_texture_copy_src_format` / `validate_texture_copy_dst_format`
/// (`depth24plus` has no copies, `depth32float` copies only out). Gives the
/// buffer offset alignment (wgpu-core's `validate_texture_buffer_copy`: 4
/// bytes for depth formats, the texel size otherwise).
pub(crate) fn check_buffer_copy_format(
    texture: &Texture,
    texel_bytes: u32,
    into: bool,
) -> Result<u32, TextureCopyError> {
    let format = texture.format();
    let forbidden = match format {
        TextureFormat::Depth24Plus => true,
        TextureFormat::Depth32Float => into,
        _ => false,
    };
    if forbidden {
        return Err(TextureCopyError::DepthCopy {
            format,
            direction: if into {
                "into a texture"
            } else {
                "out of a texture"
            },
        });
    }
    Ok(if is_depth(format) { 4 } else { texel_bytes })
}

/// Check a linear layout for a copy of `size` texels of `texel_bytes`
/// from or to `len` bytes; `encoder` applies the command encoder's rules
/// (256-byte `bytes_per_row`, an offset aligned to `offset_align`, from
/// [`check_buffer_copy_format`]). Gives (bytes per row, bytes per image).
pub(crate) fn check_linear(
    layout: &TexelCopyBufferLayout,
    size: Extent3d,
    texel_bytes: u32,
    offset_align: u32,
    len: u64,
    what: &'static str,
    encoder: bool,
) -> Result<(u64, u64), TextureCopyError> {
    let row_bytes = u64::from(size.width) * u64::from(texel_bytes);
    let (height, depth) = (size.height, size.depth_or_array_layers);
    if encoder && !layout.offset.is_multiple_of(u64::from(offset_align)) {
        return Err(TextureCopyError::OffsetAlignment {
            offset: layout.offset,
            texel_bytes: offset_align,
        });
    }
    let bytes_per_row = match layout.bytes_per_row {
        Some(bpr) => {
            if encoder && !bpr.is_multiple_of(COPY_BYTES_PER_ROW_ALIGNMENT) {
                return Err(TextureCopyError::BytesPerRowAlignment { bytes_per_row: bpr });
            }
            if u64::from(bpr) < row_bytes {
                return Err(TextureCopyError::BytesPerRowTooSmall {
                    bytes_per_row: bpr,
                    row_bytes,
                });
            }
            u64::from(bpr)
        }
        None if height > 1 || depth > 1 => return Err(TextureCopyError::BytesPerRowMissing),
        None => row_bytes,
    };
    let rows_per_image = match layout.rows_per_image {
        Some(rpi) => {
            if rpi < height {
                return Err(TextureCopyError::RowsPerImageTooSmall {
                    rows_per_image: rpi,
                    height,
                });
            }
            u64::from(rpi)
        }
        None if depth > 1 => return Err(TextureCopyError::RowsPerImageMissing),
        None => u64::from(height),
    };
    let image_bytes = bytes_per_row * rows_per_image;
    let needed = if row_bytes == 0 || height == 0 || depth == 0 {
        0
    } else {
        image_bytes * u64::from(depth - 1) + bytes_per_row * u64::from(height - 1) + row_bytes
    };
    let end = layout.offset + needed;
    if end > len {
        return Err(TextureCopyError::Overrun { end, len, what });
    }
    Ok((bytes_per_row, image_bytes))
}

/// The segments of a copy of `size` texels between a linear layout
/// (`offset`, `bytes_per_row`, `bytes_per_image`) and the texture side.
pub(crate) fn segments(
    side: &TextureSide<'_>,
    size: Extent3d,
    offset: u64,
    bytes_per_row: u64,
    bytes_per_image: u64,
) -> Vec<Segment> {
    let row_bytes = u64::from(size.width) * u64::from(side.layout.texel_bytes);
    let mut out: Vec<Segment> = Vec::new();
    if row_bytes == 0 {
        return out;
    }
    let [ox, oy, oz] = side.origin;
    for z in 0..size.depth_or_array_layers {
        for y in 0..size.height {
            let seg = Segment {
                linear: offset + u64::from(z) * bytes_per_image + u64::from(y) * bytes_per_row,
                texel: side.layout.offset(ox, oy + y, oz + z),
                len: row_bytes,
            };
            match out.last_mut() {
                Some(last)
                    if last.linear + last.len == seg.linear
                        && last.texel + last.len == seg.texel =>
                {
                    last.len += seg.len;
                }
                _ => out.push(seg),
            }
        }
    }
    out
}

/// The segments of a texture-to-texture copy: (source texel offset,
/// destination texel offset, length), one per row, merged where both sides
/// are contiguous.
pub(crate) fn texture_segments(
    src: &TextureSide<'_>,
    dst: &TextureSide<'_>,
    size: Extent3d,
) -> Vec<Segment> {
    let row_bytes = u64::from(size.width) * u64::from(src.layout.texel_bytes);
    let mut out: Vec<Segment> = Vec::new();
    if row_bytes == 0 {
        return out;
    }
    for z in 0..size.depth_or_array_layers {
        for y in 0..size.height {
            let [sx, sy, sz] = src.origin;
            let [dx, dy, dz] = dst.origin;
            let seg = Segment {
                linear: src.layout.offset(sx, sy + y, sz + z),
                texel: dst.layout.offset(dx, dy + y, dz + z),
                len: row_bytes,
            };
            match out.last_mut() {
                Some(last)
                    if last.linear + last.len == seg.linear
                        && last.texel + last.len == seg.texel =>
                {
                    last.len += seg.len;
                }
                _ => out.push(seg),
            }
        }
    }
    out
}
