//! Freed VRAM backings kept for the next BO of the same size.
//!
//! Creating a VRAM BO's memfd costs the host a page fault and a zeroed
//! page per 4 KiB the poison fill touches, and freeing it costs an unmap
//! and the release of every page; a runtime that allocates and frees a
//! large scratch BO per dispatch (ROCr's "use scratch once") spends most of
//! its time there. The pool keeps a freed BO's backing (memfd, gfxsim's
//! view, resident pages) and gives it to the next BO of the same GPU,
//! flags and size, refilled to read exactly as a new BO
//! ([`FreshVram::refill`]).
//!
//! Only private backings enter (`Backing::is_private`: never exported,
//! never mapped by the runtime, never imported), so no earlier holder can
//! reach a recycled BO's pages. The memfd's name carries the GPU and flags
//! (dmabuf.rs reads them back on import), hence the key. The pool holds at
//! most [`POOL_LIMIT`] bytes, dropping the least recently freed backing
//! first; pooled memory is not charged to any GPU's VRAM, and `Memory`
//! empties the pool before reporting that the host has no memory left.

use std::collections::VecDeque;
use std::sync::Mutex;

use super::backing::Backing;
use super::fresh_vram::FreshVram;

/// Bytes of freed VRAM backing the pool keeps at most.
pub const POOL_LIMIT: u64 = 256 << 20;

#[derive(Debug)]
struct Entry {
    gpu_id: u32,
    flags: u32,
    backing: Backing,
}

#[derive(Debug, Default)]
struct Entries {
    /// Least recently freed first.
    queue: VecDeque<Entry>,
    bytes: u64,
}

/// Freed private VRAM backings, by GPU, flags and size.
#[derive(Debug)]
pub struct VramPool {
    entries: Mutex<Entries>,
    limit: u64,
}

impl VramPool {
    /// A pool of at most `limit` bytes.
    pub fn new(limit: u64) -> VramPool {
        VramPool {
            entries: Mutex::new(Entries::default()),
            limit,
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes of backing held now.
    pub fn bytes(&self) -> u64 {
        self.entries().bytes
    }

    /// Keep `backing`, freed from a VRAM BO of `gpu_id` with `flags`, if it
    /// is private and fits; older backings leave to make room.
    pub fn give(&self, gpu_id: u32, flags: u32, backing: Backing) {
        let size = backing.size();
        if !backing.is_private() || size > self.limit {
            return;
        }
        let mut dropped = Vec::new();
        let mut entries = self.entries();
        while entries.bytes + size > self.limit {
            let Some(old) = entries.queue.pop_front() else {
                break;
            };
            entries.bytes -= old.backing.size();
            dropped.push(old);
        }
        entries.bytes += size;
        entries.queue.push_back(Entry {
            gpu_id,
            flags,
            backing,
        });
        drop(entries);
        // Unmapping and closing happen outside the lock.
        drop(dropped);
    }

    /// A backing for a new VRAM BO of `gpu_id`, `flags` and `size`, reading
    /// as `fresh` says a new BO reads; None when none is kept (or one could
    /// not be refilled, and is dropped).
    pub fn take(&self, gpu_id: u32, flags: u32, size: u64, fresh: FreshVram) -> Option<Backing> {
        let mut entries = self.entries();
        let index = entries
            .queue
            .iter()
            .rposition(|e| e.gpu_id == gpu_id && e.flags == flags && e.backing.size() == size)?;
        let entry = entries.queue.remove(index)?;
        entries.bytes -= size;
        drop(entries);
        match fresh.refill(&entry.backing) {
            Ok(()) => Some(entry.backing),
            Err(e) => {
                tracing::debug!("gfxsim: refilling a pooled {size} byte VRAM backing: {e}");
                None
            }
        }
    }

    /// Drop every backing kept (the host is short of memory).
    pub fn clear(&self) {
        let queue = std::mem::take(&mut *self.entries());
        drop(queue);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::fresh_vram::{AMDGPU_POISON, POISON_LIMIT};

    const MIB: u64 = 1 << 20;

    fn backing(size: u64) -> Backing {
        Backing::new_memfd("vram-pool-test", size).unwrap()
    }

    fn dwords(b: &Backing) -> &[u32] {
        // SAFETY: the backing's mapping holds size() bytes, page aligned,
        // and lives as long as `b`.
        unsafe { std::slice::from_raw_parts(b.ptr().cast::<u32>(), (b.size() / 4) as usize) }
    }

    fn scribble(b: &Backing) {
        // SAFETY: as in `dwords`; the test owns the backing alone.
        unsafe { std::ptr::write_bytes(b.ptr(), 0x5a, b.size() as usize) };
    }

    #[test]
    fn a_recycled_backing_reads_as_a_new_bo() {
        let pool = VramPool::new(POOL_LIMIT);
        let size = 2 * MIB;
        let first = backing(size);
        let view = first.ptr();
        scribble(&first);
        pool.give(1, 7, first);
        assert_eq!(pool.bytes(), size);
        // Another GPU, other flags or another size do not get it.
        assert!(pool.take(2, 7, size, FreshVram::Poison).is_none());
        assert!(pool.take(1, 6, size, FreshVram::Poison).is_none());
        assert!(pool.take(1, 7, size + 4096, FreshVram::Poison).is_none());
        let again = pool.take(1, 7, size, FreshVram::Poison).unwrap();
        assert_eq!(again.ptr(), view);
        assert_eq!(pool.bytes(), 0);
        assert!(dwords(&again).iter().all(|&w| w == AMDGPU_POISON));

        scribble(&again);
        pool.give(1, 7, again);
        let zero = pool.take(1, 7, size, FreshVram::Zero).unwrap();
        assert!(dwords(&zero).iter().all(|&w| w == 0));
    }

    #[test]
    fn past_the_poison_limit_a_recycled_backing_reads_zero() {
        let pool = VramPool::new(POOL_LIMIT);
        let size = POISON_LIMIT + 2 * MIB;
        let first = backing(size);
        scribble(&first);
        pool.give(0, 0, first);
        let again = pool.take(0, 0, size, FreshVram::Poison).unwrap();
        let limit = (POISON_LIMIT / 4) as usize;
        let words = dwords(&again);
        assert!(words[..limit].iter().all(|&w| w == AMDGPU_POISON));
        assert!(words[limit..].iter().all(|&w| w == 0));
    }

    #[test]
    fn escaped_backings_stay_out() {
        let pool = VramPool::new(POOL_LIMIT);
        let exported = backing(MIB);
        let fd = exported.dup_fd().unwrap().unwrap();
        pool.give(0, 0, exported);
        let mapped = backing(MIB);
        let va = Backing::new_memfd("vram-pool-test-va", MIB).unwrap();
        // SAFETY: `va` is this test's own mapping of MIB bytes, replaced
        // whole and never used through `va` again.
        unsafe { mapped.map_fixed_at(va.ptr() as u64, MIB, 0) }.unwrap();
        pool.give(0, 0, mapped);
        let imported = Backing::from_fd(fd, MIB).unwrap();
        pool.give(0, 0, imported);
        assert_eq!(pool.bytes(), 0);
        assert!(pool.take(0, 0, MIB, FreshVram::Poison).is_none());
        // `va`'s Drop unmaps the range the mapped backing replaced.
        drop(va);
    }

    #[test]
    fn the_pool_keeps_at_most_its_limit_dropping_the_oldest() {
        let pool = VramPool::new(4 * MIB);
        let (a, b, c) = (backing(2 * MIB), backing(MIB), backing(2 * MIB));
        let (pb, pc) = (b.ptr(), c.ptr());
        pool.give(0, 0, a);
        pool.give(0, 0, b);
        pool.give(0, 0, c);
        // `a`, the least recently freed, left to make room for `c`.
        assert_eq!(pool.bytes(), 3 * MIB);
        assert_eq!(pool.take(0, 0, MIB, FreshVram::Zero).unwrap().ptr(), pb);
        let kept = pool.take(0, 0, 2 * MIB, FreshVram::Zero).unwrap();
        assert_eq!(kept.ptr(), pc);
        assert!(pool.take(0, 0, 2 * MIB, FreshVram::Zero).is_none());
        // A backing larger than the whole pool is never kept.
        pool.give(0, 0, backing(8 * MIB));
        assert_eq!(pool.bytes(), 0);
        pool.give(0, 0, kept);
        pool.clear();
        assert_eq!(pool.bytes(), 0);
    }
}
