//! [`MemoryError`]: failures of the VA aperture, buffer-object and pool
//! allocation, and sub-allocation.

use aqueduct_kfd::KfdError;

use super::HsaStatus;
use crate::memory::PoolKind;

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// A zero-byte request to a pool.
    #[error("zero-byte allocation from the {pool:?} pool")]
    ZeroSize { pool: PoolKind },
    /// A request larger than the pool.
    #[error("{size} bytes exceed the {pool:?} pool's {pool_size} bytes")]
    ExceedsPool {
        size: u64,
        pool: PoolKind,
        pool_size: u64,
    },
    /// An alignment that is not a power of two.
    #[error("alignment {alignment} is not a power of two")]
    Alignment { alignment: u64 },
    /// A zero-byte buffer object.
    #[error("a zero-byte allocation was requested")]
    ZeroSizeBo,
    /// A VA range request with no size or a bad alignment.
    #[error(
        "VA range of {size} bytes aligned to {align}: size must be non-zero and alignment a power of two"
    )]
    VaRange { size: u64, align: u64 },
    /// A VA range larger than the whole aperture.
    #[error("{size} bytes exceed the {aperture} byte VA aperture")]
    ExceedsAperture { size: u64, aperture: u64 },
    /// No free range of the aperture fits the request.
    #[error("no free VA range of {size:#x} bytes aligned to {align:#x} in the aperture")]
    NoFreeVaRange { size: u64, align: u64 },
    /// A VA reservation that is not whole pages or not page aligned.
    #[error(
        "VA reservation of {size:#x} bytes aligned to {align:#x}: size must be a non-zero page multiple and alignment a power of two >= 4 KiB"
    )]
    VaReservation { size: u64, align: u64 },
    /// A range that is not inside the runtime's VA aperture.
    #[error("range {va:#x}+{len:#x} is outside the VA aperture")]
    OutsideAperture { va: u64, len: u64 },
    /// The reserved aperture lies outside a GPU's GPUVM range.
    #[error(
        "the VA aperture {base:#x}..{end:#x} lies outside gpu {gpu_id:#x}'s GPUVM range {gpuvm_base:#x}..{gpuvm_limit:#x}"
    )]
    ApertureOutsideGpuvm {
        base: u64,
        end: u64,
        gpu_id: u32,
        gpuvm_base: u64,
        gpuvm_limit: u64,
    },
    /// The driver has no memory left for a buffer object (ENOMEM).
    #[error(
        "ALLOC_MEMORY_OF_GPU of {size:#x} bytes (flags {flags:#x}) on gpu {gpu_id:#x}: {source}"
    )]
    DeviceMemoryExhausted {
        size: u64,
        flags: u32,
        gpu_id: u32,
        #[source]
        source: KfdError,
    },
    /// MAP_MEMORY_TO_GPU mapped the memory on fewer GPUs than asked.
    #[error("MAP_MEMORY_TO_GPU mapped {mapped} of {gpus} GPUs")]
    PartialMapping { mapped: u32, gpus: usize },
    /// A sub-allocation outside the sizes sub-allocation serves.
    #[error("sub-allocated blocks must be 1..{max} bytes, not {size}")]
    BlockSize { size: u64, max: u64 },
    /// A fresh slab could not hold a block.
    #[error("a fresh slab could not hold a block of {size} bytes")]
    SlabTooSmall { size: u64 },
    /// Sub-allocation needs a pool whose memory the host can map.
    #[error("sub-allocation needs a host-mapped pool, not {pool:?}")]
    PoolNotHostAccessible { pool: PoolKind },
    /// Memory the host has to write is not host mapped; `memory` says
    /// which ("staging", "kernarg", "executable image", ...).
    #[error("{memory} memory is not host mapped")]
    NotHostMapped { memory: &'static str },
    /// One submission needs more kernarg space than the kernarg ring holds
    /// (`block` is the block that did not fit).
    #[error(
        "one submission needs more kernarg space than the kernarg ring holds ({capacity} bytes, a {block}-byte block did not fit); split it"
    )]
    KernargSpace { block: u64, capacity: u64 },
}

impl MemoryError {
    /// The HSA status ROCr returns for this case.
    pub fn status(&self) -> HsaStatus {
        match self {
            MemoryError::ZeroSize { .. }
            | MemoryError::ExceedsPool { .. }
            | MemoryError::Alignment { .. }
            | MemoryError::ZeroSizeBo
            | MemoryError::VaRange { .. }
            | MemoryError::ExceedsAperture { .. }
            | MemoryError::BlockSize { .. }
            | MemoryError::NotHostMapped { .. } => HsaStatus::InvalidAllocation,
            MemoryError::VaReservation { .. }
            | MemoryError::OutsideAperture { .. }
            | MemoryError::PoolNotHostAccessible { .. } => HsaStatus::InvalidArgument,
            MemoryError::NoFreeVaRange { .. }
            | MemoryError::ApertureOutsideGpuvm { .. }
            | MemoryError::DeviceMemoryExhausted { .. }
            | MemoryError::PartialMapping { .. }
            | MemoryError::SlabTooSmall { .. }
            | MemoryError::KernargSpace { .. } => HsaStatus::OutOfResources,
        }
    }
}
