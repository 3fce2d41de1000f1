//! The vmem API's error: one variant per failure of the ROCm
//! `hsa_amd_vmem_*` calls, with the values involved, each mapped to the
//! HSA status code ROCr returns for it ([`VmemError::status`]), so code
//! ported from ROCm can match on the same cases. Messages open with the
//! status ("invalid argument: ...").

use aqueduct_kfd::KfdError;

use crate::error::HsaError;
use crate::memory::PoolKind;

use super::AllocHandle;

pub type VmemResult<T> = Result<T, VmemError>;

#[derive(Debug, thiserror::Error)]
pub enum VmemError {
    // HSA_STATUS_ERROR_INVALID_ARGUMENT: a size, offset, alignment or
    // address that the call does not accept.
    #[error(
        "invalid argument: reserving {size:#x} bytes: the size must be a non-zero multiple of {page:#x}"
    )]
    ReserveSize { size: u64, page: u64 },
    #[error(
        "invalid argument: alignment {alignment:#x} must be a power of two of at least {page:#x}"
    )]
    ReserveAlignment { alignment: u64, page: u64 },
    #[error(
        "invalid argument: the range at {va:#x} was reserved with {reserved:#x} bytes, not {size:#x}"
    )]
    ReservedSizeMismatch { va: u64, reserved: u64, size: u64 },
    #[error(
        "invalid argument: chunk {chunk:#x} is not a multiple of the pool's granule {granule:#x}"
    )]
    ChunkGranule { chunk: u64, granule: u64 },
    #[error("invalid argument: maximum length {max_len:#x}")]
    MaxLength { max_len: u64 },
    #[error(
        "invalid argument: mapping offset {offset:#x}: only whole handles (offset 0) can be mapped"
    )]
    MapOffset { offset: u64 },
    #[error(
        "invalid argument: mapping {va:#x}+{size:#x}: the address must be page aligned and the size non-zero"
    )]
    MapRange { va: u64, size: u64 },
    #[error("invalid argument: {va:#x}+{size:#x} does not lie inside one reserved range")]
    OutsideReservation { va: u64, size: u64 },
    #[error("invalid argument: {va:#x}+{size:#x} overlaps an existing mapping")]
    OverlapsMapping { va: u64, size: u64 },
    /// A handle to map that is not live.
    #[error("invalid argument: {handle:?} is not a live handle")]
    InvalidHandle { handle: AllocHandle },
    #[error("invalid argument: mapping size {size:#x} differs from the handle's {handle_size:#x}")]
    MapSizeMismatch { size: u64, handle_size: u64 },
    #[error("invalid argument: the mapping at {va:#x} is {mapped:#x} bytes, not {size:#x}")]
    UnmapSizeMismatch { va: u64, mapped: u64, size: u64 },
    #[error("invalid argument: size {size:#x}")]
    SizeTooLarge { size: u64 },
    #[error("invalid argument: the {kind:?} pool of gpu {gpu_id:#x} is not a pool of this runtime")]
    ForeignPool { kind: PoolKind, gpu_id: u32 },
    #[error(
        "invalid argument: handle size {size:#x} must be a non-zero multiple of the pool's granule {granule:#x}"
    )]
    HandleSize { size: u64, granule: u64 },

    // HSA_STATUS_ERROR_INVALID_ALLOCATION: no reserved range, handle or
    // mapping is known by that address or value.
    #[error("invalid allocation: {va:#x} is not the start of a reserved range")]
    NotReserved { va: u64 },
    /// A handle to release, export or inspect that is not live.
    #[error("invalid allocation: {handle:?} is not a live handle")]
    DeadHandle { handle: AllocHandle },
    #[error("invalid allocation: handle {handle} is gone")]
    HandleGone { handle: u64 },
    #[error("invalid allocation: no mapping starts at {va:#x}")]
    NotMapped { va: u64 },
    #[error("invalid allocation: nothing is mapped at {va:#x}")]
    NothingMapped { va: u64 },
    #[error(
        "invalid allocation: {va:#x}+{size:#x} is not covered by mappings ({chunk:#x} starts none)"
    )]
    NotCovered { va: u64, size: u64, chunk: u64 },
    #[error(
        "invalid allocation: the dma-buf belongs to gpu {gpu_id:#x}, which has no {} pool here",
        if *vram { "device" } else { "system" }
    )]
    NoPoolForDmabuf { gpu_id: u32, vram: bool },

    // HSA_STATUS_ERROR_INVALID_AGENT: an agent this runtime does not have.
    #[error("invalid agent: the runtime has no GPU agent with memory pools")]
    NoGpuAgent,
    #[error("invalid agent: `{name}` (node {node}) is not an agent of this runtime")]
    UnknownAgent { name: String, node: u32 },

    // HSA_STATUS_ERROR_OUT_OF_RESOURCES: no VA range, memory or file
    // descriptor left.
    #[error(
        "out of resources: no free VA range of {size:#x} bytes aligned to {alignment:#x}: {source}"
    )]
    NoFreeRange {
        size: u64,
        alignment: u64,
        #[source]
        source: HsaError,
    },
    #[error("out of resources: {len:#x} bytes exceed the buffer's reserved {max_len:#x}")]
    ExceedsReservation { len: u64, max_len: u64 },
    #[error("out of resources: {size:#x} bytes exceed the {pool:?} pool's {pool_size:#x}")]
    ExceedsPool {
        size: u64,
        pool: PoolKind,
        pool_size: u64,
    },
    #[error("out of resources: host mapping of {va:#x}+{len:#x}: {source}")]
    HostMapping {
        va: u64,
        len: usize,
        #[source]
        source: std::io::Error,
    },
    #[error("out of resources: duplicating the dma-buf fd: {source}")]
    DupFd {
        #[source]
        source: std::io::Error,
    },
    #[error("out of resources: EXPORT_DMABUF returned fd {fd}")]
    ExportedFd { fd: u32 },
    /// The driver ran out of memory or descriptors (ENOMEM, EMFILE, ENFILE).
    #[error("out of resources: {ioctl}: {source}")]
    DriverExhausted {
        ioctl: &'static str,
        #[source]
        source: KfdError,
    },

    // HSA_STATUS_ERROR_RESOURCE_FREE: the range is still in use.
    #[error(
        "resource in use: the range at {va:#x} still has {mappings} mapping(s); unmap them first"
    )]
    StillMapped { va: u64, mappings: u32 },

    // HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: an fd to import that is not
    // a dma-buf of this system's GPUs.
    #[error("incompatible arguments: fd {fd} cannot be inspected: {source}")]
    FdNotInspectable {
        fd: i32,
        #[source]
        source: std::io::Error,
    },
    #[error("incompatible arguments: fd {fd} is not a dma-buf of this system's GPUs: {source}")]
    NotGpuDmabuf {
        fd: u32,
        #[source]
        source: KfdError,
    },

    /// `HSA_STATUS_ERROR`: the kernel's KFD interface predates the ioctl
    /// the call needs.
    #[error(
        "{feature} needs KFD interface 1.{needed_minor} or newer; this kernel's is 1.{minor} \
         (upgrade the kernel or the amdgpu driver)"
    )]
    KfdTooOld {
        feature: &'static str,
        needed_minor: u32,
        minor: u32,
    },
    /// `HSA_STATUS_ERROR`: the driver refused a request the runtime made.
    #[error(transparent)]
    Kfd(#[from] KfdError),
    /// `HSA_STATUS_ERROR`: another runtime failure (host mapping, ...).
    #[error(transparent)]
    Runtime(#[from] HsaError),
}

impl VmemError {
    /// The `hsa_status_t` ROCr returns for this case.
    pub fn status(&self) -> u32 {
        self.hsa_status().code()
    }

    /// The status code's name (`"HSA_STATUS_ERROR_RESOURCE_FREE"`...).
    pub fn status_name(&self) -> &'static str {
        self.hsa_status().name()
    }

    /// The HSA status of this case.
    pub fn hsa_status(&self) -> crate::HsaStatus {
        use crate::HsaStatus as S;
        match self {
            VmemError::ReserveSize { .. }
            | VmemError::ReserveAlignment { .. }
            | VmemError::ReservedSizeMismatch { .. }
            | VmemError::ChunkGranule { .. }
            | VmemError::MaxLength { .. }
            | VmemError::MapOffset { .. }
            | VmemError::MapRange { .. }
            | VmemError::OutsideReservation { .. }
            | VmemError::OverlapsMapping { .. }
            | VmemError::InvalidHandle { .. }
            | VmemError::MapSizeMismatch { .. }
            | VmemError::UnmapSizeMismatch { .. }
            | VmemError::SizeTooLarge { .. }
            | VmemError::ForeignPool { .. }
            | VmemError::HandleSize { .. } => S::InvalidArgument,
            VmemError::NotReserved { .. }
            | VmemError::DeadHandle { .. }
            | VmemError::HandleGone { .. }
            | VmemError::NotMapped { .. }
            | VmemError::NothingMapped { .. }
            | VmemError::NotCovered { .. }
            | VmemError::NoPoolForDmabuf { .. } => S::InvalidAllocation,
            VmemError::NoGpuAgent | VmemError::UnknownAgent { .. } => S::InvalidAgent,
            VmemError::NoFreeRange { .. }
            | VmemError::ExceedsReservation { .. }
            | VmemError::ExceedsPool { .. }
            | VmemError::HostMapping { .. }
            | VmemError::DupFd { .. }
            | VmemError::ExportedFd { .. }
            | VmemError::DriverExhausted { .. } => S::OutOfResources,
            VmemError::StillMapped { .. } => S::ResourceFree,
            VmemError::FdNotInspectable { .. } | VmemError::NotGpuDmabuf { .. } => {
                S::IncompatibleArguments
            }
            VmemError::KfdTooOld { .. } | VmemError::Kfd(_) | VmemError::Runtime(_) => S::Error,
        }
    }

    /// A driver failure, as [`VmemError::DriverExhausted`] when the driver
    /// ran out of memory or descriptors (ENOMEM, EMFILE, ENFILE), otherwise
    /// as is.
    pub(crate) fn from_driver(ioctl: &'static str, e: KfdError) -> VmemError {
        use rustix::io::Errno;
        let exhausted = [Errno::NOMEM, Errno::MFILE, Errno::NFILE]
            .iter()
            .any(|n| e.errno() == Some(n.raw_os_error()));
        if exhausted {
            VmemError::DriverExhausted { ioctl, source: e }
        } else {
            VmemError::Kfd(e)
        }
    }
}
