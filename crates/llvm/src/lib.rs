//! libLLVM-19 in this process, opened with `dlopen` at run time: nothing of
//! LLVM is linked, so building needs no LLVM development files, and a host
//! without the library gets [`LlvmError::Unavailable`] rather than a binary
//! that does not start.
//!
//! Two users sit above it: the WGSL compiler (aqueduct-shaderc) compiles IR
//! to AMDGPU objects with [`Llvm::compile_object`], and gfxsim's translator
//! (aqueduct-isa's `llvm-jit`) compiles translated blocks for the host CPU
//! and links them into the process with [`Llvm::link_host_object`], without
//! a compiler process or a shared object on disk.
//!
//! - `library.rs`: finding and loading the library, the C API it needs.
//! - `object.rs`: IR text to a relocatable object for a target.
//! - `host_jit.rs`: host objects linked into the process (ORC's LLJIT).
//! - `isolated.rs`: a compile in a child process with a time limit.
//! - `error.rs`: the typed errors.

mod error;
mod host_jit;
mod isolated;
#[doc(hidden)]
pub mod known_hangs;
mod library;
mod object;

pub use error::{IsolatedError, LlvmError, Stage};
pub use host_jit::LinkedObject;
pub use library::{Llvm, locate};
pub use object::ObjectTarget;
