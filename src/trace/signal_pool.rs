//! The completion signals of traced packets, kept ready between
//! submissions.
//!
//! Each traced packet completes a signal of its own, so that the CP
//! stamps the packet's start and end into it (src/trace/submission.rs).
//! Writing a fresh 64-byte `amd_signal_t` per packet at submit would cost
//! the submitting thread a store to a cache line it last touched long
//! ago, about as much as the rest of an untraced dispatch's submit
//! (`cargo bench --bench dispatch`, its `traced` line). So each device
//! keeps a pool of signal pages: 64 signals (4 KiB) each, written once
//! when made (kind USER, value 1, no stamps) and written back to that
//! state after their stamps are read, on the trace thread. A traced
//! submission takes pages from the pool and only writes the signals'
//! addresses into its packets.
//!
//! The pages are carved from chunks of the agent's kernarg pool (memory
//! the host writes and the CP reads and writes, as the kernarg ring is).
//! The pool grows while traced work outruns the trace thread, and its
//! chunks are freed with the last holder of the pool (the device, or a
//! retired submission still waiting for the trace thread).

use std::sync::{Arc, Mutex};

use aqueduct_hsa::{Agent, Allocation, Runtime};
use aqueduct_kfd::abi::{AMD_SIGNAL_KIND_USER, AmdSignal};

use crate::error::QueueWriteError;

/// Bytes of one signal.
pub(crate) const SLOT: u64 = std::mem::size_of::<AmdSignal>() as u64;
/// Signals per page.
pub(crate) const PAGE_SLOTS: u64 = 64;
/// Pages per chunk allocated from the kernarg pool (256 KiB).
const CHUNK_PAGES: u64 = 64;

/// One page of signals: where the CP sees it and where the host does.
#[derive(Clone, Copy, Debug)]
struct Page {
    va: u64,
    host: usize,
}

/// A device's signal pages.
#[derive(Debug)]
pub(crate) struct SignalPool {
    runtime: Arc<Runtime>,
    agent: Agent,
    /// Pages every signal of which is in the initial state.
    free: Mutex<Vec<Page>>,
    /// The memory the pages are carved from.
    chunks: Mutex<Vec<Allocation>>,
}

/// The initial state of a traced packet's signal: the CP decrements it to
/// 0 when the packet completes (nothing waits for it) and writes its
/// stamps.
fn initial_signal() -> AmdSignal {
    AmdSignal {
        kind: AMD_SIGNAL_KIND_USER,
        value: 1,
        ..AmdSignal::default()
    }
}

impl SignalPool {
    /// An empty pool of `agent`'s (memory is taken on first use).
    pub(crate) fn new(runtime: Arc<Runtime>, agent: Agent) -> Arc<SignalPool> {
        Arc::new(SignalPool {
            runtime,
            agent,
            free: Mutex::new(Vec::new()),
            chunks: Mutex::new(Vec::new()),
        })
    }

    /// Pages holding `slots` signals, each in the initial state.
    pub(crate) fn take(self: &Arc<Self>, slots: u64) -> Result<SignalPages, QueueWriteError> {
        let wanted = slots.div_ceil(PAGE_SLOTS) as usize;
        let mut pages = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            let from = free.len().saturating_sub(wanted);
            free.split_off(from)
        };
        while pages.len() < wanted {
            // Not under the free list's lock: the trace thread gives pages
            // back meanwhile.
            let more = self.grow()?;
            let missing = wanted - pages.len();
            let spare = more.len().saturating_sub(missing);
            pages.extend_from_slice(&more[spare..]);
            if spare > 0 {
                let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
                free.extend_from_slice(&more[..spare]);
            }
        }
        Ok(SignalPages {
            pool: self.clone(),
            pages,
            slots,
        })
    }

    /// A new chunk's pages, every signal initial.
    fn grow(&self) -> Result<Vec<Page>, QueueWriteError> {
        let bytes = CHUNK_PAGES * PAGE_SLOTS * SLOT;
        let mut chunk = self.runtime.kernarg_pool(&self.agent)?.allocate(bytes)?;
        let va = chunk.gpu_va();
        let host = chunk
            .as_mut_slice()
            .ok_or(QueueWriteError::KernargNotHostMapped)?
            .as_mut_ptr();
        let signals = host.cast::<AmdSignal>();
        for k in 0..(CHUNK_PAGES * PAGE_SLOTS) as usize {
            // SAFETY: the chunk holds CHUNK_PAGES * PAGE_SLOTS signals from `host`, which is page-aligned (a mapping of its own), and no packet refers to it yet.
            unsafe { signals.add(k).write(initial_signal()) };
        }
        let pages = (0..CHUNK_PAGES)
            .map(|p| Page {
                va: va + p * PAGE_SLOTS * SLOT,
                host: host as usize + (p * PAGE_SLOTS * SLOT) as usize,
            })
            .collect();
        self.chunks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(chunk);
        Ok(pages)
    }

    /// Signal pages in the pool, free or taken (for tests).
    #[cfg(test)]
    fn pages(&self) -> usize {
        self.chunks.lock().unwrap_or_else(|e| e.into_inner()).len() * CHUNK_PAGES as usize
    }
}

/// A submission's signals: slot `k` is signal `k % 64` of page `k / 64`.
/// Dropping them puts the used signals back in the initial state and the
/// pages back in the pool, so they must outlive every packet that
/// completes one of them: a submission keeps them until it retires.
#[derive(Debug)]
pub(crate) struct SignalPages {
    pool: Arc<SignalPool>,
    pages: Vec<Page>,
    slots: u64,
}

impl SignalPages {
    /// Slot `k`'s page and its byte offset there.
    fn place(&self, k: u64) -> (Page, u64) {
        (
            self.pages[(k / PAGE_SLOTS) as usize],
            (k % PAGE_SLOTS) * SLOT,
        )
    }

    fn host(&self, k: u64) -> *mut AmdSignal {
        let (page, offset) = self.place(k);
        (page.host + offset as usize) as *mut AmdSignal
    }

    /// The GPU address of slot `k`, for a packet's completion signal.
    pub(crate) fn va(&self, k: u64) -> Option<u64> {
        (k < self.slots).then(|| {
            let (page, offset) = self.place(k);
            page.va + offset
        })
    }

    /// Slots `from..from + count` (as far as there are) as runs of
    /// consecutive addresses: the GPU address of each run's first signal
    /// and the run's length (each run inside one page).
    pub(crate) fn runs(&self, from: u64, count: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let end = from.saturating_add(count).min(self.slots);
        let mut k = from;
        std::iter::from_fn(move || {
            if k >= end {
                return None;
            }
            let (page, offset) = self.place(k);
            let n = (PAGE_SLOTS - k % PAGE_SLOTS).min(end - k);
            k += n;
            Some((page.va + offset, n))
        })
    }

    /// Give the pages up without returning them to the pool: a packet may
    /// still complete one of their signals. Their memory is freed with the
    /// pool.
    pub(crate) fn abandon(mut self) {
        self.pages.clear();
        self.slots = 0;
    }

    /// The stamps of slot `k`, when the CP wrote both. Read once the packet
    /// completed (its submission retired).
    pub(crate) fn ticks(&self, k: u64) -> Option<(u64, u64)> {
        if k >= self.slots {
            return None;
        }
        // SAFETY: slot k is inside a page of the pool's memory (k < slots), which the pool keeps mapped while this holds it; the packet completing it is done.
        let s = unsafe { std::ptr::read_volatile(self.host(k)) };
        (s.start_ts != 0 && s.end_ts >= s.start_ts).then_some((s.start_ts, s.end_ts))
    }
}

impl Drop for SignalPages {
    fn drop(&mut self) {
        for k in 0..self.slots {
            // SAFETY: as in `ticks`; nothing completes the signal any more.
            unsafe { std::ptr::write_volatile(self.host(k), initial_signal()) };
        }
        let mut free = self.pool.free.lock().unwrap_or_else(|e| e.into_inner());
        free.append(&mut self.pages);
    }
}

#[cfg(all(test, feature = "sim"))]
mod tests {
    use super::*;

    fn pool() -> Arc<SignalPool> {
        let device = crate::device_select::open_device(crate::DeviceChoice::Sim).expect("gfxsim");
        let runtime = Runtime::new(device).expect("runtime");
        let agent = runtime.gpu_agents().next().expect("a GPU").clone();
        SignalPool::new(runtime, agent)
    }

    #[test]
    fn pages_come_back_initial_and_are_reused() {
        let pool = pool();
        let pages = pool.take(100).expect("pages");
        assert_eq!(pages.slots, 100);
        assert_eq!(pages.pages.len(), 2);
        assert_eq!(pages.va(100), None);
        let va: Vec<u64> = (0..100).map(|k| pages.va(k).expect("in range")).collect();
        assert!(va.windows(2).all(|w| w[0] != w[1]));
        assert!(va.iter().all(|a| a.is_multiple_of(SLOT)));
        // Stamp two signals as the CP would.
        for k in [0u64, 99] {
            // SAFETY: slot k of the taken pages.
            unsafe {
                let s = pages.host(k);
                (*s).value = 0;
                (*s).start_ts = 10 + k;
                (*s).end_ts = 20 + k;
            }
        }
        assert_eq!(pages.ticks(0), Some((10, 20)));
        assert_eq!(pages.ticks(99), Some((109, 119)));
        assert_eq!(pages.ticks(1), None, "never stamped");
        // Runs cover the same addresses as slot by slot, in order.
        let by_runs: Vec<u64> = pages
            .runs(30, 100)
            .flat_map(|(va, n)| (0..n).map(move |j| va + j * SLOT))
            .collect();
        assert_eq!(by_runs, va[30..]);
        assert_eq!(pages.runs(0, 100).count(), 2, "one run per page");
        let first = pages.va(0);
        drop(pages);
        let again = pool.take(64).expect("pages");
        assert_eq!(pool.pages(), CHUNK_PAGES as usize, "no new chunk");
        let reused = (0..64).any(|k| again.va(k) == first);
        let back = pool.take(CHUNK_PAGES * PAGE_SLOTS).expect("pages");
        assert!(reused || (0..back.slots).any(|k| back.va(k) == first));
        for p in [&again, &back] {
            for k in 0..p.slots {
                // SAFETY: slot k of taken pages.
                let s = unsafe { std::ptr::read(p.host(k)) };
                assert_eq!(
                    (s.kind, s.value, s.start_ts, s.end_ts),
                    (AMD_SIGNAL_KIND_USER, 1, 0, 0)
                );
            }
        }
        assert_eq!(pool.pages(), 2 * CHUNK_PAGES as usize, "grew by one chunk");
    }

    #[test]
    fn abandoned_pages_stay_out_of_the_pool() {
        let pool = pool();
        pool.take(CHUNK_PAGES * PAGE_SLOTS)
            .expect("pages")
            .abandon();
        assert_eq!(pool.pages(), CHUNK_PAGES as usize);
        let again = pool.take(1).expect("pages");
        assert_eq!(pool.pages(), 2 * CHUNK_PAGES as usize, "a new chunk");
        drop(again);
    }
}
