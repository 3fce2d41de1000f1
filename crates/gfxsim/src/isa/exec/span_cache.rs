//! Memoised translations of a batch of workgroups (issue #4: per-wave overheads).
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
//! holds the page-table lock, so mappings cannot change). A cache is made
//! for one such borrow and dropped before it ends: `Dispatch::run_workgroups`
//! keeps it in its frame for the workgroups it runs under one borrow (a
//! worker's batch under one view, dispatch.rs), moving it into each
//! workgroup's `Env` and back; `Dispatch::run_workgroup` makes a fresh one.

use std::cell::Cell;

use crate::isa::{Access, GpuMemory, MemoryFault, PlainSpan};

/// Mappings remembered (a kernel touches a few buffers in turn: atomic_minmax
/// touches six, and with four slots missed on 7% of its instructions).
const SLOTS: usize = 8;

/// One remembered mapping; `allow` has bit `access as u8` set per allowed access.
#[derive(Clone, Copy)]
struct Entry {
    start: u64,
    end: u64,
    host: *mut u8,
    allow: u8,
}

/// An empty slot: no address is both >= start and < end.
const EMPTY: Entry = Entry {
    start: u64::MAX,
    end: 0,
    host: std::ptr::null_mut(),
    allow: 0,
};

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

/// The remembered mappings of the memory one `GpuMemory` borrow sees.
pub(crate) struct SpanCache {
    slots: [Cell<Entry>; SLOTS],
    /// Next slot to replace.
    next: Cell<usize>,
}

impl Default for SpanCache {
    fn default() -> Self {
        SpanCache {
            slots: [const { Cell::new(EMPTY) }; SLOTS],
            next: Cell::new(0),
        }
    }
}

impl SpanCache {
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
        for slot in &self.slots {
            let e = slot.get();
            if e.start <= addr && addr < e.end {
                // addr < e.end, so this is `addr + len <= e.end` without overflow.
                if len <= e.end - addr && e.allow & (1 << access as u8) != 0 {
                    return Ok(e.host.wrapping_add((addr - e.start) as usize));
                }
                // Mappings do not overlap: no other slot holds addr.
                break;
            }
        }
        self.translate_slow(mem, addr, len, access)
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
            let n = self.next.get();
            self.slots[n % SLOTS].set(Entry {
                start: s.start,
                end: s.end,
                host: s.host,
                allow: allow_bits(&s),
            });
            self.next.set(n.wrapping_add(1));
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
            }
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
