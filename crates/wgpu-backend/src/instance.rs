//! The instance and adapter interfaces: wgpu's entry points, answered by
//! an `aqueduct::Instance` (the real /dev/kfd when it lists a GPU, gfxsim
//! otherwise, or what `InstanceOptions::device` names).
//!
//! Each device an adapter opens registers the instance's precompiled
//! shader objects first, so `ShaderSource::Wgsl` modules with those exact
//! texts load the checked-in code objects instead of compiling.

use std::pin::Pin;
use std::sync::Arc;

use wgpu::custom::{
    AdapterInterface, DispatchAdapter, DispatchDevice, DispatchQueue, DispatchSurface,
    EnumerateAdapterFuture, InstanceInterface, RequestAdapterFuture, RequestDeviceFuture,
};

use crate::device::AqueductDevice;
use crate::queue::AqueductQueue;
use crate::{InstanceOptions, Precompiled};

/// `wgpu::Instance`'s backend: an `aqueduct::Instance` and the shader
/// objects every device gets.
#[derive(Debug)]
pub struct AqueductInstance {
    instance: aqueduct::Instance,
    precompiled: Arc<[Precompiled]>,
}

impl AqueductInstance {
    pub(crate) fn new(options: InstanceOptions) -> Self {
        let instance = match options.device {
            Some(choice) => aqueduct::Instance::with_device(choice),
            None => aqueduct::Instance::default(),
        };
        AqueductInstance {
            instance,
            precompiled: options.precompiled.into(),
        }
    }

    /// The facade instance underneath.
    pub fn aqueduct(&self) -> &aqueduct::Instance {
        &self.instance
    }

    fn adapter(&self, adapter: aqueduct::Adapter) -> DispatchAdapter {
        DispatchAdapter::custom(AqueductAdapter {
            adapter,
            precompiled: self.precompiled.clone(),
        })
    }
}

impl InstanceInterface for AqueductInstance {
    fn new(_desc: wgpu::InstanceDescriptor) -> Self {
        AqueductInstance::new(InstanceOptions::default())
    }

    unsafe fn create_surface(
        &self,
        _target: wgpu::SurfaceTargetUnsafe,
    ) -> Result<DispatchSurface, wgpu::CreateSurfaceError> {
        tracing::warn!(
            "create_surface: the Aqueduct wgpu backend is compute-only and has no surfaces"
        );
        // wgpu offers no constructor for a custom backend's surface error;
        // "backend not enabled" is what a build without surfaces reports.
        Err(wgpu::wgc::instance::CreateSurfaceError::BackendNotEnabled(wgpu::Backend::Noop).into())
    }

    fn request_adapter(
        &self,
        _options: &wgpu::RequestAdapterOptions<'_, '_>,
    ) -> Pin<Box<dyn RequestAdapterFuture>> {
        let options = aqueduct::RequestAdapterOptions::default();
        let result = self
            .instance
            .request_adapter_sync(&options)
            .map(|a| self.adapter(a));
        Box::pin(std::future::ready(result))
    }

    fn poll_all_devices(&self, force_wait: bool) -> bool {
        self.instance.poll_all(force_wait)
    }

    fn wgsl_language_features(&self) -> wgpu::WgslLanguageFeatures {
        // aqueduct-shaderc reads WGSL with naga's front end, which accepts
        // composite access through pointers; storage textures do not exist
        // here and packed dot products are not lowered.
        wgpu::WgslLanguageFeatures::PointerCompositeAccess
    }

    fn enumerate_adapters(
        &self,
        _backends: wgpu::Backends,
    ) -> Pin<Box<dyn EnumerateAdapterFuture>> {
        let adapters = self
            .instance
            .enumerate_adapters_sync()
            .into_iter()
            .map(|a| self.adapter(a))
            .collect::<Vec<_>>();
        Box::pin(std::future::ready(adapters))
    }
}

/// `wgpu::Adapter`'s backend: one HSA GPU agent.
#[derive(Debug)]
pub struct AqueductAdapter {
    adapter: aqueduct::Adapter,
    precompiled: Arc<[Precompiled]>,
}

impl AqueductAdapter {
    /// The facade adapter underneath.
    pub fn aqueduct(&self) -> &aqueduct::Adapter {
        &self.adapter
    }
}

impl AdapterInterface for AqueductAdapter {
    fn request_device(
        &self,
        desc: &wgpu::DeviceDescriptor<'_>,
    ) -> Pin<Box<dyn RequestDeviceFuture>> {
        // The descriptor is wgpu-types' in both crates: passed on as is.
        let result = match self.adapter.request_device_sync(desc) {
            Ok((device, queue)) => {
                let target = &self.adapter.agent().name;
                for object in self.precompiled.iter().filter(|p| p.target == target) {
                    if let Err(e) = device.register_precompiled(object.code, object.reflection) {
                        tracing::warn!(
                            name = object.name,
                            "precompiled shader not registered: {e}"
                        );
                    }
                }
                Ok((
                    DispatchDevice::custom(AqueductDevice::new(device.clone())),
                    DispatchQueue::custom(AqueductQueue::new(device, queue)),
                ))
            }
            Err(e) => Err(wgpu::RequestDeviceError::from_message(e.to_string())),
        };
        Box::pin(std::future::ready(result))
    }

    fn is_surface_supported(&self, _surface: &DispatchSurface) -> bool {
        false
    }

    fn features(&self) -> wgpu::Features {
        self.adapter.features()
    }

    fn limits(&self) -> wgpu::Limits {
        self.adapter.limits()
    }

    fn downlevel_capabilities(&self) -> wgpu::DownlevelCapabilities {
        self.adapter.get_downlevel_capabilities()
    }

    fn get_info(&self) -> wgpu::AdapterInfo {
        self.adapter.get_info()
    }

    fn get_texture_format_features(
        &self,
        format: wgpu::TextureFormat,
    ) -> wgpu::TextureFormatFeatures {
        self.adapter.get_texture_format_features(format)
    }

    fn get_presentation_timestamp(&self) -> wgpu::PresentationTimestamp {
        wgpu::PresentationTimestamp::INVALID_TIMESTAMP
    }

    fn cooperative_matrix_properties(&self) -> Vec<wgpu::wgt::CooperativeMatrixProperties> {
        self.adapter.cooperative_matrix_properties()
    }
}
