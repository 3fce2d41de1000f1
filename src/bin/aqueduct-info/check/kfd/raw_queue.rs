//! A raw AQL queue on the KFD interface: ring, the page holding the write
//! and read pointers, EOP buffer and context-save area in GTT BOs mapped on
//! the GPU, CREATE_QUEUE, and DESTROY_QUEUE on drop.

use aqueduct::kfd::abi::packet_type;
use aqueduct::kfd::uapi::*;

use super::bo::{Bo, Heap};
use super::{PAGE, gpu_node};
use crate::check::{CheckError, Side};

/// The buffers of a raw AQL queue and its CREATE_QUEUE arguments.
pub struct RawQueue<'a> {
    side: &'a Side,
    pub ring: Bo<'a>,
    pub pointers: Bo<'a>,
    _eop: Bo<'a>,
    _context: Bo<'a>,
    pub args: CreateQueueArgs,
    destroyed: bool,
}

/// Offsets in the pointers page (those of amd_queue_t's write and read
/// dispatch ids, as ROCr passes them).
pub const WRITE_POINTER: u64 = 56;
pub const READ_POINTER: u64 = 128;
const RING_BYTES: u64 = PAGE;

impl<'a> RawQueue<'a> {
    pub fn create(side: &'a Side) -> Result<RawQueue<'a>, CheckError> {
        let node = gpu_node(side)?;
        let cwsr = node
            .cwsr_sizes()
            .ok_or_else(|| CheckError::unexpected("queue buffer sizes", "known", "none"))?;
        let gpus = [side.agent.gpu_id];
        let mapped = |heap: Heap, size: u64| -> Result<Bo<'a>, CheckError> {
            let bo = Bo::alloc(side, heap, size)?;
            bo.map(&gpus)?;
            Ok(bo)
        };
        let ring = mapped(Heap::Gtt, RING_BYTES)?;
        let invalid = u32::from(packet_type::INVALID).to_le_bytes();
        for slot in 0..RING_BYTES / 64 {
            ring.write(slot * 64, &invalid);
        }
        let pointers = mapped(Heap::Gtt, PAGE)?;
        let eop = mapped(Heap::Gtt, u64::from(cwsr.eop_buffer_size).max(PAGE))?;
        let context = mapped(Heap::Gtt, cwsr.total_size())?;
        let mut args = CreateQueueArgs {
            ring_base_address: ring.base(),
            write_pointer_address: pointers.base() + WRITE_POINTER,
            read_pointer_address: pointers.base() + READ_POINTER,
            ring_size: RING_BYTES as u32,
            gpu_id: side.agent.gpu_id,
            queue_type: KFD_IOC_QUEUE_TYPE_COMPUTE_AQL,
            queue_percentage: KFD_MAX_QUEUE_PERCENTAGE,
            queue_priority: 7,
            eop_buffer_address: eop.base(),
            eop_buffer_size: u64::from(cwsr.eop_buffer_size),
            ctx_save_restore_address: context.base(),
            ctx_save_restore_size: cwsr.cwsr_size,
            ctl_stack_size: cwsr.ctl_stack_size,
            ..Default::default()
        };
        side.device
            .create_queue(&mut args)
            .map_err(CheckError::kfd("CREATE_QUEUE"))?;
        Ok(RawQueue {
            side,
            ring,
            pointers,
            _eop: eop,
            _context: context,
            args,
            destroyed: false,
        })
    }

    pub fn destroy(&mut self) -> Result<(), aqueduct::kfd::KfdError> {
        self.destroyed = true;
        self.side.device.destroy_queue(&mut DestroyQueueArgs {
            queue_id: self.args.queue_id,
            pad: 0,
        })
    }
}

impl Drop for RawQueue<'_> {
    fn drop(&mut self) {
        if !self.destroyed {
            let _ = self.destroy();
        }
    }
}
