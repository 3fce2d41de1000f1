//! Mapping handles into reserved ranges (`hsa_amd_vmem_map/_unmap`).
//!
//! A mapping imports the handle's dma-buf at the VA (IMPORT_DMABUF with
//! `va_addr`), which gives the GPU a BO there, mapped on no GPU yet: as in
//! ROCm, memory becomes accessible only through `set_access`
//! (`access.rs`). The whole handle is mapped (`size` equals the handle's
//! size; a non-zero offset is refused, as ROCr does not support it).

use std::os::fd::AsRawFd;

use aqueduct_kfd::uapi::ImportDmabufArgs;

use crate::memory::vmem::PAGE_SIZE;

use super::error::{VmemError, VmemResult};
use super::handle::AllocHandle;
use super::manager::VirtualMemory;
use super::state::Mapped;

impl VirtualMemory {
    /// Map all of `handle` at `[va, va+size)` inside one reserved range;
    /// `offset` must be 0. Nothing can access it until `set_access`.
    pub fn map(&self, va: u64, size: u64, offset: u64, handle: AllocHandle) -> VmemResult<()> {
        if offset != 0 {
            return Err(VmemError::MapOffset { offset });
        }
        if size == 0 || !va.is_multiple_of(PAGE_SIZE) {
            return Err(VmemError::MapRange { va, size });
        }
        let mut state = self.state();
        let reserved = state
            .reserved_containing(va, size)
            .ok_or(VmemError::OutsideReservation { va, size })?;
        if state.overlaps_mapping(va, size) {
            return Err(VmemError::OverlapsMapping { va, size });
        }
        let p = state
            .handles
            .get(&handle.0)
            .ok_or(VmemError::InvalidHandle { handle })?;
        if p.size != size {
            return Err(VmemError::MapSizeMismatch {
                size,
                handle_size: p.size,
            });
        }
        let mut args = ImportDmabufArgs {
            va_addr: va,
            gpu_id: p.gpu_id,
            dmabuf_fd: p.dmabuf.as_raw_fd() as u32,
            ..Default::default()
        };
        self.ctx
            .device
            .import_dmabuf(&mut args)
            .map_err(|e| VmemError::from_driver("IMPORT_DMABUF", e))?;
        if let Some(p) = state.handles.get_mut(&handle.0) {
            p.mappings += 1;
        }
        if let Some(r) = state.reserved.get_mut(&reserved) {
            r.mappings += 1;
        }
        state.mapped.insert(
            va,
            Mapped {
                size,
                handle: handle.0,
                reserved,
                bo: args.handle,
                gpus: Default::default(),
                cpu: None,
            },
        );
        tracing::debug!(
            va = format_args!("{va:#x}"),
            size,
            handle = handle.0,
            "vmem: mapped handle"
        );
        Ok(())
    }

    /// Unmap the mapping that starts at `va` (`size` is its size): every
    /// agent loses access, and the handle's memory is freed if it was
    /// released already and this was its last mapping.
    pub fn unmap(&self, va: u64, size: u64) -> VmemResult<()> {
        let mut state = self.state();
        let Some(m) = state.mapped.get(&va) else {
            return Err(VmemError::NotMapped { va });
        };
        if m.size != size {
            return Err(VmemError::UnmapSizeMismatch {
                va,
                mapped: m.size,
                size,
            });
        }
        self.tear_down(va, m)?;
        let Some(m) = state.mapped.remove(&va) else {
            return Ok(());
        };
        if let Some(r) = state.reserved.get_mut(&m.reserved) {
            r.mappings -= 1;
        }
        let last = state.handles.get_mut(&m.handle).is_some_and(|p| {
            p.mappings -= 1;
            p.mappings == 0 && p.refs == 0
        });
        if last && let Some(p) = state.handles.remove(&m.handle) {
            self.destroy(p);
        }
        Ok(())
    }
}
