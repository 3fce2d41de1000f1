//! The set of buffers a recording uses, as a bitset over registry slots.
//!
//! A recording lists each buffer it uses once (submit checks each one).
//! Deduplicating by a hash set costs a hash and a probe per binding; the
//! registry's keys are slot indices with a version, and a recording keeps
//! every buffer it names alive (so no two of them share a slot), so one bit
//! per slot index is enough, and testing it is an index and a mask.

use slotmap::Key;

use crate::registry::BufferId;

#[derive(Debug, Default)]
pub(crate) struct BufferSet {
    words: Vec<u64>,
}

/// The word and bit of `id`'s registry slot.
fn slot_of(id: BufferId) -> (usize, u64) {
    // `as_ffi` puts the slot index in the low 32 bits (the version above).
    let index = id.data().as_ffi() as u32 as usize;
    (index / 64, 1 << (index % 64))
}

impl BufferSet {
    /// Add `id`; true if it was not in the set.
    #[inline]
    pub(crate) fn insert(&mut self, id: BufferId) -> bool {
        let (word, bit) = slot_of(id);
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let w = &mut self.words[word];
        let new = *w & bit == 0;
        *w |= bit;
        new
    }

    /// Remove `id` (the caller clears exactly the ids it inserted, so
    /// clearing costs what was used, not the size of the registry).
    pub(crate) fn remove(&mut self, id: BufferId) {
        let (word, bit) = slot_of(id);
        if let Some(w) = self.words.get_mut(word) {
            *w &= !bit;
        }
    }

    /// Whether the set is empty (for tests and assertions).
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slotmap::SlotMap;

    #[test]
    fn ids_of_live_slots_are_told_apart_and_cleared() {
        let mut map: SlotMap<BufferId, ()> = SlotMap::with_key();
        let ids: Vec<BufferId> = (0..200).map(|_| map.insert(())).collect();
        let mut set = BufferSet::default();
        for &id in &ids {
            assert!(set.insert(id));
        }
        for &id in &ids {
            assert!(!set.insert(id));
        }
        for &id in &ids {
            set.remove(id);
        }
        assert!(set.is_empty());
        // A slot freed and reused gets the same bit: sound only because a
        // recording keeps what it names alive, which this models.
        map.remove(ids[7]);
        let again = map.insert(());
        assert!(set.insert(again));
        assert!(!set.insert(again));
    }
}
