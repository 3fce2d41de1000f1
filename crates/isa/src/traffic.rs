//! Global-memory traffic of a counting dispatch: the bytes its waves read
//! and write outside LDS and scratch.
//!
//! Every global access of the emulator translates its range, either through
//! the workgroup's span cache (span_cache.rs, which tallies the ranges it
//! translates inline) or through `GpuMemory::translate`. A counting dispatch
//! runs its waves on a [`CountingMemory`] around the GPU's memory, which
//! tallies the second kind; the two tallies together are the traffic. A
//! range is what one translation covers: the lanes' bytes for a coalesced
//! or a per-lane access, and from the lowest to the highest lane's bytes
//! for a scattered access translated as one span. Instruction fetches are
//! not traffic. A dispatch that does not count pays one add per inline
//! translation and nothing else.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::{Access, GpuMemory, MemoryFault, PlainSpan};

/// Bytes translated, by [`Access`] kind.
#[derive(Debug, Default)]
pub(crate) struct Tally([AtomicU64; 4]);

impl Tally {
    /// Count `len` bytes of `access`. Each tally has one writer (the
    /// worker running the workgroup), so a load and a store suffice.
    #[inline(always)]
    pub(crate) fn add(&self, access: Access, len: u64) {
        let slot = &self.0[access as usize];
        slot.store(
            slot.load(Ordering::Relaxed).wrapping_add(len),
            Ordering::Relaxed,
        );
    }

    /// The counters, indexed by `Access as usize`, for translated code
    /// that adds to them as [`Tally::add`] does (monotonic atomic loads
    /// and stores; `AtomicU64` has `u64`'s layout).
    #[cfg(feature = "llvm-jit")]
    pub(crate) fn counters(&self) -> *const u64 {
        self.0.as_ptr().cast()
    }

    /// Bytes (read, written) since the last take, and start again from 0.
    /// An atomic both reads and writes its bytes.
    pub(crate) fn take(&self) -> (u64, u64) {
        let [read, write, atomic, execute] = &self.0;
        execute.store(0, Ordering::Relaxed);
        let (r, w, a) = (
            read.swap(0, Ordering::Relaxed),
            write.swap(0, Ordering::Relaxed),
            atomic.swap(0, Ordering::Relaxed),
        );
        (r + a, w + a)
    }
}

/// A `GpuMemory` that tallies the ranges translated through it.
pub(crate) struct CountingMemory<'a> {
    pub inner: &'a dyn GpuMemory,
    pub tally: Tally,
}

impl GpuMemory for CountingMemory<'_> {
    fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
        let r = self.inner.translate(addr, len, access);
        if r.is_ok() {
            self.tally.add(access, len);
        }
        r
    }

    fn plain_span(&self, addr: u64) -> Option<PlainSpan> {
        self.inner.plain_span(addr)
    }

    fn version(&self) -> Option<u64> {
        self.inner.version()
    }
}
