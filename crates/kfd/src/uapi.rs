//! The KFD user-space API: `#[repr(C)]` argument structs and constants of
//! `kfd_ioctl.h`, interface version 1.17 (ROCR-Runtime c7785a6 / Linux 6.12).
//!
//! Every struct here is `Pod`, so it can be handed to `ioctl(2)` as bytes by
//! the real device and read field by field by gfxsim. Sizes and offsets are
//! pinned by tests against the header (see `tests/layout.rs`). Pointer fields
//! of the C structs are `u64` addresses, as in the header.

use bytemuck::{Pod, Zeroable};

/// Interface version this crate is written against.
pub const KFD_IOCTL_MAJOR_VERSION: u32 = 1;
pub const KFD_IOCTL_MINOR_VERSION: u32 = 17;

/// Minor versions that added what the runtime uses (the history at the top
/// of Linux `include/uapi/linux/kfd_ioctl.h`).
pub mod minor_version {
    /// 1.11: unified memory for the context-save area.
    pub const CWSR_UNIFIED_MEMORY: u32 = 11;
    /// 1.12: AMDKFD_IOC_EXPORT_DMABUF.
    pub const EXPORT_DMABUF: u32 = 12;
    /// 1.14: `last_event_age` in WAIT_EVENTS' signal event data.
    pub const EVENT_AGE: u32 = 14;
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GetVersionArgs {
    pub major_version: u32,
    pub minor_version: u32,
}

pub const KFD_IOC_QUEUE_TYPE_COMPUTE: u32 = 0x0;
pub const KFD_IOC_QUEUE_TYPE_SDMA: u32 = 0x1;
pub const KFD_IOC_QUEUE_TYPE_COMPUTE_AQL: u32 = 0x2;
pub const KFD_IOC_QUEUE_TYPE_SDMA_XGMI: u32 = 0x3;
pub const KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID: u32 = 0x4;
pub const KFD_MAX_QUEUE_PERCENTAGE: u32 = 100;
pub const KFD_MAX_QUEUE_PRIORITY: u32 = 15;
/// Rings smaller than this are rounded up by the kernel.
pub const KFD_MIN_QUEUE_RING_SIZE: u32 = 1024;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct CreateQueueArgs {
    pub ring_base_address: u64,
    pub write_pointer_address: u64,
    pub read_pointer_address: u64,
    /// Out: mmap offset (of /dev/kfd) of the queue's doorbell, with the
    /// in-page byte offset in the low bits on SOC15 parts.
    pub doorbell_offset: u64,
    pub ring_size: u32,
    pub gpu_id: u32,
    pub queue_type: u32,
    pub queue_percentage: u32,
    pub queue_priority: u32,
    /// Out.
    pub queue_id: u32,
    pub eop_buffer_address: u64,
    pub eop_buffer_size: u64,
    pub ctx_save_restore_address: u64,
    pub ctx_save_restore_size: u32,
    pub ctl_stack_size: u32,
    pub sdma_engine_id: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct DestroyQueueArgs {
    pub queue_id: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct UpdateQueueArgs {
    pub ring_base_address: u64,
    pub queue_id: u32,
    pub ring_size: u32,
    pub queue_percentage: u32,
    pub queue_priority: u32,
}

pub const KFD_IOC_CACHE_POLICY_COHERENT: u32 = 0;
pub const KFD_IOC_CACHE_POLICY_NONCOHERENT: u32 = 1;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct SetMemoryPolicyArgs {
    pub alternate_aperture_base: u64,
    pub alternate_aperture_size: u64,
    pub gpu_id: u32,
    pub default_policy: u32,
    pub alternate_policy: u32,
    pub pad: u32,
}

/// GET_CLOCK_COUNTERS (`kfd_ioctl_get_clock_counters_args`): one sample
/// of the GPU's clock counter and the host's clocks, taken together.
/// `gpu_id` is the input; the rest is written by KFD
/// (`kfd_chardev.c`, `kfd_ioctl_get_clock_counters`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GetClockCountersArgs {
    /// The GPU's timestamp counter (on gfx11 the 100 MHz reference clock
    /// that `s_memrealtime` and the CP's timestamps read); 0 for a gpu_id
    /// the process has no device for.
    pub gpu_clock_counter: u64,
    /// CLOCK_MONOTONIC_RAW in nanoseconds (`ktime_get_raw_ns`).
    pub cpu_clock_counter: u64,
    /// CLOCK_BOOTTIME in nanoseconds (`ktime_get_boottime_ns`): the HSA
    /// system clock.
    pub system_clock_counter: u64,
    /// Ticks per second of `system_clock_counter` (1 GHz: nanoseconds).
    pub system_clock_freq: u64,
    pub gpu_id: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct ProcessDeviceApertures {
    pub lds_base: u64,
    pub lds_limit: u64,
    pub scratch_base: u64,
    pub scratch_limit: u64,
    pub gpuvm_base: u64,
    pub gpuvm_limit: u64,
    pub gpu_id: u32,
    pub pad: u32,
}

/// `kfd_process_device_apertures_ptr` points at an array of
/// [`ProcessDeviceApertures`]; `num_of_nodes` is its capacity on input and
/// the number filled on output.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GetProcessAperturesNewArgs {
    pub kfd_process_device_apertures_ptr: u64,
    pub num_of_nodes: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct AcquireVmArgs {
    pub drm_fd: u32,
    pub gpu_id: u32,
}

/// Allocation flags (`KFD_IOC_ALLOC_MEM_FLAGS_*`).
pub mod alloc_flags {
    pub const VRAM: u32 = 1 << 0;
    pub const GTT: u32 = 1 << 1;
    pub const USERPTR: u32 = 1 << 2;
    pub const DOORBELL: u32 = 1 << 3;
    pub const MMIO_REMAP: u32 = 1 << 4;
    pub const WRITABLE: u32 = 1 << 31;
    pub const EXECUTABLE: u32 = 1 << 30;
    pub const PUBLIC: u32 = 1 << 29;
    pub const NO_SUBSTITUTE: u32 = 1 << 28;
    pub const AQL_QUEUE_MEM: u32 = 1 << 27;
    pub const COHERENT: u32 = 1 << 26;
    pub const UNCACHED: u32 = 1 << 25;
    pub const EXT_COHERENT: u32 = 1 << 24;
    pub const CONTIGUOUS_BEST_EFFORT: u32 = 1 << 23;
    /// The memory-type bits: exactly one must be set.
    pub const TYPE_MASK: u32 = VRAM | GTT | USERPTR | DOORBELL | MMIO_REMAP;
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct AllocMemoryOfGpuArgs {
    pub va_addr: u64,
    pub size: u64,
    /// Out.
    pub handle: u64,
    /// In for USERPTR (the CPU address), out otherwise (offset to mmap the
    /// DRM render node at, or /dev/kfd for doorbell/MMIO memory).
    pub mmap_offset: u64,
    pub gpu_id: u32,
    pub flags: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct FreeMemoryOfGpuArgs {
    pub handle: u64,
}

/// Used for both MAP_MEMORY_TO_GPU and UNMAP_MEMORY_FROM_GPU.
/// `device_ids_array_ptr` points at `n_devices` gpu_ids; `n_success` starts
/// at 0 and counts the devices done (the kernel resumes from it on retry).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct MapMemoryToGpuArgs {
    pub handle: u64,
    pub device_ids_array_ptr: u64,
    pub n_devices: u32,
    pub n_success: u32,
}

pub type UnmapMemoryFromGpuArgs = MapMemoryToGpuArgs;

/// `AMDKFD_IOC_GET_DMABUF_INFO` (1.2): what a dma-buf fd holds, before it is
/// imported. `metadata_ptr` points at `metadata_size` bytes the kernel fills
/// with the buffer's UMD metadata (the size is written back; a too-small
/// buffer fails with EINVAL and the needed size).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GetDmabufInfoArgs {
    /// Out: bytes of the buffer.
    pub size: u64,
    pub metadata_ptr: u64,
    /// In: capacity of the metadata buffer; out: the metadata's size.
    pub metadata_size: u32,
    /// Out: the GPU that owns the memory.
    pub gpu_id: u32,
    /// Out: the buffer's `KFD_IOC_ALLOC_MEM_FLAGS_*`.
    pub flags: u32,
    pub dmabuf_fd: u32,
}

/// `AMDKFD_IOC_IMPORT_DMABUF` (1.2): a new BO handle of `gpu_id` for the
/// memory behind `dmabuf_fd`, placed at `va_addr` (0: a memory-only handle
/// with no GPU address). The import is writable and executable; MAP/UNMAP
/// and FREE treat it as any other BO.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct ImportDmabufArgs {
    pub va_addr: u64,
    /// Out.
    pub handle: u64,
    pub gpu_id: u32,
    pub dmabuf_fd: u32,
}

/// `AMDKFD_IOC_EXPORT_DMABUF` (1.12): a dma-buf fd for BO `handle`;
/// `flags` are the new fd's open flags (`O_CLOEXEC` at most, as libhsakmt
/// passes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct ExportDmabufArgs {
    pub handle: u64,
    pub flags: u32,
    /// Out: the new fd, owned by the caller.
    pub dmabuf_fd: u32,
}

/// `O_CLOEXEC` as EXPORT_DMABUF takes it (the asm-generic value, x86-64
/// and aarch64).
pub const DMABUF_EXPORT_CLOEXEC: u32 = 0o2_000_000;

/// Event types (`KFD_IOC_EVENT_*`).
pub mod event_type {
    pub const SIGNAL: u32 = 0;
    pub const NODECHANGE: u32 = 1;
    pub const DEVICESTATECHANGE: u32 = 2;
    pub const HW_EXCEPTION: u32 = 3;
    pub const SYSTEM_EVENT: u32 = 4;
    pub const DEBUG_EVENT: u32 = 5;
    pub const PROFILE_EVENT: u32 = 6;
    pub const QUEUE_EVENT: u32 = 7;
    pub const MEMORY: u32 = 8;
}

/// Number of 8-byte slots in the event page.
pub const KFD_SIGNAL_EVENT_LIMIT: u32 = 4096;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct CreateEventArgs {
    /// In on the first call of a dGPU process: the handle of the event-page
    /// BO the runtime allocated. Out: the mmap offset of the event page.
    pub event_page_offset: u64,
    pub event_trigger_data: u32,
    pub event_type: u32,
    pub auto_reset: u32,
    pub node_id: u32,
    pub event_id: u32,
    pub event_slot_index: u32,
}

/// SET_EVENT, RESET_EVENT and DESTROY_EVENT all take this.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct EventIdArgs {
    pub event_id: u32,
    pub pad: u32,
}
pub type SetEventArgs = EventIdArgs;
pub type ResetEventArgs = EventIdArgs;
pub type DestroyEventArgs = EventIdArgs;

/// `kfd_memory_exception_failure` bits, as four u32 flags.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct MemoryExceptionFailure {
    pub not_present: u32,
    pub read_only: u32,
    pub no_execute: u32,
    pub imprecise: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct MemoryExceptionData {
    pub failure: MemoryExceptionFailure,
    pub va: u64,
    pub gpu_id: u32,
    /// 0 = no RAS error, 1 = ECC SRAM, 2 = link error, 3 = unknown.
    pub error_type: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct HwExceptionData {
    pub reset_type: u32,
    pub reset_cause: u32,
    pub memory_lost: u32,
    pub gpu_id: u32,
}

/// `kfd_event_data`: a 32-byte union (memory exception / hw exception /
/// signal last_event_age), then the ext word, event id and pad.
/// The union is kept as raw words; use the accessors.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct KfdEventData {
    pub payload: [u64; 4],
    pub kfd_event_data_ext: u64,
    pub event_id: u32,
    pub pad: u32,
}

impl KfdEventData {
    pub fn for_event(event_id: u32) -> Self {
        Self {
            event_id,
            ..Self::default()
        }
    }
    pub fn memory_exception(&self) -> MemoryExceptionData {
        bytemuck::cast(self.payload)
    }
    pub fn set_memory_exception(&mut self, data: MemoryExceptionData) {
        self.payload = bytemuck::cast(data);
    }
    pub fn hw_exception(&self) -> HwExceptionData {
        let words: [HwExceptionData; 2] = bytemuck::cast(self.payload);
        words[0]
    }
    pub fn set_hw_exception(&mut self, data: HwExceptionData) {
        let mut words: [HwExceptionData; 2] = bytemuck::cast(self.payload);
        words[0] = data;
        self.payload = bytemuck::cast(words);
    }
    /// `signal_event_data.last_event_age` (KFD 1.14+).
    pub fn last_event_age(&self) -> u64 {
        self.payload[0]
    }
    pub fn set_last_event_age(&mut self, age: u64) {
        self.payload[0] = age;
    }
}

pub const KFD_IOC_WAIT_RESULT_COMPLETE: u32 = 0;
pub const KFD_IOC_WAIT_RESULT_TIMEOUT: u32 = 1;
pub const KFD_IOC_WAIT_RESULT_FAIL: u32 = 2;

/// `events_ptr` points at `num_events` [`KfdEventData`] (in: event ids; out:
/// exception data of the events that fired).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct WaitEventsArgs {
    pub events_ptr: u64,
    pub num_events: u32,
    pub wait_for_all: u32,
    /// `timeout` in the C header; milliseconds.
    pub timeout_ms: u32,
    pub wait_result: u32,
}

/// `kfd_ioctl_runtime_enable_args` (KFD 1.13+): tells KFD the runtime is up
/// (and, with `mode_mask`, whether a debugger may attach).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct RuntimeEnableArgs {
    /// Address of the runtime's `r_debug` (for debuggers); may be 0.
    pub r_debug: u64,
    /// `KFD_RUNTIME_ENABLE_MODE_*` bits.
    pub mode_mask: u32,
    /// Out: `KFD_RUNTIME_ENABLE_CAPS_*` bits.
    pub capabilities_mask: u32,
}

/// `KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK`: enable the runtime.
pub const KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK: u32 = 1;
/// `KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK`: save trap temporaries.
pub const KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK: u32 = 2;

/// KFD mmap offset encoding (kfd_priv.h): the type lives in bits 63:62 and
/// the gpu_id in bits 61:46.
pub mod mmap_offset {
    pub const TYPE_SHIFT: u32 = 62;
    pub const TYPE_MASK: u64 = 0x3 << TYPE_SHIFT;
    pub const TYPE_DOORBELL: u64 = 0x3 << TYPE_SHIFT;
    pub const TYPE_EVENTS: u64 = 0x2 << TYPE_SHIFT;
    pub const TYPE_RESERVED_MEM: u64 = 0x1 << TYPE_SHIFT;
    pub const TYPE_MMIO: u64 = 0x0 << TYPE_SHIFT;
    pub const GPU_ID_SHIFT: u32 = 46;
    pub const GPU_ID_MASK: u64 = ((1u64 << 16) - 1) << GPU_ID_SHIFT;

    pub const fn gpu_id(gpu_id: u32) -> u64 {
        ((gpu_id as u64) << GPU_ID_SHIFT) & GPU_ID_MASK
    }
    pub const fn get_gpu_id(offset: u64) -> u32 {
        ((offset & GPU_ID_MASK) >> GPU_ID_SHIFT) as u32
    }
}

/// The header libhsakmt writes at the start of each queue's context-save
/// area (`HsaUserContextSaveAreaHeader`). KFD reports queue exceptions
/// through it: it ORs the exception bits into `*error_reason` and signals
/// `error_event_id`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct UserContextSaveAreaHeader {
    pub control_stack_offset: u32,
    pub control_stack_size: u32,
    pub wave_state_offset: u32,
    pub wave_state_size: u32,
    pub debug_offset: u32,
    pub debug_size: u32,
    /// Address of a u64 the kernel ORs exception bits into.
    pub error_reason: u64,
    pub error_event_id: u32,
    pub reserved1: u32,
}

/// Exception codes (`enum kfd_dbg_trap_exception_code`, KFD 1.13+). KFD
/// reports queue exceptions by ORing `exception_mask(code)` into the
/// context-save header's `error_reason` word and signalling its
/// `error_event_id`.
pub mod exception_code {
    pub const EC_NONE: u32 = 0;
    pub const EC_QUEUE_WAVE_ABORT: u32 = 1;
    pub const EC_QUEUE_WAVE_TRAP: u32 = 2;
    pub const EC_QUEUE_WAVE_MATH_ERROR: u32 = 3;
    pub const EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION: u32 = 4;
    pub const EC_QUEUE_WAVE_MEMORY_VIOLATION: u32 = 5;
    pub const EC_QUEUE_WAVE_APERTURE_VIOLATION: u32 = 6;
    pub const EC_QUEUE_PACKET_DISPATCH_DIM_INVALID: u32 = 16;
    pub const EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID: u32 = 17;
    pub const EC_QUEUE_PACKET_DISPATCH_CODE_INVALID: u32 = 18;
    pub const EC_QUEUE_PACKET_RESERVED: u32 = 19;
    pub const EC_QUEUE_PACKET_UNSUPPORTED: u32 = 20;
    pub const EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID: u32 = 21;
    pub const EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID: u32 = 22;
    pub const EC_QUEUE_PACKET_VENDOR_UNSUPPORTED: u32 = 23;
    pub const EC_QUEUE_PREEMPTION_ERROR: u32 = 30;
    pub const EC_QUEUE_NEW: u32 = 31;
    pub const EC_DEVICE_QUEUE_DELETE: u32 = 32;
    pub const EC_DEVICE_MEMORY_VIOLATION: u32 = 33;
    pub const EC_DEVICE_RAS_ERROR: u32 = 34;
    pub const EC_DEVICE_FATAL_HALT: u32 = 35;
    pub const EC_DEVICE_NEW: u32 = 36;
    pub const EC_PROCESS_RUNTIME: u32 = 48;
    pub const EC_PROCESS_DEVICE_REMOVE: u32 = 49;

    /// `KFD_EC_MASK(ecode)`: bit `code - 1`. 0 (EC_NONE) and codes past
    /// 64 have no bit and give 0 (the C macro is undefined there).
    pub const fn exception_mask(code: u32) -> u64 {
        if code == 0 || code > 64 {
            0
        } else {
            1u64 << (code - 1)
        }
    }
}

#[cfg(test)]
mod dmabuf_layout_tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// Sizes and offsets of kfd_ioctl.h's kfd_ioctl_{get_dmabuf_info,
    /// import_dmabuf,export_dmabuf}_args.
    #[test]
    fn dmabuf_args_match_the_header() {
        assert_eq!(size_of::<GetDmabufInfoArgs>(), 32);
        assert_eq!(align_of::<GetDmabufInfoArgs>(), 8);
        assert_eq!(offset_of!(GetDmabufInfoArgs, size), 0);
        assert_eq!(offset_of!(GetDmabufInfoArgs, metadata_ptr), 8);
        assert_eq!(offset_of!(GetDmabufInfoArgs, metadata_size), 16);
        assert_eq!(offset_of!(GetDmabufInfoArgs, gpu_id), 20);
        assert_eq!(offset_of!(GetDmabufInfoArgs, flags), 24);
        assert_eq!(offset_of!(GetDmabufInfoArgs, dmabuf_fd), 28);

        assert_eq!(size_of::<ImportDmabufArgs>(), 24);
        assert_eq!(offset_of!(ImportDmabufArgs, va_addr), 0);
        assert_eq!(offset_of!(ImportDmabufArgs, handle), 8);
        assert_eq!(offset_of!(ImportDmabufArgs, gpu_id), 16);
        assert_eq!(offset_of!(ImportDmabufArgs, dmabuf_fd), 20);

        assert_eq!(size_of::<ExportDmabufArgs>(), 16);
        assert_eq!(offset_of!(ExportDmabufArgs, handle), 0);
        assert_eq!(offset_of!(ExportDmabufArgs, flags), 8);
        assert_eq!(offset_of!(ExportDmabufArgs, dmabuf_fd), 12);
        assert_eq!(
            DMABUF_EXPORT_CLOEXEC,
            rustix::fs::OFlags::CLOEXEC.bits(),
            "O_CLOEXEC"
        );
    }
}
