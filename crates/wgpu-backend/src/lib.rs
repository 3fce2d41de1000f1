//! aqueduct-wgpu: wgpu 30's custom backend over Aqueduct, so unchanged wgpu
//! compute code runs on Aqueduct's HSA core (the real /dev/kfd, or gfxsim).
//!
//! A port changes one line, the instance:
//!
//! ```no_run
//! let instance = aqueduct_wgpu::instance(); // was: wgpu::Instance::default()
//! # let _ = instance;
//! ```
//!
//! Everything after it is the `wgpu` crate's API: adapters, devices,
//! queues, buffers (with mapping), WGSL shader modules, bind groups,
//! compute pipelines (auto layouts included), command encoders, compute
//! passes (direct and indirect dispatch), timestamp queries, error scopes
//! and the uncaptured-error handler. Each call is delegated to the
//! `aqueduct` facade; wgpu's front end still does its own bookkeeping
//! (map ranges, `DeviceExt::create_buffer_init`, `write_buffer_with`).
//!
//! WGSL goes through Aqueduct's run-time path: a registered precompiled
//! object whose source hash matches the text, else compilation with
//! clang-19/ld.lld-19, else a validation error saying how to precompile.
//! [`InstanceOptions::precompiled`] registers aqueduct-shaderc objects on
//! every device the instance opens ([`include_precompiled!`] embeds them),
//! so a program's shaders need no LLVM at run time.
//!
//! Errors behave as wgpu's: an error no error scope catches goes to the
//! handler installed with `Device::on_uncaptured_error`, and with none
//! installed it is logged (through `log` and `tracing`) and the call that
//! raised it panics with wgpu's message (`wgpu error: Validation Error` and
//! the causes). [`log_uncaptured_error`] is the opt-in handler that logs
//! instead. An object whose creation failed is invalid, and every later
//! use of it is another validation error.
//!
//! The backend is compute-only: textures and samplers are the facade's,
//! for compute kernels. Render, surface and acceleration-structure calls report a validation error carrying a
//! [`ComputeOnlyError`] through wgpu's error reporting (error scopes, the
//! uncaptured-error handler) and return invalid objects, as wgpu does for
//! failed creations: by default the first such call stops the program.
//!
//! # The wgpu version, and bumping it
//!
//! The `wgpu::custom` interface traits are undocumented and change between
//! wgpu releases (methods are added, signatures change), so wgpu is pinned
//! with `=30.0.1`, the version whose wgpu-types the facade shares. To move
//! to a new wgpu:
//! 1. bump `wgpu-types` in the root Cargo.toml and `wgpu` here together
//!    (the facade's descriptors are wgpu-types' and must be the same type);
//! 2. `cargo build -p aqueduct-wgpu`: every changed trait shows up as a
//!    missing or mismatched method; the traits are in wgpu's
//!    `src/dispatch.rs` (diff it between the two versions);
//! 3. `cargo test -p aqueduct-wgpu` and
//!    `cargo run -p aqueduct-wgpu --example wgpu_hello_compute` check that
//!    the behaviour, not just the signatures, still holds.

mod buffer;
mod command;
mod compute_only;
mod device;
mod error;
mod instance;
mod queue;
mod resources;
mod sampler;
mod texture;

pub use aqueduct;
pub use buffer::{AqueductBuffer, AqueductMappedRange};
pub use command::{AqueductCommandBuffer, AqueductCommandEncoder, AqueductComputePass};
pub use compute_only::ComputeOnlyObject;
pub use device::AqueductDevice;
pub use error::{
    BackendValidationError, ComputeOnlyError, MappedRangeError, ObjectKind, ObjectRef,
    log_uncaptured_error,
};
pub use instance::{AqueductAdapter, AqueductInstance};
pub use queue::AqueductQueue;
pub use resources::{
    AqueductBindGroup, AqueductBindGroupLayout, AqueductComputePipeline, AqueductPipelineLayout,
    AqueductQuerySet, AqueductShaderModule,
};
pub use sampler::AqueductSampler;
pub use texture::{AqueductTexture, AqueductTextureView};

/// Lock `m`, going on past a panic in another holder (the state it guards
/// stays consistent: each holder makes whole updates).
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// An aqueduct-shaderc output for one gfx target: the code object and its
/// `NAME.reflect.json` (which records the WGSL text's hash).
#[derive(Clone, Copy, Debug)]
pub struct Precompiled {
    /// The shader's name (the WGSL file's stem), for diagnostics.
    pub name: &'static str,
    /// The gfx target it was built for, e.g. `gfx1100`.
    pub target: &'static str,
    pub code: &'static [u8],
    pub reflection: &'static str,
}

/// Embed aqueduct-shaderc's outputs for `NAME` from `DIR` (relative to the
/// including file), for every target it builds: gfx1100, gfx942, gfx90a
/// (`DIR/<target>/NAME.co` and `NAME.reflect.json`). Evaluates to
/// `[Precompiled; 3]`.
#[macro_export]
macro_rules! include_precompiled {
    ($dir:literal, $name:literal) => {
        [
            $crate::include_precompiled!(@target $dir, $name, "gfx1100"),
            $crate::include_precompiled!(@target $dir, $name, "gfx942"),
            $crate::include_precompiled!(@target $dir, $name, "gfx90a"),
        ]
    };
    (@target $dir:literal, $name:literal, $target:literal) => {
        $crate::Precompiled {
            name: $name,
            target: $target,
            code: include_bytes!(concat!($dir, "/", $target, "/", $name, ".co")),
            reflection: include_str!(concat!($dir, "/", $target, "/", $name, ".reflect.json")),
        }
    };
}

/// How [`instance_with`] sets up the backend.
#[derive(Clone, Debug, Default)]
pub struct InstanceOptions {
    /// The device underneath (None: `AQUEDUCT_DEVICE`, else auto: /dev/kfd
    /// when it lists a GPU, gfxsim otherwise).
    pub device: Option<aqueduct::DeviceChoice>,
    /// Shader objects registered on every device the instance opens (those
    /// built for the device's target).
    pub precompiled: Vec<Precompiled>,
}

impl InstanceOptions {
    /// Open this device rather than the default one.
    pub fn device(mut self, choice: aqueduct::DeviceChoice) -> Self {
        self.device = Some(choice);
        self
    }

    /// Add precompiled shader objects (e.g. from [`include_precompiled!`]).
    pub fn precompiled(mut self, objects: impl IntoIterator<Item = Precompiled>) -> Self {
        self.precompiled.extend(objects);
        self
    }
}

/// A `wgpu::Instance` on Aqueduct's default device (see [`InstanceOptions::device`]).
pub fn instance() -> wgpu::Instance {
    instance_with(InstanceOptions::default())
}

/// A `wgpu::Instance` on Aqueduct, set up by `options`.
pub fn instance_with(options: InstanceOptions) -> wgpu::Instance {
    wgpu::Instance::from_custom(AqueductInstance::new(options))
}

/// The Aqueduct device behind a `wgpu::Device` of this backend (None for
/// another backend's device), for what only the facade offers, such as
/// `register_precompiled` or `wgsl_compiles`.
pub fn aqueduct_device(device: &wgpu::Device) -> Option<aqueduct::Device> {
    device
        .as_custom::<AqueductDevice>()
        .map(|d| d.aqueduct().clone())
}
