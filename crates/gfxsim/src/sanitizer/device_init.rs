//! initcheck's record of device memory: which bytes of each VRAM BO
//! something on the device wrote since the BO was allocated, so a kernel's
//! read of bytes nothing wrote is a finding. VRAM's first contents are not
//! defined (amdgpu wipes VRAM on release, `amdgpu_bo_release_notify`, and
//! clears it on allocation only when asked: AMDGPU_GEM_CREATE_VRAM_CLEARED,
//! amdgpu_object.c), so such a read sees whatever was there.
//!
//! Writers the device makes are all seen: kernel stores and atomics (the
//! dispatch observer), SDMA copies, fills, fences and atomics. The host's
//! writes are not: a BO the process maps with mmap(2) of the render node
//! counts as written from then on, whole. A BO nobody maps (device-local
//! memory without host access, the facade's device buffers) is tracked
//! byte by byte, one bit per byte, set atomically by any thread.
//!
//! Dispatches read a sorted snapshot of the tracked BOs, rebuilt only after
//! the set changed; the bitmaps themselves are shared, so marks made
//! during a dispatch are seen by the next read.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::allocations::Allocation;

/// One tracked BO: its bytes, one bit each (set: written).
#[derive(Debug)]
pub(super) struct Written {
    base: u64,
    size: u64,
    bits: Box<[AtomicU64]>,
}

impl Written {
    fn new(base: u64, size: u64) -> Written {
        Written {
            base,
            size,
            bits: (0..size.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    pub(super) fn allocation(&self) -> Allocation {
        Allocation {
            base: self.base,
            size: self.size,
        }
    }

    /// The BO's byte offsets of `[addr, addr + len)` (clipped to the BO).
    fn span(&self, addr: u64, len: u64) -> (u64, u64) {
        let start = addr.saturating_sub(self.base).min(self.size);
        let end = addr
            .saturating_add(len)
            .saturating_sub(self.base)
            .min(self.size);
        (start, end)
    }

    /// Each 64-bit word of the bitmap over `[start, end)` with the mask of
    /// its bits in the range.
    fn words(start: u64, end: u64) -> impl Iterator<Item = (usize, u64)> {
        let mut at = start;
        std::iter::from_fn(move || {
            if at >= end {
                return None;
            }
            let word = at / 64;
            let lo = at % 64;
            let hi = (end - word * 64).min(64);
            at = word * 64 + hi;
            let mask = if hi - lo == 64 {
                !0
            } else {
                ((1u64 << (hi - lo)) - 1) << lo
            };
            Some((word as usize, mask))
        })
    }

    /// Mark `[addr, addr + len)` written.
    pub(super) fn mark(&self, addr: u64, len: u64) {
        let (start, end) = self.span(addr, len);
        for (w, mask) in Self::words(start, end) {
            if self.bits[w].load(Ordering::Relaxed) & mask != mask {
                self.bits[w].fetch_or(mask, Ordering::Relaxed);
            }
        }
    }

    /// The first byte of `[addr, addr + len)` never written.
    pub(super) fn first_unwritten(&self, addr: u64, len: u64) -> Option<u64> {
        let (start, end) = self.span(addr, len);
        Self::words(start, end).find_map(|(w, mask)| {
            let missing = !self.bits[w].load(Ordering::Relaxed) & mask;
            (missing != 0).then(|| self.base + w as u64 * 64 + missing.trailing_zeros() as u64)
        })
    }
}

/// The tracked BOs, sorted by address.
#[derive(Debug, Default)]
pub(super) struct WrittenSnapshot {
    sorted: Vec<Arc<Written>>,
}

impl WrittenSnapshot {
    /// The tracked BO holding `addr`.
    pub(super) fn containing(&self, addr: u64) -> Option<&Written> {
        let k = self.sorted.partition_point(|w| w.base <= addr);
        let w = self.sorted.get(k.checked_sub(1)?)?;
        (addr < w.base + w.size).then_some(&**w)
    }

    /// Mark `[addr, addr + len)` written in every tracked BO it meets.
    pub(super) fn mark(&self, addr: u64, len: u64) {
        let end = addr.saturating_add(len);
        let k = self.sorted.partition_point(|w| w.base + w.size <= addr);
        for w in self.sorted[k..].iter().take_while(|w| w.base < end) {
            w.mark(addr, len);
        }
    }
}

/// The device's tracked VRAM BOs.
#[derive(Debug, Default)]
pub(super) struct DeviceMemoryInit {
    table: Mutex<Table>,
}

#[derive(Debug, Default)]
struct Table {
    by_base: BTreeMap<u64, Arc<Written>>,
    snapshot: Option<Arc<WrittenSnapshot>>,
}

impl DeviceMemoryInit {
    fn edit(&self, f: impl FnOnce(&mut BTreeMap<u64, Arc<Written>>) -> bool) {
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        if f(&mut t.by_base) {
            t.snapshot = None;
        }
    }

    /// A VRAM BO of `size` bytes at `base` is allocated: nothing written yet.
    pub(super) fn track(&self, base: u64, size: u64) {
        self.edit(|m| {
            m.insert(base, Arc::new(Written::new(base, size)));
            true
        });
    }

    /// The BO at `base` is freed, or mapped for the host (whose writes the
    /// device cannot see): it is no longer tracked.
    pub(super) fn forget(&self, base: u64) {
        self.edit(|m| m.remove(&base).is_some());
    }

    pub(super) fn snapshot(&self) -> Arc<WrittenSnapshot> {
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = &t.snapshot {
            return s.clone();
        }
        let s = Arc::new(WrittenSnapshot {
            sorted: t.by_base.values().cloned().collect(),
        });
        t.snapshot = Some(s.clone());
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_and_reads_follow_the_bytes() {
        let w = Written::new(0x1000, 200);
        assert_eq!(w.first_unwritten(0x1000, 4), Some(0x1000));
        w.mark(0x1000 + 3, 70);
        assert_eq!(w.first_unwritten(0x1000 + 3, 70), None);
        assert_eq!(w.first_unwritten(0x1000, 4), Some(0x1000));
        assert_eq!(w.first_unwritten(0x1000 + 70, 8), Some(0x1000 + 73));
        w.mark(0x1000, 200);
        assert_eq!(w.first_unwritten(0x1000, 200), None);
        // Past the BO: clipped, nothing to find.
        assert_eq!(w.first_unwritten(0x1000 + 198, 16), None);
    }

    #[test]
    fn a_forgotten_bo_is_no_longer_found() {
        let d = DeviceMemoryInit::default();
        d.track(0x10_000, 4096);
        d.track(0x20_000, 64);
        let s = d.snapshot();
        assert!(s.containing(0x10_000 + 4095).is_some());
        assert!(s.containing(0x10_000 + 4096).is_none());
        // A write across both BOs' neighbourhood marks what lies in each.
        s.mark(0x20_000 - 8, 16);
        let second = s.containing(0x20_000).unwrap();
        assert_eq!(second.first_unwritten(0x20_000, 8), None);
        assert_eq!(second.first_unwritten(0x20_000, 9), Some(0x20_008));
        d.forget(0x10_000);
        assert!(d.snapshot().containing(0x10_000).is_none());
        assert!(d.snapshot().containing(0x20_000).is_some());
    }
}
