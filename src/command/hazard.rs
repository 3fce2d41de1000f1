//! Hazard tracking between the packets of one submission.
//!
//! Packets on an AQL queue launch in order but may run concurrently and
//! complete out of order; the barrier bit makes a packet wait until every
//! earlier packet has completed. So the tracker keeps the accesses of all
//! packets launched since the last barrier point, and a new packet gets the
//! barrier bit exactly when one of its accesses conflicts with one of those
//! (read-after-write, write-after-read or write-after-write on overlapping
//! device address ranges). Setting the bit drains everything before it, so
//! the set restarts with the new packet's accesses.
//!
//! Each access names the memory object its range lies in (a buffer's
//! allocation, a staging block). Everything one submission touches is
//! alive together, so the ranges of different objects never overlap and an
//! access needs comparing only with those of its own object: past a short
//! list, the tracker files accesses by object. A buffer's object key is its
//! registry slot (`buffer_object`), a dense index: those accesses go to a
//! table indexed by it (a pass over buffers made one after another walks
//! it in order, with no hashing). Other memory (staging blocks) is keyed by
//! its address, filed in a hash map.
//!
//! Fence scopes follow ownership: a packet that reads memory the host wrote
//! (fine-grained buffers: mapped uploads, the staging ring) acquires at
//! system scope, one that writes memory the host will read releases at
//! system scope; device-only traffic uses agent scope. Acquire is never
//! below agent scope for dispatches: it invalidates the scalar cache that
//! would otherwise hold stale kernargs from a reused ring block.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use aqueduct_kfd::abi::FenceScope;

use crate::id_hash::IdHash;

/// One memory access of a packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Access {
    /// Device address range.
    pub range: Range<u64>,
    pub write: bool,
    /// The memory is fine-grained and host visible.
    pub host_visible: bool,
    /// The memory object `range` lies in: a buffer's `buffer_object` key,
    /// or the first address of other memory. Accesses to different objects
    /// never conflict (see the module comment), so every access to one
    /// buffer's memory must carry the same key.
    pub object: u64,
    /// The bind group slot a dispatch binds the range at (`group`,
    /// `binding`), so gfxsim's sanitizer findings can name it; `group` is
    /// `NOT_BOUND` for copies, fills and other accesses of no binding.
    /// Two small fields: they fit the struct's padding.
    pub group: u8,
    pub binding: u32,
}

/// `Access::group` of an access no bind group made.
pub(crate) const NOT_BOUND: u8 = u8::MAX;

/// The bit of an object key that makes it a buffer's dense key: device
/// addresses (the other keys) are user-space addresses, below 2^63.
const DENSE_OBJECT: u64 = 1 << 63;

/// The object key of the buffer whose registry slot index is `slot`.
/// Slots are unique among live buffers, and everything one submission
/// touches is alive together, so the key names one buffer in a tracker.
pub(crate) fn buffer_object(slot: u32) -> u64 {
    DENSE_OBJECT | u64::from(slot)
}

/// The table index of a dense object key.
fn dense_index(object: u64) -> Option<usize> {
    (object & DENSE_OBJECT != 0).then_some((object & !DENSE_OBJECT) as usize)
}

impl Access {
    /// The (group, binding) the range is bound at, if a bind group made it.
    pub(crate) fn bound_at(&self) -> Option<(u32, u32)> {
        (self.group != NOT_BOUND).then_some((u32::from(self.group), self.binding))
    }

    pub(crate) fn conflicts(&self, other: &Access) -> bool {
        (self.write || other.write)
            && self.range.start < other.range.end
            && other.range.start < self.range.end
    }
}

/// Up to this many accesses since the last barrier are kept in a list and
/// compared one by one; beyond it (many independent packets) they are filed
/// by object, so each packet costs a lookup per access instead of a scan
/// and a pass of n independent dispatches is not quadratic.
const LIST_LIMIT: usize = 64;

/// Up to this many accesses to one object are a list; beyond it (a buffer
/// many packets touch in disjoint parts) they become interval sets.
const OBJECT_LIST_LIMIT: usize = 16;

#[derive(Debug, Default)]
pub(crate) struct HazardTracker {
    since_barrier: Vec<Access>,
    /// Whether the accesses since the last barrier are filed by object
    /// (there were more than LIST_LIMIT) instead of in `since_barrier`.
    filed: bool,
    /// Filed accesses to objects keyed by address. Kept emptied across
    /// `reset`, so a tracker reused across submissions files accesses
    /// again without growing a new map.
    by_address: HashMap<u64, ObjectAccesses, IdHash>,
    /// Filed accesses to buffers, by `buffer_object` slot: an entry counts
    /// only when its stamp is `stamp` (so `reset` clears it in O(1)).
    dense: Vec<DenseEntry>,
    /// Bumped by every `reset` that ends a filed stretch (starts at 1, so
    /// the default entry of a grown table is stale).
    stamp: u64,
}

/// A slot of `HazardTracker::dense`.
#[derive(Debug)]
struct DenseEntry {
    stamp: u64,
    accesses: ObjectAccesses,
}

/// The accesses to one object since the last barrier: one (no allocation
/// for the usual buffer used once), a short list, or interval sets.
#[derive(Debug)]
enum ObjectAccesses {
    One(Access),
    List(Vec<Access>),
    Sets(Box<AccessSets>),
}

impl ObjectAccesses {
    fn conflicts(&self, a: &Access) -> bool {
        match self {
            ObjectAccesses::One(p) => a.conflicts(p),
            ObjectAccesses::List(list) => list.iter().any(|p| a.conflicts(p)),
            ObjectAccesses::Sets(sets) => sets.conflicts(a),
        }
    }

    fn insert(&mut self, a: &Access) {
        match self {
            ObjectAccesses::One(p) => {
                *self = ObjectAccesses::List(vec![p.clone(), a.clone()]);
            }
            ObjectAccesses::List(list) if list.len() < OBJECT_LIST_LIMIT => list.push(a.clone()),
            ObjectAccesses::List(list) => {
                let mut sets = Box::<AccessSets>::default();
                list.iter().chain([a]).for_each(|x| sets.insert(x));
                *self = ObjectAccesses::Sets(sets);
            }
            ObjectAccesses::Sets(sets) => sets.insert(a),
        }
    }
}

/// Accesses as merged address intervals: what was written, what was read
/// (only overlap matters for a conflict), and the zero-length ranges.
#[derive(Debug, Default)]
struct AccessSets {
    writes: RangeSet,
    reads: RangeSet,
    empty: Vec<Access>,
}

impl AccessSets {
    fn insert(&mut self, a: &Access) {
        if a.range.is_empty() {
            self.empty.push(a.clone());
        } else if a.write {
            self.writes.insert(a.range.clone());
        } else {
            self.reads.insert(a.range.clone());
        }
    }

    fn conflicts(&self, a: &Access) -> bool {
        self.writes.overlaps(&a.range)
            || (a.write && self.reads.overlaps(&a.range))
            || self.empty.iter().any(|p| a.conflicts(p))
    }
}

/// Disjoint, merged half-open intervals by start.
#[derive(Debug, Default)]
struct RangeSet {
    by_start: BTreeMap<u64, u64>,
}

impl RangeSet {
    /// Whether some interval `i` has `i.start < r.end && r.start < i.end`
    /// (the overlap test of `Access::conflicts`, also for an empty `r`).
    fn overlaps(&self, r: &Range<u64>) -> bool {
        // Intervals are disjoint and sorted, so among those starting before
        // r.end the last one ends furthest.
        self.by_start
            .range(..r.end)
            .next_back()
            .is_some_and(|(_, &end)| end > r.start)
    }

    /// Add a non-empty range, merging what it overlaps or touches.
    fn insert(&mut self, r: Range<u64>) {
        let (mut start, mut end) = (r.start, r.end);
        if let Some((&s, &e)) = self.by_start.range(..=start).next_back()
            && e >= start
        {
            start = s;
            end = end.max(e);
        }
        while let Some((&s, &e)) = self.by_start.range(start..).next() {
            if s > end {
                break;
            }
            end = end.max(e);
            self.by_start.remove(&s);
        }
        self.by_start.insert(start, end);
    }
}

impl HazardTracker {
    /// Record a packet's accesses; returns whether it needs the barrier bit.
    pub(crate) fn record(&mut self, accesses: &[Access]) -> bool {
        let barrier = if self.filed {
            accesses.iter().any(|a| {
                self.filed_for(a.object)
                    .is_some_and(|seen| seen.conflicts(a))
            })
        } else {
            accesses
                .iter()
                .any(|a| self.since_barrier.iter().any(|p| a.conflicts(p)))
        };
        if barrier {
            self.reset();
        }
        self.add(accesses);
        barrier
    }

    /// The filed accesses to `object` since the last barrier.
    #[inline]
    fn filed_for(&self, object: u64) -> Option<&ObjectAccesses> {
        match dense_index(object) {
            Some(i) => self
                .dense
                .get(i)
                .filter(|e| e.stamp == self.stamp)
                .map(|e| &e.accesses),
            None => self.by_address.get(&object),
        }
    }

    /// Record a packet that always gets the barrier bit (a timestamp:
    /// it orders after everything before it).
    pub(crate) fn record_barrier(&mut self, accesses: &[Access]) {
        self.reset();
        self.add(accesses);
    }

    /// Forget every access (a barrier point, or a new submission), keeping
    /// the storage.
    pub(crate) fn reset(&mut self) {
        self.since_barrier.clear();
        if self.filed {
            self.filed = false;
            self.by_address.clear();
            self.stamp += 1;
        }
    }

    fn add(&mut self, accesses: &[Access]) {
        if self.filed {
            accesses.iter().for_each(|a| self.file(a));
            return;
        }
        self.since_barrier.extend(accesses.iter().cloned());
        if self.since_barrier.len() > LIST_LIMIT {
            self.filed = true;
            if self.stamp == 0 {
                self.stamp = 1;
            }
            let list = std::mem::take(&mut self.since_barrier);
            list.iter().for_each(|a| self.file(a));
            self.since_barrier = list;
            self.since_barrier.clear();
        }
    }

    /// Add `a` to its object's filed accesses.
    fn file(&mut self, a: &Access) {
        let Some(i) = dense_index(a.object) else {
            self.by_address
                .entry(a.object)
                .and_modify(|seen| seen.insert(a))
                .or_insert_with(|| ObjectAccesses::One(a.clone()));
            return;
        };
        if i >= self.dense.len() {
            self.dense.resize_with(i + 1, || DenseEntry {
                stamp: 0,
                accesses: ObjectAccesses::List(Vec::new()),
            });
        }
        let e = &mut self.dense[i];
        if e.stamp == self.stamp {
            e.accesses.insert(a);
        } else {
            // A stale entry: this stretch's first access to the object.
            e.stamp = self.stamp;
            e.accesses = ObjectAccesses::One(a.clone());
        }
    }
}

/// The acquire and release scopes of a packet with `accesses`.
pub(crate) fn fence_scopes(accesses: &[Access]) -> (FenceScope, FenceScope) {
    let acquire = if accesses.iter().any(|a| a.host_visible && !a.write) {
        FenceScope::System
    } else {
        FenceScope::Agent
    };
    let release = if accesses.iter().any(|a| a.host_visible && a.write) {
        FenceScope::System
    } else {
        FenceScope::Agent
    };
    (acquire, release)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binding_slot_fits_the_padding() {
        // Every dispatch copies its accesses; naming the slot costs no size.
        assert_eq!(std::mem::size_of::<Access>(), 32);
    }

    /// An access to the one object at address 0.
    fn a(start: u64, end: u64, write: bool) -> Access {
        Access {
            range: start..end,
            write,
            host_visible: false,
            object: 0,
            group: NOT_BOUND,
            binding: 0,
        }
    }

    #[test]
    fn barrier_only_on_conflicts() {
        let mut t = HazardTracker::default();
        assert!(!t.record(&[a(0, 64, false), a(100, 164, true)]));
        // Independent: different output, same input read.
        assert!(!t.record(&[a(0, 64, false), a(200, 264, true)]));
        // RAW on 100..164.
        assert!(t.record(&[a(150, 151, false), a(300, 364, true)]));
        // After the barrier only the barrier packet's accesses count: the
        // old write at 200 is drained.
        assert!(!t.record(&[a(200, 264, true)]));
        // WAR: write 0..64 while the barrier packet... no; the read of 150
        // belongs to the last barrier packet, so writing it conflicts.
        assert!(t.record(&[a(150, 152, true)]));
        // Adjacent ranges do not overlap.
        assert!(!t.record(&[a(152, 160, true)]));
    }

    /// The same answers as comparing with every access since the last
    /// barrier, for random packets over objects of random sizes, past the
    /// switch to filing by object (buffers' dense keys and addresses both)
    /// and, for busy objects, to interval sets.
    #[test]
    fn many_accesses_give_the_same_barriers_as_the_plain_scan() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        // 24 disjoint objects 4 MiB apart: a few busy ones, many quiet;
        // the even ones are buffers (a dense key), the odd ones staging
        // memory (keyed by address).
        let objects: Vec<(u64, u64, u64)> = (0..24u64)
            .map(|k| {
                let key = if k % 2 == 0 {
                    buffer_object(k as u32 * 7)
                } else {
                    k << 22
                };
                (key, k << 22, 1 + next(1 << 22))
            })
            .collect();
        let mut tracker = HazardTracker::default();
        let mut reference: Vec<Access> = Vec::new();
        let (mut barriers, mut filed, mut in_sets, mut dense) = (0, 0, 0, 0);
        for _ in 0..8000 {
            let packet: Vec<Access> = (0..1 + next(3))
                .map(|_| {
                    let busy = next(2) == 0;
                    let (key, base, size) = objects[next(if busy { 3 } else { 24 }) as usize];
                    let start = base + next(size);
                    // Mostly short ranges (independent packets), some long
                    // and some empty, all inside the object.
                    let len = match next(64) {
                        0 => 0,
                        1 => next(size),
                        _ => 1 + next(64),
                    };
                    let end = (start + len).min(base + size);
                    // The busy objects are mostly read, so their accesses
                    // pile up between barriers.
                    let write = next(if busy { 40 } else { 3 }) == 0;
                    Access {
                        object: key,
                        group: NOT_BOUND,
                        binding: 0,
                        ..a(start, end, write)
                    }
                })
                .collect();
            let expect = packet
                .iter()
                .any(|x| reference.iter().any(|p| x.conflicts(p)));
            if expect {
                reference.clear();
                barriers += 1;
            }
            reference.extend(packet.iter().cloned());
            assert_eq!(tracker.record(&packet), expect, "after {barriers} barriers");
            if tracker.filed {
                filed += 1;
                let current = tracker.dense.iter().filter(|e| e.stamp == tracker.stamp);
                dense += usize::from(current.clone().count() > 0);
                let mut all = tracker
                    .by_address
                    .values()
                    .chain(current.map(|e| &e.accesses));
                in_sets += usize::from(all.any(|o| matches!(o, ObjectAccesses::Sets(_))));
            }
        }
        assert!(
            barriers > 10,
            "the random packets conflict sometimes: {barriers}"
        );
        assert!(filed > 1000, "the objects' files answered often: {filed}");
        assert!(dense > 1000, "the dense table answered often: {dense}");
        assert!(
            in_sets > 100,
            "a busy object's interval sets answered: {in_sets}"
        );
    }

    #[test]
    fn range_sets_merge_and_find_overlaps() {
        let mut s = RangeSet::default();
        s.insert(10..20);
        s.insert(30..40);
        s.insert(20..25); // touches 10..20: merged
        assert_eq!(
            s.by_start.iter().collect::<Vec<_>>(),
            [(&10, &25), (&30, &40)]
        );
        assert!(!s.overlaps(&(25..30)));
        assert!(s.overlaps(&(24..26)));
        assert!(s.overlaps(&(35..35)), "an empty range inside one");
        assert!(!s.overlaps(&(30..30)), "an empty range at a start");
        s.insert(5..35);
        assert_eq!(s.by_start.iter().collect::<Vec<_>>(), [(&5, &40)]);
    }

    #[test]
    fn scopes_follow_host_visibility() {
        let host_read = Access {
            range: 0..4,
            write: false,
            host_visible: true,
            object: 0,
            group: NOT_BOUND,
            binding: 0,
        };
        let host_write = Access {
            write: true,
            ..host_read.clone()
        };
        assert_eq!(
            fence_scopes(&[a(0, 4, true)]),
            (FenceScope::Agent, FenceScope::Agent)
        );
        assert_eq!(
            fence_scopes(&[host_read, a(8, 12, true)]),
            (FenceScope::System, FenceScope::Agent)
        );
        assert_eq!(
            fence_scopes(&[a(8, 12, false), host_write]),
            (FenceScope::Agent, FenceScope::System)
        );
    }
}
