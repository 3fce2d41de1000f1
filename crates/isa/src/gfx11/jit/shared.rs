//! Translations shared by every worker of a code cache, keyed by block
//! start. The code cache (code_cache.rs) looks them up and stores them only
//! at the generation the asking worker's blocks came from, under its block
//! map's lock, and drops them with the blocks `invalidate` removes: a worker
//! never runs a translation of code other than the block it decoded.
//!
//! A [`Slot`] is a translation that may still be compiling (the LLVM back
//! end compiles on a background thread): the worker that creates it starts
//! the translation, every worker that reaches the block sees the same slot.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use super::tier::JitBackend;
use super::translation::Translation;

/// A translation being made: once filled, the translation or None (the
/// block stays interpreted).
#[derive(Debug, Default)]
pub(crate) struct Slot {
    /// Filled (the cheap test the wave loop makes on each block entry).
    ready: AtomicBool,
    result: Mutex<Option<Option<Arc<Translation>>>>,
    filled: Condvar,
}

/// Translations made so far in this process (slots filled with one).
static MADE: AtomicU64 = AtomicU64::new(0);

/// How many translations have been made so far in this process: a worker
/// that finds the number changed looks again for translations to adopt
/// (jit/tier.rs `Tiers::configure`).
pub(crate) fn translations_made() -> u64 {
    MADE.load(Ordering::Acquire)
}

impl Slot {
    /// Set the outcome (the first one stays).
    pub(crate) fn fill(&self, t: Option<Arc<Translation>>) {
        let mut r = self.result.lock().unwrap_or_else(|e| e.into_inner());
        if r.is_none() {
            if t.is_some() {
                MADE.fetch_add(1, Ordering::AcqRel);
            }
            *r = Some(t);
            self.ready.store(true, Ordering::Release);
            self.filled.notify_all();
        }
    }

    /// The outcome if there is one yet.
    pub(crate) fn try_get(&self) -> Option<Option<Arc<Translation>>> {
        if !self.ready.load(Ordering::Acquire) {
            return None;
        }
        self.result
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The outcome, waiting for it.
    pub(crate) fn wait(&self) -> Option<Arc<Translation>> {
        let mut r = self.result.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(t) = r.as_ref() {
                return t.clone();
            }
            r = self.filled.wait(r).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// A block's start, the back end of a translation of it and its wave size
/// (wave64: the list without fused pairs, registers in two halves).
type Key = (u64, JitBackend, bool);

/// The code a translation covers, `[lo, hi)`: its block, or its region's
/// members (jit/region.rs).
type Span = (u64, u64);

/// A region a block is a member of: the code the region covers, its slot
/// and the block's member index.
type Membership = (Span, Arc<Slot>, u32);

/// (Block start, back end, wave64) -> (the code it covers, its slot).
#[derive(Debug, Default)]
pub(crate) struct Shared {
    map: Mutex<HashMap<Key, (Span, Arc<Slot>)>>,
    /// (Block start, back end, wave64) -> the region for waves of that
    /// size it is a member of other than as its head (llvm/emit/region.rs:
    /// every member is an entry). The first region made with the block
    /// keeps it.
    members: Mutex<HashMap<Key, Membership>>,
}

impl Shared {
    /// The slot of `backend`'s translation of the block at `start` for
    /// waves of that size (`wave64`), covering the code `span` (`[lo, hi)`:
    /// the block, or a region's members), and whether it is new (the
    /// caller then makes the translation and fills it).
    pub(crate) fn slot(
        &self,
        start: u64,
        span: Span,
        backend: JitBackend,
        wave64: bool,
    ) -> (Arc<Slot>, bool) {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, s)) = map.get(&(start, backend, wave64)) {
            return (s.clone(), false);
        }
        let s = Arc::new(Slot::default());
        map.insert((start, backend, wave64), (span, s.clone()));
        (s, true)
    }

    /// The slot of `backend`'s translation of the block at `start` for
    /// waves of that size (`wave64`), if one was made or is being made.
    pub(crate) fn existing(
        &self,
        start: u64,
        backend: JitBackend,
        wave64: bool,
    ) -> Option<Arc<Slot>> {
        let map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&(start, backend, wave64)).map(|(_, s)| s.clone())
    }

    /// Record the blocks at `starts` (a region's members, head first, for
    /// waves of that size (`wave64`), covering `span`) as members of the
    /// region whose translation `slot` holds, where no other region has them.
    pub(crate) fn join(
        &self,
        starts: &[u64],
        span: Span,
        backend: JitBackend,
        wave64: bool,
        slot: &Arc<Slot>,
    ) {
        let mut members = self.members.lock().unwrap_or_else(|e| e.into_inner());
        for (j, &start) in starts.iter().enumerate().skip(1) {
            members
                .entry((start, backend, wave64))
                .or_insert_with(|| (span, slot.clone(), j as u32));
        }
    }

    /// The slot of the region for waves of that size (`wave64`) `backend`
    /// made with the block at `start` as a member other than its head, and
    /// the block's index in it.
    pub(crate) fn region_of(
        &self,
        start: u64,
        backend: JitBackend,
        wave64: bool,
    ) -> Option<(Arc<Slot>, u32)> {
        let members = self.members.lock().unwrap_or_else(|e| e.into_inner());
        members
            .get(&(start, backend, wave64))
            .map(|(_, slot, j)| (slot.clone(), *j))
    }

    /// Drop the translations covering code that overlaps `[start, end)`
    /// (the code-cache rule: a block covers at least its first dword).
    /// Workers that hold one keep its code alive until they drop their
    /// blocks.
    pub(crate) fn forget(&self, start: u64, end: u64) {
        let apart = |(lo, hi): Span| hi.max(lo + 4) <= start || lo >= end;
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.retain(|_, (span, _)| apart(*span));
        let mut members = self.members.lock().unwrap_or_else(|e| e.into_inner());
        members.retain(|_, (span, _, _)| apart(*span));
    }
}
