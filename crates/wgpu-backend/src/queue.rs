//! The queue interface over the facade queue: submissions, buffer writes
//! (direct and through wgpu's staging-buffer form, `write_buffer_with`),
//! work-done callbacks and the timestamp period.

use wgpu::custom::{
    DispatchBlas, DispatchBuffer, DispatchCommandBuffer, DispatchQueueWriteBuffer,
    DispatchSurfaceOutputDetail, QueueInterface, QueueWriteBufferInterface,
};

use crate::buffer::AqueductBuffer;
use crate::command::AqueductCommandBuffer;
use crate::compute_only::ComputeOnlyObject;
use crate::error::{
    BackendValidationError, ObjectKind, ObjectRef, report_compute_only, report_validation,
};

/// `wgpu::Queue`'s backend.
#[derive(Debug)]
pub struct AqueductQueue {
    device: aqueduct::Device,
    queue: aqueduct::Queue,
}

impl AqueductQueue {
    pub(crate) fn new(device: aqueduct::Device, queue: aqueduct::Queue) -> Self {
        AqueductQueue { device, queue }
    }

    /// The facade queue underneath.
    pub fn aqueduct(&self) -> &aqueduct::Queue {
        &self.queue
    }

    fn facade_buffer<'a>(
        &self,
        buffer: &'a DispatchBuffer,
        call: &'static str,
    ) -> Option<&'a aqueduct::Buffer> {
        let b = buffer.as_custom::<AqueductBuffer>().map(|b| b.aqueduct());
        if b.is_none() {
            report_validation(
                &self.device,
                BackendValidationError::ForeignObject(ObjectRef::new(call, ObjectKind::Buffer)),
            );
        }
        b
    }
}

impl QueueInterface for AqueductQueue {
    fn write_buffer(&self, buffer: &DispatchBuffer, offset: wgpu::BufferAddress, data: &[u8]) {
        if let Some(b) = self.facade_buffer(buffer, "Queue::write_buffer") {
            self.queue.write_buffer(b, offset, data);
        }
    }

    fn create_staging_buffer(&self, size: wgpu::BufferSize) -> Option<DispatchQueueWriteBuffer> {
        let Ok(len) = usize::try_from(size.get()) else {
            report_validation(
                &self.device,
                BackendValidationError::StagingTooLarge { size: size.get() },
            );
            return None;
        };
        Some(DispatchQueueWriteBuffer::custom(StagingWrite {
            bytes: vec![0; len],
        }))
    }

    fn validate_write_buffer(
        &self,
        buffer: &DispatchBuffer,
        offset: wgpu::BufferAddress,
        size: wgpu::BufferSize,
    ) -> Option<()> {
        let b = self.facade_buffer(buffer, "Queue::write_buffer_with")?;
        // The facade's own write_buffer checks, reported the same way.
        self.queue
            .validate_write_buffer(b, offset, size.get())
            .then_some(())
    }

    fn write_staging_buffer(
        &self,
        buffer: &DispatchBuffer,
        offset: wgpu::BufferAddress,
        staging_buffer: &DispatchQueueWriteBuffer,
    ) {
        let Some(staging) = staging_buffer.as_custom::<StagingWrite>() else {
            report_validation(
                &self.device,
                BackendValidationError::ForeignObject(ObjectRef::new(
                    "Queue::write_buffer_with",
                    ObjectKind::StagingBuffer,
                )),
            );
            return;
        };
        if let Some(b) = self.facade_buffer(buffer, "Queue::write_buffer_with") {
            self.queue.write_buffer(b, offset, &staging.bytes);
        }
    }

    fn write_texture(
        &self,
        texture: wgpu::TexelCopyTextureInfo<'_>,
        data: &[u8],
        data_layout: wgpu::TexelCopyBufferLayout,
        size: wgpu::Extent3d,
    ) {
        match crate::texture::texture_side(&texture) {
            Some(t) => self.queue.write_texture(t, data, data_layout, size),
            None => report_validation(
                &self.device,
                BackendValidationError::ForeignObject(ObjectRef::new(
                    "write_texture",
                    ObjectKind::Texture,
                )),
            ),
        }
    }

    fn submit(&self, command_buffers: &mut dyn Iterator<Item = DispatchCommandBuffer>) -> u64 {
        // Drain everything first (the interface requires it), then submit
        // all or, if one is invalid, none (WebGPU's rule).
        let mut buffers = Vec::new();
        let mut invalid = 0usize;
        for cb in command_buffers {
            match cb
                .as_custom::<AqueductCommandBuffer>()
                .and_then(|c| c.take())
            {
                Some(b) => buffers.push(b),
                None => invalid += 1,
            }
        }
        if invalid > 0 {
            report_validation(
                &self.device,
                BackendValidationError::InvalidSubmission { invalid },
            );
            buffers.clear();
        }
        self.queue.submit(buffers).epoch()
    }

    fn get_timestamp_period(&self) -> f32 {
        self.queue.get_timestamp_period()
    }

    fn on_submitted_work_done(&self, callback: wgpu::custom::BoxSubmittedWorkDoneCallback) {
        self.queue.on_submitted_work_done(callback);
    }

    fn compact_blas(&self, _blas: &DispatchBlas) -> (Option<u64>, DispatchBlas) {
        report_compute_only(&self.device, "Queue::compact_blas");
        (
            None,
            DispatchBlas::custom(ComputeOnlyObject::new(&self.device, "Queue::compact_blas")),
        )
    }

    fn present(&self, _detail: &DispatchSurfaceOutputDetail) {
        report_compute_only(&self.device, "Queue::present");
    }
}

/// Host bytes for `Queue::write_buffer_with`, written to the buffer when
/// wgpu hands them back.
#[derive(Debug)]
struct StagingWrite {
    bytes: Vec<u8>,
}

impl QueueWriteBufferInterface for StagingWrite {
    fn len(&self) -> usize {
        self.bytes.len()
    }

    unsafe fn write_slice(&mut self) -> wgpu::WriteOnly<'_, [u8]> {
        self.bytes.as_mut_slice().into()
    }
}
