//! The invalid object every non-compute creation call returns.
//!
//! wgpu's interface makes `create_render_pipeline`,
//! `begin_render_pass` and the like return an object. On this
//! compute-only backend the call reports a [`ComputeOnlyError`] validation
//! error (through error scopes or the uncaptured-error handler) and
//! returns a `ComputeOnlyObject`, which stands for an invalid external
//! texture, render pipeline, render pass, render bundle (encoder),
//! acceleration structure or pipeline cache: using it to make another
//! object reports again, and commands recorded on it do nothing (the
//! encoder it came from is already invalid).
//!
//! [`ComputeOnlyError`]: crate::ComputeOnlyError

use std::ops::Range;

use wgpu::custom::{
    BlasCompactCallback, BlasInterface, DispatchBindGroup, DispatchBindGroupLayout, DispatchBuffer,
    DispatchQuerySet, DispatchRenderBundle, DispatchRenderPipeline, DispatchTextureView,
    ExternalTextureInterface, PipelineCacheInterface, RenderBundleEncoderInterface,
    RenderBundleInterface, RenderPassInterface, RenderPipelineInterface, SamplerInterface,
    TextureInterface, TextureViewInterface, TlasInterface,
};

use crate::error::report_compute_only;
use crate::resources::AqueductBindGroupLayout;

/// An invalid non-compute object (see the module docs).
#[derive(Debug)]
pub struct ComputeOnlyObject {
    device: aqueduct::Device,
    /// The call that made it.
    call: &'static str,
}

impl ComputeOnlyObject {
    pub(crate) fn new(device: &aqueduct::Device, call: &'static str) -> Self {
        ComputeOnlyObject {
            device: device.clone(),
            call,
        }
    }

    /// The wgpu call that returned this object.
    pub fn call(&self) -> &'static str {
        self.call
    }

    fn derived(&self, call: &'static str) -> ComputeOnlyObject {
        report_compute_only(&self.device, call);
        ComputeOnlyObject::new(&self.device, call)
    }
}

impl TextureInterface for ComputeOnlyObject {
    fn create_view(&self, _desc: &wgpu::TextureViewDescriptor<'_>) -> DispatchTextureView {
        DispatchTextureView::custom(self.derived("Texture::create_view"))
    }

    fn destroy(&self) {}
}

impl ExternalTextureInterface for ComputeOnlyObject {
    fn destroy(&self) {}
}

impl TextureViewInterface for ComputeOnlyObject {}
impl SamplerInterface for ComputeOnlyObject {}
impl TlasInterface for ComputeOnlyObject {}
impl RenderBundleInterface for ComputeOnlyObject {}

impl BlasInterface for ComputeOnlyObject {
    fn prepare_compact_async(&self, callback: BlasCompactCallback) {
        report_compute_only(&self.device, "Blas::prepare_compaction_async");
        callback(Err(wgpu::BlasAsyncError));
    }

    fn ready_for_compaction(&self) -> bool {
        false
    }
}

impl RenderPipelineInterface for ComputeOnlyObject {
    fn get_bind_group_layout(&self, index: u32) -> DispatchBindGroupLayout {
        report_compute_only(&self.device, "RenderPipeline::get_bind_group_layout");
        tracing::trace!(index, "bind group layout of an invalid render pipeline");
        DispatchBindGroupLayout::custom(AqueductBindGroupLayout::new(None))
    }
}

impl PipelineCacheInterface for ComputeOnlyObject {
    fn get_data(&self) -> Option<Vec<u8>> {
        None
    }
}

// A render pass records nothing: the encoder that began it already holds
// the compute-only error and will report it at finish.
impl RenderPassInterface for ComputeOnlyObject {
    fn set_pipeline(&mut self, _pipeline: &DispatchRenderPipeline) {}
    fn set_bind_group(
        &mut self,
        _index: u32,
        _bind_group: Option<&DispatchBindGroup>,
        _offsets: &[wgpu::DynamicOffset],
    ) {
    }
    fn set_index_buffer(
        &mut self,
        _buffer: &DispatchBuffer,
        _index_format: wgpu::IndexFormat,
        _offset: wgpu::BufferAddress,
        _size: Option<wgpu::BufferSize>,
    ) {
    }
    fn set_vertex_buffer(
        &mut self,
        _slot: u32,
        _buffer: Option<&DispatchBuffer>,
        _offset: wgpu::BufferAddress,
        _size: Option<wgpu::BufferSize>,
    ) {
    }
    fn set_immediates(&mut self, _offset: u32, _data: &[u8]) {}
    fn set_blend_constant(&mut self, _color: wgpu::Color) {}
    fn set_scissor_rect(&mut self, _x: u32, _y: u32, _width: u32, _height: u32) {}
    fn set_viewport(
        &mut self,
        _x: f32,
        _y: f32,
        _width: f32,
        _height: f32,
        _min_depth: f32,
        _max_depth: f32,
    ) {
    }
    fn set_stencil_reference(&mut self, _reference: u32) {}
    fn draw(&mut self, _vertices: Range<u32>, _instances: Range<u32>) {}
    fn draw_indexed(&mut self, _indices: Range<u32>, _base_vertex: i32, _instances: Range<u32>) {}
    fn draw_mesh_tasks(&mut self, _x: u32, _y: u32, _z: u32) {}
    fn draw_indirect(&mut self, _buffer: &DispatchBuffer, _offset: wgpu::BufferAddress) {}
    fn draw_indexed_indirect(&mut self, _buffer: &DispatchBuffer, _offset: wgpu::BufferAddress) {}
    fn draw_mesh_tasks_indirect(&mut self, _buffer: &DispatchBuffer, _offset: wgpu::BufferAddress) {
    }
    fn multi_draw_indirect(
        &mut self,
        _buffer: &DispatchBuffer,
        _offset: wgpu::BufferAddress,
        _count: u32,
    ) {
    }
    fn multi_draw_indexed_indirect(
        &mut self,
        _buffer: &DispatchBuffer,
        _offset: wgpu::BufferAddress,
        _count: u32,
    ) {
    }
    fn multi_draw_indirect_count(
        &mut self,
        _buffer: &DispatchBuffer,
        _offset: wgpu::BufferAddress,
        _count_buffer: &DispatchBuffer,
        _count_buffer_offset: wgpu::BufferAddress,
        _max_count: u32,
    ) {
    }
    fn multi_draw_mesh_tasks_indirect(
        &mut self,
        _buffer: &DispatchBuffer,
        _offset: wgpu::BufferAddress,
        _count: u32,
    ) {
    }
    fn multi_draw_indexed_indirect_count(
        &mut self,
        _buffer: &DispatchBuffer,
        _offset: wgpu::BufferAddress,
        _count_buffer: &DispatchBuffer,
        _count_buffer_offset: wgpu::BufferAddress,
        _max_count: u32,
    ) {
    }
    fn multi_draw_mesh_tasks_indirect_count(
        &mut self,
        _buffer: &DispatchBuffer,
        _offset: wgpu::BufferAddress,
        _count_buffer: &DispatchBuffer,
        _count_buffer_offset: wgpu::BufferAddress,
        _max_count: u32,
    ) {
    }
    fn insert_debug_marker(&mut self, _label: &str) {}
    fn push_debug_group(&mut self, _group_label: &str) {}
    fn pop_debug_group(&mut self) {}
    fn write_timestamp(&mut self, _query_set: &DispatchQuerySet, _query_index: u32) {}
    fn begin_occlusion_query(&mut self, _query_index: u32) {}
    fn end_occlusion_query(&mut self) {}
    fn begin_pipeline_statistics_query(
        &mut self,
        _query_set: &DispatchQuerySet,
        _query_index: u32,
    ) {
    }
    fn end_pipeline_statistics_query(&mut self) {}
    fn execute_bundles(
        &mut self,
        _render_bundles: &mut dyn Iterator<Item = &DispatchRenderBundle>,
    ) {
    }
}

impl Drop for ComputeOnlyObject {
    fn drop(&mut self) {
        tracing::trace!(call = self.call, "invalid compute-only object dropped");
    }
}

// A render bundle encoder was reported at creation; what it records is
// dropped and its bundle is another invalid object.
impl RenderBundleEncoderInterface for ComputeOnlyObject {
    fn set_pipeline(&mut self, _pipeline: &DispatchRenderPipeline) {}
    fn set_bind_group(
        &mut self,
        _index: u32,
        _bind_group: Option<&DispatchBindGroup>,
        _offsets: &[wgpu::DynamicOffset],
    ) {
    }
    fn set_index_buffer(
        &mut self,
        _buffer: &DispatchBuffer,
        _index_format: wgpu::IndexFormat,
        _offset: wgpu::BufferAddress,
        _size: Option<wgpu::BufferSize>,
    ) {
    }
    fn set_vertex_buffer(
        &mut self,
        _slot: u32,
        _buffer: Option<&DispatchBuffer>,
        _offset: wgpu::BufferAddress,
        _size: Option<wgpu::BufferSize>,
    ) {
    }
    fn set_immediates(&mut self, _offset: u32, _data: &[u8]) {}
    fn draw(&mut self, _vertices: Range<u32>, _instances: Range<u32>) {}
    fn draw_indexed(&mut self, _indices: Range<u32>, _base_vertex: i32, _instances: Range<u32>) {}
    fn draw_indirect(&mut self, _buffer: &DispatchBuffer, _offset: wgpu::BufferAddress) {}
    fn draw_indexed_indirect(&mut self, _buffer: &DispatchBuffer, _offset: wgpu::BufferAddress) {}
    fn finish(self, _desc: &wgpu::RenderBundleDescriptor<'_>) -> DispatchRenderBundle {
        DispatchRenderBundle::custom(ComputeOnlyObject::new(
            &self.device,
            "RenderBundleEncoder::finish",
        ))
    }
    fn finish_boxed(
        self: Box<Self>,
        desc: &wgpu::RenderBundleDescriptor<'_>,
    ) -> DispatchRenderBundle {
        (*self).finish(desc)
    }
}
