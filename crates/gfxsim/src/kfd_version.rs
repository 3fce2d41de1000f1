//! The KFD interface version gfxsim presents, and what a kernel of an older
//! version lacks.
//!
//! Distribution kernels ship older KFD interfaces. The version history is
//! the comment at the top of Linux `include/uapi/linux/kfd_ioctl.h`; the
//! parts that touch what Aqueduct calls are:
//! - 1.12 adds AMDKFD_IOC_EXPORT_DMABUF. A kernel without it has no table
//!   entry for that ioctl number, and `kfd_ioctl` (kfd_chardev.c) then
//!   returns its initial `retcode`, EINVAL (the ENOTTY for unknown numbers
//!   is a 2025 change, after 1.17).
//! - 1.14 adds `kfd_hsa_signal_event_data.last_event_age` to the union in
//!   `kfd_event_data` ("Update kfd_event_data"). An older
//!   `kfd_wait_on_events` (kfd_events.c) neither reads nor writes it for
//!   signal events: a wait only ends on a signal that arrives while it
//!   sleeps or one still pending, and the field comes back as the caller
//!   left it.
//! - 1.13 (debugger API), 1.15 (GEM_VA for exported dma-bufs), 1.16
//!   (contiguous VRAM flag) and 1.17 (SDMA queues by engine id) add nothing
//!   the runtime uses; a larger CREATE_QUEUE argument struct from a newer
//!   UAPI is accepted by an older kernel (`kfd_ioctl` copies the caller's
//!   size and ignores the tail).
//!
//! gfxsim applies the queue-buffer checks of kfd_queue.c to every version,
//! though kernels before them accepted any buffers: a stricter simulator
//! can only make a test fail, never hide a fault.

use aqueduct_kfd::uapi::{KFD_IOCTL_MINOR_VERSION, minor_version};

/// The oldest KFD minor version gfxsim presents: 1.11, the first with
/// unified memory for the context-save area (the oldest the runtime
/// accepts).
pub const MIN_KFD_MINOR_VERSION: u32 = minor_version::CWSR_UNIFIED_MEMORY;

/// A presented version gfxsim models.
pub fn is_modelled(minor: u32) -> bool {
    (MIN_KFD_MINOR_VERSION..=KFD_IOCTL_MINOR_VERSION).contains(&minor)
}
