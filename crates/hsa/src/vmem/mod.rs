//! The vmem API: ROCm's `hsa_amd_vmem_*` in Rust, over KFD.
//!
//! Reserve a VA range ([`VirtualMemory::reserve`]), create physical memory
//! in a pool ([`VirtualMemory::handle_create`]), map it into the range
//! ([`VirtualMemory::map`]) and grant agents access
//! ([`VirtualMemory::set_access`]); grow an allocation by mapping more
//! handles after it. Handles travel between processes as dma-buf fds
//! ([`VirtualMemory::export_shareable_handle`] /
//! [`VirtualMemory::import_shareable_handle`]). Every documented failure of
//! the ROCm calls is a [`VmemError`] variant carrying its status code.
//!
//! How it maps onto KFD (and so onto gfxsim, which answers the same
//! requests): a handle is a memory-only BO (ALLOC_MEMORY_OF_GPU at VA 0)
//! with a dma-buf (EXPORT_DMABUF); a mapping is that dma-buf imported at
//! the VA (IMPORT_DMABUF); GPU access is MAP/UNMAP_MEMORY_TO_GPU of the
//! import per GPU; host access is an mmap of the dma-buf over the range.
//!
//! Files: `error` (the error and its status codes), `state` (tables and
//! counts), `manager` (the [`VirtualMemory`] value), `reserve`, `handle`,
//! `map`, `access`, `share` (one group of calls each), `growable` (a buffer
//! that grows in place by mapping more chunks: the pattern vmem exists for).

mod access;
mod error;
mod growable;
mod handle;
mod manager;
mod map;
mod reserve;
mod share;
mod state;

pub use access::Access;
pub use error::{VmemError, VmemResult};
pub use growable::GrowableBuffer;
pub use handle::{AllocHandle, Granule, HandleProperties, MemoryType};
pub use manager::VirtualMemory;
