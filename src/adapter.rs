//! Adapters: one per visible GPU agent. What an adapter offers (limits,
//! features, info) is derived from the agent's properties; a device gets
//! exactly the limits and features it asks for, after checking them
//! against the adapter (as wgpu does).

use std::sync::{Arc, Weak};

use aqueduct_hsa::{Agent, Runtime};
use wgpu_types::{
    AdapterInfo, Backend, CooperativeMatrixProperties, CooperativeScalarType, DeviceType,
    DownlevelCapabilities, DownlevelFlags, Features, Limits, TextureFormat, TextureFormatFeatures,
};

use crate::device::{Device, DeviceShared};
use crate::error::{LimitFailure, RequestDeviceError};
use crate::lock_rank::{LockRank, Mutex};
use crate::queue::Queue;

/// Describes a device to request from an adapter.
pub type DeviceDescriptor<'a> = wgpu_types::DeviceDescriptor<crate::Label<'a>>;

/// PCI vendor id of AMD.
pub const AMD_VENDOR_ID: u32 = 0x1002;

/// A GPU agent Aqueduct can open a device on (cheap to clone).
#[derive(Clone, Debug)]
pub struct Adapter {
    runtime: Arc<Runtime>,
    agent: Agent,
    devices: DeviceList,
}

/// The devices opened through an instance's adapters (for
/// `Instance::poll_all`); weak, so a dropped device is not kept alive.
pub(crate) type DeviceList = Arc<AdapterDevices>;

/// The lock of a [`DeviceList`], ranked `AdapterDevices`.
#[derive(Debug)]
pub(crate) struct AdapterDevices(Mutex<Vec<Weak<DeviceShared>>>);

impl Default for AdapterDevices {
    fn default() -> Self {
        AdapterDevices(Mutex::new(LockRank::AdapterDevices, Vec::new()))
    }
}

impl std::ops::Deref for AdapterDevices {
    type Target = Mutex<Vec<Weak<DeviceShared>>>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl Adapter {
    pub(crate) fn new(runtime: Arc<Runtime>, agent: Agent, devices: DeviceList) -> Self {
        Adapter {
            runtime,
            agent,
            devices,
        }
    }

    /// The HSA agent behind the adapter.
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// The HSA runtime under the adapter (shared by every adapter of its
    /// instance), for work below the facade on the same device: KFD takes
    /// one event page per process, so a second runtime cannot start there.
    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.runtime
    }

    fn simulated(&self) -> bool {
        self.runtime.device().backend_name() != "kfd"
    }

    /// Name, vendor and driver, with "simulated" visible for gfxsim.
    pub fn get_info(&self) -> AdapterInfo {
        let a = &self.agent;
        let backend = self.runtime.device().backend_name();
        let (kfd_major, kfd_minor) = self.runtime.kfd_version();
        let sim = self.simulated();
        AdapterInfo {
            name: if sim {
                format!("{} (simulated {} on {backend})", a.product_name, a.name)
            } else {
                format!("{} ({})", a.product_name, a.name)
            },
            vendor: AMD_VENDOR_ID,
            device: 0,
            device_type: if sim {
                DeviceType::Cpu
            } else {
                DeviceType::DiscreteGpu
            },
            device_pci_bus_id: String::new(),
            driver: "aqueduct".to_string(),
            driver_info: format!(
                "{}{} {}, {} CUs, wave{}, KFD {kfd_major}.{kfd_minor} via {backend}",
                if sim { "simulated " } else { "" },
                a.name,
                a.isa_name.as_deref().unwrap_or("?"),
                a.compute_unit_count,
                a.wavefront_size
            ),
            // wgpu-types has no variant for a custom backend; Noop is the
            // closest (no wgpu-hal backend underneath).
            backend: Backend::Noop,
            subgroup_min_size: a.wavefront_size,
            subgroup_max_size: a.wavefront_size,
            transient_saves_memory: None,
            limit_bucket: None,
        }
    }

    /// The features a device of this adapter can enable: each shader
    /// feature is one the WGSL compiler lowers and gfxsim runs
    /// (tests/wgsl_features.rs runs a kernel per feature).
    pub fn features(&self) -> Features {
        Features::MAPPABLE_PRIMARY_BUFFERS
            | Features::IMMEDIATES
            | Features::SHADER_F16
            | Features::SHADER_F64
            | Features::SHADER_INT64
            | Features::SHADER_INT64_ATOMIC_MIN_MAX
            | Features::SHADER_INT64_ATOMIC_ALL_OPS
            | Features::SUBGROUP
            | Features::SUBGROUP_BARRIER
            | Features::SHADER_FLOAT32_ATOMIC
            | Features::SHADER_I16
            | Features::TIMESTAMP_QUERY
            | Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
            | Features::TIMESTAMP_QUERY_INSIDE_PASSES
            // The texture unit filters 32-bit float formats (radv exposes
            // linear filtering of R32/R32G32B32A32_SFLOAT on these parts)
            // and has the three built-in border colours (Mesa `sid.h`
            // `SQ_TEX_BORDER_COLOR_*`; gfx11/sampler_desc.rs).
            | Features::FLOAT32_FILTERABLE
            | Features::ADDRESS_MODE_CLAMP_TO_BORDER
            | Features::ADDRESS_MODE_CLAMP_TO_ZERO
            // bgra8unorm storage binds as an RGBA8 view whose loads and
            // stores the compiler swizzles (shaderc `is_bgra_storage`).
            | Features::BGRA8UNORM_STORAGE
            // r32uint/r32sint texture atomics lower to the gfx11
            // `image_atomic_*` instructions (shaderc `image_atomic`).
            | Features::TEXTURE_ATOMIC
            // Cooperative matrices lower on every target (shaderc
            // `emit/coop.rs`), every size and scalar type naga validates.
            | Features::EXPERIMENTAL_COOPERATIVE_MATRIX
    }

    /// The cooperative matrix configurations shaders can use with
    /// `EXPERIMENTAL_COOPERATIVE_MATRIX` (wgpu's
    /// `Adapter::cooperative_matrix_properties`): the square sizes WGSL
    /// names (`coop_mat8x8`, `coop_mat16x16`) with f32, f16, and f16 inputs
    /// accumulated in f32; no saturating accumulation (float only).
    pub fn cooperative_matrix_properties(&self) -> Vec<CooperativeMatrixProperties> {
        use CooperativeScalarType::{F16, F32};
        [8, 16]
            .into_iter()
            .flat_map(|size| {
                [(F32, F32), (F16, F16), (F16, F32)].map(|(ab_type, cr_type)| {
                    CooperativeMatrixProperties {
                        m_size: size,
                        n_size: size,
                        k_size: size,
                        ab_type,
                        cr_type,
                        saturating_accumulation: false,
                    }
                })
            })
            .collect()
    }

    /// The best limits the agent supports (compute limits from the agent;
    /// the rest are WebGPU's defaults).
    pub fn limits(&self) -> Limits {
        let a = &self.agent;
        let wg_max = a.max_workgroup_size.clamp(256, 1024);
        let max_buffer = a.local_memory_size.clamp(1 << 30, 4 << 30) / 2;
        Limits {
            max_bind_groups: 8,
            max_storage_buffers_per_shader_stage: 16,
            max_dynamic_storage_buffers_per_pipeline_layout: 8,
            max_storage_buffer_binding_size: max_buffer,
            max_uniform_buffer_binding_size: 64 << 10,
            max_buffer_size: max_buffer,
            max_compute_workgroup_storage_size: (a.lds_size as u32).max(16384),
            max_compute_invocations_per_workgroup: wg_max,
            max_compute_workgroup_size_x: wg_max,
            max_compute_workgroup_size_y: wg_max,
            max_compute_workgroup_size_z: wg_max.min(1024),
            max_compute_workgroups_per_dimension: 65535,
            max_immediate_size: 128,
            ..Limits::defaults()
        }
    }

    /// What textures of `format` can do on this adapter's devices (wgpu's
    /// `Adapter::get_texture_format_features`), for the adapter's features.
    pub fn get_texture_format_features(&self, format: TextureFormat) -> TextureFormatFeatures {
        crate::texture_binding::format_features(format, self.features())
    }

    /// The downlevel capabilities: compute shaders, indirect execution, f16
    /// precision in f32 values (`quantizeToF16`, `pack2x16float`) and
    /// cube-array texture views.
    pub fn get_downlevel_capabilities(&self) -> DownlevelCapabilities {
        DownlevelCapabilities {
            flags: DownlevelFlags::COMPUTE_SHADERS
                | DownlevelFlags::INDIRECT_EXECUTION
                | DownlevelFlags::SHADER_F16_IN_F32
                | DownlevelFlags::CUBE_ARRAY_TEXTURES,
            ..DownlevelCapabilities::default()
        }
    }

    /// Open a device with exactly the requested features and limits.
    pub fn request_device_sync(
        &self,
        desc: &DeviceDescriptor<'_>,
    ) -> Result<(Device, Queue), RequestDeviceError> {
        let missing = desc.required_features - self.features();
        if !missing.is_empty() {
            return Err(RequestDeviceError::UnsupportedFeatures {
                missing,
                available: self.features(),
            });
        }
        let experimental = desc.required_features & Features::all_experimental_mask();
        if !experimental.is_empty() && !desc.experimental_features.is_enabled() {
            return Err(RequestDeviceError::ExperimentalFeaturesNotEnabled {
                requested: experimental,
            });
        }
        let allowed = self.limits();
        let mut failures = Vec::new();
        desc.required_limits.check_limits_with_fail_fn(
            &allowed,
            false,
            |name, requested, allowed| {
                failures.push(LimitFailure {
                    name,
                    requested,
                    allowed,
                })
            },
        );
        if !failures.is_empty() {
            return Err(RequestDeviceError::LimitsExceeded { failures });
        }
        let shared = DeviceShared::new(
            self.runtime.clone(),
            self.agent.clone(),
            self.get_info(),
            desc.required_features,
            desc.required_limits.clone(),
        )
        .map_err(|e| RequestDeviceError::Open {
            agent: self.agent.name.clone(),
            source: Arc::new(e),
        })?;
        let shared = Arc::new(shared);
        {
            let mut devices = self.devices.lock_unpoisoned();
            devices.retain(|d| d.strong_count() > 0);
            devices.push(Arc::downgrade(&shared));
        }
        Ok((
            Device {
                shared: shared.clone(),
            },
            Queue { shared },
        ))
    }

    /// wgpu-compatible async form of [`Adapter::request_device_sync`].
    pub fn request_device(
        &self,
        desc: &DeviceDescriptor<'_>,
    ) -> std::future::Ready<Result<(Device, Queue), RequestDeviceError>> {
        std::future::ready(self.request_device_sync(desc))
    }
}
