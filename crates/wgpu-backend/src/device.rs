//! The device interface: object creation delegated to an `aqueduct::Device`,
//! error scopes and the uncaptured-error handler mapped onto the facade's.
//!
//! wgpu's front end hands scopes around by index (`push_error_scope`
//! returns it, `pop_error_scope` takes it); the facade hands out guards, so
//! the device keeps each open scope's guard under the index it returned.
//! Textures, views and samplers are the facade's (`texture`, `sampler`).
//! Calls with no compute meaning (render pipelines, external textures, acceleration
//! structures) report a compute-only validation error and
//! return an invalid object (see `compute_only`). Each device starts with
//! wgpu's default uncaptured-error behaviour (`error::default_uncaptured`)
//! installed as the facade device's handler; wgpu's `on_uncaptured_error`
//! replaces it.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use wgpu::custom::{
    BoxDeviceLostCallback, DeviceInterface, DispatchBindGroup, DispatchBindGroupLayout,
    DispatchBlas, DispatchBuffer, DispatchCommandEncoder, DispatchComputePipeline,
    DispatchExternalTexture, DispatchPipelineCache, DispatchPipelineLayout, DispatchQuerySet,
    DispatchRenderBundleEncoder, DispatchRenderPipeline, DispatchSampler, DispatchShaderModule,
    DispatchTexture, DispatchTlas, PopErrorScopeFuture,
};

use crate::buffer::AqueductBuffer;
use crate::command::AqueductCommandEncoder;
use crate::compute_only::ComputeOnlyObject;
use crate::error::{
    BackendValidationError, ObjectRef, default_uncaptured, filter_from_wgpu, report_compute_only,
    report_validation, to_wgpu,
};
use crate::lock;
use crate::resources::{
    AqueductBindGroup, AqueductBindGroupLayout, AqueductComputePipeline, AqueductPipelineLayout,
    AqueductQuerySet, AqueductShaderModule,
};

/// `wgpu::Device`'s backend.
pub struct AqueductDevice {
    device: aqueduct::Device,
    /// Open error scopes by the index wgpu was given.
    scopes: Mutex<HashMap<u32, aqueduct::ErrorScopeGuard>>,
    next_scope: AtomicU32,
    lost_callback: Mutex<Option<BoxDeviceLostCallback>>,
}

impl std::fmt::Debug for AqueductDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AqueductDevice")
            .field("device", &self.device)
            .finish_non_exhaustive()
    }
}

impl AqueductDevice {
    pub(crate) fn new(device: aqueduct::Device) -> Self {
        // wgpu's default until the program installs a handler of its own.
        device.on_uncaptured_error(std::sync::Arc::new(|e| default_uncaptured(to_wgpu(e))));
        AqueductDevice {
            device,
            scopes: Mutex::new(HashMap::new()),
            next_scope: AtomicU32::new(0),
            lost_callback: Mutex::new(None),
        }
    }

    /// The facade device underneath.
    pub fn aqueduct(&self) -> &aqueduct::Device {
        &self.device
    }

    fn compute_only(&self, call: &'static str) -> ComputeOnlyObject {
        report_compute_only(&self.device, call);
        ComputeOnlyObject::new(&self.device, call)
    }
}

/// The facade object behind a wgpu object of this backend, or None (with
/// a validation error reported) when it is another backend's or invalid.
pub(crate) fn facade_of<'a, T, F: 'a>(
    device: &aqueduct::Device,
    what: ObjectRef,
    object: Option<&'a T>,
    get: impl FnOnce(&'a T) -> Option<&'a F>,
) -> Option<&'a F> {
    match object {
        None => {
            report_validation(device, BackendValidationError::ForeignObject(what));
            None
        }
        Some(o) => match get(o) {
            Some(f) => Some(f),
            None => {
                report_validation(device, BackendValidationError::InvalidObject(what));
                None
            }
        },
    }
}

impl DeviceInterface for AqueductDevice {
    fn features(&self) -> wgpu::Features {
        self.device.features()
    }

    fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }

    fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.device.adapter_info()
    }

    fn create_shader_module(
        &self,
        desc: wgpu::ShaderModuleDescriptor<'_>,
        _shader_bound_checks: wgpu::ShaderRuntimeChecks,
    ) -> DispatchShaderModule {
        DispatchShaderModule::custom(AqueductShaderModule::create(&self.device, desc))
    }

    unsafe fn create_shader_module_passthrough(
        &self,
        desc: &wgpu::ShaderModuleDescriptorPassthrough<'_>,
    ) -> DispatchShaderModule {
        let error = BackendValidationError::Passthrough {
            label: desc.label.map(str::to_string),
        };
        DispatchShaderModule::custom(AqueductShaderModule::invalid(&self.device, error))
    }

    fn create_bind_group_layout(
        &self,
        desc: &wgpu::BindGroupLayoutDescriptor<'_>,
    ) -> DispatchBindGroupLayout {
        let layout = self
            .device
            .create_bind_group_layout(&aqueduct::BindGroupLayoutDescriptor {
                label: desc.label,
                entries: desc.entries,
            });
        DispatchBindGroupLayout::custom(AqueductBindGroupLayout::new(Some(layout)))
    }

    fn create_bind_group(&self, desc: &wgpu::BindGroupDescriptor<'_>) -> DispatchBindGroup {
        DispatchBindGroup::custom(AqueductBindGroup::create(&self.device, desc))
    }

    fn create_pipeline_layout(
        &self,
        desc: &wgpu::PipelineLayoutDescriptor<'_>,
    ) -> DispatchPipelineLayout {
        DispatchPipelineLayout::custom(AqueductPipelineLayout::create(&self.device, desc))
    }

    fn create_render_pipeline(
        &self,
        _desc: &wgpu::RenderPipelineDescriptor<'_>,
    ) -> DispatchRenderPipeline {
        DispatchRenderPipeline::custom(self.compute_only("Device::create_render_pipeline"))
    }

    fn create_mesh_pipeline(
        &self,
        _desc: &wgpu::MeshPipelineDescriptor<'_>,
    ) -> DispatchRenderPipeline {
        DispatchRenderPipeline::custom(self.compute_only("Device::create_mesh_pipeline"))
    }

    fn create_compute_pipeline(
        &self,
        desc: &wgpu::ComputePipelineDescriptor<'_>,
    ) -> DispatchComputePipeline {
        DispatchComputePipeline::custom(AqueductComputePipeline::create(&self.device, desc))
    }

    unsafe fn create_pipeline_cache(
        &self,
        _desc: &wgpu::PipelineCacheDescriptor<'_>,
    ) -> DispatchPipelineCache {
        // wgpu makes a pipeline cache only with Features::PIPELINE_CACHE,
        // which this backend does not offer: a validation error, and an
        // invalid cache that a pipeline descriptor cannot use.
        report_validation(
            &self.device,
            BackendValidationError::PipelineCacheUnsupported,
        );
        DispatchPipelineCache::custom(ComputeOnlyObject::new(
            &self.device,
            "Device::create_pipeline_cache",
        ))
    }

    fn create_buffer(&self, desc: &wgpu::BufferDescriptor<'_>) -> DispatchBuffer {
        DispatchBuffer::custom(AqueductBuffer::create(&self.device, desc))
    }

    fn create_texture(&self, desc: &wgpu::TextureDescriptor<'_>) -> DispatchTexture {
        DispatchTexture::custom(crate::texture::AqueductTexture::create(&self.device, desc))
    }

    fn create_external_texture(
        &self,
        _desc: &wgpu::ExternalTextureDescriptor<'_>,
        _planes: &[&wgpu::TextureView],
    ) -> DispatchExternalTexture {
        DispatchExternalTexture::custom(self.compute_only("Device::create_external_texture"))
    }

    fn create_blas(
        &self,
        _desc: &wgpu::CreateBlasDescriptor<'_>,
        _sizes: wgpu::BlasGeometrySizeDescriptors,
    ) -> (Option<u64>, DispatchBlas) {
        (
            None,
            DispatchBlas::custom(self.compute_only("Device::create_blas")),
        )
    }

    fn create_tlas(&self, _desc: &wgpu::CreateTlasDescriptor<'_>) -> DispatchTlas {
        DispatchTlas::custom(self.compute_only("Device::create_tlas"))
    }

    fn create_sampler(&self, desc: &wgpu::SamplerDescriptor<'_>) -> DispatchSampler {
        DispatchSampler::custom(crate::sampler::AqueductSampler::create(&self.device, desc))
    }

    fn create_query_set(&self, desc: &wgpu::QuerySetDescriptor<'_>) -> DispatchQuerySet {
        DispatchQuerySet::custom(AqueductQuerySet::new(self.device.create_query_set(desc)))
    }

    fn create_command_encoder(
        &self,
        desc: &wgpu::CommandEncoderDescriptor<'_>,
    ) -> DispatchCommandEncoder {
        DispatchCommandEncoder::custom(AqueductCommandEncoder::new(&self.device, desc))
    }

    fn create_render_bundle_encoder(
        &self,
        _desc: &wgpu::RenderBundleEncoderDescriptor<'_>,
    ) -> DispatchRenderBundleEncoder {
        DispatchRenderBundleEncoder::custom(
            self.compute_only("Device::create_render_bundle_encoder"),
        )
    }

    fn set_device_lost_callback(&self, device_lost_callback: BoxDeviceLostCallback) {
        *lock(&self.lost_callback) = Some(device_lost_callback);
    }

    fn on_uncaptured_error(&self, handler: std::sync::Arc<dyn wgpu::UncapturedErrorHandler>) {
        self.device
            .on_uncaptured_error(std::sync::Arc::new(move |e| handler(to_wgpu(e))));
    }

    fn push_error_scope(&self, filter: wgpu::ErrorFilter) -> u32 {
        let guard = self.device.push_error_scope(filter_from_wgpu(filter));
        let index = self.next_scope.fetch_add(1, Ordering::Relaxed);
        lock(&self.scopes).insert(index, guard);
        index
    }

    fn pop_error_scope(&self, index: u32) -> Pin<Box<dyn PopErrorScopeFuture>> {
        let guard = lock(&self.scopes).remove(&index);
        let error = guard.and_then(|g| g.pop_now()).map(to_wgpu);
        Box::pin(std::future::ready(error))
    }

    unsafe fn start_graphics_debugger_capture(&self) {}

    unsafe fn stop_graphics_debugger_capture(&self) {}

    fn poll(
        &self,
        poll_type: wgpu::wgt::PollType<u64>,
    ) -> Result<wgpu::PollStatus, wgpu::PollError> {
        let poll_type = match poll_type {
            wgpu::wgt::PollType::Poll => aqueduct::PollType::Poll,
            wgpu::wgt::PollType::Wait {
                submission_index,
                timeout,
            } => aqueduct::PollType::Wait {
                submission_index: submission_index.map(aqueduct::SubmissionIndex::from_epoch),
                timeout,
            },
        };
        self.device.poll(poll_type)
    }

    fn get_internal_counters(&self) -> wgpu::InternalCounters {
        wgpu::InternalCounters::default()
    }

    fn generate_allocator_report(&self) -> Option<wgpu::AllocatorReport> {
        None
    }

    fn destroy(&self) {
        self.device.destroy();
        if let Some(callback) = lock(&self.lost_callback).take() {
            callback(
                wgpu::DeviceLostReason::Destroyed,
                "the device was destroyed".to_string(),
            );
        }
    }
}
