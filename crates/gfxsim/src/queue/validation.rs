//! CREATE_QUEUE / UPDATE_QUEUE argument checks, as kfd_chardev.c
//! (`set_queue_properties_from_user`, `kfd_ioctl_update_queue`), kfd_queue.c
//! (`kfd_queue_acquire_buffers`, `kfd_queue_buffer_get`) and
//! kfd_process_queue_manager.c (`pqm_update_queue_properties`) make them:
//! - queue type: COMPUTE_AQL here, SDMA in `crate::sdma::create`; the
//!   others are not simulated (EINVAL);
//! - percentage (bits 7:0) <= 100, priority <= 15;
//! - ring size a power of two (0 allowed), sizes below 1024 rounded up;
//! - every queue buffer is found as `kfd_queue_buffer_get` finds it: the
//!   GPU mapping that holds the address must start in the address's page,
//!   and when the expected size is at least a page the mapping must span
//!   exactly that many pages (a smaller expected size checks the start
//!   only);
//! - the write and read pointers: expected size one page, so each must lie
//!   in the first page of a one-page mapping;
//! - the ring: expected size the ring size;
//! - the EOP buffer, when its address is nonzero ("EOP buffer is not
//!   required for all ASICs"): its size equals the node's (4096) and it is
//!   found with that size;
//! - ctl_stack_size and ctx_save_restore_size equal the node's CWSR sizes
//!   (`Node::cwsr_sizes`) and the context-save area is found with
//!   `CwsrSizes::total_size()` (gfxsim has no SVM ranges, so the driver's
//!   SVM fallback never applies).
//!
//! Every CREATE failure is EINVAL; UPDATE of an unknown queue, or to a ring
//! that is not found, is EFAULT. The buffers a queue was created with are
//! held for its lifetime (`queue_refcount` on their mappings), which makes
//! UNMAP of them EBUSY until the queue is destroyed
//! (`amdgpu_amdkfd_gpuvm.c` `unmap_bo_from_gpuvm`).
//!
//! One rule is gfxsim's own and stricter than the driver: the read and
//! write pointers must be 8-byte aligned, since the command processor
//! reads and writes them as 64-bit words.

use aqueduct_kfd::topology::CwsrSizes;
use aqueduct_kfd::uapi::{
    CreateQueueArgs, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, KFD_MAX_QUEUE_PERCENTAGE,
    KFD_MAX_QUEUE_PRIORITY, KFD_MIN_QUEUE_RING_SIZE,
};

use crate::memory::PAGE_SIZE;
use crate::memory::vm::VmView;

/// A rejected request: what was wrong, for the trace.
#[derive(Debug)]
pub struct Invalid(pub String);

/// What the command processor needs to know about its queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueConfig {
    pub ring_base: u64,
    /// Bytes.
    pub ring_size: u64,
    pub read_pointer: u64,
    pub write_pointer: u64,
    pub eop_buffer: u64,
    pub ctx_save_restore: u64,
    pub percentage: u32,
    pub priority: u32,
}

impl QueueConfig {
    /// Packets the ring holds.
    pub fn packets(&self) -> u64 {
        self.ring_size / 64
    }

    /// Whether the queue may run (KFD: ring size, ring address and
    /// percentage all nonzero).
    pub fn is_active(&self) -> bool {
        self.ring_size != 0 && self.ring_base != 0 && self.percentage & 0xff != 0
    }

    /// Address of the queue's `amd_queue_t`: the CP finds it from the read
    /// pointer (`read_dispatch_id` lives at offset 128).
    pub fn amd_queue_address(&self) -> u64 {
        self.read_pointer
            .wrapping_sub(aqueduct_kfd::abi::queue::AMD_QUEUE_READ_DISPATCH_ID_OFFSET as u64)
    }
}

fn invalid(msg: impl Into<String>) -> Invalid {
    Invalid(msg.into())
}

/// Check percentage and priority; returns nothing but the verdict.
pub fn check_percentage_priority(percentage: u32, priority: u32) -> Result<(), Invalid> {
    if percentage & 0xff > KFD_MAX_QUEUE_PERCENTAGE {
        return Err(invalid(format!(
            "queue percentage {} > {KFD_MAX_QUEUE_PERCENTAGE}",
            percentage & 0xff
        )));
    }
    if priority > KFD_MAX_QUEUE_PRIORITY {
        return Err(invalid(format!(
            "queue priority {priority} > {KFD_MAX_QUEUE_PRIORITY}"
        )));
    }
    Ok(())
}

/// The ring size KFD uses for a requested size.
pub fn effective_ring_size(ring_size: u32) -> Result<u64, Invalid> {
    if ring_size != 0 && !ring_size.is_power_of_two() {
        return Err(invalid(format!(
            "ring size {ring_size:#x} is not a power of two"
        )));
    }
    Ok(ring_size.max(KFD_MIN_QUEUE_RING_SIZE) as u64)
}

/// Find a queue buffer as `kfd_queue_buffer_get` does: the mapping that
/// holds `addr` must start in `addr`'s page and, when `expected_size` is at
/// least a page, span exactly `expected_size / PAGE_SIZE` pages. Returns
/// the mapping's BO handle (what the queue holds a reference on).
pub fn queue_buffer(
    vm: &VmView<'_>,
    what: &str,
    addr: u64,
    expected_size: u64,
) -> Result<u64, Invalid> {
    let Some(m) = vm.find(addr) else {
        return Err(invalid(format!(
            "{what} {addr:#x} is not mapped on the GPU"
        )));
    };
    let page = addr & !(PAGE_SIZE - 1);
    let pages = expected_size / PAGE_SIZE;
    let mapped_pages = (m.end - m.start).div_ceil(PAGE_SIZE);
    if page != m.start || (pages != 0 && mapped_pages != pages) {
        return Err(invalid(format!(
            "{what} {addr:#x}: expected a mapping of {expected_size:#x} bytes starting in its \
             page, found {:#x}+{:#x}",
            m.start,
            m.end - m.start
        )));
    }
    Ok(m.handle)
}

/// The ring: found with the ring size as its expected size.
pub fn check_ring(vm: &VmView<'_>, ring_base: u64, ring_size: u64) -> Result<u64, Invalid> {
    queue_buffer(vm, "ring", ring_base, ring_size)
}

/// The read or write pointer: found with one page as its expected size,
/// and 8-byte aligned (gfxsim's rule, see the file comment).
pub fn check_pointer(vm: &VmView<'_>, what: &str, addr: u64) -> Result<u64, Invalid> {
    if !addr.is_multiple_of(8) {
        return Err(invalid(format!("{what} {addr:#x} is not 8-byte aligned")));
    }
    queue_buffer(vm, what, addr, PAGE_SIZE)
}

/// The BOs a queue holds for its lifetime: their handles, one entry per
/// reference (the same BO may back several of the queue's buffers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueBuffers(pub Vec<u64>);

/// Index of the ring's reference in `QueueBuffers` (after the write and
/// read pointers).
pub const RING_REF: usize = 2;

/// Validate CREATE_QUEUE for a node with `cwsr` sizes; returns the queue's
/// configuration (with the effective ring size) and the buffers it holds.
pub fn validate_create(
    args: &CreateQueueArgs,
    vm: &VmView<'_>,
    cwsr: &CwsrSizes,
) -> Result<(QueueConfig, QueueBuffers), Invalid> {
    if args.queue_type != KFD_IOC_QUEUE_TYPE_COMPUTE_AQL {
        return Err(invalid(format!(
            "queue type {} is not simulated (only COMPUTE_AQL and SDMA)",
            args.queue_type
        )));
    }
    check_percentage_priority(args.queue_percentage, args.queue_priority)?;
    let ring_size = effective_ring_size(args.ring_size)?;
    // kfd_queue_acquire_buffers' order: write pointer, read pointer, ring,
    // EOP buffer, then the CWSR sizes and area.
    let mut held = vec![
        check_pointer(vm, "write pointer", args.write_pointer_address)?,
        check_pointer(vm, "read pointer", args.read_pointer_address)?,
        check_ring(vm, args.ring_base_address, ring_size)?,
    ];
    if args.eop_buffer_address != 0 {
        if args.eop_buffer_size != cwsr.eop_buffer_size as u64 {
            return Err(invalid(format!(
                "EOP buffer size {:#x} != the node's {:#x}",
                args.eop_buffer_size, cwsr.eop_buffer_size
            )));
        }
        held.push(queue_buffer(
            vm,
            "EOP buffer",
            args.eop_buffer_address,
            args.eop_buffer_size,
        )?);
    }
    if args.ctl_stack_size != cwsr.ctl_stack_size || args.ctx_save_restore_size != cwsr.cwsr_size {
        return Err(invalid(format!(
            "ctx_save_restore_size {:#x} / ctl_stack_size {:#x} != the node's {:#x} / {:#x}",
            args.ctx_save_restore_size, args.ctl_stack_size, cwsr.cwsr_size, cwsr.ctl_stack_size
        )));
    }
    held.push(queue_buffer(
        vm,
        "context-save area",
        args.ctx_save_restore_address,
        cwsr.total_size(),
    )?);
    let config = QueueConfig {
        ring_base: args.ring_base_address,
        ring_size,
        read_pointer: args.read_pointer_address,
        write_pointer: args.write_pointer_address,
        eop_buffer: args.eop_buffer_address,
        ctx_save_restore: args.ctx_save_restore_address,
        percentage: args.queue_percentage,
        priority: args.queue_priority,
    };
    Ok((config, QueueBuffers(held)))
}
