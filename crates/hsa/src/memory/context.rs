//! The state every allocation is made through: the device, the VA
//! aperture and its allocator. Allocations keep it alive through an `Arc`,
//! so a buffer may outlive the `Runtime` handle that created it.
//!
//! `allocate_bo` is the one place that performs the per-BO sequence:
//! VA from the allocator → ALLOC_MEMORY_OF_GPU(va, size, gpu_id, flags) →
//! (host-visible only) mmap of the render node over the VA →
//! MAP_MEMORY_TO_GPU(gpu_ids). Every step is undone if a later one fails.

use std::sync::{Arc, Mutex};

use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::uapi::{AllocMemoryOfGpuArgs, FreeMemoryOfGpuArgs, MapMemoryToGpuArgs};

use super::allocation::{Allocation, HostMapping};
use super::vmem::{VaAllocator, VaReservation};
use crate::error::{HsaResult, MemoryError};

/// How a BO is placed and mapped.
#[derive(Clone, Debug)]
pub(crate) struct BoRequest<'a> {
    pub size: u64,
    pub align: u64,
    /// `KFD_IOC_ALLOC_MEM_FLAGS_*`.
    pub flags: u32,
    /// The gpu_id ALLOC_MEMORY_OF_GPU is issued for.
    pub owner_gpu: u32,
    pub host_mapping: HostMapping,
    /// GPUs to MAP_MEMORY_TO_GPU on (usually just the owner).
    pub map_gpus: &'a [u32],
}

#[derive(Debug)]
pub(crate) struct MemoryContext {
    pub device: Arc<dyn KfdDevice>,
    pub reservation: VaReservation,
    pub va: VaAllocator,
}

impl MemoryContext {
    pub fn new(device: Arc<dyn KfdDevice>, reservation: VaReservation) -> Self {
        let va = VaAllocator::new(reservation.base(), reservation.size());
        Self {
            device,
            reservation,
            va,
        }
    }

    pub fn allocate_bo(self: &Arc<Self>, req: &BoRequest<'_>) -> HsaResult<Allocation> {
        if req.size == 0 {
            return Err(MemoryError::ZeroSizeBo.into());
        }
        let (va, va_size) = self.va.allocate(req.size, req.align)?;
        let mut args = AllocMemoryOfGpuArgs {
            va_addr: va,
            size: va_size,
            gpu_id: req.owner_gpu,
            flags: req.flags,
            ..Default::default()
        };
        if let Err(e) = self.device.alloc_memory_of_gpu(&mut args) {
            self.va.free(va, va_size);
            if e.errno() == Some(rustix::io::Errno::NOMEM.raw_os_error()) {
                return Err(MemoryError::DeviceMemoryExhausted {
                    size: va_size,
                    flags: req.flags,
                    gpu_id: req.owner_gpu,
                    source: e,
                }
                .into());
            }
            return Err(e.into());
        }
        let handle = args.handle;
        let undo_alloc = |this: &Self| {
            let mut free = FreeMemoryOfGpuArgs { handle };
            if let Err(e) = this.device.free_memory_of_gpu(&mut free) {
                tracing::warn!("FREE_MEMORY_OF_GPU while undoing a failed allocation: {e}");
            }
            // SAFETY: the range was just taken for this BO, which failed to be set up; nothing refers to it.
            let _ = unsafe { this.reservation.restore_prot_none(va, va_size) };
            this.va.free(va, va_size);
        };
        let mapped = match req.host_mapping {
            HostMapping::None => Ok(()),
            // SAFETY: [va, va+va_size) was just taken from this runtime's PROT_NONE aperture and belongs to this BO alone.
            HostMapping::RenderNode => unsafe {
                self.device
                    .mmap_render_node(req.owner_gpu, va, va_size, args.mmap_offset)
            },
            // SAFETY: as above; doorbell and MMIO BOs are mapped through /dev/kfd.
            HostMapping::Kfd => unsafe { self.device.mmap_kfd(va, va_size, args.mmap_offset) },
        };
        if let Err(e) = mapped {
            undo_alloc(self);
            return Err(e.into());
        }
        let alloc = Allocation::new(
            self.clone(),
            va,
            req.size,
            va_size,
            handle,
            req.flags,
            req.owner_gpu,
            req.host_mapping,
            args.mmap_offset,
        );
        // On failure `alloc`'s Drop undoes everything done so far.
        alloc.map_to_gpus(req.map_gpus)?;
        // The BO is page-rounded; a simulated device's memory checker needs
        // the size asked for (the real device ignores this).
        self.device.note_allocation(va, req.size);
        Ok(alloc)
    }

    /// MAP_MEMORY_TO_GPU of one BO on `gpus`.
    pub fn map_bo(&self, handle: u64, gpus: &[u32]) -> HsaResult<()> {
        if gpus.is_empty() {
            return Ok(());
        }
        let mut args = MapMemoryToGpuArgs {
            handle,
            n_devices: gpus.len() as u32,
            ..Default::default()
        };
        self.device.map_memory_to_gpu(&mut args, gpus)?;
        if args.n_success != gpus.len() as u32 {
            return Err(MemoryError::PartialMapping {
                mapped: args.n_success,
                gpus: gpus.len(),
            }
            .into());
        }
        Ok(())
    }
}

/// GPUs a BO is mapped on (shared by [`Allocation`] and its drop).
pub(crate) type MappedGpus = Mutex<Vec<u32>>;
