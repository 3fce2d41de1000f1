//! Command encoders, compute passes and command buffers over the facade's.
//!
//! The facade encoder is `&mut`-based and consumed by `finish`; wgpu's
//! interface takes `&self` and later `&mut self`, so the encoder sits in a
//! mutex. A pass holds the facade pass with its borrow lifetime forgotten
//! (the facade keeps the encoder locked until the pass is dropped, as wgpu
//! does). Problems the backend finds itself (an invalid wrapper object, a
//! render or texture command) are recorded on the encoder and reported
//! when it is finished, as WebGPU reports encoder errors; the command
//! buffer is then invalid and submitting it is an error.

use std::sync::{Arc, Mutex};

use wgpu::custom::{
    CommandBufferInterface, CommandEncoderInterface, ComputePassInterface, DispatchBindGroup,
    DispatchBuffer, DispatchCommandBuffer, DispatchComputePass, DispatchComputePipeline,
    DispatchQuerySet, DispatchRenderPass, DispatchTexture, DispatchTextureView,
};

use crate::buffer::AqueductBuffer;
use crate::compute_only::ComputeOnlyObject;
use crate::error::{
    BackendValidationError, ComputeOnlyError, ObjectKind, ObjectRef, report_validation,
};
use crate::lock;
use crate::resources::{AqueductBindGroup, AqueductComputePipeline, AqueductQuerySet};
use crate::texture::{AqueductTexture, buffer_side, texture_side};

/// The first problem found while recording (reported at `finish`).
type RecordedError = Arc<Mutex<Option<BackendValidationError>>>;

fn record(error: &RecordedError, first: BackendValidationError) {
    let mut e = lock(error);
    if e.is_none() {
        *e = Some(first);
    }
}

/// `object` of `call` is another backend's.
fn foreign(call: &'static str, object: ObjectKind) -> BackendValidationError {
    BackendValidationError::ForeignObject(ObjectRef::new(call, object))
}

fn facade_buffer(buffer: &DispatchBuffer) -> Option<&aqueduct::Buffer> {
    buffer.as_custom::<AqueductBuffer>().map(|b| b.aqueduct())
}

fn facade_query_set(query_set: &DispatchQuerySet) -> Option<&aqueduct::QuerySet> {
    query_set
        .as_custom::<AqueductQuerySet>()
        .map(|q| q.aqueduct())
}

/// `wgpu::CommandEncoder`'s backend.
#[derive(Debug)]
pub struct AqueductCommandEncoder {
    device: aqueduct::Device,
    /// None once finished.
    encoder: Mutex<Option<aqueduct::CommandEncoder>>,
    error: RecordedError,
}

impl AqueductCommandEncoder {
    pub(crate) fn new(
        device: &aqueduct::Device,
        desc: &wgpu::CommandEncoderDescriptor<'_>,
    ) -> Self {
        AqueductCommandEncoder {
            device: device.clone(),
            encoder: Mutex::new(Some(device.create_command_encoder(desc))),
            error: Arc::default(),
        }
    }

    /// Run `f` on the facade encoder (not after finish).
    fn with_encoder(&self, f: impl FnOnce(&mut aqueduct::CommandEncoder)) {
        let mut e = lock(&self.encoder);
        match e.as_mut() {
            Some(encoder) => f(encoder),
            None => record(
                &self.error,
                BackendValidationError::EncoderFinished { call: None },
            ),
        }
    }

    fn compute_only(&self, call: &'static str) {
        record(&self.error, ComputeOnlyError { call }.into());
    }
}

impl CommandEncoderInterface for AqueductCommandEncoder {
    fn copy_buffer_to_buffer(
        &self,
        source: &DispatchBuffer,
        source_offset: wgpu::BufferAddress,
        destination: &DispatchBuffer,
        destination_offset: wgpu::BufferAddress,
        copy_size: Option<wgpu::BufferAddress>,
    ) {
        match (facade_buffer(source), facade_buffer(destination)) {
            (Some(src), Some(dst)) => self.with_encoder(|e| {
                e.copy_buffer_to_buffer(src, source_offset, dst, destination_offset, copy_size)
            }),
            _ => record(
                &self.error,
                foreign("copy_buffer_to_buffer", ObjectKind::Buffers),
            ),
        }
    }

    fn copy_buffer_to_texture(
        &self,
        source: wgpu::TexelCopyBufferInfo<'_>,
        destination: wgpu::TexelCopyTextureInfo<'_>,
        copy_size: wgpu::Extent3d,
    ) {
        match (buffer_side(&source), texture_side(&destination)) {
            (Some(src), Some(dst)) => {
                self.with_encoder(|e| e.copy_buffer_to_texture(src, dst, copy_size))
            }
            _ => record(
                &self.error,
                foreign("copy_buffer_to_texture", ObjectKind::TextureCopy),
            ),
        }
    }

    fn copy_texture_to_buffer(
        &self,
        source: wgpu::TexelCopyTextureInfo<'_>,
        destination: wgpu::TexelCopyBufferInfo<'_>,
        copy_size: wgpu::Extent3d,
    ) {
        match (texture_side(&source), buffer_side(&destination)) {
            (Some(src), Some(dst)) => {
                self.with_encoder(|e| e.copy_texture_to_buffer(src, dst, copy_size))
            }
            _ => record(
                &self.error,
                foreign("copy_texture_to_buffer", ObjectKind::TextureCopy),
            ),
        }
    }

    fn copy_texture_to_texture(
        &self,
        source: wgpu::TexelCopyTextureInfo<'_>,
        destination: wgpu::TexelCopyTextureInfo<'_>,
        copy_size: wgpu::Extent3d,
    ) {
        match (texture_side(&source), texture_side(&destination)) {
            (Some(src), Some(dst)) => {
                self.with_encoder(|e| e.copy_texture_to_texture(src, dst, copy_size))
            }
            _ => record(
                &self.error,
                foreign("copy_texture_to_texture", ObjectKind::TextureCopy),
            ),
        }
    }

    fn begin_compute_pass(&self, desc: &wgpu::ComputePassDescriptor<'_>) -> DispatchComputePass {
        let mut timestamp_writes = None;
        if let Some(tw) = &desc.timestamp_writes {
            match tw.query_set.as_custom::<AqueductQuerySet>() {
                Some(q) => {
                    timestamp_writes = Some(aqueduct::ComputePassTimestampWrites {
                        query_set: q.aqueduct(),
                        beginning_of_pass_write_index: tw.beginning_of_pass_write_index,
                        end_of_pass_write_index: tw.end_of_pass_write_index,
                    })
                }
                None => record(
                    &self.error,
                    foreign("begin_compute_pass", ObjectKind::TimestampQuerySet),
                ),
            }
        }
        let mut e = lock(&self.encoder);
        let pass = match e.as_mut() {
            Some(encoder) => Some(
                encoder
                    .begin_compute_pass(&aqueduct::ComputePassDescriptor {
                        label: desc.label,
                        timestamp_writes,
                    })
                    .forget_lifetime(),
            ),
            None => {
                record(
                    &self.error,
                    BackendValidationError::EncoderFinished {
                        call: Some("begin_compute_pass"),
                    },
                );
                None
            }
        };
        DispatchComputePass::custom(AqueductComputePass {
            pass: Mutex::new(pass),
            error: self.error.clone(),
        })
    }

    fn begin_render_pass(&self, _desc: &wgpu::RenderPassDescriptor<'_>) -> DispatchRenderPass {
        self.compute_only("CommandEncoder::begin_render_pass");
        DispatchRenderPass::custom(ComputeOnlyObject::new(
            &self.device,
            "CommandEncoder::begin_render_pass",
        ))
    }

    fn finish(&mut self) -> DispatchCommandBuffer {
        let encoder = self
            .encoder
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let error = lock(&self.error).take();
        let buffer = match (encoder, error) {
            (Some(encoder), None) => Some(encoder.finish()),
            (_, Some(first)) => {
                report_validation(
                    &self.device,
                    BackendValidationError::InvalidEncoder(Box::new(first)),
                );
                None
            }
            (None, None) => {
                report_validation(
                    &self.device,
                    BackendValidationError::EncoderFinished {
                        call: Some("CommandEncoder::finish"),
                    },
                );
                None
            }
        };
        DispatchCommandBuffer::custom(AqueductCommandBuffer {
            buffer: Mutex::new(buffer),
        })
    }

    fn clear_texture(
        &self,
        texture: &DispatchTexture,
        subresource_range: &wgpu::ImageSubresourceRange,
    ) {
        match texture.as_custom::<AqueductTexture>() {
            Some(t) => self.with_encoder(|e| e.clear_texture(t.aqueduct(), subresource_range)),
            None => record(&self.error, foreign("clear_texture", ObjectKind::Texture)),
        }
    }

    fn clear_buffer(
        &self,
        buffer: &DispatchBuffer,
        offset: wgpu::BufferAddress,
        size: Option<wgpu::BufferAddress>,
    ) {
        match facade_buffer(buffer) {
            Some(b) => self.with_encoder(|e| e.clear_buffer(b, offset, size)),
            None => record(&self.error, foreign("clear_buffer", ObjectKind::Buffer)),
        }
    }

    fn insert_debug_marker(&self, label: &str) {
        tracing::trace!(label, "debug marker");
    }

    fn push_debug_group(&self, label: &str) {
        tracing::trace!(label, "debug group");
    }

    fn pop_debug_group(&self) {}

    fn write_timestamp(&self, query_set: &DispatchQuerySet, query_index: u32) {
        match facade_query_set(query_set) {
            Some(q) => self.with_encoder(|e| e.write_timestamp(q, query_index)),
            None => record(
                &self.error,
                foreign("write_timestamp", ObjectKind::QuerySet),
            ),
        }
    }

    fn resolve_query_set(
        &self,
        query_set: &DispatchQuerySet,
        first_query: u32,
        query_count: u32,
        destination: &DispatchBuffer,
        destination_offset: wgpu::BufferAddress,
    ) {
        match (facade_query_set(query_set), facade_buffer(destination)) {
            (Some(q), Some(dst)) => self.with_encoder(|e| {
                let end = first_query.saturating_add(query_count);
                e.resolve_query_set(q, first_query..end, dst, destination_offset)
            }),
            _ => record(
                &self.error,
                foreign("resolve_query_set", ObjectKind::QuerySetOrBuffer),
            ),
        }
    }

    fn mark_acceleration_structures_built<'a>(
        &self,
        _blas: &mut dyn Iterator<Item = &'a wgpu::Blas>,
        _tlas: &mut dyn Iterator<Item = &'a wgpu::Tlas>,
    ) {
        self.compute_only("CommandEncoder::mark_acceleration_structures_built");
    }

    fn build_acceleration_structures<'a>(
        &self,
        _blas: &mut dyn Iterator<Item = &'a wgpu::BlasBuildEntry<'a>>,
        _tlas: &mut dyn Iterator<Item = &'a wgpu::Tlas>,
    ) {
        self.compute_only("CommandEncoder::build_acceleration_structures");
    }

    fn transition_resources<'a>(
        &mut self,
        _buffer_transitions: &mut dyn Iterator<
            Item = wgpu::wgt::BufferTransition<&'a DispatchBuffer>,
        >,
        texture_transitions: &mut dyn Iterator<
            Item = wgpu::wgt::TextureTransition<&'a DispatchTexture>,
        >,
    ) {
        // Buffer transitions are hints: the facade derives every barrier
        // from the recorded accesses. There are no textures.
        if texture_transitions.next().is_some() {
            self.compute_only("CommandEncoder::transition_resources with textures");
        }
    }
}

/// `wgpu::ComputePass`'s backend.
pub struct AqueductComputePass {
    /// None when the pass could not begin (its error is recorded).
    pass: Mutex<Option<aqueduct::ComputePass<'static>>>,
    error: RecordedError,
}

impl std::fmt::Debug for AqueductComputePass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AqueductComputePass")
            .finish_non_exhaustive()
    }
}

impl AqueductComputePass {
    fn with_pass(&mut self, f: impl FnOnce(&mut aqueduct::ComputePass<'static>)) {
        if let Some(pass) = self.pass.get_mut().unwrap_or_else(|p| p.into_inner()) {
            f(pass);
        }
    }

    fn fail(&self, error: BackendValidationError) {
        record(&self.error, error);
    }
}

impl ComputePassInterface for AqueductComputePass {
    fn set_pipeline(&mut self, pipeline: &DispatchComputePipeline) {
        match pipeline
            .as_custom::<AqueductComputePipeline>()
            .and_then(|p| p.pipeline())
        {
            Some(p) => self.with_pass(|pass| pass.set_pipeline(p)),
            None => self.fail(BackendValidationError::InvalidObject(ObjectRef::new(
                "set_pipeline",
                ObjectKind::ComputePipeline,
            ))),
        }
    }

    fn set_bind_group(
        &mut self,
        index: u32,
        bind_group: Option<&DispatchBindGroup>,
        offsets: &[wgpu::DynamicOffset],
    ) {
        match bind_group {
            None => self.with_pass(|pass| pass.set_bind_group(index, None, offsets)),
            Some(group) => match group
                .as_custom::<AqueductBindGroup>()
                .and_then(|g| g.group())
            {
                Some(g) => self.with_pass(|pass| pass.set_bind_group(index, g, offsets)),
                None => self.fail(BackendValidationError::InvalidObject(ObjectRef::new(
                    "set_bind_group",
                    ObjectKind::BindGroup(index),
                ))),
            },
        }
    }

    fn set_immediates(&mut self, offset: u32, data: &[u8]) {
        self.with_pass(|pass| pass.set_immediates(offset, data));
    }

    fn insert_debug_marker(&mut self, label: &str) {
        tracing::trace!(label, "debug marker");
    }

    fn push_debug_group(&mut self, group_label: &str) {
        tracing::trace!(group_label, "debug group");
    }

    fn pop_debug_group(&mut self) {}

    fn write_timestamp(&mut self, query_set: &DispatchQuerySet, query_index: u32) {
        match facade_query_set(query_set) {
            Some(q) => self.with_pass(|pass| pass.write_timestamp(q, query_index)),
            None => self.fail(foreign("write_timestamp", ObjectKind::QuerySet)),
        }
    }

    fn begin_pipeline_statistics_query(
        &mut self,
        _query_set: &DispatchQuerySet,
        _query_index: u32,
    ) {
        self.fail(BackendValidationError::PipelineStatistics {
            call: "begin_pipeline_statistics_query",
        });
    }

    fn end_pipeline_statistics_query(&mut self) {
        self.fail(BackendValidationError::PipelineStatistics {
            call: "end_pipeline_statistics_query",
        });
    }

    fn dispatch_workgroups(&mut self, x: u32, y: u32, z: u32) {
        self.with_pass(|pass| pass.dispatch_workgroups(x, y, z));
    }

    fn dispatch_workgroups_indirect(
        &mut self,
        indirect_buffer: &DispatchBuffer,
        indirect_offset: wgpu::BufferAddress,
    ) {
        match facade_buffer(indirect_buffer) {
            Some(b) => self.with_pass(|pass| pass.dispatch_workgroups_indirect(b, indirect_offset)),
            None => self.fail(foreign("dispatch_workgroups_indirect", ObjectKind::Buffer)),
        }
    }

    fn transition_resources<'a>(
        &mut self,
        _buffer_transitions: &mut dyn Iterator<
            Item = wgpu::wgt::BufferTransition<&'a DispatchBuffer>,
        >,
        texture_transitions: &mut dyn Iterator<
            Item = wgpu::wgt::TextureTransition<&'a DispatchTextureView>,
        >,
    ) {
        if texture_transitions.next().is_some() {
            self.fail(
                ComputeOnlyError {
                    call: "ComputePass::transition_resources with textures",
                }
                .into(),
            );
        }
    }
}

// wgpu's interface requires a Drop impl. Ending the pass needs nothing
// more than dropping the fields: the facade pass unlocks the encoder.
impl Drop for AqueductComputePass {
    fn drop(&mut self) {}
}

/// `wgpu::CommandBuffer`'s backend (None: invalid, or already submitted).
#[derive(Debug)]
pub struct AqueductCommandBuffer {
    buffer: Mutex<Option<aqueduct::CommandBuffer>>,
}

impl AqueductCommandBuffer {
    pub(crate) fn take(&self) -> Option<aqueduct::CommandBuffer> {
        lock(&self.buffer).take()
    }
}

impl CommandBufferInterface for AqueductCommandBuffer {}
