//! Translations shared by every worker of a code cache, keyed by block
//! start. The code cache (code_cache.rs) looks them up and stores them only
//! at the generation the asking worker's blocks came from, under its block
//! map's lock, and drops them with the blocks `invalidate` removes: a worker
//! never runs a translation of code other than the block it decoded.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::translate::Translation;

/// Block start -> (block end, translation).
#[derive(Debug, Default)]
pub(crate) struct Shared {
    map: Mutex<HashMap<u64, (u64, Arc<Translation>)>>,
}

impl Shared {
    pub(crate) fn get(&self, start: u64) -> Option<Arc<Translation>> {
        let map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&start).map(|(_, t)| t.clone())
    }

    pub(crate) fn insert(&self, start: u64, end: u64, t: &Arc<Translation>) {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(start).or_insert_with(|| (end, t.clone()));
    }

    /// Drop the translations of blocks overlapping `[start, end)` (the
    /// code-cache rule: a block covers at least its first dword). Workers
    /// that hold one keep its code alive until they drop their blocks.
    pub(crate) fn forget(&self, start: u64, end: u64) {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.retain(|&s, (e, _)| (*e).max(s + 4) <= start || s >= end);
    }
}
