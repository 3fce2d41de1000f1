//! aqueduct-test-harness: the harness of each layer's tests, one feature
//! (and one module) per layer, each with only the crates it drives as
//! dependencies:
//!
//! - `kfd`: `fake_kfd` (a fake KFD keeping a real one's books),
//!   `event_device` (KFD events only) and `topology` (in-test
//!   topologies), for host-side runtime tests.
//! - `sim`: `sim`, gfxsim driven through the `KfdDevice` trait the way a
//!   runtime drives it.
//! - `hsa-sim`: `hsa_sim`, the HSA runtime over a fresh gfxsim device,
//!   with the checked-in kernels and one-call dispatches.
//! - `shaderc`: `shaderc`, checked-in shader code objects run through the
//!   HSA runtime, bound by their reflection.
//! - `facade`: `facade`, facade devices on gfxsim, the checked-in kernels
//!   as shader modules, readback and error-scope checks.
//! - `wgpu`: `wgpu_api`, wgpu devices on gfxsim through aqueduct-wgpu.
//! - `facade` or `wgpu`: `run_time_wgsl`, whether LLVM can compile WGSL
//!   here, and the on-disk shader cache kept off in test processes.
//!
//! (The modules exist only with their features, so these names are plain
//! text, not links.) A crate's tests take it as a dev-dependency with the
//! features they use. That makes a dev-dependency cycle (aqueduct-hsa's tests use this crate,
//! which depends on aqueduct-hsa), which Cargo allows: integration tests
//! link the same library the harness does. A `#[cfg(test)]` unit test
//! inside a crate would see a second copy of that crate through the
//! harness, so unit tests use only aqueduct-test-support.

#[cfg(feature = "kfd")]
pub mod event_device;
#[cfg(feature = "facade")]
pub mod facade;
#[cfg(feature = "kfd")]
pub mod fake_kfd;
#[cfg(feature = "hsa-sim")]
pub mod hsa_sim;
#[cfg(any(feature = "facade", feature = "wgpu"))]
pub mod run_time_wgsl;
#[cfg(feature = "shaderc")]
pub mod shaderc;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(feature = "kfd")]
pub mod topology;
#[cfg(feature = "wgpu")]
pub mod wgpu_api;
