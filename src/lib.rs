//! Aqueduct: a WebGPU-style compute API for AMD GPUs on its own HSA core.
//!
//! The API follows wgpu 30's compute subset in names, signatures and
//! semantics, so a port is mostly a change of crate name: [`Instance`] →
//! [`Adapter`] → ([`Device`], [`Queue`]); buffers, shader modules, bind
//! groups, compute pipelines, command encoders and compute passes.
//! Descriptors, flags, limits and features are wgpu-types 30 (re-exported).
//! Underneath, every command buffer becomes AQL packets on the device's HSA
//! queue with barrier bits and fence scopes derived from real hazards (see
//! [`command::lower`]), buffers live in fine- or coarse-grained pools by
//! usage ([`placement`]), and shaders are AMDGPU code objects
//! ([`ShaderSource`]). The device is the real /dev/kfd when it lists a GPU,
//! gfxsim otherwise (`AQUEDUCT_DEVICE=kfd|sim|auto`).
//!
//! Differences from wgpu, on purpose: the async entry points resolve at
//! once and have blocking `_sync` twins ([`block_on`] drives the async ones
//! without pollster); `BufferViewMut` dereferences mutably. As in wgpu, an
//! error no error scope catches panics unless a handler is installed with
//! `Device::on_uncaptured_error` ([`log_uncaptured_error`] logs instead).
//!
//! The HSA-level layers are re-exported (`hsa`, `kfd`, `gfxsim`) for the
//! `aqueduct-run` tool and low-level examples.

#![warn(missing_docs)]

pub mod adapter;
pub mod binding;
pub mod binding_limits;
mod block_on;
pub mod buffer;
pub mod command;
pub mod device;
pub mod device_select;
pub mod error;
pub mod error_scope;
pub mod host_callback;
mod id_hash;
pub mod instance;
mod lock_rank;
mod memory_reuse;
pub mod pipeline;
pub mod placement;
pub mod query;
pub mod queue;
pub mod registry;
mod ring;
pub mod sampler;
pub mod shader;
#[cfg(feature = "wgsl")]
pub mod shader_disk_cache;
#[cfg(test)]
mod test_support;
pub mod texture;
mod texture_binding;
mod texture_copy;
mod texture_reflection;
pub mod trace;
pub mod util;
pub mod wgsl;

#[cfg(feature = "sim")]
pub use aqueduct_gfxsim as gfxsim;
pub use aqueduct_hsa as hsa;
pub use aqueduct_kfd as kfd;
pub use device_select::{DeviceChoice, DeviceSelectError, default_device, open_device};

pub use adapter::{Adapter, DeviceDescriptor};
pub use binding::{
    BindGroup, BindGroupDescriptor, BindGroupEntry, BindGroupLayout, BindGroupLayoutDescriptor,
    BindingResource, BindingSlot, BufferBinding,
};
pub use block_on::block_on;
pub use buffer::{Buffer, BufferDescriptor, BufferSlice, BufferView, BufferViewMut, MapStateKind};
pub use command::encoder::{
    CommandBuffer, CommandBufferDescriptor, CommandEncoder, CommandEncoderDescriptor,
};
pub use command::lower::{DebugPacket, PacketRole};
pub use command::pass::{ComputePass, ComputePassDescriptor};
pub use device::Device;
pub use error::{
    BufferAsyncError, Error, ErrorFilter, ErrorSource, MapRangeError, RequestDeviceError,
    ValidationError,
};
pub use error_scope::{
    ErrorScopeGuard, UncapturedErrorHandler, log_uncaptured, log_uncaptured_error,
};
pub use instance::{Instance, InstanceError, RequestAdapterOptions, Surface};
pub use pipeline::{
    ComputePipeline, ComputePipelineDescriptor, PipelineCompilationOptions, PipelineLayout,
    PipelineLayoutDescriptor,
};
pub use placement::Placement;
pub use query::{ComputePassTimestampWrites, QuerySet, QuerySetDescriptor};
pub use queue::{PollType, Queue, SubmissionIndex};
pub use registry::{MapMode, Owner};
pub use sampler::{Sampler, SamplerDescriptor};
pub use shader::{ShaderModule, ShaderModuleDescriptor, ShaderSource};
pub use texture::{Texture, TextureDescriptor, TextureView, TextureViewDescriptor};

pub use aqueduct_kfd::abi::FenceScope;
pub use wgpu_types as wgt;
pub use wgpu_types::{
    AdapterInfo, Backend, Backends, BindGroupLayoutEntry, BindingType, BufferAddress,
    BufferBindingType, BufferSize, BufferUsages, COPY_BUFFER_ALIGNMENT, DeviceType,
    DownlevelCapabilities, DownlevelFlags, DynamicOffset, Features, InstanceDescriptor, Limits,
    MAP_ALIGNMENT, MemoryHints, PollError, PollStatus, PowerPreference,
    QUERY_RESOLVE_BUFFER_ALIGNMENT, QUERY_SET_MAX_QUERIES, QUERY_SIZE, QueryType,
    RequestAdapterError, ShaderStages, Trace,
};
pub use wgpu_types::{
    AddressMode, COPY_BYTES_PER_ROW_ALIGNMENT, CompareFunction, Extent3d, FilterMode,
    MipmapFilterMode, Origin3d, SamplerBindingType, SamplerBorderColor, StorageTextureAccess,
    TexelCopyBufferLayout, TextureAspect, TextureDimension, TextureFormat, TextureSampleType,
    TextureUsages, TextureViewDimension,
};

/// A debug label.
pub type Label<'a> = Option<&'a str>;
