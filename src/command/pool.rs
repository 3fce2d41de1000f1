//! The device's spare recordings.
//!
//! A recording's storage (its op arena, its list and set of used buffers,
//! its executables) grows to what one command buffer needs. Encoders and
//! passes take a recording from here and the queue gives the emptied shell
//! of each submitted command buffer back, so a program that records the
//! same kind of work again and again reuses that storage instead of
//! growing new lists every time: recording a dispatch then allocates
//! nothing. The pool keeps a few recordings; more would only hold memory.

use crate::lock_rank::{LockRank, Mutex};

use super::encoder::Recording;

/// Recordings kept at most: an encoder's and an open pass's, with room for
/// a few encoders recorded side by side.
const KEPT: usize = 8;

#[derive(Debug)]
pub(crate) struct RecordingPool {
    spare: Mutex<Vec<Recording>>,
}

impl Default for RecordingPool {
    fn default() -> Self {
        RecordingPool {
            spare: Mutex::new(LockRank::RecordingPool, Vec::new()),
        }
    }
}

impl RecordingPool {
    /// An empty recording, with storage from an earlier one when there is one.
    pub(crate) fn take(&self) -> Recording {
        self.spare.lock_unpoisoned().pop().unwrap_or_default()
    }

    /// Keep `rec`'s storage for a later recording (emptied first: dropping
    /// the buffers it names may take the registry lock, so not under this one).
    pub(crate) fn give(&self, mut rec: Recording) {
        rec.clear();
        let mut spare = self.spare.lock_unpoisoned();
        if spare.len() < KEPT {
            spare.push(rec);
        }
    }
}
