//! Physical memory handles (`hsa_amd_vmem_handle_create/_release`,
//! `_retain_alloc_handle`, `_get_alloc_properties_from_handle`).
//!
//! A handle is memory without an address: ALLOC_MEMORY_OF_GPU with VA 0
//! (libhsakmt's NoAddress BOs), exported at once as a dma-buf. Mapping it
//! imports that dma-buf at the chosen VA (`map.rs`), so one handle may be
//! mapped at several places and shared with other processes (`share.rs`).
//! Sizes are multiples of the pool's allocation granule; the recommended
//! granule is a GPU huge page for device memory.

use std::os::fd::{AsFd, FromRawFd, OwnedFd};

use aqueduct_kfd::uapi::{
    AllocMemoryOfGpuArgs, DMABUF_EXPORT_CLOEXEC, ExportDmabufArgs, alloc_flags, minor_version,
};

use crate::memory::pool::LARGE_ALLOC_ALIGN;
use crate::memory::{MemoryPool, PoolKind};

use super::error::{VmemError, VmemResult};
use super::manager::VirtualMemory;
use super::state::Physical;

/// An opaque physical-memory handle (`hsa_amd_vmem_alloc_handle_t`). Equal
/// values name the same memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AllocHandle(pub u64);

/// `hsa_amd_memory_type_t`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryType {
    #[default]
    None,
    /// Pinned: never migrated or substituted (NO_SUBSTITUTE).
    Pinned,
}

/// What `alloc_properties` reports.
#[derive(Clone, Debug)]
pub struct HandleProperties {
    pub pool: MemoryPool,
    pub memory_type: MemoryType,
    pub size: u64,
}

/// A pool's handle granules: sizes must be multiples of `minimum`;
/// multiples of `recommended` fragment least.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Granule {
    pub minimum: u64,
    pub recommended: u64,
}

/// `(st_dev, st_ino)` of an fd.
pub(crate) fn identity(fd: std::os::fd::BorrowedFd<'_>) -> VmemResult<(u64, u64)> {
    let st = rustix::fs::fstat(fd).map_err(|e| VmemError::FdNotInspectable {
        fd: std::os::fd::AsRawFd::as_raw_fd(&fd),
        source: e.into(),
    })?;
    Ok((st.st_dev, st.st_ino))
}

impl VirtualMemory {
    /// The allocation granules of `pool` (RUNTIME_ALLOC_GRANULE and
    /// RUNTIME_ALLOC_REC_GRANULE).
    pub fn granule(&self, pool: &MemoryPool) -> Granule {
        let minimum = pool.info().alloc_granule;
        let recommended = match pool.kind() {
            PoolKind::CoarseDevice => LARGE_ALLOC_ALIGN,
            PoolKind::FineSystem | PoolKind::Kernarg => minimum,
        };
        Granule {
            minimum,
            recommended,
        }
    }

    /// Create `size` bytes of memory in `pool` (a multiple of the pool's
    /// granule), not mapped anywhere yet.
    pub fn handle_create(
        &self,
        pool: &MemoryPool,
        size: u64,
        memory_type: MemoryType,
    ) -> VmemResult<AllocHandle> {
        let owned = self.gpus.iter().any(|g| {
            g.pools
                .iter()
                .any(|p| p.gpu_id() == pool.gpu_id() && p.kind() == pool.kind())
        });
        if !owned {
            return Err(VmemError::ForeignPool {
                kind: pool.kind(),
                gpu_id: pool.gpu_id(),
            });
        }
        let granule = self.granule(pool).minimum;
        if size == 0 || !size.is_multiple_of(granule) {
            return Err(VmemError::HandleSize { size, granule });
        }
        let info = pool.info();
        if info.size != 0 && size > info.size {
            return Err(VmemError::ExceedsPool {
                size,
                pool: info.kind,
                pool_size: info.size,
            });
        }
        let pinned = if memory_type == MemoryType::Pinned {
            alloc_flags::NO_SUBSTITUTE
        } else {
            0
        };
        let flags = match pool.kind() {
            PoolKind::CoarseDevice => {
                alloc_flags::VRAM | alloc_flags::WRITABLE | alloc_flags::PUBLIC | pinned
            }
            PoolKind::FineSystem | PoolKind::Kernarg => {
                alloc_flags::GTT | alloc_flags::WRITABLE | alloc_flags::COHERENT | pinned
            }
        };
        let mut alloc = AllocMemoryOfGpuArgs {
            va_addr: 0,
            size,
            gpu_id: pool.gpu_id(),
            flags,
            ..Default::default()
        };
        self.ctx
            .device
            .alloc_memory_of_gpu(&mut alloc)
            .map_err(|e| VmemError::from_driver("ALLOC_MEMORY_OF_GPU", e))?;
        let dmabuf = match self.export_bo(alloc.handle) {
            Ok(fd) => fd,
            Err(e) => {
                self.free_bo(alloc.handle);
                return Err(e);
            }
        };
        let identity = match identity(dmabuf.as_fd()) {
            Ok(id) => id,
            Err(e) => {
                self.free_bo(alloc.handle);
                return Err(e);
            }
        };
        let mut state = self.state();
        let id = state.next_handle;
        state.next_handle += 1;
        state.handles.insert(
            id,
            Physical {
                pool: pool.clone(),
                size,
                memory_type,
                bo: alloc.handle,
                gpu_id: pool.gpu_id(),
                dmabuf,
                identity,
                refs: 1,
                mappings: 0,
            },
        );
        tracing::debug!(handle = id, size, kind = ?pool.kind(), "vmem: created handle");
        Ok(AllocHandle(id))
    }

    /// EXPORT_DMABUF of `bo`: a new owned fd. The ioctl exists from KFD
    /// 1.12 on (Linux `kfd_ioctl.h` history); an older kernel answers
    /// EINVAL, so the version is checked first to say why.
    pub(crate) fn export_bo(&self, bo: u64) -> VmemResult<OwnedFd> {
        if self.kfd_minor < minor_version::EXPORT_DMABUF {
            return Err(VmemError::KfdTooOld {
                feature: "dma-buf export",
                needed_minor: minor_version::EXPORT_DMABUF,
                minor: self.kfd_minor,
            });
        }
        let mut args = ExportDmabufArgs {
            handle: bo,
            flags: DMABUF_EXPORT_CLOEXEC,
            ..Default::default()
        };
        self.ctx
            .device
            .export_dmabuf(&mut args)
            .map_err(|e| VmemError::from_driver("EXPORT_DMABUF", e))?;
        let raw = i32::try_from(args.dmabuf_fd)
            .map_err(|_| VmemError::ExportedFd { fd: args.dmabuf_fd })?;
        // SAFETY: EXPORT_DMABUF just created this descriptor for the caller,
        // who owns it from here on (nothing else refers to the number).
        Ok(unsafe { OwnedFd::from_raw_fd(raw) })
    }

    /// Drop one reference to `handle`; its memory is freed once no
    /// reference and no mapping is left.
    pub fn handle_release(&self, handle: AllocHandle) -> VmemResult<()> {
        let mut state = self.state();
        let Some(p) = state.handles.get_mut(&handle.0).filter(|p| p.refs > 0) else {
            return Err(VmemError::DeadHandle { handle });
        };
        p.refs -= 1;
        if p.refs == 0
            && p.mappings == 0
            && let Some(p) = state.handles.remove(&handle.0)
        {
            drop(state);
            self.destroy(p);
        }
        Ok(())
    }

    /// The handle mapped at exactly `va`, with one more reference (release
    /// it with [`VirtualMemory::handle_release`]).
    pub fn retain_alloc_handle(&self, va: u64) -> VmemResult<AllocHandle> {
        let mut state = self.state();
        let handle = state
            .mapped
            .get(&va)
            .map(|m| m.handle)
            .ok_or(VmemError::NothingMapped { va })?;
        let p = state
            .handles
            .get_mut(&handle)
            .ok_or(VmemError::HandleGone { handle })?;
        p.refs += 1;
        Ok(AllocHandle(handle))
    }

    /// The pool, memory type and size of `handle`.
    pub fn alloc_properties(&self, handle: AllocHandle) -> VmemResult<HandleProperties> {
        let state = self.state();
        let p = state
            .handles
            .get(&handle.0)
            .ok_or(VmemError::DeadHandle { handle })?;
        Ok(HandleProperties {
            pool: p.pool.clone(),
            memory_type: p.memory_type,
            size: p.size,
        })
    }
}
