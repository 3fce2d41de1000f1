//! Textures and texture views: each wraps the facade object it was
//! created as (`aqueduct::Texture`, `aqueduct::TextureView`), and the
//! texel-copy descriptors wgpu passes become the facade's.

use wgpu::custom::{DispatchTextureView, TextureInterface, TextureViewInterface};

/// `wgpu::Texture`'s backend.
#[derive(Debug)]
pub struct AqueductTexture {
    texture: aqueduct::Texture,
}

impl AqueductTexture {
    pub(crate) fn create(device: &aqueduct::Device, desc: &wgpu::TextureDescriptor<'_>) -> Self {
        AqueductTexture {
            texture: device.create_texture(desc),
        }
    }

    /// The facade texture.
    pub fn aqueduct(&self) -> &aqueduct::Texture {
        &self.texture
    }
}

impl TextureInterface for AqueductTexture {
    fn create_view(&self, desc: &wgpu::TextureViewDescriptor<'_>) -> DispatchTextureView {
        DispatchTextureView::custom(AqueductTextureView {
            view: self.texture.create_view(desc),
        })
    }

    fn destroy(&self) {
        self.texture.destroy();
    }
}

/// `wgpu::TextureView`'s backend.
#[derive(Debug)]
pub struct AqueductTextureView {
    view: aqueduct::TextureView,
}

impl AqueductTextureView {
    /// The facade view.
    pub fn aqueduct(&self) -> &aqueduct::TextureView {
        &self.view
    }
}

impl TextureViewInterface for AqueductTextureView {}

/// The facade texture behind a wgpu texture of this backend.
pub(crate) fn facade_texture(texture: &wgpu::Texture) -> Option<&aqueduct::Texture> {
    texture.as_custom::<AqueductTexture>().map(|t| t.aqueduct())
}

/// A texture side of a copy, on the facade (None: another backend's texture).
pub(crate) fn texture_side<'a>(
    info: &wgpu::TexelCopyTextureInfo<'a>,
) -> Option<aqueduct::texture::TexelCopyTextureInfo<'a>> {
    Some(aqueduct::wgt::TexelCopyTextureInfo {
        texture: facade_texture(info.texture)?,
        mip_level: info.mip_level,
        origin: info.origin,
        aspect: info.aspect,
    })
}

/// A buffer side of a copy, on the facade (None: another backend's buffer).
pub(crate) fn buffer_side<'a>(
    info: &wgpu::TexelCopyBufferInfo<'a>,
) -> Option<aqueduct::texture::TexelCopyBufferInfo<'a>> {
    Some(aqueduct::wgt::TexelCopyBufferInfo {
        buffer: info
            .buffer
            .as_custom::<crate::buffer::AqueductBuffer>()?
            .aqueduct(),
        layout: info.layout,
    })
}
