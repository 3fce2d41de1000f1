//! Sub-allocation of small blocks (signals, kernarg blocks, queue
//! descriptors) from slabs, so each small object does not cost a whole
//! BO, a page of VA and three ioctls.
//!
//! A slab is one 256 KiB allocation from a host-mapped pool, cut into
//! 64-byte granules tracked by a bitmap; a block is a run of granules
//! (first fit). Blocks are 64-byte aligned (AQL kernarg and amd_signal_t
//! both need that). Slabs are kept until the sub-allocator goes away; a
//! block keeps its slab's owner alive.

use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use super::allocation::Allocation;
use super::pool::{AllocOptions, MemoryPool};
use crate::error::{HsaResult, MemoryError};

pub const GRANULE: u64 = 64;
pub const SLAB_SIZE: u64 = 256 << 10;
/// Blocks must be smaller than this; larger ones are whole allocations.
pub const MAX_BLOCK: u64 = 64 << 10;
const GRANULES_PER_SLAB: usize = (SLAB_SIZE / GRANULE) as usize;

/// Which granules of one slab are in use.
#[derive(Clone, Debug)]
pub struct GranuleBitmap {
    words: Vec<u64>,
    granules: usize,
    used: usize,
}

impl GranuleBitmap {
    pub fn new(granules: usize) -> Self {
        Self {
            words: vec![0; granules.div_ceil(64)],
            granules,
            used: 0,
        }
    }

    fn is_set(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 != 0
    }

    fn set_range(&mut self, first: usize, count: usize, value: bool) {
        for i in first..first + count {
            if value {
                self.words[i / 64] |= 1 << (i % 64);
            } else {
                self.words[i / 64] &= !(1 << (i % 64));
            }
        }
    }

    /// First run of `count` free granules; marks it used.
    pub fn allocate(&mut self, count: usize) -> Option<usize> {
        if count == 0 || count > self.granules - self.used {
            return None;
        }
        let mut run_start = 0;
        let mut run_len = 0;
        let mut i = 0;
        while i < self.granules {
            if self.words[i / 64] == u64::MAX && i % 64 == 0 {
                run_len = 0;
                i += 64;
                run_start = i;
                continue;
            }
            if self.is_set(i) {
                run_len = 0;
                run_start = i + 1;
            } else {
                run_len += 1;
                if run_len == count {
                    self.set_range(run_start, count, true);
                    self.used += count;
                    return Some(run_start);
                }
            }
            i += 1;
        }
        None
    }

    pub fn free(&mut self, first: usize, count: usize) {
        debug_assert!(
            (first..first + count).all(|i| self.is_set(i)),
            "double free of granules"
        );
        self.set_range(first, count, false);
        self.used -= count;
    }

    pub fn used(&self) -> usize {
        self.used
    }
}

struct Slab {
    memory: Allocation,
    bitmap: GranuleBitmap,
}

struct SubAllocatorInner {
    pool: MemoryPool,
    map_gpus: Vec<u32>,
    slabs: Mutex<Vec<Slab>>,
}

impl std::fmt::Debug for SubAllocatorInner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubAllocator")
            .field("pool", &self.pool.kind())
            .field("map_gpus", &self.map_gpus)
            .finish()
    }
}

/// Hands out 64-byte-aligned blocks smaller than [`MAX_BLOCK`] from
/// slabs of a host-mapped pool. Cheap to clone (shared state).
#[derive(Clone, Debug)]
pub struct SubAllocator {
    inner: Arc<SubAllocatorInner>,
}

impl SubAllocator {
    /// Slabs come from `pool` (which must be host accessible) and are
    /// mapped on `map_gpus`.
    pub fn new(pool: MemoryPool, map_gpus: Vec<u32>) -> HsaResult<Self> {
        if !pool.info().host_accessible {
            return Err(MemoryError::PoolNotHostAccessible { pool: pool.kind() }.into());
        }
        Ok(Self {
            inner: Arc::new(SubAllocatorInner {
                pool,
                map_gpus,
                slabs: Mutex::new(Vec::new()),
            }),
        })
    }

    /// A zeroed block of `size` bytes (rounded up to 64).
    pub fn allocate(&self, size: u64) -> HsaResult<SubAllocation> {
        if size == 0 || size >= MAX_BLOCK {
            return Err(MemoryError::BlockSize {
                size,
                max: MAX_BLOCK,
            }
            .into());
        }
        let count = size.div_ceil(GRANULE) as usize;
        let mut slabs = self.inner.slabs.lock().unwrap_or_else(|p| p.into_inner());
        let found = slabs
            .iter_mut()
            .enumerate()
            .find_map(|(i, s)| s.bitmap.allocate(count).map(|g| (i, g)));
        let (slab, first) = match found {
            Some(f) => f,
            None => {
                let memory = self.inner.pool.allocate_mapped(
                    SLAB_SIZE,
                    &AllocOptions::default(),
                    &self.inner.map_gpus,
                )?;
                let mut bitmap = GranuleBitmap::new(GRANULES_PER_SLAB);
                let first = bitmap
                    .allocate(count)
                    .ok_or(MemoryError::SlabTooSmall { size })?;
                slabs.push(Slab { memory, bitmap });
                (slabs.len() - 1, first)
            }
        };
        let base = slabs[slab]
            .memory
            .host_ptr()
            .ok_or(MemoryError::NotHostMapped { memory: "slab" })?;
        let offset = first as u64 * GRANULE;
        let va = slabs[slab].memory.gpu_va() + offset;
        // SAFETY: offset + len lies inside the slab (granule run inside GRANULES_PER_SLAB).
        let host = unsafe { NonNull::new_unchecked(base.as_ptr().add(offset as usize)) };
        let len = count as u64 * GRANULE;
        // SAFETY: the granules were free, so no other block aliases them; the slab is host mapped read-write.
        unsafe { std::ptr::write_bytes(host.as_ptr(), 0, len as usize) };
        Ok(SubAllocation {
            owner: self.inner.clone(),
            slab,
            first,
            count,
            va,
            host,
            size,
        })
    }

    /// Granules in use over all slabs (for tests and diagnostics).
    pub fn used_granules(&self) -> usize {
        self.inner
            .slabs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|s| s.bitmap.used())
            .sum()
    }

    pub fn slab_count(&self) -> usize {
        self.inner
            .slabs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }
}

/// A block from a [`SubAllocator`]; returned to its slab on drop.
#[derive(Debug)]
pub struct SubAllocation {
    owner: Arc<SubAllocatorInner>,
    slab: usize,
    first: usize,
    count: usize,
    va: u64,
    host: NonNull<u8>,
    size: u64,
}

// SAFETY: the block is plain shared memory owned by this value; the pointer is only an address into a mapping the owner keeps alive.
unsafe impl Send for SubAllocation {}
// SAFETY: &SubAllocation only hands out shared views; mutation goes through &mut self.
unsafe impl Sync for SubAllocation {}

impl SubAllocation {
    pub fn gpu_va(&self) -> u64 {
        self.va
    }
    /// Bytes requested.
    pub fn len(&self) -> u64 {
        self.size
    }
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }
    pub fn host_ptr(&self) -> NonNull<u8> {
        self.host
    }
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: [host, host+size) is inside this block, mapped for as long as the owner lives.
        unsafe { std::slice::from_raw_parts(self.host.as_ptr(), self.size as usize) }
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as for as_slice; &mut self gives exclusive host access to the block.
        unsafe { std::slice::from_raw_parts_mut(self.host.as_ptr(), self.size as usize) }
    }
}

impl Drop for SubAllocation {
    fn drop(&mut self) {
        let mut slabs = self.owner.slabs.lock().unwrap_or_else(|p| p.into_inner());
        slabs[self.slab].bitmap.free(self.first, self.count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitmap_first_fit_and_reuse() {
        let mut b = GranuleBitmap::new(200);
        assert_eq!(b.allocate(1), Some(0));
        assert_eq!(b.allocate(70), Some(1));
        assert_eq!(b.allocate(100), Some(71));
        assert_eq!(b.allocate(30), None); // 29 left
        assert_eq!(b.allocate(29), Some(171));
        assert_eq!(b.used(), 200);
        b.free(1, 70);
        assert_eq!(b.allocate(71), None);
        assert_eq!(b.allocate(64), Some(1));
        assert_eq!(b.allocate(6), Some(65));
        assert_eq!(b.allocate(1), None);
        b.free(0, 1);
        assert_eq!(b.allocate(1), Some(0));
        assert_eq!(b.allocate(0), None);
    }
}
