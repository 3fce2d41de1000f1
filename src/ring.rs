//! A ring allocator over one host-mapped allocation: the kernarg ring (in
//! the agent's kernarg pool) and the write_buffer staging ring (in the
//! fine-grained system pool). Blocks are carved in submission order and
//! freed when the submission that used them completes (FIFO by epoch), as
//! IREE's kernarg ring does. A request larger than the ring gets a
//! dedicated allocation that the submission keeps alive instead.

use std::collections::VecDeque;

use aqueduct_hsa::{Allocation, HsaResult, MemoryPool};

#[derive(Debug)]
pub(crate) struct Ring {
    memory: Allocation,
    capacity: u64,
    /// Next free byte (monotonic; offset = head % capacity).
    head: u64,
    /// Oldest live byte (monotonic).
    tail: u64,
    /// (epoch, head after the epoch's blocks): freed when epoch completes.
    live: VecDeque<(u64, u64)>,
}

/// Where a block landed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RingBlock {
    pub va: u64,
    pub host: *mut u8,
    /// Bytes reserved.
    pub len: u64,
}

impl Ring {
    pub(crate) fn new(pool: &MemoryPool, capacity: u64) -> HsaResult<Ring> {
        let memory = pool.allocate(capacity)?;
        Ok(Ring {
            memory,
            capacity,
            head: 0,
            tail: 0,
            live: VecDeque::new(),
        })
    }

    pub(crate) fn capacity(&self) -> u64 {
        self.capacity
    }

    /// A block of `size` bytes aligned to `align` (power of two <= 4096)
    /// for submission `epoch`, or None if the ring is too full now.
    pub(crate) fn alloc(&mut self, size: u64, align: u64, epoch: u64) -> Option<RingBlock> {
        let size = size.max(1);
        let mut start = self.head.next_multiple_of(align.max(1));
        // Never let a block wrap around the end of the ring.
        if start / self.capacity != (start + size - 1) / self.capacity {
            start = (start / self.capacity + 1) * self.capacity;
        }
        if start + size - self.tail > self.capacity {
            return None;
        }
        self.head = start + size;
        match self.live.back_mut() {
            Some((e, end)) if *e == epoch => *end = self.head,
            _ => self.live.push_back((epoch, self.head)),
        }
        let offset = start % self.capacity;
        let base = self.memory.gpu_va();
        Some(RingBlock {
            va: base + offset,
            host: (base + offset) as *mut u8,
            len: size,
        })
    }

    /// Free the blocks of every epoch <= `completed`.
    pub(crate) fn reclaim(&mut self, completed: u64) {
        while let Some(&(epoch, end)) = self.live.front() {
            if epoch > completed {
                break;
            }
            self.tail = end;
            self.live.pop_front();
        }
        if self.live.is_empty() {
            self.tail = self.head;
        }
    }

    /// The oldest epoch still holding blocks.
    pub(crate) fn oldest_epoch(&self) -> Option<u64> {
        self.live.front().map(|&(e, _)| e)
    }
}
