//! Aqueduct: a WebGPU-style compute API for AMD GPUs on its own HSA core.
//!
//! The wgpu-like facade comes with issue #6. Today this package holds the
//! device choice (real /dev/kfd or gfxsim), the HSA-level examples and the
//! `aqueduct-run` tool; the layers below are re-exported for them.

pub mod device_select;

pub use aqueduct_gfxsim as gfxsim;
pub use aqueduct_hsa as hsa;
pub use aqueduct_kfd as kfd;
pub use device_select::{DeviceChoice, DeviceSelectError, default_device, open_device};
