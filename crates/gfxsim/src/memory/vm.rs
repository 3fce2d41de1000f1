//! One GPU's virtual memory: the table of BOs mapped for that GPU, sorted by
//! GPU VA, and the view through which the command processor and the ISA
//! emulator translate GPU addresses to host pointers.
//!
//! Every device-side access goes through [`VmView::translate`], which
//! returns a pointer only when the whole range lies inside one mapping that
//! allows the access; anything else is a [`MemoryFault`], never a host
//! crash. A `VmView` holds the table's read lock, so mappings cannot change
//! (and their pages cannot go away) while a workgroup or a packet uses
//! them: MAP/UNMAP/FREE wait for running workgroups, as KFD's unmap waits
//! for the queues.
//!
//! In strict coherence mode (`coherence.rs`) a coarse BO's mapping points
//! at this GPU's copy of it and carries that copy, so translation can mark
//! stores dirty and catch stale reads; every memory mapping also carries the
//! agent's per-CU cache state for the BO (`coherence/cu_cache.rs`), which a
//! workgroup's view feeds with its packet's accesses. Every view also holds
//! the GPU's fence lock shared (taken before the table lock, as fences take
//! it), so the command processor's fences never run beside a workgroup.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard};

use crate::coherence::cu_cache::{CuLines, PacketLines};
use crate::coherence::{CoarseCache, GpuCoherence, PacketRef};
use aqueduct_isa::{Access, GpuMemory, MemoryFault, PlainSpan};

use super::backing::Backing;

/// One BO mapped at `[start, end)` of a GPU's address space.
#[derive(Clone, Debug)]
pub struct Mapping {
    pub start: u64,
    /// Exclusive.
    pub end: u64,
    /// The BO's handle (0 for device pages such as the event page).
    pub handle: u64,
    pub writable: bool,
    pub executable: bool,
    /// Memory behind the mapping; `start` corresponds to `backing.ptr()`.
    /// In strict coherence mode, for a coarse BO, the GPU's copy.
    pub backing: Arc<Backing>,
    /// The GPU's copy of a coarse BO (strict coherence mode only).
    pub coarse: Option<Arc<CoarseCache>>,
    /// The agent's per-CU caches for the BO (strict coherence mode only,
    /// memory the per-CU caches hold).
    pub cu: Option<Arc<CuLines>>,
}

/// Why an address has no usable mapping (for memory-exception data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    NotPresent,
    ReadOnly,
    NoExecute,
}

#[derive(Debug)]
pub struct GpuVm {
    table: RwLock<Vec<Mapping>>,
    /// The table's version (`GpuMemory::version`): a fresh
    /// [`next_version`] at creation and at every change, stored under the
    /// table's write lock.
    version: AtomicU64,
    /// Set once, before any mapping exists, in strict coherence mode.
    strict: OnceLock<Arc<GpuCoherence>>,
}

/// A value no table version had before (process-wide, so versions of
/// different GPUs never meet; never 0).
fn next_version() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Default for GpuVm {
    fn default() -> Self {
        GpuVm {
            table: RwLock::default(),
            version: AtomicU64::new(next_version()),
            strict: OnceLock::new(),
        }
    }
}

impl GpuVm {
    pub fn new() -> Self {
        Self::default()
    }

    /// Turn on strict coherence for this GPU (before anything is mapped).
    pub fn enable_strict_coherence(&self, coherence: Arc<GpuCoherence>) {
        if self.strict.set(coherence).is_err() {
            tracing::debug!("gfxsim: strict coherence was already on for this GPU");
        }
    }

    /// This GPU's strict-coherence state, if the mode is on.
    pub fn strict_coherence(&self) -> Option<&Arc<GpuCoherence>> {
        self.strict.get()
    }

    /// Run a packet's launch (acquire) fence; nothing when strict mode is off.
    /// A dispatch (`dispatch`) gets the per-CU cache side its workgroups'
    /// views feed ([`GpuVm::view_in`]). Must not be called while this
    /// thread holds a view.
    pub fn launch_fence(&self, packet: PacketRef, dispatch: bool) -> Option<Arc<PacketLines>> {
        self.fenced(|c, table, version| c.launch_fence(table, version, packet, dispatch))
            .flatten()
    }

    /// Run a packet's completion (release) fence; nothing when strict mode
    /// is off. `lines`: a dispatch's per-CU cache side. Must not be called
    /// while this thread holds a view.
    pub fn completion_fence(
        &self,
        packet: PacketRef,
        signalled: bool,
        lines: Option<&PacketLines>,
    ) {
        self.fenced(|c, table, _| c.completion_fence(table, packet, signalled, lines));
    }

    /// Run `fence` with the fence lock held exclusively and the table (and
    /// its version) read (strict coherence mode only).
    fn fenced<T>(&self, fence: impl FnOnce(&GpuCoherence, &[Mapping], u64) -> T) -> Option<T> {
        let c = self.strict.get()?;
        let _fence = c.fence.write().unwrap_or_else(|e| e.into_inner());
        let table = self.table.read().unwrap_or_else(|e| e.into_inner());
        Some(fence(c, &table, self.version.load(Ordering::Acquire)))
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<Mapping>> {
        self.table.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Insert a mapping; false if it overlaps an existing one.
    pub fn insert(&self, mapping: Mapping) -> bool {
        let mut table = self.write();
        let pos = table.partition_point(|m| m.start < mapping.start);
        let overlaps_prev = pos > 0 && table[pos - 1].end > mapping.start;
        let overlaps_next = pos < table.len() && table[pos].start < mapping.end;
        if overlaps_prev || overlaps_next {
            return false;
        }
        table.insert(pos, mapping);
        self.version.store(next_version(), Ordering::Release);
        true
    }

    /// Remove the mapping of BO `handle`; returns its range if there was one.
    /// A strict-mode copy of a coarse BO is written back first.
    pub fn remove(&self, handle: u64) -> Option<(u64, u64)> {
        let _fence = self
            .strict
            .get()
            .map(|c| c.fence.write().unwrap_or_else(|e| e.into_inner()));
        let mut table = self.write();
        let pos = table.iter().position(|m| m.handle == handle)?;
        let m = table.remove(pos);
        self.version.store(next_version(), Ordering::Release);
        if let (Some(cache), Some(c)) = (&m.coarse, self.strict.get()) {
            c.unmapped(cache);
        }
        Some((m.start, m.end))
    }

    /// A read view; holds the table's read lock (and in strict coherence
    /// mode the fence lock, shared) until dropped.
    pub fn view(&self) -> VmView<'_> {
        self.view_in(None)
    }

    /// A view for the workgroups of a dispatch whose per-CU cache side is
    /// `packet` (strict coherence mode; None otherwise, and for the command
    /// processor's own accesses, which do not go through a CU).
    pub fn view_in<'a>(&'a self, packet: Option<&'a PacketLines>) -> VmView<'a> {
        let fence = self
            .strict
            .get()
            .map(|c| c.fence.read().unwrap_or_else(|e| e.into_inner()));
        let table = self.table.read().unwrap_or_else(|e| e.into_inner());
        VmView {
            // Read under the table lock: it cannot change while the view lives.
            version: self.version.load(Ordering::Acquire),
            table,
            recent: std::array::from_fn(|_| AtomicUsize::new(usize::MAX)),
            victim: AtomicUsize::new(0),
            packet,
            _fence: fence,
        }
    }
}

/// The mapping table frozen for one user (a workgroup, a packet).
pub struct VmView<'a> {
    table: RwLockReadGuard<'a, Vec<Mapping>>,
    /// The table's version while this view holds it.
    version: u64,
    /// Indices of recently hit mappings (a tiny TLB: a kernel touches a few
    /// buffers in turn, e.g. kernargs, x and y). Only valid indices of the
    /// frozen table are stored, so a stale entry is merely a miss.
    recent: [AtomicUsize; RECENT],
    /// Next `recent` slot to replace.
    victim: AtomicUsize,
    /// The dispatch whose workgroups use this view (strict coherence mode).
    packet: Option<&'a PacketLines>,
    /// The GPU's fence lock, shared (strict coherence mode only); dropped
    /// after the table lock.
    _fence: Option<RwLockReadGuard<'a, ()>>,
}

/// Entries of a view's recent-mapping cache.
const RECENT: usize = 4;

impl VmView<'_> {
    /// The mapping table this view holds.
    pub fn mappings(&self) -> &[Mapping] {
        &self.table
    }

    /// The mapping containing `addr`, if any.
    #[inline]
    pub fn find(&self, addr: u64) -> Option<&Mapping> {
        self.find_indexed(addr).map(|(_, m)| m)
    }

    /// The mapping containing `addr` and its index in the table.
    #[inline]
    fn find_indexed(&self, addr: u64) -> Option<(usize, &Mapping)> {
        let table: &[Mapping] = &self.table;
        for slot in &self.recent {
            let index = slot.load(Ordering::Relaxed);
            if let Some(m) = table.get(index)
                && m.start <= addr
                && addr < m.end
            {
                return Some((index, m));
            }
        }
        self.find_in_table(addr)
    }

    /// `find` past the recent-mapping cache: a binary search of the table,
    /// remembering the hit.
    #[cold]
    fn find_in_table(&self, addr: u64) -> Option<(usize, &Mapping)> {
        let pos = self.table.partition_point(|m| m.start <= addr);
        if pos == 0 {
            return None;
        }
        let m = &self.table[pos - 1];
        if addr < m.end {
            let v = self.victim.load(Ordering::Relaxed);
            self.recent[v % RECENT].store(pos - 1, Ordering::Relaxed);
            self.victim.store(v.wrapping_add(1), Ordering::Relaxed);
            Some((pos - 1, m))
        } else {
            None
        }
    }

    /// Why `[addr, addr+len)` cannot be accessed as `access`, or None if it can.
    pub fn check(&self, addr: u64, len: u64, access: Access) -> Option<FaultKind> {
        let Some(m) = self.find(addr) else {
            return Some(FaultKind::NotPresent);
        };
        let Some(end) = addr.checked_add(len) else {
            return Some(FaultKind::NotPresent);
        };
        if end > m.end {
            return Some(FaultKind::NotPresent);
        }
        match access {
            Access::Write | Access::Atomic if !m.writable => Some(FaultKind::ReadOnly),
            Access::Execute if !m.executable => Some(FaultKind::NoExecute),
            _ => None,
        }
    }

    /// Read a plain-old-data value at `addr`.
    pub fn read<T: bytemuck::Pod>(&self, addr: u64) -> Result<T, MemoryFault> {
        let ptr = self.translate(addr, size_of::<T>() as u64, Access::Read)?;
        // SAFETY: translate checked that size_of::<T>() bytes at ptr lie in
        // one live mapping; the read is unaligned-safe and T is Pod.
        Ok(unsafe { std::ptr::read_unaligned(ptr as *const T) })
    }

    /// An 8-byte-aligned u64 at `addr`, for atomic access.
    pub fn atomic_u64(
        &self,
        addr: u64,
        access: Access,
    ) -> Result<&std::sync::atomic::AtomicU64, MemoryFault> {
        if !addr.is_multiple_of(8) {
            return Err(MemoryFault {
                address: addr,
                access,
            });
        }
        let ptr = self.translate(addr, 8, access)?;
        // SAFETY: 8 aligned bytes inside a live mapping that stays mapped
        // while this view (and so the returned borrow) lives; AtomicU64 has
        // the layout of u64 and the memory is shared, so atomics are the
        // right way to touch it.
        Ok(unsafe { &*(ptr as *const std::sync::atomic::AtomicU64) })
    }

    /// An aligned u16 at `addr`, for atomic access (packet headers).
    pub fn atomic_u16(
        &self,
        addr: u64,
        access: Access,
    ) -> Result<&std::sync::atomic::AtomicU16, MemoryFault> {
        if !addr.is_multiple_of(2) {
            return Err(MemoryFault {
                address: addr,
                access,
            });
        }
        let ptr = self.translate(addr, 2, access)?;
        // SAFETY: as for atomic_u64, with 2 aligned bytes.
        Ok(unsafe { &*(ptr as *const std::sync::atomic::AtomicU16) })
    }
}

impl GpuMemory for VmView<'_> {
    #[inline]
    fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
        let fault = MemoryFault {
            address: addr,
            access,
        };
        let (index, m) = self.find_indexed(addr).ok_or(fault)?;
        // addr < m.end, so this is `addr + len > m.end` without overflow.
        if len > m.end - addr {
            return Err(fault);
        }
        match access {
            Access::Write | Access::Atomic if !m.writable => return Err(fault),
            Access::Execute if !m.executable => return Err(fault),
            _ => {}
        }
        let offset = addr - m.start;
        if let Some(coarse) = &m.coarse {
            coarse.on_access(offset, len, access);
        }
        if let (Some(lines), Some(packet)) = (&m.cu, self.packet) {
            packet.on_access(self.version, index, lines, offset, len, access);
        }
        Ok(m.backing.ptr().wrapping_add(offset as usize))
    }

    /// Every mapping but one of strict mode's (a coarse copy, per-CU cache
    /// state: their translations record accesses) translates by the checks
    /// above and an offset.
    fn plain_span(&self, addr: u64) -> Option<PlainSpan> {
        let m = self.find(addr)?;
        if m.coarse.is_some() || m.cu.is_some() {
            return None;
        }
        Some(PlainSpan {
            start: m.start,
            end: m.end,
            host: m.backing.ptr(),
            writable: m.writable,
            executable: m.executable,
        })
    }

    fn version(&self) -> Option<u64> {
        Some(self.version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapping(start: u64, handle: u64) -> Mapping {
        Mapping {
            start,
            end: start + 4096,
            handle,
            writable: true,
            executable: false,
            backing: Arc::new(Backing::new_memfd("vm-test", 4096).expect("memfd")),
            coarse: None,
            cu: None,
        }
    }

    fn version(vm: &GpuVm) -> u64 {
        vm.view().version().expect("a view has a version")
    }

    /// Every change of the table gives it a version it never had, views of
    /// one state agree, and two GPUs' tables never share one.
    #[test]
    fn each_table_change_gets_a_new_version() {
        let (vm, other) = (GpuVm::new(), GpuVm::new());
        let v0 = version(&vm);
        assert_eq!(version(&vm), v0);
        assert_ne!(version(&other), v0);
        assert!(vm.insert(mapping(0x10000, 1)));
        let v1 = version(&vm);
        assert!(vm.insert(mapping(0x20000, 2)));
        let v2 = version(&vm);
        // A rejected (overlapping) insert changes nothing.
        assert!(!vm.insert(mapping(0x20000, 3)));
        assert_eq!(version(&vm), v2);
        assert_eq!(vm.remove(1), Some((0x10000, 0x11000)));
        let v3 = version(&vm);
        let all = [v0, v1, v2, v3, version(&other)];
        for (i, a) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|b| b != a), "{all:?}");
        }
    }
}
