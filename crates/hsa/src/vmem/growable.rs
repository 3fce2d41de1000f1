//! A growable buffer on the vmem API: reserve the largest size once, map
//! physical chunks at its end as it grows (and unmap them as it shrinks),
//! so the buffer's address never changes and nothing is copied. This is
//! the pattern frameworks use vmem for (a staging or kernarg arena that
//! starts small); every chunk gets the same agent access.

use std::sync::Arc;

use crate::agent::Agent;
use crate::memory::MemoryPool;

use super::access::Access;
use super::error::{VmemError, VmemResult};
use super::handle::MemoryType;
use super::manager::VirtualMemory;

#[derive(Debug)]
pub struct GrowableBuffer {
    vm: Arc<VirtualMemory>,
    pool: MemoryPool,
    va: u64,
    max_len: u64,
    chunk: u64,
    /// Chunks mapped now, end to end from `va` (each mapping holds its
    /// memory; the handles themselves are released at once).
    mapped_chunks: u64,
    access: Vec<(Agent, Access)>,
}

impl GrowableBuffer {
    /// Reserve `max_len` bytes (rounded up to `chunk`) for a buffer of
    /// `pool` memory that grows by `chunk` bytes (0: the pool's recommended
    /// granule; otherwise a multiple of its minimum granule), each chunk
    /// accessible to `access`. Starts empty.
    pub fn new(
        vm: Arc<VirtualMemory>,
        pool: &MemoryPool,
        max_len: u64,
        chunk: u64,
        access: &[(&Agent, Access)],
    ) -> VmemResult<GrowableBuffer> {
        let granule = vm.granule(pool);
        let chunk = if chunk == 0 {
            granule.recommended
        } else {
            chunk
        };
        if !chunk.is_multiple_of(granule.minimum) {
            return Err(VmemError::ChunkGranule {
                chunk,
                granule: granule.minimum,
            });
        }
        let max_len = max_len
            .checked_next_multiple_of(chunk)
            .filter(|m| *m > 0)
            .ok_or(VmemError::MaxLength { max_len })?;
        for (agent, _) in access {
            vm.target(agent)?;
        }
        let align = if chunk.is_power_of_two() { chunk } else { 0 };
        let va = vm.reserve_aligned(max_len, 0, align)?;
        Ok(GrowableBuffer {
            vm,
            pool: pool.clone(),
            va,
            max_len,
            chunk,
            mapped_chunks: 0,
            access: access.iter().map(|(a, p)| ((*a).clone(), *p)).collect(),
        })
    }

    /// The buffer's address (fixed for its life).
    pub fn va(&self) -> u64 {
        self.va
    }
    /// Bytes mapped now (a multiple of the chunk).
    pub fn len(&self) -> u64 {
        self.mapped_chunks * self.chunk
    }
    pub fn is_empty(&self) -> bool {
        self.mapped_chunks == 0
    }
    /// The most it can grow to.
    pub fn max_len(&self) -> u64 {
        self.max_len
    }
    pub fn chunk(&self) -> u64 {
        self.chunk
    }

    /// Map chunks until at least `len` bytes are usable; existing contents
    /// stay where they are.
    pub fn grow_to(&mut self, len: u64) -> VmemResult<()> {
        if len > self.max_len {
            return Err(VmemError::ExceedsReservation {
                len,
                max_len: self.max_len,
            });
        }
        let desc: Vec<(&Agent, Access)> = self.access.iter().map(|(a, p)| (a, *p)).collect();
        while self.len() < len {
            let at = self.va + self.len();
            let h = self
                .vm
                .handle_create(&self.pool, self.chunk, MemoryType::None)?;
            let mapped = self
                .vm
                .map(at, self.chunk, 0, h)
                .and_then(|()| self.vm.set_access(at, self.chunk, &desc));
            if let Err(e) = mapped {
                let _ = self.vm.unmap(at, self.chunk);
                let _ = self.vm.handle_release(h);
                return Err(e);
            }
            // The mapping keeps the memory; the handle reference is not needed.
            self.vm.handle_release(h)?;
            self.mapped_chunks += 1;
        }
        Ok(())
    }

    /// Unmap trailing chunks that lie wholly beyond `len` bytes, returning
    /// their memory.
    pub fn shrink_to(&mut self, len: u64) -> VmemResult<()> {
        while self.len() >= len + self.chunk {
            let at = self.va + self.len() - self.chunk;
            self.vm.unmap(at, self.chunk)?;
            self.mapped_chunks -= 1;
        }
        Ok(())
    }
}

impl Drop for GrowableBuffer {
    fn drop(&mut self) {
        if let Err(e) = self.shrink_to(0) {
            tracing::warn!("vmem: shrinking a growable buffer at drop: {e}");
            return;
        }
        if let Err(e) = self.vm.free(self.va, self.max_len) {
            tracing::warn!("vmem: freeing a growable buffer's range: {e}");
        }
    }
}
