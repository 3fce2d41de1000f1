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

/// Op storage a kept recording may hold: a recording that grew past it (a
/// command buffer of tens of thousands of dispatches) is dropped instead,
/// so one huge command buffer does not pin its memory for the device's life.
const KEPT_BYTES: usize = 4 << 20;

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
        if rec.ops.capacity_bytes() > KEPT_BYTES {
            return;
        }
        rec.clear();
        let mut spare = self.spare.lock_unpoisoned();
        if spare.len() < KEPT {
            spare.push(rec);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recording_that_grew_past_the_bound_is_not_kept() {
        let pool = RecordingPool::default();
        let mut big = Recording::new();
        big.ops.kernarg_mut().reserve(KEPT_BYTES + 1);
        pool.give(big);
        assert_eq!(pool.spare.lock_unpoisoned().len(), 0);
        let mut small = Recording::new();
        small.ops.kernarg_mut().reserve(4096);
        pool.give(small);
        let kept = pool.take();
        assert!(kept.ops.capacity_bytes() >= 4096);
        assert_eq!(pool.spare.lock_unpoisoned().len(), 0);
    }
}
