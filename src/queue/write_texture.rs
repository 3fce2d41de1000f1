//! `Queue::write_texture`: texels from host memory into a texture, staged
//! like `write_buffer`'s bytes. A copy covering whole rows is repacked on
//! the host into the texture's row pitch and staged once per image; a
//! narrower one is staged once per row segment.

use wgpu_types::{Extent3d, TexelCopyBufferLayout, TextureUsages};

use super::Queue;
use super::staging::stage_write;
use crate::error::{DeviceError, Error, InternalError, QueueWriteError, TextureError};
use crate::texture::TexelCopyTextureInfo;
use crate::texture_copy::{check_buffer_copy_format, check_linear, check_texture, segments};

impl Queue {
    /// Write `data`, laid out as `data_layout` says (no 256-byte row
    /// alignment), into `texture` at its origin; `size` texels.
    pub fn write_texture(
        &self,
        texture: TexelCopyTextureInfo<'_>,
        data: &[u8],
        data_layout: TexelCopyBufferLayout,
        size: Extent3d,
    ) {
        let dev = &self.shared;
        if dev.is_lost() {
            dev.report(DeviceError::Destroyed {
                call: "write_texture",
            });
            return;
        }
        let checked =
            check_texture(dev, &texture, size, TextureUsages::COPY_DST).and_then(|side| {
                let align =
                    check_buffer_copy_format(texture.texture, side.layout.texel_bytes, true)?;
                let (bpr, bpi) = check_linear(
                    &data_layout,
                    size,
                    side.layout.texel_bytes,
                    align,
                    data.len() as u64,
                    "data",
                    false,
                )?;
                Ok((side, bpr, bpi))
            });
        let (side, bpr, bpi) = match checked {
            Ok(c) => c,
            Err(e) => {
                dev.report(TextureError::Write(e));
                return;
            }
        };
        let layout = side.layout;
        let row_bytes = u64::from(size.width) * u64::from(layout.texel_bytes);
        let whole_rows = side.origin[0] == 0 && size.width == layout.width();
        let mut result = Ok(());
        if whole_rows && size.height > 1 {
            for z in 0..size.depth_or_array_layers {
                let start = layout.offset(0, side.origin[1], side.origin[2] + z);
                let len = u64::from(size.height - 1) * layout.row_bytes + row_bytes;
                let mut image = vec![0u8; len as usize];
                for y in 0..u64::from(size.height) {
                    let from = (data_layout.offset + u64::from(z) * bpi + y * bpr) as usize;
                    let to = (y * layout.row_bytes) as usize;
                    image[to..to + row_bytes as usize]
                        .copy_from_slice(&data[from..from + row_bytes as usize]);
                }
                result = stage_write(dev, side.buffer, start, &image);
                if result.is_err() {
                    break;
                }
            }
        } else {
            for s in segments(&side, size, data_layout.offset, bpr, bpi) {
                let bytes = &data[s.linear as usize..(s.linear + s.len) as usize];
                result = stage_write(dev, side.buffer, s.texel, bytes);
                if result.is_err() {
                    break;
                }
            }
        }
        match result {
            Ok(()) => {}
            Err(e @ QueueWriteError::Lower(_)) => {
                let e = InternalError::Staging { source: e };
                dev.report(Error::Internal {
                    description: e.to_string(),
                    source: Box::new(e),
                });
            }
            Err(e) => dev.report(Error::OutOfMemory {
                source: Box::new(InternalError::Staging { source: e }),
            }),
        }
    }
}
