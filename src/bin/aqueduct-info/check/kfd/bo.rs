//! Buffer objects straight on the KFD interface: a VA this code reserves,
//! ALLOC_MEMORY_OF_GPU in one heap kind, the host mapping where the heap
//! has one, MAP/UNMAP on GPUs, and FREE (after unmapping: KFD refuses to
//! free a mapped BO).

use std::sync::atomic::AtomicU64;

use aqueduct::hsa::memory::vmem::VaReservation;
use aqueduct::kfd::KfdDevice;
use aqueduct::kfd::uapi::*;

use super::PAGE;
use crate::check::{CheckError, Side};

/// The kinds of memory ALLOC_MEMORY_OF_GPU allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heap {
    Vram,
    Gtt,
    UserPtr,
    Doorbell,
}

/// Page-aligned host memory for a USERPTR BO, freed on drop.
struct HostPages {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

impl HostPages {
    fn new(size: u64) -> Result<HostPages, CheckError> {
        let layout = std::alloc::Layout::from_size_align(size as usize, PAGE as usize)
            .map_err(|_| CheckError::unexpected("host buffer layout", "valid", size))?;
        // SAFETY: the layout has a non-zero size (callers pass whole pages).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(CheckError::unexpected("host allocation", "memory", "null"));
        }
        Ok(HostPages { ptr, layout })
    }
}

impl Drop for HostPages {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `alloc_zeroed` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// A BO at a VA this struct reserved; host-mapped read-write over its
/// whole size when `host` is true (then `write`/`read` are in bounds).
pub struct Bo<'a> {
    device: &'a dyn KfdDevice,
    va: VaReservation,
    pub handle: u64,
    pub host: bool,
    /// The GPUs it is mapped on (KFD refuses to free a mapped BO).
    mapped_on: std::cell::RefCell<Vec<u32>>,
    freed: bool,
    _user: Option<HostPages>,
}

impl<'a> Bo<'a> {
    /// ALLOC of `size` bytes of `heap` on the side's GPU at a fresh VA, and
    /// the host mapping where the heap has one.
    pub fn alloc(side: &'a Side, heap: Heap, size: u64) -> Result<Bo<'a>, CheckError> {
        let va = VaReservation::new(size, PAGE).map_err(CheckError::hsa("reserving VA"))?;
        let gpu_id = side.agent.gpu_id;
        let mut user = None;
        let (flags, mmap_offset) = match heap {
            Heap::Vram => (
                alloc_flags::VRAM
                    | alloc_flags::WRITABLE
                    | alloc_flags::NO_SUBSTITUTE
                    | alloc_flags::PUBLIC,
                0,
            ),
            Heap::Gtt => (alloc_flags::GTT | alloc_flags::WRITABLE, 0),
            Heap::UserPtr => {
                let pages = HostPages::new(size)?;
                let address = pages.ptr as u64;
                user = Some(pages);
                (alloc_flags::USERPTR | alloc_flags::WRITABLE, address)
            }
            Heap::Doorbell => (
                alloc_flags::DOORBELL | alloc_flags::WRITABLE | alloc_flags::COHERENT,
                0,
            ),
        };
        let mut args = AllocMemoryOfGpuArgs {
            va_addr: va.base(),
            size,
            gpu_id,
            flags,
            mmap_offset,
            ..Default::default()
        };
        side.device
            .alloc_memory_of_gpu(&mut args)
            .map_err(CheckError::kfd("ALLOC_MEMORY_OF_GPU"))?;
        let mut bo = Bo {
            device: side.device.as_ref(),
            va,
            handle: args.handle,
            host: false,
            mapped_on: Default::default(),
            freed: false,
            _user: user,
        };
        if matches!(heap, Heap::Vram | Heap::Gtt) {
            // SAFETY: [va, va+size) is the PROT_NONE range `bo.va` reserved
            // for this BO; nothing else lives there.
            unsafe {
                side.device
                    .mmap_render_node(gpu_id, bo.va.base(), size, args.mmap_offset)
            }
            .map_err(CheckError::kfd("mmap of the render node"))?;
            bo.host = true;
        }
        Ok(bo)
    }

    pub fn base(&self) -> u64 {
        self.va.base()
    }

    /// MAP_MEMORY_TO_GPU on `gpus`; returns n_success.
    pub fn map(&self, gpus: &[u32]) -> Result<u32, CheckError> {
        let mut args = MapMemoryToGpuArgs {
            handle: self.handle,
            n_devices: gpus.len() as u32,
            ..Default::default()
        };
        self.device
            .map_memory_to_gpu(&mut args, gpus)
            .map_err(CheckError::kfd("MAP_MEMORY_TO_GPU"))?;
        self.mapped_on.borrow_mut().extend_from_slice(gpus);
        Ok(args.n_success)
    }

    pub fn unmap(&self, gpus: &[u32]) -> Result<u32, CheckError> {
        let mut args = MapMemoryToGpuArgs {
            handle: self.handle,
            n_devices: gpus.len() as u32,
            ..Default::default()
        };
        self.device
            .unmap_memory_from_gpu(&mut args, gpus)
            .map_err(CheckError::kfd("UNMAP_MEMORY_FROM_GPU"))?;
        self.mapped_on.borrow_mut().retain(|g| !gpus.contains(g));
        Ok(args.n_success)
    }

    pub fn write(&self, offset: u64, bytes: &[u8]) {
        assert!(self.host && offset + bytes.len() as u64 <= self.va.size());
        // SAFETY: the range lies in this BO's read-write host mapping (checked above).
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                (self.base() + offset) as *mut u8,
                bytes.len(),
            )
        }
    }

    pub fn read(&self, offset: u64, len: usize) -> Vec<u8> {
        assert!(self.host && offset + len as u64 <= self.va.size());
        let mut out = vec![0; len];
        // SAFETY: the range lies in this BO's host mapping (checked above).
        unsafe {
            std::ptr::copy_nonoverlapping(
                (self.base() + offset) as *const u8,
                out.as_mut_ptr(),
                len,
            )
        }
        out
    }

    /// A 64-bit atomic at `offset` of the host mapping.
    pub fn atomic_u64(&self, offset: u64) -> &AtomicU64 {
        assert!(self.host && offset.is_multiple_of(8) && offset + 8 <= self.va.size());
        // SAFETY: an aligned, in-bounds word of the mapping, which lives as long as `self`.
        unsafe { &*((self.base() + offset) as *const AtomicU64) }
    }

    pub fn free(mut self) -> Result<(), CheckError> {
        self.freed = true;
        self.device
            .free_memory_of_gpu(&mut FreeMemoryOfGpuArgs {
                handle: self.handle,
            })
            .map_err(CheckError::kfd("FREE_MEMORY_OF_GPU"))
    }
}

impl Drop for Bo<'_> {
    fn drop(&mut self) {
        let mapped = self.mapped_on.take();
        if !mapped.is_empty() {
            let _ = self.unmap(&mapped);
        }
        if !self.freed {
            let _ = self.device.free_memory_of_gpu(&mut FreeMemoryOfGpuArgs {
                handle: self.handle,
            });
        }
    }
}
