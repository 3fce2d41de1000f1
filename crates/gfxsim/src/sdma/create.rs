//! CREATE_QUEUE for an SDMA queue, as Linux checks it:
//! - `kfd_chardev.c` `set_queue_properties_from_user`: percentage (bits
//!   7:0) <= 100, priority <= 15, ring size a power of two (0 allowed),
//!   sizes below 1024 rounded up;
//! - `kfd_queue.c` `kfd_queue_acquire_buffers`: the write pointer, the read
//!   pointer (one page each) and the ring (its size) are found as
//!   `kfd_queue_buffer_get` finds them and held while the queue lives;
//!   "only compute queue requires EOP buffer and CWSR area", so neither is
//!   checked for SDMA.
//!
//! Two rules are gfxsim's own: the read and write pointers are 8-byte
//! aligned (the engine reads and writes them as 64-bit words), and a
//! nonzero `ctx_save_restore_address` must hold a readable
//! `kfd_context_save_area_header`: gfxsim reports an SDMA queue's errors
//! through it, as it does a compute queue's (`engine.rs`).

use aqueduct_kfd::uapi::{CreateQueueArgs, UserContextSaveAreaHeader};

use crate::memory::vm::VmView;
use crate::queue::validation::{
    Invalid, QueueBuffers, QueueConfig, check_percentage_priority, check_pointer, check_ring,
    effective_ring_size,
};
use aqueduct_isa::Access;

/// Validate CREATE_QUEUE for an SDMA queue; returns its configuration
/// (with the effective ring size) and the buffers it holds.
pub fn validate_create(
    args: &CreateQueueArgs,
    vm: &VmView<'_>,
) -> Result<(QueueConfig, QueueBuffers), Invalid> {
    check_percentage_priority(args.queue_percentage, args.queue_priority)?;
    let ring_size = effective_ring_size(args.ring_size)?;
    let held = vec![
        check_pointer(vm, "write pointer", args.write_pointer_address)?,
        check_pointer(vm, "read pointer", args.read_pointer_address)?,
        check_ring(vm, args.ring_base_address, ring_size)?,
    ];
    let header_size = size_of::<UserContextSaveAreaHeader>() as u64;
    if args.ctx_save_restore_address != 0
        && vm
            .check(args.ctx_save_restore_address, header_size, Access::Read)
            .is_some()
    {
        return Err(Invalid(format!(
            "SDMA queue error header {:#x} is not readable",
            args.ctx_save_restore_address
        )));
    }
    let config = QueueConfig {
        ring_base: args.ring_base_address,
        ring_size,
        read_pointer: args.read_pointer_address,
        write_pointer: args.write_pointer_address,
        eop_buffer: 0,
        ctx_save_restore: args.ctx_save_restore_address,
        percentage: args.queue_percentage,
        priority: args.queue_priority,
    };
    Ok((config, QueueBuffers(held)))
}
