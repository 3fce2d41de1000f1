//! Simulated GPU memory: buffer objects and the KFD memory ioctls
//! (ALLOC/FREE/MAP/UNMAP) with the checks the kernel makes, plus mmap of the
//! render node.
//!
//! Errors use the errno the kernel returns for the same mistake (Linux
//! `kfd_chardev.c` `kfd_ioctl_{alloc,free}_memory_of_gpu`,
//! `kfd_ioctl_{map,unmap}_memory_{to,from}_gpu`, and the
//! `amdgpu_amdkfd_gpuvm.c` functions they call): EINVAL for malformed
//! requests, unknown handles on FREE, unknown GPUs in a device list and an
//! UNMAP from a GPU the BO is not mapped on; ENOMEM for unknown handles on
//! MAP/UNMAP and for exhausted VRAM/GTT; EFAULT for a USERPTR range that is
//! not mapped in the process or a device list shorter than `n_devices`;
//! EBUSY for a FREE of a BO still mapped to a GPU and for an UNMAP of a BO
//! a live queue holds (its ring, pointers, EOP or context-save area). A MAP to a GPU the BO is
//! already mapped on succeeds without a second mapping (the kernel skips
//! attachments that are `is_mapped`). MAP/UNMAP resume at `n_success` and
//! advance it past each GPU done, so a caller can retry after a failure.

pub mod backing;
pub mod bo;
pub mod dmabuf;
pub mod fresh_vram;
pub mod vm;
pub mod vram_pool;

use std::sync::{Arc, Mutex};

use aqueduct_kfd::uapi::{
    AllocMemoryOfGpuArgs, FreeMemoryOfGpuArgs, MapMemoryToGpuArgs, mmap_offset,
};
use aqueduct_kfd::{KfdError, KfdResult};
use rustix::io::Errno;

use crate::coherence::CoarseCache;
use crate::coherence::cu_cache::{CuLines, is_cu_cached};
use crate::gpu::Gpu;
use backing::Backing;
use bo::{Bo, BoTable, MemType};
use fresh_vram::FreshVram;
use vm::Mapping;
use vram_pool::{POOL_LIMIT, VramPool};

pub const PAGE_SIZE: u64 = 4096;

/// BOs up to this size have gfxsim's view of them committed when first
/// mapped to a GPU (see `Backing::populate`); larger ones fault their pages
/// in as kernels touch them, so a big reservation the GPU barely touches
/// (a queue's 44 MiB context-save area, a 24 GiB VRAM BO) stays cheap. The
/// eager commit costs at most this much host memory per BO.
pub const POPULATE_LIMIT: u64 = 2 << 20;
/// The GPU virtual address space of gfx9+ parts (48-bit, lower half).
pub const GPUVM_LIMIT: u64 = 1 << 47;
/// The per-process doorbell slice: 1024 doorbells of 8 bytes (SOC15).
pub const DOORBELL_SLICE_SIZE: u64 = 8192;

fn err(ioctl: &'static str, errno: Errno) -> KfdError {
    KfdError::ioctl(ioctl, errno.raw_os_error())
}

fn mmap_err(errno: Errno) -> KfdError {
    KfdError::Os {
        what: "mmap",
        source: errno.into(),
    }
}

/// All BOs of the (one) simulated process.
#[derive(Debug)]
pub struct Memory {
    bos: Mutex<BoTable>,
    gtt_used: Mutex<u64>,
    gtt_limit: u64,
    /// What new VRAM BOs hold.
    fresh_vram: FreshVram,
    /// Freed VRAM backings for the next BO of the same size.
    vram_pool: VramPool,
}

impl Memory {
    /// `system_memory`: host RAM; GTT and USERPTR BOs may use 15/16 of it,
    /// as KFD's system memory limit allows. `fresh_vram`: what new VRAM BOs
    /// hold.
    pub fn new(system_memory: u64, fresh_vram: FreshVram) -> Self {
        Self {
            bos: Mutex::new(BoTable::default()),
            gtt_used: Mutex::new(0),
            gtt_limit: system_memory / 16 * 15,
            fresh_vram,
            vram_pool: VramPool::new(POOL_LIMIT),
        }
    }

    /// Bytes of freed VRAM backing kept for reuse (vram_pool.rs); not
    /// charged to any GPU.
    pub fn pooled_vram(&self) -> u64 {
        self.vram_pool.bytes()
    }

    fn bos(&self) -> std::sync::MutexGuard<'_, BoTable> {
        self.bos.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes of GTT/USERPTR memory charged to the process (VRAM is
    /// charged per GPU, `Gpu::vram_used`).
    pub fn gtt_used(&self) -> u64 {
        *self.gtt_used.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A BO's record (a copy).
    pub fn bo(&self, handle: u64) -> Option<Bo> {
        self.bos().get(handle).cloned()
    }

    pub fn alloc(&self, gpus: &[Arc<Gpu>], args: &mut AllocMemoryOfGpuArgs) -> KfdResult<()> {
        const NAME: &str = "ALLOC_MEMORY_OF_GPU";
        if args.size == 0 {
            return Err(err(NAME, Errno::INVAL));
        }
        let gpu = gpus
            .iter()
            .find(|g| g.gpu_id == args.gpu_id)
            .ok_or_else(|| {
                tracing::debug!("{NAME}: unknown gpu_id {:#x}", args.gpu_id);
                err(NAME, Errno::INVAL)
            })?;
        if !gpu.vm_acquired() {
            tracing::debug!(
                "{NAME}: ACQUIRE_VM was not called for gpu {:#x}",
                args.gpu_id
            );
            return Err(err(NAME, Errno::INVAL));
        }
        let mem_type = MemType::from_flags(args.flags).ok_or_else(|| {
            tracing::debug!("{NAME}: flags {:#x} name no single memory type", args.flags);
            err(NAME, Errno::INVAL)
        })?;
        let end = args.va_addr.checked_add(args.size);
        // VA 0 asks for a memory-only BO (libhsakmt's NoAddress handles):
        // VRAM/GTT only, never mappable to a GPU.
        let memory_only = args.va_addr == 0 && matches!(mem_type, MemType::Vram | MemType::Gtt);
        if (args.va_addr == 0 && !memory_only)
            || !args.va_addr.is_multiple_of(PAGE_SIZE)
            || !args.size.is_multiple_of(PAGE_SIZE)
            || end.is_none_or(|end| end > GPUVM_LIMIT)
        {
            tracing::debug!(
                "{NAME}: va {:#x} size {:#x} not page aligned or outside the GPUVM aperture",
                args.va_addr,
                args.size
            );
            return Err(err(NAME, Errno::INVAL));
        }

        let mut bos = self.bos();
        let handle = bos.next_handle(gpu.gpu_id);
        let (backing, offset, render_offset) = match mem_type {
            MemType::Vram | MemType::Gtt => {
                self.reserve(gpu, mem_type, args.size)
                    .map_err(|e| err(NAME, e))?;
                let backing = match self.new_backing(gpu.gpu_id, mem_type, args) {
                    Ok(b) => b,
                    Err(e) => {
                        self.release(gpu, mem_type, args.size);
                        tracing::warn!("{NAME}: cannot create the BO's memfd: {e}");
                        return Err(err(NAME, Errno::NOMEM));
                    }
                };
                (Arc::new(backing), bos.next_render_offset(args.size), true)
            }
            MemType::UserPtr => {
                let cpu = args.mmap_offset;
                if cpu == 0 || !cpu.is_multiple_of(PAGE_SIZE) {
                    return Err(err(NAME, Errno::INVAL));
                }
                if !host_range_mapped(cpu, args.size) {
                    tracing::debug!(
                        "{NAME}: USERPTR range {cpu:#x}+{:#x} is not mapped",
                        args.size
                    );
                    return Err(err(NAME, Errno::FAULT));
                }
                self.reserve(gpu, mem_type, args.size)
                    .map_err(|e| err(NAME, e))?;
                (Arc::new(Backing::new_user(cpu, args.size)), cpu, false)
            }
            MemType::Doorbell => {
                if args.size != DOORBELL_SLICE_SIZE {
                    return Err(err(NAME, Errno::INVAL));
                }
                (
                    gpu.doorbells.backing(),
                    mmap_offset::TYPE_DOORBELL | mmap_offset::gpu_id(gpu.gpu_id),
                    false,
                )
            }
            MemType::MmioRemap => {
                if args.size != PAGE_SIZE {
                    return Err(err(NAME, Errno::INVAL));
                }
                (
                    gpu.mmio_page.clone(),
                    mmap_offset::TYPE_MMIO | mmap_offset::gpu_id(gpu.gpu_id),
                    false,
                )
            }
        };
        let bo = Bo {
            handle,
            gpu_id: gpu.gpu_id,
            va: args.va_addr,
            size: args.size,
            flags: args.flags,
            mem_type,
            mmap_offset: offset,
            backing,
            mapped_on: Vec::new(),
            sharing: Default::default(),
            imported: false,
        };
        args.handle = handle;
        if mem_type != MemType::UserPtr {
            args.mmap_offset = offset;
        }
        tracing::trace!(
            "{NAME}: handle {handle:#x} {mem_type:?} va {:#x} size {:#x}",
            bo.va,
            bo.size
        );
        bos.insert(bo, render_offset);
        Ok(())
    }

    /// The backing of a new VRAM/GTT BO: a pooled VRAM one if one fits,
    /// else a new memfd (after emptying the pool if the host refuses one),
    /// holding what a new BO of its type holds.
    fn new_backing(
        &self,
        gpu_id: u32,
        mem_type: MemType,
        args: &AllocMemoryOfGpuArgs,
    ) -> std::io::Result<Backing> {
        let vram = mem_type == MemType::Vram;
        if vram
            && let Some(backing) =
                self.vram_pool
                    .take(gpu_id, args.flags, args.size, self.fresh_vram)
        {
            return Ok(backing);
        }
        let name = dmabuf::memfd_name(gpu_id, args.flags);
        let backing = Backing::new_memfd(&name, args.size).or_else(|e| {
            if self.vram_pool.bytes() == 0 {
                return Err(e);
            }
            self.vram_pool.clear();
            Backing::new_memfd(&name, args.size)
        })?;
        if vram {
            // SAFETY: the backing is a fresh mapping of `size` bytes
            // (page aligned) that nothing else has seen.
            unsafe { self.fresh_vram.fill(backing.ptr(), args.size) };
        }
        Ok(backing)
    }

    fn reserve(&self, gpu: &Gpu, mem_type: MemType, size: u64) -> Result<(), Errno> {
        match mem_type {
            MemType::Vram => {
                let mut used = gpu.vram_used.lock().unwrap_or_else(|e| e.into_inner());
                if *used + size > gpu.vram_size {
                    return Err(Errno::NOMEM);
                }
                *used += size;
            }
            MemType::Gtt | MemType::UserPtr => {
                let mut used = self.gtt_used.lock().unwrap_or_else(|e| e.into_inner());
                if *used + size > self.gtt_limit {
                    return Err(Errno::NOMEM);
                }
                *used += size;
            }
            MemType::Doorbell | MemType::MmioRemap => {}
        }
        Ok(())
    }

    fn release(&self, gpu: &Gpu, mem_type: MemType, size: u64) {
        match mem_type {
            MemType::Vram => *gpu.vram_used.lock().unwrap_or_else(|e| e.into_inner()) -= size,
            MemType::Gtt | MemType::UserPtr => {
                *self.gtt_used.lock().unwrap_or_else(|e| e.into_inner()) -= size
            }
            MemType::Doorbell | MemType::MmioRemap => {}
        }
    }

    /// FREE_MEMORY_OF_GPU. A BO still mapped to any GPU is refused with
    /// EBUSY and keeps its handle (Linux `amdgpu_amdkfd_gpuvm.c`
    /// `amdgpu_amdkfd_gpuvm_free_memory_of_gpu` checks
    /// `mapped_to_gpu_memory`; `kfd_chardev.c`
    /// `kfd_ioctl_free_memory_of_gpu` removes the handle only on success).
    pub fn free(&self, gpus: &[Arc<Gpu>], args: &mut FreeMemoryOfGpuArgs) -> KfdResult<()> {
        const NAME: &str = "FREE_MEMORY_OF_GPU";
        let mut bos = self.bos();
        let bo = bos
            .get(args.handle)
            .ok_or_else(|| err(NAME, Errno::INVAL))?;
        if !bo.mapped_on.is_empty() {
            tracing::debug!(
                "{NAME}: handle {:#x} (va {:#x}) is still mapped on {:x?}",
                bo.handle,
                bo.va,
                bo.mapped_on
            );
            return Err(err(NAME, Errno::BUSY));
        }
        let bo = bos
            .remove(args.handle)
            .ok_or_else(|| err(NAME, Errno::INVAL))?;
        drop(bos);
        if let Some(gpu) = gpus.iter().find(|g| g.gpu_id == bo.gpu_id)
            && !bo.imported
        {
            self.release(gpu, bo.mem_type, bo.size);
        }
        tracing::trace!("{NAME}: handle {:#x}", bo.handle);
        // A VRAM backing nothing else holds any more may serve the next BO
        // of its size (the pool keeps private ones only).
        if bo.mem_type == MemType::Vram
            && !bo.imported
            && let Ok(backing) = Arc::try_unwrap(bo.backing)
        {
            self.vram_pool.give(bo.gpu_id, bo.flags, backing);
        }
        Ok(())
    }

    pub fn map(
        &self,
        gpus: &[Arc<Gpu>],
        args: &mut MapMemoryToGpuArgs,
        device_ids: &[u32],
    ) -> KfdResult<()> {
        const NAME: &str = "MAP_MEMORY_TO_GPU";
        let (n, start) = check_map_args(NAME, gpus, args, device_ids)?;
        let mut bos = self.bos();
        let bo = bos
            .get_mut(args.handle)
            .ok_or_else(|| err(NAME, Errno::NOMEM))?;
        for (i, &gpu_id) in device_ids.iter().enumerate().take(n).skip(start) {
            let gpu = listed_gpu(NAME, gpus, gpu_id)?;
            if !gpu.vm_acquired() {
                return Err(err(NAME, Errno::INVAL));
            }
            if bo.va == 0 {
                tracing::debug!("{NAME}: handle {:#x} is memory-only (no VA)", bo.handle);
                return Err(err(NAME, Errno::INVAL));
            }
            if !bo.mapped_on.contains(&gpu_id) {
                // Strict coherence: the GPU maps its own copy of a coarse BO.
                let coarse = match gpu.vm.strict_coherence() {
                    Some(strict) if bo.coarse() => Some(
                        CoarseCache::new(bo, gpu_id, strict.log.clone()).map_err(|e| {
                            tracing::warn!("{NAME}: cannot create the GPU's coarse copy: {e}");
                            err(NAME, Errno::NOMEM)
                        })?,
                    ),
                    _ => None,
                };
                // Strict coherence: the agent's per-CU caches hold the BO.
                let cu = match gpu.vm.strict_coherence() {
                    Some(strict) if is_cu_cached(bo.mem_type) => {
                        Some(CuLines::new(bo, gpu_id, strict.log.clone()))
                    }
                    _ => None,
                };
                let attached = coarse.clone();
                let backing = coarse
                    .as_ref()
                    .map_or_else(|| bo.backing.clone(), |c| c.device_backing());
                backing.populate(POPULATE_LIMIT);
                let mapping = Mapping {
                    start: bo.va,
                    end: bo.va + bo.size,
                    handle: bo.handle,
                    writable: bo.writable(),
                    executable: bo.executable(),
                    backing,
                    coarse,
                    cu,
                };
                if !gpu.vm.insert(mapping) {
                    tracing::debug!(
                        "{NAME}: va {:#x}+{:#x} overlaps a mapping of gpu {gpu_id:#x}",
                        bo.va,
                        bo.size
                    );
                    return Err(err(NAME, Errno::INVAL));
                }
                if let Some(cache) = attached {
                    cache.attached();
                }
                bo.mapped_on.push(gpu_id);
            }
            args.n_success = i as u32 + 1;
        }
        Ok(())
    }

    pub fn unmap(
        &self,
        gpus: &[Arc<Gpu>],
        args: &mut MapMemoryToGpuArgs,
        device_ids: &[u32],
    ) -> KfdResult<()> {
        const NAME: &str = "UNMAP_MEMORY_FROM_GPU";
        let (n, start) = check_map_args(NAME, gpus, args, device_ids)?;
        let mut bos = self.bos();
        let bo = bos
            .get_mut(args.handle)
            .ok_or_else(|| err(NAME, Errno::NOMEM))?;
        for (i, &gpu_id) in device_ids.iter().enumerate().take(n).skip(start) {
            let gpu = listed_gpu(NAME, gpus, gpu_id)?;
            let Some(pos) = bo.mapped_on.iter().position(|&g| g == gpu_id) else {
                return Err(err(NAME, Errno::INVAL));
            };
            // A live queue's ring, pointers, EOP buffer or context-save area
            // stays mapped (amdgpu_amdkfd_gpuvm.c `unmap_bo_from_gpuvm`:
            // EBUSY while `bo_va->queue_refcount` is nonzero).
            if gpu.queue_holds(bo.handle) {
                tracing::debug!(
                    "{NAME}: handle {:#x} backs a live queue on gpu {gpu_id:#x}",
                    bo.handle
                );
                return Err(err(NAME, Errno::BUSY));
            }
            gpu.vm.remove(bo.handle);
            gpu.code_cache.invalidate(bo.va, bo.size);
            bo.mapped_on.swap_remove(pos);
            args.n_success = i as u32 + 1;
        }
        Ok(())
    }

    /// mmap(2) of `gpu`'s render node at `offset`; the mapped BO's GPU
    /// address.
    ///
    /// # Safety
    /// As `KfdDevice::mmap_render_node`.
    pub unsafe fn mmap_render_node(
        &self,
        gpu: &Gpu,
        va: u64,
        size: u64,
        offset: u64,
    ) -> KfdResult<u64> {
        if !gpu.render_node_open() {
            return Err(mmap_err(Errno::BADF));
        }
        if size == 0 || !va.is_multiple_of(PAGE_SIZE) || !offset.is_multiple_of(PAGE_SIZE) {
            return Err(mmap_err(Errno::INVAL));
        }
        let bos = self.bos();
        let bo = bos.by_render_offset(offset).ok_or(mmap_err(Errno::INVAL))?;
        let file_offset = offset - bo.mmap_offset;
        if bo.gpu_id != gpu.gpu_id
            || file_offset
                .checked_add(size)
                .is_none_or(|end| end > bo.size.next_multiple_of(PAGE_SIZE))
        {
            return Err(mmap_err(Errno::INVAL));
        }
        // SAFETY: the caller owns [va, va+size) per this function's contract.
        unsafe { bo.backing.map_fixed_at(va, size, file_offset) }.map_err(|e| KfdError::Os {
            what: "mmap",
            source: e,
        })?;
        bo.sharing.set_host_mapped();
        Ok(bo.va)
    }
}

/// MAP/UNMAP argument checks: the device list (see `check_device_list`)
/// and that the handle names a BO of a known GPU (its gpu_id is the
/// handle's high word).
fn check_map_args(
    name: &'static str,
    gpus: &[Arc<Gpu>],
    args: &MapMemoryToGpuArgs,
    device_ids: &[u32],
) -> KfdResult<(usize, usize)> {
    let range = check_device_list(name, args, device_ids)?;
    if !gpus.iter().any(|g| g.gpu_id as u64 == args.handle >> 32) {
        return Err(err(name, Errno::INVAL));
    }
    Ok(range)
}

/// A GPU named in a MAP/UNMAP device list; unknown ones are EINVAL.
fn listed_gpu<'g>(
    name: &'static str,
    gpus: &'g [Arc<Gpu>],
    gpu_id: u32,
) -> KfdResult<&'g Arc<Gpu>> {
    gpus.iter()
        .find(|g| g.gpu_id == gpu_id)
        .ok_or_else(|| err(name, Errno::INVAL))
}

/// Validate the n_devices/n_success pair of MAP/UNMAP; returns (n, start).
fn check_device_list(
    name: &'static str,
    args: &MapMemoryToGpuArgs,
    device_ids: &[u32],
) -> KfdResult<(usize, usize)> {
    let n = args.n_devices as usize;
    let start = args.n_success as usize;
    if n == 0 || start > n {
        return Err(err(name, Errno::INVAL));
    }
    if device_ids.len() < n {
        return Err(err(name, Errno::FAULT));
    }
    Ok((n, start))
}

/// Whether every page of `[addr, addr+size)` is mapped in this process
/// (madvise(MADV_NORMAL) fails with ENOMEM on unmapped pages and changes
/// nothing otherwise).
fn host_range_mapped(addr: u64, size: u64) -> bool {
    let Ok(len) = usize::try_from(size) else {
        return false;
    };
    // SAFETY: MADV_NORMAL only resets the readahead hint; it never changes
    // the contents or protection of the pages.
    unsafe {
        rustix::mm::madvise(
            addr as *mut std::ffi::c_void,
            len,
            rustix::mm::Advice::Normal,
        )
    }
    .is_ok()
}
