//! The `KfdDevice` boundary: the one seam between the runtime and (real or
//! simulated) hardware.
//!
//! Each method mirrors one KFD ioctl or one mmap(2) the runtime performs, and
//! takes the exact UAPI argument struct. Where the C struct carries a pointer
//! to a user array (map/unmap device lists, wait-events data, apertures), the
//! method takes that array as a slice and the implementation fills the
//! pointer field itself, so callers never build raw pointers.
//!
//! Two operations exist because a simulated device cannot observe plain
//! stores (see ARCHITECTURE.md on where the simulation needs a nudge):
//! [`KfdDevice::write_doorbell`] and waking the command processor through
//! SET_EVENT, which the runtime already issues for interrupt signals.
//!
//! Faults reach the runtime only the way KFD reports them: exception bits
//! in a queue's context-save header, the queue's error event, and the data
//! WAIT_EVENTS writes back for MEMORY and HW_EXCEPTION events. What a
//! simulator knows beyond that (the faulting instruction) is its own API.

use crate::error::KfdResult;
use crate::topology::Topology;
use crate::uapi::*;

/// `Any` lets a tool reach a simulator's own API (gfxsim's per-dispatch
/// counters) through the handle, by a downcast.
pub trait KfdDevice: std::any::Any + Send + Sync + std::fmt::Debug {
    /// A short name for logs and adapter info ("kfd", "gfxsim").
    fn backend_name(&self) -> &'static str;

    /// The system topology, parsed from this device's sysfs-format tree.
    fn topology(&self) -> KfdResult<Topology>;

    /// Open the DRM render node `/dev/dri/renderD<minor>`; returns the fd
    /// number ACQUIRE_VM expects. The device keeps it open until dropped.
    fn open_render_node(&self, drm_render_minor: u32) -> KfdResult<u32>;

    fn get_version(&self, args: &mut GetVersionArgs) -> KfdResult<()>;
    fn get_process_apertures_new(
        &self,
        args: &mut GetProcessAperturesNewArgs,
        apertures: &mut [ProcessDeviceApertures],
    ) -> KfdResult<()>;
    fn acquire_vm(&self, args: &mut AcquireVmArgs) -> KfdResult<()>;
    fn set_memory_policy(&self, args: &mut SetMemoryPolicyArgs) -> KfdResult<()>;

    /// GET_CLOCK_COUNTERS: the GPU's timestamp counter (the clock of the
    /// CP's `start_ts`/`end_ts` and of `s_memrealtime`) sampled together
    /// with the host's CLOCK_MONOTONIC_RAW and CLOCK_BOOTTIME, for
    /// translating GPU ticks into the host's time. As in KFD, a gpu_id
    /// the process has no device for is no error: its GPU counter is 0.
    fn get_clock_counters(&self, args: &mut GetClockCountersArgs) -> KfdResult<()>;

    fn alloc_memory_of_gpu(&self, args: &mut AllocMemoryOfGpuArgs) -> KfdResult<()>;
    fn free_memory_of_gpu(&self, args: &mut FreeMemoryOfGpuArgs) -> KfdResult<()>;

    /// The BO at `va` holds an allocation of `size` bytes (the BO itself is
    /// that rounded up to pages). KFD has no such request and the real
    /// device ignores it; a simulated device's memory checker uses it to
    /// tell an access past the allocation from one inside (gfxsim's
    /// sanitizer). The runtime calls it for each allocation it makes.
    fn note_allocation(&self, _va: u64, _size: u64) {}

    /// The kernel descriptor at `kernel_object` belongs to the kernel
    /// `name`. Ignored by the real device; a simulated device names kernels
    /// in its reports with it. The runtime calls it for each kernel of an
    /// executable it loads.
    fn note_kernel(&self, _kernel_object: u64, _name: &str) {}

    /// The dispatch whose packet carries `kernarg_address` binds the GPU
    /// address ranges `bindings` (a WebGPU-style runtime's bound buffer
    /// ranges), and the runtime takes the findings of its memory checks
    /// when the dispatch completes. Ignored by the real device; a
    /// simulated device's memory checker reports an access inside a bound
    /// buffer but outside every range the dispatch binds of it (gfxsim's
    /// sanitizer). Holds until the runtime takes the dispatch's findings.
    fn note_dispatch_bindings(&self, _kernarg_address: u64, _bindings: &[std::ops::Range<u64>]) {}
    fn map_memory_to_gpu(&self, args: &mut MapMemoryToGpuArgs, device_ids: &[u32])
    -> KfdResult<()>;
    fn unmap_memory_from_gpu(
        &self,
        args: &mut UnmapMemoryFromGpuArgs,
        device_ids: &[u32],
    ) -> KfdResult<()>;

    /// GET_DMABUF_INFO: size, owning gpu_id and alloc flags of the memory
    /// behind `args.dmabuf_fd`; `metadata` receives the UMD metadata (its
    /// length is the capacity; `args.metadata_size` is set from it).
    /// Devices without dma-buf support answer ENOTTY, as a KFD older than
    /// the ioctl does.
    fn get_dmabuf_info(&self, args: &mut GetDmabufInfoArgs, metadata: &mut [u8]) -> KfdResult<()> {
        let _ = (args, metadata);
        Err(crate::KfdError::ioctl(
            "GET_DMABUF_INFO",
            rustix::io::Errno::NOTTY.raw_os_error(),
        ))
    }

    /// IMPORT_DMABUF: a BO handle of `args.gpu_id` for the dma-buf
    /// `args.dmabuf_fd` at `args.va_addr` (0: memory only). The caller
    /// keeps ownership of the fd. ENOTTY by default (see above).
    fn import_dmabuf(&self, args: &mut ImportDmabufArgs) -> KfdResult<()> {
        let _ = args;
        Err(crate::KfdError::ioctl(
            "IMPORT_DMABUF",
            rustix::io::Errno::NOTTY.raw_os_error(),
        ))
    }

    /// EXPORT_DMABUF: a new dma-buf fd (in `args.dmabuf_fd`, owned by the
    /// caller from then on) for BO `args.handle`. ENOTTY by default.
    fn export_dmabuf(&self, args: &mut ExportDmabufArgs) -> KfdResult<()> {
        let _ = args;
        Err(crate::KfdError::ioctl(
            "EXPORT_DMABUF",
            rustix::io::Errno::NOTTY.raw_os_error(),
        ))
    }

    fn create_queue(&self, args: &mut CreateQueueArgs) -> KfdResult<()>;
    fn destroy_queue(&self, args: &mut DestroyQueueArgs) -> KfdResult<()>;
    fn update_queue(&self, args: &mut UpdateQueueArgs) -> KfdResult<()>;

    fn create_event(&self, args: &mut CreateEventArgs) -> KfdResult<()>;
    fn destroy_event(&self, args: &mut DestroyEventArgs) -> KfdResult<()>;
    fn set_event(&self, args: &mut SetEventArgs) -> KfdResult<()>;
    fn reset_event(&self, args: &mut ResetEventArgs) -> KfdResult<()>;
    /// Blocks until the events fire (one or all) or `timeout_ms` passes;
    /// `wait_result` says which. `events[i].event_id` are inputs; fired
    /// memory/hw-exception events get their data written back.
    fn wait_events(&self, args: &mut WaitEventsArgs, events: &mut [KfdEventData]) -> KfdResult<()>;

    /// mmap(2) of the DRM render node of `gpu_id` at `mmap_offset` (a BO's
    /// offset from ALLOC_MEMORY_OF_GPU), placed read-write at `va` with
    /// MAP_SHARED|MAP_FIXED.
    ///
    /// # Safety
    /// `[va, va+size)` must be a range the caller reserved (e.g. a PROT_NONE
    /// mapping it owns); whatever was mapped there is replaced.
    unsafe fn mmap_render_node(
        &self,
        gpu_id: u32,
        va: u64,
        size: u64,
        mmap_offset: u64,
    ) -> KfdResult<()>;

    /// mmap(2) of /dev/kfd itself at `mmap_offset` (doorbell pages, the event
    /// page, MMIO remap), placed read-write at `va` with MAP_SHARED|MAP_FIXED.
    ///
    /// # Safety
    /// As for [`KfdDevice::mmap_render_node`].
    unsafe fn mmap_kfd(&self, va: u64, size: u64, mmap_offset: u64) -> KfdResult<()>;

    /// Ring a queue's doorbell: a 64-bit release store of `value` (the packet
    /// index) to the doorbell at `doorbell_va` inside a mapped doorbell page.
    /// On hardware this is the whole operation; gfxsim also wakes the
    /// queue's command processor.
    ///
    /// The method is safe because implementations check the address: they
    /// store only to an 8-byte-aligned doorbell inside a doorbell page they
    /// mapped through [`KfdDevice::mmap_kfd`] and that is still mapped (its
    /// BO not freed, no other mapping placed over it), and ignore any other
    /// address (logging it) without touching memory.
    fn write_doorbell(&self, doorbell_va: u64, value: u64);
}
