//! The sizes the runtime asked for: gfxsim's BOs are page-rounded (KFD
//! allocates whole pages, and so does the runtime's VA allocator), so only
//! the runtime knows where a buffer really ends. It says so through
//! `KfdDevice::note_allocation` (a real device ignores it); memcheck
//! checks global accesses against these sizes.
//!
//! Dispatches read a sorted snapshot, rebuilt only after the table changed,
//! so a lookup takes no lock.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::memory::PAGE_SIZE;

/// One allocation as its owner asked for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Allocation {
    /// GPU address of its first byte.
    pub base: u64,
    /// Bytes asked for (the BO holds them rounded up to a page).
    pub size: u64,
}

impl Allocation {
    /// One past the last byte asked for.
    pub fn end(&self) -> u64 {
        self.base.saturating_add(self.size)
    }

    /// One past the last byte of its pages.
    fn page_end(&self) -> u64 {
        self.base
            .saturating_add(self.size.div_ceil(PAGE_SIZE).max(1) * PAGE_SIZE)
    }
}

/// Every allocation the runtime described, sorted by address.
#[derive(Debug, Default)]
pub struct AllocationSnapshot {
    sorted: Vec<Allocation>,
}

impl AllocationSnapshot {
    /// The allocation whose pages hold `addr`.
    pub fn containing(&self, addr: u64) -> Option<Allocation> {
        let k = self.sorted.partition_point(|a| a.base <= addr);
        let a = *self.sorted.get(k.checked_sub(1)?)?;
        (addr < a.page_end()).then_some(a)
    }
}

/// The described allocations of one device.
#[derive(Debug, Default)]
pub struct Allocations {
    table: Mutex<Table>,
}

#[derive(Debug, Default)]
struct Table {
    by_base: BTreeMap<u64, u64>,
    /// The snapshot of `by_base` (None: it changed since).
    snapshot: Option<Arc<AllocationSnapshot>>,
}

impl Allocations {
    /// The allocation at `base` holds `size` requested bytes.
    pub fn insert(&self, base: u64, size: u64) {
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        t.by_base.insert(base, size);
        t.snapshot = None;
    }

    /// The allocation at `base` is gone.
    pub fn remove(&self, base: u64) {
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        if t.by_base.remove(&base).is_some() {
            t.snapshot = None;
        }
    }

    /// The allocations as they are now.
    pub fn snapshot(&self) -> Arc<AllocationSnapshot> {
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = &t.snapshot {
            return s.clone();
        }
        let s = Arc::new(AllocationSnapshot {
            sorted: t
                .by_base
                .iter()
                .map(|(&base, &size)| Allocation { base, size })
                .collect(),
        });
        t.snapshot = Some(s.clone());
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_belongs_to_the_allocation_whose_pages_hold_it() {
        let table = Allocations::default();
        table.insert(0x10_000, 100);
        table.insert(0x20_000, 8192);
        let s = table.snapshot();
        let a = Allocation {
            base: 0x10_000,
            size: 100,
        };
        assert_eq!(s.containing(0x10_000), Some(a));
        assert_eq!(s.containing(0x10_000 + 4095), Some(a));
        assert_eq!(s.containing(0x10_000 + 4096), None);
        assert_eq!(s.containing(0xFFFF), None);
        assert_eq!(s.containing(0x20_000 + 8191).map(|a| a.size), Some(8192));
        table.remove(0x10_000);
        assert_eq!(table.snapshot().containing(0x10_000), None);
    }
}
