//! Sharing handles between processes (`hsa_amd_vmem_export_shareable_handle`,
//! `hsa_amd_vmem_import_shareable_handle`).
//!
//! Export is EXPORT_DMABUF of the handle's BO: a dma-buf fd the caller owns
//! and may pass to another process (SCM_RIGHTS, or inheritance across
//! fork/exec). Import asks GET_DMABUF_INFO what the fd holds (size, owning
//! GPU, flags), makes a memory-only BO of it (IMPORT_DMABUF at VA 0, as
//! libhsakmt does) and keeps a dup of the fd for later mappings; the memory
//! lives until every process has released its handles and closed its fds.
//! Importing memory this runtime already has a handle for returns that
//! handle with one more reference, as ROCr does.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

use aqueduct_kfd::uapi::{GetDmabufInfoArgs, ImportDmabufArgs, alloc_flags};

use super::error::{VmemError, VmemResult};
use super::handle::{AllocHandle, MemoryType, identity};
use super::manager::VirtualMemory;
use super::state::Physical;

impl VirtualMemory {
    /// A dma-buf fd of `handle`'s memory, for another process to import.
    pub fn export_shareable_handle(&self, handle: AllocHandle) -> VmemResult<OwnedFd> {
        let bo = {
            let state = self.state();
            state
                .handles
                .get(&handle.0)
                .map(|p| p.bo)
                .ok_or(VmemError::DeadHandle { handle })?
        };
        self.export_bo(bo)
    }

    /// A handle for the memory behind `dmabuf` (from
    /// [`VirtualMemory::export_shareable_handle`], here or in another
    /// process). The caller keeps `dmabuf` and may close it at once.
    pub fn import_shareable_handle(&self, dmabuf: BorrowedFd<'_>) -> VmemResult<AllocHandle> {
        let id = identity(dmabuf)?;
        let mut state = self.state();
        if let Some((&h, p)) = state.handles.iter_mut().find(|(_, p)| p.identity == id) {
            p.refs += 1;
            return Ok(AllocHandle(h));
        }
        let raw = dmabuf.as_raw_fd() as u32;
        let mut info = GetDmabufInfoArgs {
            dmabuf_fd: raw,
            ..Default::default()
        };
        let mut metadata = [0u8; 256];
        self.ctx
            .device
            .get_dmabuf_info(&mut info, &mut metadata)
            .map_err(|source| VmemError::NotGpuDmabuf { fd: raw, source })?;
        let vram = info.flags & alloc_flags::VRAM != 0;
        let pool = self
            .pool_for(info.gpu_id, vram)
            .cloned()
            .ok_or(VmemError::NoPoolForDmabuf {
                gpu_id: info.gpu_id,
                vram,
            })?;
        let own = rustix::io::fcntl_dupfd_cloexec(dmabuf, 0)
            .map_err(|e| VmemError::DupFd { source: e.into() })?;
        let mut args = ImportDmabufArgs {
            va_addr: 0,
            gpu_id: info.gpu_id,
            dmabuf_fd: own.as_fd().as_raw_fd() as u32,
            ..Default::default()
        };
        self.ctx
            .device
            .import_dmabuf(&mut args)
            .map_err(|e| VmemError::from_driver("IMPORT_DMABUF", e))?;
        let memory_type = if info.flags & alloc_flags::NO_SUBSTITUTE != 0 {
            MemoryType::Pinned
        } else {
            MemoryType::None
        };
        let h = state.next_handle;
        state.next_handle += 1;
        state.handles.insert(
            h,
            Physical {
                pool,
                size: info.size,
                memory_type,
                bo: args.handle,
                gpu_id: info.gpu_id,
                dmabuf: own,
                identity: id,
                refs: 1,
                mappings: 0,
            },
        );
        tracing::debug!(handle = h, size = info.size, "vmem: imported handle");
        Ok(AllocHandle(h))
    }
}
