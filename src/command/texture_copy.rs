//! The command encoder's texture commands: `copy_buffer_to_texture`,
//! `copy_texture_to_buffer`, `copy_texture_to_texture` and
//! `clear_texture`, validated with WebGPU's rules (`src/texture_copy.rs`)
//! and recorded as byte-range copies and fills of the textures' buffers on
//! the buffer copy path: one copy op per row segment
//! ([`crate::texture_copy::segments`]), one fill per cleared level and
//! slice (merged where they touch).

use std::ops::Range;

use wgpu_types::{BufferUsages, Extent3d, ImageSubresourceRange, TextureDimension, TextureUsages};

use super::encoder::CommandEncoder;
use super::lower::{self, PacketRole};
use crate::error::{BufferRole, CommandError, TextureCopyError};
use crate::texture::has_aspect;
use crate::texture::{TexelCopyBufferInfo, TexelCopyTextureInfo, Texture, TextureLayout};
use crate::texture_copy::{
    Segment, check_buffer_copy_format, check_linear, check_texture, copy_extent, segments,
    texture_segments,
};

fn texture_error(command: &'static str) -> impl FnOnce(TextureCopyError) -> CommandError {
    move |source| CommandError::Texture { command, source }
}

fn check_buffer(
    device: &crate::device::DeviceShared,
    buffer: &crate::Buffer,
    role: BufferRole,
    needed: BufferUsages,
) -> Result<(), TextureCopyError> {
    buffer.check_usable(device, role)?;
    if !buffer.usage().contains(needed) {
        return Err(TextureCopyError::BufferUsage {
            buffer: buffer.ident(),
            usage: buffer.usage(),
            needed,
        });
    }
    Ok(())
}

/// Record one copy op list per segment from `src` to `dst` (buffer-relative
/// offsets: `linear` in `src`, `texel` in `dst`).
fn record_segments(
    device: &crate::device::DeviceShared,
    rec: &mut super::encoder::Recording,
    src: &crate::Buffer,
    dst: &crate::Buffer,
    segs: &[Segment],
) -> Result<(), TextureCopyError> {
    rec.use_buffer(src);
    rec.use_buffer(dst);
    for s in segs {
        lower::copy_ops_into(
            &device.blit,
            PacketRole::Copy,
            src.access(s.linear..s.linear + s.len, false),
            dst.access(s.texel..s.texel + s.len, true),
            &mut rec.ops,
        )?;
    }
    Ok(())
}

impl CommandEncoder {
    /// Copy texels from a buffer laid out as `source.layout` says into a
    /// texture (`bytes_per_row` a multiple of 256).
    pub fn copy_buffer_to_texture(
        &mut self,
        source: TexelCopyBufferInfo<'_>,
        destination: TexelCopyTextureInfo<'_>,
        copy_size: Extent3d,
    ) {
        let command = "copy_buffer_to_texture";
        self.command(command, texture_error(command), |device, rec| {
            check_buffer(
                device,
                source.buffer,
                BufferRole::Source,
                BufferUsages::COPY_SRC,
            )?;
            let side = check_texture(device, &destination, copy_size, TextureUsages::COPY_DST)?;
            let align =
                check_buffer_copy_format(destination.texture, side.layout.texel_bytes, true)?;
            let (bpr, bpi) = check_linear(
                &source.layout,
                copy_size,
                side.layout.texel_bytes,
                align,
                source.buffer.size(),
                "buffer",
                true,
            )?;
            let segs = segments(&side, copy_size, source.layout.offset, bpr, bpi);
            record_segments(device, rec, source.buffer, side.buffer, &segs)
        })
    }

    /// Copy texels from a texture into a buffer laid out as
    /// `destination.layout` says (`bytes_per_row` a multiple of 256).
    pub fn copy_texture_to_buffer(
        &mut self,
        source: TexelCopyTextureInfo<'_>,
        destination: TexelCopyBufferInfo<'_>,
        copy_size: Extent3d,
    ) {
        let command = "copy_texture_to_buffer";
        self.command(command, texture_error(command), |device, rec| {
            check_buffer(
                device,
                destination.buffer,
                BufferRole::Destination,
                BufferUsages::COPY_DST,
            )?;
            let side = check_texture(device, &source, copy_size, TextureUsages::COPY_SRC)?;
            let align = check_buffer_copy_format(source.texture, side.layout.texel_bytes, false)?;
            let (bpr, bpi) = check_linear(
                &destination.layout,
                copy_size,
                side.layout.texel_bytes,
                align,
                destination.buffer.size(),
                "buffer",
                true,
            )?;
            let segs: Vec<Segment> =
                segments(&side, copy_size, destination.layout.offset, bpr, bpi)
                    .into_iter()
                    .map(|s| Segment {
                        linear: s.texel,
                        texel: s.linear,
                        len: s.len,
                    })
                    .collect();
            record_segments(device, rec, side.buffer, destination.buffer, &segs)
        })
    }

    /// Copy texels between two textures of one format.
    pub fn copy_texture_to_texture(
        &mut self,
        source: TexelCopyTextureInfo<'_>,
        destination: TexelCopyTextureInfo<'_>,
        copy_size: Extent3d,
    ) {
        let command = "copy_texture_to_texture";
        self.command(command, texture_error(command), |device, rec| {
            let src = check_texture(device, &source, copy_size, TextureUsages::COPY_SRC)?;
            let dst = check_texture(device, &destination, copy_size, TextureUsages::COPY_DST)?;
            // WebGPU's copyTextureToTexture (wgpu-core's
            // `validate_copy_within_same_texture`): within one texture the
            // subresources must not overlap, so the levels differ or (2D)
            // the layer ranges are disjoint. Levels and layers are disjoint
            // byte ranges of the buffer.
            if source.texture == destination.texture {
                let layers = match source.texture.dimension() {
                    TextureDimension::D2 => copy_size.depth_or_array_layers,
                    _ => 1,
                };
                let (a, b) = (source.origin.z, destination.origin.z);
                let disjoint_layers = source.texture.dimension() == TextureDimension::D2
                    && (u64::from(a) >= u64::from(b) + u64::from(layers)
                        || u64::from(b) >= u64::from(a) + u64::from(layers));
                if source.mip_level == destination.mip_level && !disjoint_layers {
                    return Err(TextureCopyError::SameTexture {
                        texture: source.texture.ident(),
                    });
                }
            }
            if source.texture.format() != destination.texture.format() {
                return Err(TextureCopyError::FormatMismatch {
                    source_format: source.texture.format(),
                    destination: destination.texture.format(),
                });
            }
            let segs = texture_segments(&src, &dst, copy_size);
            record_segments(device, rec, src.buffer, dst.buffer, &segs)
        })
    }

    /// Zero the texels of `range` (row padding included).
    pub fn clear_texture(&mut self, texture: &Texture, range: &ImageSubresourceRange) {
        let command = "clear_texture";
        self.command(command, texture_error(command), |device, rec| {
            let (layouts, buffer) =
                texture
                    .usable(device)
                    .ok_or_else(|| TextureCopyError::InvalidTexture {
                        texture: texture.ident(),
                    })?;
            if !texture.usage().contains(TextureUsages::COPY_DST) {
                return Err(TextureCopyError::TextureUsage {
                    texture: texture.ident(),
                    usage: texture.usage(),
                    needed: TextureUsages::COPY_DST,
                });
            }
            // wgpu-core's `clear_texture`: an aspect the format has.
            if !has_aspect(texture.format(), range.aspect) {
                return Err(TextureCopyError::Aspect {
                    format: texture.format(),
                    aspect: range.aspect,
                });
            }
            let levels = texture.mip_level_count();
            let level_end = u64::from(range.base_mip_level)
                + u64::from(
                    range
                        .mip_level_count
                        .unwrap_or(levels.saturating_sub(range.base_mip_level)),
                );
            if level_end > u64::from(levels) || range.base_mip_level >= levels {
                return Err(TextureCopyError::MipLevel {
                    level: range.base_mip_level,
                    levels,
                });
            }
            let levels = &layouts[range.base_mip_level as usize..level_end as usize];
            let layer_range = match texture.dimension() {
                TextureDimension::D2 => {
                    let layers = texture.depth_or_array_layers();
                    let count = range
                        .array_layer_count
                        .unwrap_or(layers.saturating_sub(range.base_array_layer));
                    let end = u64::from(range.base_array_layer) + u64::from(count);
                    if end > u64::from(layers) {
                        let [w, h, _] = copy_extent(texture, range.base_mip_level);
                        return Err(TextureCopyError::OutOfBounds {
                            mip_level: range.base_mip_level,
                            origin: [0, 0, range.base_array_layer],
                            size: [w, h, count],
                            extent: [w, h, layers],
                        });
                    }
                    Some(range.base_array_layer..end as u32)
                }
                _ => None,
            };
            rec.use_buffer(buffer);
            for bytes in clear_ranges(levels, layer_range) {
                lower::fill_ops_into(&device.blit, buffer.access(bytes, true), 0, &mut rec.ops)?;
            }
            Ok(())
        })
    }
}

/// The byte ranges a clear of `levels`' slices fills: each level's bytes in
/// each of its slices (a 2D texture's `layers`, every depth slice of a 3D
/// level), merged where they touch. A level's slices are a whole mip chain
/// apart (`src/texture.rs`), so a chain's ranges are one per level and
/// slice; a single level's layers are contiguous and merge into one.
fn clear_ranges(levels: &[TextureLayout], layers: Option<Range<u32>>) -> Vec<Range<u64>> {
    let mut out: Vec<Range<u64>> = Vec::new();
    for layout in levels {
        for z in layers.clone().unwrap_or(0..layout.slices) {
            let bytes = layout.slice_range(z);
            match out.last_mut() {
                Some(last) if last.end == bytes.start => last.end = bytes.end,
                _ if bytes.is_empty() => {}
                _ => out.push(bytes),
            }
        }
    }
    out
}
