//! Memoised translations of a batch of workgroups.
//!
//! `GpuMemory::translate` is a virtual call that finds the mapping, checks
//! the range and the permission and, for strict coherence's coarse copies,
//! records the access. The hottest callers (s_load, coalesced global loads
//! and stores) translate the same few buffers again and again, so the
//! workgroup's `Env` remembers the last few mappings whose translations have
//! no side effect (`GpuMemory::plain_span`) and translates inside them
//! inline. A miss, a range past the mapping's end or a permission it lacks
//! goes to `GpuMemory::translate`, so faults and coherence records are
//! exactly what they were without the cache.
//!
//! The host pointers stay valid as long as the `GpuMemory` borrow (a VmView
//! holds the page-table lock, so mappings cannot change), and from one
//! borrow to the next while the memory's version (`GpuMemory::version`)
//! stays the same: every map and unmap gives the table a new one. So a
//! worker keeps its cache in its `WorkerContext` across batches and
//! dispatches, and [`SpanCache::revalidate`] empties it whenever a batch
//! starts under another version (or a memory that has none); a batch of a
//! small dispatch then no longer misses once per buffer.
//! `Dispatch::run_workgroups` lends it to the batch's `Env` (and
//! `Dispatch::run_workgroup` is a batch of one).
//!
//! Translated blocks (gfx11/jit/llvm/global.rs) look the slots up
//! themselves: [`Entry`] is `repr(C)` and the `ENTRY_*` constants give its
//! layout, [`SpanCache::inline_view`] the slots and the tally. A miss there
//! runs the instruction through the interpreter, which fills the slots.

use std::cell::Cell;

use crate::traffic::Tally;
use crate::{Access, GpuMemory, MemoryFault, PlainSpan};

/// Mappings remembered (a kernel touches a few buffers in turn: atomic_minmax
/// touches six, and with four slots missed on 7% of its instructions).
pub(crate) const SLOTS: usize = 8;

/// One remembered mapping; `allow` has bit `access as u8` set per allowed access.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct Entry {
    start: u64,
    end: u64,
    host: *mut u8,
    allow: u8,
}

impl Entry {
    /// The host address of `[addr, addr + len)` when the mapping, which
    /// holds `addr`, holds the whole range and allows `access`.
    #[inline(always)]
    fn inside(&self, addr: u64, len: u64, access: Access) -> Option<*mut u8> {
        // addr < self.end, so this is `addr + len <= end` without overflow.
        (len <= self.end - addr && self.allow & (1 << access as u8) != 0)
            .then(|| self.host.wrapping_add((addr - self.start) as usize))
    }
}

/// Byte offsets of an [`Entry`]'s fields and the distance between slots,
/// for translated code.
#[cfg(feature = "llvm-jit")]
pub(crate) const ENTRY_START: usize = std::mem::offset_of!(Entry, start);
#[cfg(feature = "llvm-jit")]
pub(crate) const ENTRY_END: usize = std::mem::offset_of!(Entry, end);
#[cfg(feature = "llvm-jit")]
pub(crate) const ENTRY_HOST: usize = std::mem::offset_of!(Entry, host);
#[cfg(feature = "llvm-jit")]
pub(crate) const ENTRY_ALLOW: usize = std::mem::offset_of!(Entry, allow);
#[cfg(feature = "llvm-jit")]
pub(crate) const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// An empty slot: no address is both >= start and < end.
const EMPTY: Entry = Entry {
    start: u64::MAX,
    end: 0,
    host: std::ptr::null_mut(),
    allow: 0,
};

/// Slots that hold nothing, for translated code that must not translate
/// inline (a workgroup with an observer, which sees every access).
#[cfg(feature = "llvm-jit")]
pub(crate) struct NoSpans([Entry; SLOTS]);

// SAFETY: the slots are never written, and their null pointers never read.
#[cfg(feature = "llvm-jit")]
unsafe impl Sync for NoSpans {}

#[cfg(feature = "llvm-jit")]
pub(crate) static NO_SPANS: NoSpans = NoSpans([EMPTY; SLOTS]);

#[cfg(feature = "llvm-jit")]
impl NoSpans {
    pub(crate) fn slots(&self) -> *const Entry {
        self.0.as_ptr()
    }
}

/// The access kinds a span allows, as VmView::translate decides them.
fn allow_bits(s: &PlainSpan) -> u8 {
    let mut bits = 1 << Access::Read as u8;
    if s.writable {
        bits |= 1 << Access::Write as u8 | 1 << Access::Atomic as u8;
    }
    if s.executable {
        bits |= 1 << Access::Execute as u8;
    }
    bits
}

/// The remembered mappings of the memory one `GpuMemory` version shows.
pub(crate) struct SpanCache {
    slots: [Cell<Entry>; SLOTS],
    /// Next slot to replace.
    next: Cell<usize>,
    /// The version the slots were filled under (0: none, never a version).
    version: u64,
    /// Bytes translated inline (traffic.rs).
    pub(crate) tally: Tally,
}

// SAFETY: the host pointers are only dereferenced through a borrow of the
// memory they came from under the same version (`revalidate`), whichever
// thread holds the cache.
unsafe impl Send for SpanCache {}

impl Default for SpanCache {
    fn default() -> Self {
        SpanCache {
            slots: [const { Cell::new(EMPTY) }; SLOTS],
            next: Cell::new(0),
            version: 0,
            tally: Tally::default(),
        }
    }
}

impl SpanCache {
    /// Make the cache valid for `mem` (a new borrow): keep the slots when
    /// they were filled under `mem`'s version, forget them otherwise.
    pub(crate) fn revalidate(&mut self, mem: &dyn GpuMemory) {
        let version = mem.version().unwrap_or(0);
        if version == 0 || version != self.version {
            *self = SpanCache::default();
            self.version = version;
        }
    }

    /// The slots (`SLOTS` entries one after the other: `Cell` has its
    /// value's layout) and the tally (`Tally::counters`), for translated
    /// code that does what [`SpanCache::translate`]'s hit does: find the
    /// slot holding the address, check the range and the access, add the
    /// length to the access's counter.
    #[cfg(feature = "llvm-jit")]
    pub(crate) fn inline_view(&self) -> (*const Entry, *const u64) {
        (self.slots.as_ptr().cast(), self.tally.counters())
    }

    /// `mem.translate(addr, len, access)`, from a remembered mapping when one
    /// holds `addr` and allows the access.
    #[inline(always)]
    pub(crate) fn translate(
        &self,
        mem: &dyn GpuMemory,
        addr: u64,
        len: u64,
        access: Access,
    ) -> Result<*mut u8, MemoryFault> {
        if let Some(host) = self
            .remembered(addr)
            .and_then(|e| e.inside(addr, len, access))
        {
            self.tally.add(access, len);
            return Ok(host);
        }
        self.translate_slow(mem, addr, len, access)
    }

    /// The remembered mapping holding `addr`: mappings do not overlap, so
    /// no other slot holds it.
    #[inline(always)]
    fn remembered(&self, addr: u64) -> Option<Entry> {
        self.slots
            .iter()
            .map(Cell::get)
            .find(|e| e.start <= addr && addr < e.end)
    }

    /// Remember the plain mapping `s` in place of the oldest slot.
    fn remember(&self, s: &PlainSpan) -> Entry {
        let e = Entry {
            start: s.start,
            end: s.end,
            host: s.host,
            allow: allow_bits(s),
        };
        let n = self.next.get();
        self.slots[n % SLOTS].set(e);
        self.next.set(n.wrapping_add(1));
        e
    }

    /// The host address of `[addr, addr + len)` when one plain mapping
    /// (`GpuMemory::plain_span`) holds it and allows `access`, remembering
    /// that mapping; None otherwise. Nothing is recorded or counted either
    /// way: where it answers, `translate` of any range inside gives the
    /// same pointers with no other effect, so a caller that moves the bytes
    /// itself counts them itself.
    #[inline(always)]
    pub(crate) fn plain(
        &self,
        mem: &dyn GpuMemory,
        addr: u64,
        len: u64,
        access: Access,
    ) -> Option<*mut u8> {
        let e = match self.remembered(addr) {
            Some(e) => e,
            None => self.remember(&mem.plain_span(addr)?),
        };
        e.inside(addr, len, access)
    }

    /// The translation itself, remembering its mapping when it is plain.
    #[inline(never)]
    fn translate_slow(
        &self,
        mem: &dyn GpuMemory,
        addr: u64,
        len: u64,
        access: Access,
    ) -> Result<*mut u8, MemoryFault> {
        let r = mem.translate(addr, len, access);
        if r.is_ok()
            && let Some(s) = mem.plain_span(addr)
        {
            self.remember(&s);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Three mappings: plain read/write, plain read/execute, and one whose
    /// translations record accesses (as a strict-mode coarse copy does).
    struct Fake {
        rw: Vec<u8>,
        rx: Vec<u8>,
        recording: Vec<u8>,
        /// Every `translate` call, in order.
        log: Mutex<Vec<(u64, u64, Access)>>,
        /// What `version` says.
        version: Option<u64>,
    }

    const RW: (u64, u64) = (0x1000, 0x3000);
    const RX: (u64, u64) = (0x3000, 0x4000);
    const REC: (u64, u64) = (0x8000, 0x9000);

    impl Fake {
        fn new() -> Fake {
            Fake {
                rw: vec![0; (RW.1 - RW.0) as usize],
                rx: vec![0; (RX.1 - RX.0) as usize],
                recording: vec![0; (REC.1 - REC.0) as usize],
                log: Mutex::new(Vec::new()),
                version: None,
            }
        }
        fn translations(&self) -> usize {
            self.log.lock().unwrap().len()
        }
        /// The mapping holding addr, and whether its translations record accesses.
        fn mapping(&self, addr: u64) -> Option<(PlainSpan, bool)> {
            [
                (RW, self.rw.as_ptr(), true, false, false),
                (RX, self.rx.as_ptr(), false, true, false),
                (REC, self.recording.as_ptr(), true, false, true),
            ]
            .into_iter()
            .find(|(r, ..)| r.0 <= addr && addr < r.1)
            .map(|(r, p, writable, executable, records)| {
                let span = PlainSpan {
                    start: r.0,
                    end: r.1,
                    host: p as *mut u8,
                    writable,
                    executable,
                };
                (span, records)
            })
        }
    }

    impl GpuMemory for Fake {
        fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
            self.log.lock().unwrap().push((addr, len, access));
            let fault = MemoryFault {
                address: addr,
                access,
            };
            let (m, _) = self.mapping(addr).ok_or(fault)?;
            if len > m.end - addr {
                return Err(fault);
            }
            match access {
                Access::Write | Access::Atomic if !m.writable => Err(fault),
                Access::Execute if !m.executable => Err(fault),
                _ => Ok(m.host.wrapping_add((addr - m.start) as usize)),
            }
        }
        fn plain_span(&self, addr: u64) -> Option<PlainSpan> {
            let (span, records) = self.mapping(addr)?;
            (!records).then_some(span)
        }
        fn version(&self) -> Option<u64> {
            self.version
        }
    }

    /// A cache revalidated under the version it was filled under keeps its
    /// mappings; under another version, or a memory without one, it starts
    /// empty (each of those translations reaches `translate` again).
    #[test]
    fn revalidate_keeps_the_slots_only_under_the_same_version() {
        let mut mem = Fake::new();
        mem.version = Some(7);
        let mut cache = SpanCache::default();
        cache.revalidate(&mem);
        let p = cache.translate(&mem, RW.0 + 8, 4, Access::Write).unwrap();
        assert_eq!(mem.translations(), 1);
        cache.revalidate(&mem);
        assert_eq!(cache.translate(&mem, RW.0 + 8, 4, Access::Write), Ok(p));
        assert_eq!(mem.translations(), 1, "same version: a hit");
        mem.version = Some(8);
        cache.revalidate(&mem);
        assert_eq!(cache.translate(&mem, RW.0 + 8, 4, Access::Write), Ok(p));
        assert_eq!(mem.translations(), 2, "new version: a miss");
        mem.version = None;
        cache.revalidate(&mem);
        cache.translate(&mem, RW.0 + 8, 4, Access::Write).unwrap();
        cache.revalidate(&mem);
        cache.translate(&mem, RW.0 + 8, 4, Access::Write).unwrap();
        assert_eq!(mem.translations(), 4, "no version: a miss per borrow");
    }

    /// The cache gives what `translate` gives for every address, length and
    /// access (edges, faults, permissions), and every access to the recording
    /// mapping still reaches `translate`.
    #[test]
    fn cache_matches_translate() {
        let mem = Fake::new();
        let cache = SpanCache::default();
        let accesses = [Access::Read, Access::Write, Access::Atomic, Access::Execute];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut hits = 0;
        let mut recorded = 0;
        for i in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Addresses near every mapping edge, and some far outside.
            let edges = [RW.0, RW.1, RX.1, REC.0, REC.1, 0, u64::MAX - 8];
            let base = edges[(x % edges.len() as u64) as usize];
            let addr = base.wrapping_add((x >> 8) % 64).wrapping_sub(32);
            let len = [0, 1, 4, 8, 16, 128][((x >> 20) % 6) as usize];
            let access = accesses[((x >> 30) % 4) as usize];
            let before = mem.log.lock().unwrap().len();
            let got = cache.translate(&mem, addr, len, access);
            let went_slow = mem.log.lock().unwrap().len() > before;
            let want = mem.translate(addr, len, access);
            assert_eq!(got, want, "step {i}: {addr:#x}+{len} {access:?}");
            if !went_slow {
                hits += 1;
            }
            if REC.0 <= addr && addr < REC.1 {
                recorded += 1;
                assert!(went_slow, "step {i}: recording mapping skipped translate");
            }
        }
        assert!(hits > 2_000, "the cache was hardly used ({hits} hits)");
        assert!(recorded > 1_000, "the recording mapping was hardly tried");
    }
}
