//! Freed buffer memory kept for the next buffer of the same size and pool.
//!
//! A program that creates its buffers again on every run (tests, a
//! pipeline re-run per frame, wgpu's `create_buffer_init` with its staging
//! memory) would otherwise pay, per buffer, for a fresh KFD allocation, its
//! mapping on the host and on the GPU, the first touch of every page and the
//! unmapping when it is dropped. Vulkan drivers' allocators (VMA,
//! gpu-allocator under wgpu) keep memory blocks for the same reason. Here a
//! dropped buffer's allocation goes to a per-device cache keyed by pool and
//! exact length; the next buffer of that pool and length takes it.
//!
//! Reuse never shows a buffer another buffer's bytes: coarse memory gets the
//! clear every new coarse buffer gets (placement.rs), and fine memory, which
//! comes zeroed from the OS when new, is zeroed here before it is handed out
//! again. The cache is bounded ([`MAX_CACHED_BYTES`], and no allocation
//! above [`MAX_REUSED_LEN`] is kept), and an allocation that finds the pool
//! exhausted empties the cache and tries again, so cached memory never makes
//! an allocation fail.

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, Mutex};

use aqueduct_hsa::{AllocOptions, Allocation, HsaError, HsaStatus, MemoryPool, PoolKind};

/// At most this many bytes wait for reuse per device.
pub(crate) const MAX_CACHED_BYTES: u64 = 256 << 20;
/// Larger allocations are freed at once: they are rarely recreated at the
/// same size, and holding them would keep too much memory from the pool.
pub(crate) const MAX_REUSED_LEN: u64 = 64 << 20;

/// The per-device cache of freed allocations.
#[derive(Debug, Default)]
pub(crate) struct MemoryReuse {
    state: Mutex<Cached>,
}

#[derive(Debug, Default)]
struct Cached {
    /// (pool, requested length) -> allocations of that pool and length.
    free: HashMap<(PoolKind, u64), Vec<Allocation>>,
    bytes: u64,
}

impl MemoryReuse {
    fn lock(&self) -> std::sync::MutexGuard<'_, Cached> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An allocation of `len` bytes from `pool` (`kind`), reused when one of
    /// that pool and length is cached. Fine (host-mapped) memory comes back
    /// zeroed, as a new allocation does.
    pub(crate) fn allocate(
        self: &Arc<Self>,
        pool: &MemoryPool,
        kind: PoolKind,
        len: u64,
    ) -> Result<ReusableAllocation, HsaError> {
        let cached = {
            let mut c = self.lock();
            let a = c.free.get_mut(&(kind, len)).and_then(Vec::pop);
            if let Some(a) = &a {
                c.bytes -= a.reserved_len();
            }
            a
        };
        let alloc = match cached {
            Some(a) => {
                if let Some(p) = a.host_ptr() {
                    // SAFETY: the allocation is host mapped for `len` bytes
                    // and nothing else refers to it (it was in the cache).
                    unsafe { std::ptr::write_bytes(p.as_ptr(), 0, a.len() as usize) };
                }
                a
            }
            None => match pool.allocate_with(len, &AllocOptions::default()) {
                Ok(a) => a,
                // Out of memory or address space: what the cache holds may be
                // what is missing.
                Err(e) if e.status() == HsaStatus::OutOfResources => {
                    if !self.release_all() {
                        return Err(e);
                    }
                    pool.allocate_with(len, &AllocOptions::default())?
                }
                Err(e) => return Err(e),
            },
        };
        Ok(ReusableAllocation {
            alloc: Some(alloc),
            kind,
            reuse: self.clone(),
        })
    }

    /// Frees every cached allocation; whether there was any.
    pub(crate) fn release_all(&self) -> bool {
        // Freed after the lock is released (each drop is a KFD free).
        let (had, _free) = {
            let mut c = self.lock();
            let had = std::mem::take(&mut c.bytes) > 0;
            (had, std::mem::take(&mut c.free))
        };
        had
    }

    /// Takes `alloc` back for reuse, or frees it when the cache is full.
    fn give_back(&self, kind: PoolKind, alloc: Allocation) {
        let size = alloc.reserved_len();
        if alloc.len() > MAX_REUSED_LEN {
            return;
        }
        // Kept until the pool runs short; sub-page lengths share pages, so
        // they key on the requested length, which the sanitizer checks.
        let mut c = self.lock();
        if c.bytes + size > MAX_CACHED_BYTES {
            return;
        }
        c.bytes += size;
        c.free.entry((kind, alloc.len())).or_default().push(alloc);
    }

    /// Bytes waiting for reuse.
    #[cfg(test)]
    pub(crate) fn cached_bytes(&self) -> u64 {
        self.lock().bytes
    }
}

/// An allocation that returns to its device's cache when dropped.
#[derive(Debug)]
pub(crate) struct ReusableAllocation {
    alloc: Option<Allocation>,
    kind: PoolKind,
    reuse: Arc<MemoryReuse>,
}

impl Deref for ReusableAllocation {
    type Target = Allocation;
    fn deref(&self) -> &Allocation {
        self.alloc
            .as_ref()
            .expect("the allocation is only taken by drop")
    }
}

impl Drop for ReusableAllocation {
    fn drop(&mut self) {
        if let Some(a) = self.alloc.take() {
            self.reuse.give_back(self.kind, a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::{Buffer, BufferDescriptor};
    use crate::device::Device;
    use crate::queue::PollType;
    use crate::test_support::device;
    use wgpu_types::BufferUsages;

    fn buffer(d: &Device, size: u64, usage: BufferUsages, mapped: bool) -> Buffer {
        d.create_buffer(&BufferDescriptor {
            label: None,
            size,
            usage,
            mapped_at_creation: mapped,
        })
    }

    fn va(b: &Buffer) -> u64 {
        b.memory().expect("a valid buffer").va()
    }

    #[test]
    fn a_dropped_mappable_buffers_memory_comes_back_zeroed() {
        let (d, _q) = device();
        let usage = BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC;
        let first = buffer(&d, 3000, usage, true);
        first.get_mapped_range_mut(..).unwrap().fill(0xa5);
        first.unmap();
        let old = va(&first);
        drop(first);
        assert!(d.shared.memory_reuse.cached_bytes() > 0);
        let second = buffer(&d, 3000, usage, true);
        assert_eq!(va(&second), old, "the same size reuses the memory");
        assert!(second.get_mapped_range(..).unwrap().iter().all(|&b| b == 0));
        // Another size gets other memory.
        let other = buffer(&d, 3004, usage, true);
        assert_ne!(va(&other), old);
    }

    #[test]
    fn a_dropped_device_buffers_memory_comes_back_cleared() {
        let (d, q) = device();
        let usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
        let first = buffer(&d, 1 << 16, usage, false);
        q.write_buffer(&first, 0, &[0x5a; 1 << 16]);
        q.submit([]);
        let old = va(&first);
        drop(first);
        d.poll(PollType::wait_indefinitely()).unwrap();
        let second = buffer(&d, 1 << 16, usage, false);
        assert_eq!(va(&second), old, "the same size reuses the memory");
        let rb = buffer(
            &d,
            1 << 16,
            BufferUsages::MAP_READ | BufferUsages::COPY_DST,
            false,
        );
        let mut enc = d.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&second, 0, &rb, 0, 1 << 16);
        q.submit([enc.finish()]);
        let bytes = crate::util::read_mapped(&d, &rb).unwrap();
        assert!(bytes.iter().all(|&b| b == 0));
    }

    #[test]
    fn large_allocations_and_a_full_cache_are_freed() {
        let (d, _q) = device();
        let usage = BufferUsages::MAP_READ | BufferUsages::COPY_DST;
        drop(buffer(&d, MAX_REUSED_LEN + 4, usage, false));
        assert_eq!(d.shared.memory_reuse.cached_bytes(), 0);
        let many: Vec<Buffer> = (0..5)
            .map(|_| buffer(&d, MAX_REUSED_LEN, usage, false))
            .collect();
        drop(many);
        assert_eq!(d.shared.memory_reuse.cached_bytes(), MAX_CACHED_BYTES);
    }
}
