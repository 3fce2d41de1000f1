//! KFD ioctl request numbers.
//!
//! Each number is built the way `<asm-generic/ioctl.h>` builds it
//! (`_IOR`/`_IOW`/`_IOWR` with type 'K'), from the size of this crate's
//! argument struct, so a struct that grows changes its request number with
//! it, exactly as recompiling C code against a newer `kfd_ioctl.h` would.
//! KFD dispatches on the number field alone and copies `_IOC_SIZE` bytes,
//! so a number computed from a larger or smaller struct still reaches the
//! same handler (Linux `drivers/gpu/drm/amd/amdkfd/kfd_chardev.c`,
//! `kfd_ioctl`). The encoding is the generic one
//! used by x86-64 and aarch64 (dir in bits 31:30, size 29:16, type 15:8,
//! number 7:0).

use crate::uapi::*;

/// The ioctl "type" of KFD, `AMDKFD_IOCTL_BASE`.
pub const AMDKFD_IOCTL_BASE: u8 = b'K';

/// `_IOC_NONE`, `_IOC_WRITE`, `_IOC_READ` (asm-generic).
pub const IOC_NONE: u32 = 0;
pub const IOC_WRITE: u32 = 1;
pub const IOC_READ: u32 = 2;

const IOC_NRSHIFT: u32 = 0;
const IOC_TYPESHIFT: u32 = 8;
const IOC_SIZESHIFT: u32 = 16;
const IOC_DIRSHIFT: u32 = 30;
const IOC_SIZEBITS: u32 = 14;

/// `_IOC(dir, type, nr, size)`. Panics at compile time (all uses are
/// consts) if `size` does not fit the 14-bit size field.
pub const fn ioc(dir: u32, ty: u8, nr: u8, size: usize) -> u32 {
    assert!(
        size < (1 << IOC_SIZEBITS),
        "ioctl argument struct too large"
    );
    (dir << IOC_DIRSHIFT)
        | ((size as u32) << IOC_SIZESHIFT)
        | ((ty as u32) << IOC_TYPESHIFT)
        | ((nr as u32) << IOC_NRSHIFT)
}

/// `_IOR('K', nr, T)`: the kernel writes a `T` back.
pub const fn kfd_ior<T>(nr: u8) -> u32 {
    ioc(IOC_READ, AMDKFD_IOCTL_BASE, nr, core::mem::size_of::<T>())
}

/// `_IOW('K', nr, T)`: the kernel reads a `T`.
pub const fn kfd_iow<T>(nr: u8) -> u32 {
    ioc(IOC_WRITE, AMDKFD_IOCTL_BASE, nr, core::mem::size_of::<T>())
}

/// `_IOWR('K', nr, T)`: the kernel reads and writes back a `T`.
pub const fn kfd_iowr<T>(nr: u8) -> u32 {
    ioc(
        IOC_READ | IOC_WRITE,
        AMDKFD_IOCTL_BASE,
        nr,
        core::mem::size_of::<T>(),
    )
}

/// `_IOC_NR(cmd)`: the field KFD dispatches on.
pub const fn ioc_nr(cmd: u32) -> u8 {
    (cmd >> IOC_NRSHIFT) as u8
}

/// `_IOC_SIZE(cmd)`: how many bytes the kernel copies in and out.
pub const fn ioc_size(cmd: u32) -> usize {
    ((cmd >> IOC_SIZESHIFT) & ((1 << IOC_SIZEBITS) - 1)) as usize
}

/// `_IOC_DIR(cmd)`.
pub const fn ioc_dir(cmd: u32) -> u32 {
    cmd >> IOC_DIRSHIFT
}

pub const AMDKFD_IOC_GET_VERSION: u32 = kfd_ior::<GetVersionArgs>(0x01);
pub const AMDKFD_IOC_CREATE_QUEUE: u32 = kfd_iowr::<CreateQueueArgs>(0x02);
pub const AMDKFD_IOC_DESTROY_QUEUE: u32 = kfd_iowr::<DestroyQueueArgs>(0x03);
pub const AMDKFD_IOC_SET_MEMORY_POLICY: u32 = kfd_iow::<SetMemoryPolicyArgs>(0x04);
pub const AMDKFD_IOC_GET_CLOCK_COUNTERS: u32 = kfd_iowr::<GetClockCountersArgs>(0x05);
pub const AMDKFD_IOC_UPDATE_QUEUE: u32 = kfd_iow::<UpdateQueueArgs>(0x07);
pub const AMDKFD_IOC_CREATE_EVENT: u32 = kfd_iowr::<CreateEventArgs>(0x08);
pub const AMDKFD_IOC_DESTROY_EVENT: u32 = kfd_iow::<DestroyEventArgs>(0x09);
pub const AMDKFD_IOC_SET_EVENT: u32 = kfd_iow::<SetEventArgs>(0x0A);
pub const AMDKFD_IOC_RESET_EVENT: u32 = kfd_iow::<ResetEventArgs>(0x0B);
pub const AMDKFD_IOC_WAIT_EVENTS: u32 = kfd_iowr::<WaitEventsArgs>(0x0C);
pub const AMDKFD_IOC_GET_PROCESS_APERTURES_NEW: u32 = kfd_iowr::<GetProcessAperturesNewArgs>(0x14);
pub const AMDKFD_IOC_ACQUIRE_VM: u32 = kfd_iow::<AcquireVmArgs>(0x15);
pub const AMDKFD_IOC_ALLOC_MEMORY_OF_GPU: u32 = kfd_iowr::<AllocMemoryOfGpuArgs>(0x16);
pub const AMDKFD_IOC_FREE_MEMORY_OF_GPU: u32 = kfd_iow::<FreeMemoryOfGpuArgs>(0x17);
pub const AMDKFD_IOC_MAP_MEMORY_TO_GPU: u32 = kfd_iowr::<MapMemoryToGpuArgs>(0x18);
pub const AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU: u32 = kfd_iowr::<UnmapMemoryFromGpuArgs>(0x19);
pub const AMDKFD_IOC_GET_DMABUF_INFO: u32 = kfd_iowr::<GetDmabufInfoArgs>(0x1C);
pub const AMDKFD_IOC_IMPORT_DMABUF: u32 = kfd_iowr::<ImportDmabufArgs>(0x1D);
pub const AMDKFD_IOC_EXPORT_DMABUF: u32 = kfd_iowr::<ExportDmabufArgs>(0x24);
pub const AMDKFD_IOC_RUNTIME_ENABLE: u32 = kfd_iowr::<RuntimeEnableArgs>(0x25);

/// The ioctl's name for errors and logs (`"CREATE_QUEUE"`...), by number.
pub fn ioctl_name(cmd: u32) -> &'static str {
    match ioc_nr(cmd) {
        0x01 => "GET_VERSION",
        0x02 => "CREATE_QUEUE",
        0x03 => "DESTROY_QUEUE",
        0x04 => "SET_MEMORY_POLICY",
        0x05 => "GET_CLOCK_COUNTERS",
        0x07 => "UPDATE_QUEUE",
        0x08 => "CREATE_EVENT",
        0x09 => "DESTROY_EVENT",
        0x0A => "SET_EVENT",
        0x0B => "RESET_EVENT",
        0x0C => "WAIT_EVENTS",
        0x14 => "GET_PROCESS_APERTURES_NEW",
        0x15 => "ACQUIRE_VM",
        0x16 => "ALLOC_MEMORY_OF_GPU",
        0x17 => "FREE_MEMORY_OF_GPU",
        0x18 => "MAP_MEMORY_TO_GPU",
        0x19 => "UNMAP_MEMORY_FROM_GPU",
        0x1C => "GET_DMABUF_INFO",
        0x1D => "IMPORT_DMABUF",
        0x24 => "EXPORT_DMABUF",
        0x25 => "RUNTIME_ENABLE",
        _ => "UNKNOWN",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The literal request numbers, as the `AMDKFD_IOR`/`AMDKFD_IOW`/
    /// `AMDKFD_IOWR` macros of Linux `include/uapi/linux/kfd_ioctl.h`
    /// expand them on x86-64.
    #[test]
    fn request_numbers_match_the_header() {
        let expected: &[(u32, u32)] = &[
            (AMDKFD_IOC_GET_VERSION, 0x80084b01),
            (AMDKFD_IOC_CREATE_QUEUE, 0xc0604b02),
            (AMDKFD_IOC_DESTROY_QUEUE, 0xc0084b03),
            (AMDKFD_IOC_SET_MEMORY_POLICY, 0x40204b04),
            (AMDKFD_IOC_GET_CLOCK_COUNTERS, 0xc0284b05),
            (AMDKFD_IOC_UPDATE_QUEUE, 0x40184b07),
            (AMDKFD_IOC_CREATE_EVENT, 0xc0204b08),
            (AMDKFD_IOC_DESTROY_EVENT, 0x40084b09),
            (AMDKFD_IOC_SET_EVENT, 0x40084b0a),
            (AMDKFD_IOC_RESET_EVENT, 0x40084b0b),
            (AMDKFD_IOC_WAIT_EVENTS, 0xc0184b0c),
            (AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, 0xc0104b14),
            (AMDKFD_IOC_ACQUIRE_VM, 0x40084b15),
            (AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, 0xc0284b16),
            (AMDKFD_IOC_FREE_MEMORY_OF_GPU, 0x40084b17),
            (AMDKFD_IOC_MAP_MEMORY_TO_GPU, 0xc0184b18),
            (AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, 0xc0184b19),
            (AMDKFD_IOC_RUNTIME_ENABLE, 0xc0104b25),
            (AMDKFD_IOC_GET_DMABUF_INFO, 0xc0204b1c),
            (AMDKFD_IOC_IMPORT_DMABUF, 0xc0184b1d),
            (AMDKFD_IOC_EXPORT_DMABUF, 0xc0104b24),
        ];
        for &(ours, header) in expected {
            assert_eq!(
                ours,
                header,
                "{}: {ours:#x} != {header:#x}",
                ioctl_name(header)
            );
        }
    }

    #[test]
    fn pre_1_17_create_queue_number_differs_only_in_size() {
        // 88-byte struct before sdma_engine_id was added.
        assert_eq!(ioc(IOC_READ | IOC_WRITE, b'K', 2, 88), 0xc0584b02);
        assert_eq!(ioc_nr(0xc0584b02), ioc_nr(AMDKFD_IOC_CREATE_QUEUE));
    }

    #[test]
    fn fields_decode() {
        assert_eq!(ioc_size(AMDKFD_IOC_CREATE_QUEUE), 96);
        assert_eq!(ioc_dir(AMDKFD_IOC_GET_VERSION), IOC_READ);
        assert_eq!(ioc_dir(AMDKFD_IOC_ACQUIRE_VM), IOC_WRITE);
        assert_eq!(ioc_nr(AMDKFD_IOC_WAIT_EVENTS), 0x0c);
        assert_eq!(
            ioctl_name(AMDKFD_IOC_MAP_MEMORY_TO_GPU),
            "MAP_MEMORY_TO_GPU"
        );
        assert_eq!(ioctl_name(ioc(IOC_NONE, b'K', 0x7f, 0)), "UNKNOWN");
    }
}
