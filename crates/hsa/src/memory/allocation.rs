//! `Allocation`: one KFD buffer object at a fixed VA, owned by value.
//!
//! Dropping it undoes the whole allocation sequence: UNMAP_MEMORY_FROM_GPU
//! on every GPU it was mapped on, FREE_MEMORY_OF_GPU, PROT_NONE back over
//! its CPU range, and the VA range back to the allocator. Host-mapped
//! allocations expose their bytes (CPU VA == GPU VA).

use std::ptr::NonNull;
use std::sync::Arc;

use aqueduct_kfd::uapi::{FreeMemoryOfGpuArgs, UnmapMemoryFromGpuArgs};

use super::context::{MappedGpus, MemoryContext};
use crate::error::HsaResult;

/// How (if at all) a BO is visible to the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostMapping {
    /// Not host-mapped (the VA stays PROT_NONE on the CPU side).
    None,
    /// mmap of the GPU's DRM render node at the BO's mmap offset.
    RenderNode,
    /// mmap of /dev/kfd at the BO's mmap offset (doorbells, MMIO).
    Kfd,
}

#[derive(Debug)]
pub struct Allocation {
    ctx: Arc<MemoryContext>,
    va: u64,
    len: u64,
    va_size: u64,
    handle: u64,
    flags: u32,
    owner_gpu: u32,
    host_mapping: HostMapping,
    mmap_offset: u64,
    mapped_gpus: MappedGpus,
}

impl Allocation {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        ctx: Arc<MemoryContext>,
        va: u64,
        len: u64,
        va_size: u64,
        handle: u64,
        flags: u32,
        owner_gpu: u32,
        host_mapping: HostMapping,
        mmap_offset: u64,
    ) -> Self {
        Self {
            ctx,
            va,
            len,
            va_size,
            handle,
            flags,
            owner_gpu,
            host_mapping,
            mmap_offset,
            mapped_gpus: MappedGpus::default(),
        }
    }

    /// The GPU virtual address (equal to the CPU address when host mapped).
    pub fn gpu_va(&self) -> u64 {
        self.va
    }
    /// Bytes requested.
    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bytes of VA (and BO) actually reserved: `len` rounded up to pages.
    pub fn reserved_len(&self) -> u64 {
        self.va_size
    }
    /// The KFD BO handle.
    pub fn kfd_handle(&self) -> u64 {
        self.handle
    }
    /// The `KFD_IOC_ALLOC_MEM_FLAGS_*` the BO was allocated with.
    pub fn kfd_flags(&self) -> u32 {
        self.flags
    }
    /// The gpu_id the BO was allocated on.
    pub fn owner_gpu(&self) -> u32 {
        self.owner_gpu
    }
    /// The mmap offset ALLOC_MEMORY_OF_GPU returned.
    pub fn mmap_offset(&self) -> u64 {
        self.mmap_offset
    }
    pub fn host_mapping(&self) -> HostMapping {
        self.host_mapping
    }
    /// gpu_ids the BO is currently mapped on.
    pub fn mapped_gpus(&self) -> Vec<u32> {
        self.mapped_gpus
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The host address of the first byte, if the BO is host mapped.
    pub fn host_ptr(&self) -> Option<NonNull<u8>> {
        match self.host_mapping {
            HostMapping::None => None,
            _ => NonNull::new(self.va as *mut u8),
        }
    }

    /// The bytes, if host mapped. The device may write them concurrently
    /// (as with any shared GPU memory); order with signals.
    pub fn as_slice(&self) -> Option<&[u8]> {
        let p = self.host_ptr()?;
        // SAFETY: the BO is mapped read-write at [va, va+va_size) for as long as self lives, and len <= va_size.
        Some(unsafe { std::slice::from_raw_parts(p.as_ptr(), self.len as usize) })
    }

    pub fn as_mut_slice(&mut self) -> Option<&mut [u8]> {
        let p = self.host_ptr()?;
        // SAFETY: as for as_slice; &mut self gives exclusive host access.
        Some(unsafe { std::slice::from_raw_parts_mut(p.as_ptr(), self.len as usize) })
    }

    /// MAP_MEMORY_TO_GPU on the GPUs of `gpu_ids` not mapped yet.
    pub fn map_to_gpus(&self, gpu_ids: &[u32]) -> HsaResult<()> {
        let mut mapped = self.mapped_gpus.lock().unwrap_or_else(|p| p.into_inner());
        let mut new: Vec<u32> = Vec::new();
        for g in gpu_ids {
            if !mapped.contains(g) && !new.contains(g) {
                new.push(*g);
            }
        }
        self.ctx.map_bo(self.handle, &new)?;
        mapped.extend(new);
        Ok(())
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        let mapped = std::mem::take(
            self.mapped_gpus
                .get_mut()
                .unwrap_or_else(|p| p.into_inner()),
        );
        if !mapped.is_empty() {
            let mut args = UnmapMemoryFromGpuArgs {
                handle: self.handle,
                n_devices: mapped.len() as u32,
                ..Default::default()
            };
            if let Err(e) = self.ctx.device.unmap_memory_from_gpu(&mut args, &mapped) {
                tracing::warn!(
                    va = format_args!("{:#x}", self.va),
                    "UNMAP_MEMORY_FROM_GPU: {e}"
                );
            }
        }
        let mut free = FreeMemoryOfGpuArgs {
            handle: self.handle,
        };
        if let Err(e) = self.ctx.device.free_memory_of_gpu(&mut free) {
            tracing::warn!(
                va = format_args!("{:#x}", self.va),
                "FREE_MEMORY_OF_GPU: {e}"
            );
        }
        // SAFETY: this Allocation is being dropped, so no slice into its range lives; its BO is freed above.
        if let Err(e) = unsafe {
            self.ctx
                .reservation
                .restore_prot_none(self.va, self.va_size)
        } {
            tracing::warn!(
                va = format_args!("{:#x}", self.va),
                "restoring PROT_NONE: {e}"
            );
        }
        self.ctx.va.free(self.va, self.va_size);
    }
}
