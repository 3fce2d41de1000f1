//! CREATE_QUEUE / UPDATE_QUEUE argument checks, as kfd_chardev.c
//! (`set_queue_properties_from_user`) and kfd_queue.c
//! (`kfd_queue_acquire_buffers`) make them:
//! - queue type: only COMPUTE_AQL is simulated (others: EINVAL);
//! - percentage (bits 7:0) <= 100, priority <= 15;
//! - ring size a power of two (0 allowed), sizes below 1024 rounded up;
//! - the ring is exactly one mapped BO: ring_base is the start of a GPU
//!   mapping whose size is the ring size (rounded up to a page);
//! - the read and write pointers are 8-byte aligned and lie in mapped memory;
//! - the EOP buffer size equals the node's (4096) and the EOP buffer is the
//!   start of a mapping of exactly that size;
//! - ctx_save_restore_size and ctl_stack_size equal the node's CWSR sizes
//!   (`Node::cwsr_sizes`) and the context-save area starts a mapping of at
//!   least `CwsrSizes::total_size()` bytes.
//!
//! Every failure is EINVAL, with a debug trace saying which rule failed.

use aqueduct_kfd::topology::CwsrSizes;
use aqueduct_kfd::uapi::{
    CreateQueueArgs, KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, KFD_MAX_QUEUE_PERCENTAGE,
    KFD_MAX_QUEUE_PRIORITY, KFD_MIN_QUEUE_RING_SIZE,
};

use crate::memory::PAGE_SIZE;
use crate::memory::vm::VmView;
use aqueduct_isa::Access;

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

/// The ring must be exactly one mapping of `ring_size` bytes.
pub fn check_ring(vm: &VmView<'_>, ring_base: u64, ring_size: u64) -> Result<(), Invalid> {
    check_buffer(
        vm,
        "ring",
        ring_base,
        ring_size.next_multiple_of(PAGE_SIZE),
        true,
    )
}

/// `addr` must start a mapping of `size` bytes (exactly, or at least).
fn check_buffer(
    vm: &VmView<'_>,
    what: &str,
    addr: u64,
    size: u64,
    exact: bool,
) -> Result<(), Invalid> {
    let Some(m) = vm.find(addr) else {
        return Err(invalid(format!(
            "{what} {addr:#x} is not mapped on the GPU"
        )));
    };
    if m.start != addr {
        return Err(invalid(format!(
            "{what} {addr:#x} is not the start of its mapping ({:#x})",
            m.start
        )));
    }
    let mapped = m.end - m.start;
    if (exact && mapped != size) || mapped < size {
        return Err(invalid(format!(
            "{what} mapping is {mapped:#x} bytes, expected {size:#x}"
        )));
    }
    Ok(())
}

fn check_pointer(vm: &VmView<'_>, what: &str, addr: u64) -> Result<(), Invalid> {
    if addr == 0 || !addr.is_multiple_of(8) || vm.check(addr, 8, Access::Write).is_some() {
        return Err(invalid(format!(
            "{what} {addr:#x} is not an aligned, writable, mapped u64"
        )));
    }
    Ok(())
}

/// Validate CREATE_QUEUE for a node with `cwsr` sizes; returns the queue's
/// configuration (with the effective ring size).
pub fn validate_create(
    args: &CreateQueueArgs,
    vm: &VmView<'_>,
    cwsr: &CwsrSizes,
) -> Result<QueueConfig, Invalid> {
    if args.queue_type != KFD_IOC_QUEUE_TYPE_COMPUTE_AQL {
        return Err(invalid(format!(
            "queue type {} is not simulated (only COMPUTE_AQL)",
            args.queue_type
        )));
    }
    check_percentage_priority(args.queue_percentage, args.queue_priority)?;
    let ring_size = effective_ring_size(args.ring_size)?;
    check_ring(vm, args.ring_base_address, ring_size)?;
    check_pointer(vm, "read pointer", args.read_pointer_address)?;
    check_pointer(vm, "write pointer", args.write_pointer_address)?;
    if args.eop_buffer_size != cwsr.eop_buffer_size as u64 {
        return Err(invalid(format!(
            "EOP buffer size {:#x} != the node's {:#x}",
            args.eop_buffer_size, cwsr.eop_buffer_size
        )));
    }
    check_buffer(
        vm,
        "EOP buffer",
        args.eop_buffer_address,
        cwsr.eop_buffer_size as u64,
        true,
    )?;
    if args.ctx_save_restore_size != cwsr.cwsr_size || args.ctl_stack_size != cwsr.ctl_stack_size {
        return Err(invalid(format!(
            "ctx_save_restore_size {:#x} / ctl_stack_size {:#x} != the node's {:#x} / {:#x}",
            args.ctx_save_restore_size, args.ctl_stack_size, cwsr.cwsr_size, cwsr.ctl_stack_size
        )));
    }
    check_buffer(
        vm,
        "context-save area",
        args.ctx_save_restore_address,
        cwsr.total_size(),
        false,
    )?;
    Ok(QueueConfig {
        ring_base: args.ring_base_address,
        ring_size,
        read_pointer: args.read_pointer_address,
        write_pointer: args.write_pointer_address,
        eop_buffer: args.eop_buffer_address,
        ctx_save_restore: args.ctx_save_restore_address,
        percentage: args.queue_percentage,
        priority: args.queue_priority,
    })
}
