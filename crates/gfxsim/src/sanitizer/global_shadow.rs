//! racecheck-global's shadow of global memory for one dispatch: which
//! workgroups read and wrote each byte, so an access that meets another
//! workgroup's write (or a write that meets another workgroup's read) with
//! no atomic on either side is a race. Workgroups of one dispatch have no
//! order between them (only atomics and the dispatch's end order their
//! accesses: HSA Programmer's Reference Manual, "Memory model"; AMDGPUUsage
//! "Memory Model"), so the order the simulator happens to run them in does
//! not matter: any such pair is a race on hardware, whichever runs first.
//!
//! The shadow keeps, per 4-byte word, the first two writing and the first
//! two reading workgroups with the bytes each touched and the site of its
//! first access. A third workgroup's access is checked against them but not
//! kept, so a race between two later workgroups on one word can go unseen;
//! a reported race is always real. Words are spread over mutex-guarded shards
//! by 64-byte block, so the lanes of a coalesced access take one or two
//! locks, and workgroups on different worker threads rarely meet. An access
//! holds all its shards (taken in shard order) while it checks and records,
//! so of two workgroups' instructions on the same words exactly the later
//! one reports, whatever the worker threads' interleaving: a report's count
//! does not depend on the host's scheduling.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, MutexGuard};

use aqueduct_isa::Access;
use aqueduct_isa::observer::LaneAccesses;

/// Shards (a power of two).
const SHARDS: usize = 64;

/// An earlier access to a word by one workgroup.
#[derive(Clone, Copy, Debug)]
pub(super) struct Toucher {
    pub workgroup: [u32; 3],
    pub wave: u32,
    pub lane: Option<u32>,
    pub pc: u64,
    /// Bytes of the word (bit `b`: byte `b`) this workgroup (or, in the
    /// second slot, a later one) accessed.
    mask: u8,
}

/// The workgroups that accessed one word one way.
#[derive(Clone, Copy, Debug, Default)]
struct Touchers([Option<Toucher>; 2]);

impl Touchers {
    /// A slot of another workgroup than `wg` whose bytes meet `mask`.
    fn other(&self, wg: [u32; 3], mask: u8) -> Option<Toucher> {
        self.0
            .iter()
            .flatten()
            .find(|t| t.workgroup != wg && t.mask & mask != 0)
            .copied()
    }

    /// Add `by`'s bytes to its workgroup's slot, or to a free one; a third
    /// workgroup is not kept (its own conflicts were checked before).
    fn note(&mut self, by: Toucher) {
        for slot in &mut self.0 {
            match slot {
                Some(t) if t.workgroup == by.workgroup => {
                    t.mask |= by.mask;
                    return;
                }
                Some(_) => {}
                None => {
                    *slot = Some(by);
                    return;
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Word {
    written: Touchers,
    read: Touchers,
}

/// A race one access found: the byte, and the other workgroup's access.
#[derive(Clone, Copy, Debug)]
pub(super) struct GlobalRace {
    /// The lane (index into the access's addresses) that met it.
    pub lane: usize,
    pub address: u64,
    pub earlier: Toucher,
    pub earlier_access: Access,
}

/// Word addresses hash by one multiply (they are the keys' only entropy).
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01B3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        // The high half of the product mixes every bit of the word index.
        self.0 = ((n as u128 * 0x9E37_79B9_7F4A_7C15) >> 32) as u64;
    }
}

type Shard = HashMap<u64, Word, BuildHasherDefault<WordHasher>>;

/// The shadow of one dispatch.
#[derive(Debug)]
pub(super) struct GlobalShadow {
    shards: Box<[Mutex<Shard>]>,
}

impl Default for GlobalShadow {
    fn default() -> Self {
        GlobalShadow {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
        }
    }
}

fn shard_of(word: u64) -> usize {
    // 16 words (64 bytes) per block, blocks spread over the shards.
    ((word >> 4) as usize) & (SHARDS - 1)
}

impl GlobalShadow {
    /// Record `a` (a global, non-atomic access) by workgroup `wg`; the
    /// first lane that meets another workgroup's conflicting access.
    pub(super) fn access(&self, a: &LaneAccesses<'_>, wg: [u32; 3]) -> Option<GlobalRace> {
        let write = a.access == Access::Write;
        let active = || (0..32).filter(|l| a.exec >> l & 1 != 0);
        let span = |l: usize| (a.addrs[l], a.addrs[l].saturating_add(a.size as u64));
        // The shards the access touches, locked in ascending order (one
        // order for every thread: no deadlock).
        let mut shards = 0u64;
        for l in active() {
            let (start, end) = span(l);
            let mut word = start >> 2;
            while word << 2 < end {
                shards |= 1 << shard_of(word);
                word += 1;
            }
        }
        let mut held: [Option<MutexGuard<'_, Shard>>; SHARDS] = std::array::from_fn(|_| None);
        let mut rest = shards;
        while rest != 0 {
            let s = rest.trailing_zeros() as usize;
            held[s] = Some(self.shards[s].lock().unwrap_or_else(|e| e.into_inner()));
            rest &= rest - 1;
        }
        let mut found = None;
        for l in active() {
            let lane = (!a.scalar).then_some(a.first_lane + l as u32);
            let (start, end) = span(l);
            let mut addr = start;
            while addr < end {
                let word = addr >> 2;
                let first = (addr & 3) as u32;
                let last = ((end - 1).min(addr | 3) & 3) as u32;
                let mask = ((0xFu32 << first) & (0xF >> (3 - last))) as u8;
                let map = held[shard_of(word)]
                    .as_mut()
                    .expect("every touched shard is held");
                let w = map.entry(word).or_default();
                if found.is_none() {
                    let met = w.written.other(wg, mask).map(|t| (t, Access::Write));
                    let met = met.or_else(|| {
                        write
                            .then(|| w.read.other(wg, mask).map(|t| (t, Access::Read)))
                            .flatten()
                    });
                    if let Some((earlier, earlier_access)) = met {
                        let byte = (mask & earlier.mask).trailing_zeros() as u64;
                        found = Some(GlobalRace {
                            lane: l,
                            address: (word << 2) + byte,
                            earlier,
                            earlier_access,
                        });
                    }
                }
                let by = Toucher {
                    workgroup: wg,
                    wave: a.wave,
                    lane,
                    pc: a.pc,
                    mask,
                };
                if write {
                    w.written.note(by);
                } else {
                    w.read.note(by);
                }
                addr = (word + 1) << 2;
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqueduct_isa::observer::Segment;

    fn access(access: Access, addrs: &[u64; 32], exec: u32, size: u32) -> LaneAccesses<'_> {
        LaneAccesses {
            pc: 0x1000,
            wave: 0,
            first_lane: 0,
            segment: Segment::Global,
            access,
            size,
            exec,
            addrs,
            scalar: false,
            sc1: false,
        }
    }

    const A: [u32; 3] = [0, 0, 0];
    const B: [u32; 3] = [1, 0, 0];
    const C: [u32; 3] = [2, 0, 0];

    fn lanes(f: impl Fn(u64) -> u64) -> [u64; 32] {
        std::array::from_fn(|l| f(l as u64))
    }

    #[test]
    fn another_workgroups_write_or_read_of_the_same_bytes_is_a_race() {
        let s = GlobalShadow::default();
        let words = lanes(|l| 0x10_000 + 4 * l);
        assert!(s.access(&access(Access::Write, &words, !0, 4), A).is_none());
        // The same workgroup again: its own order, no race.
        assert!(s.access(&access(Access::Read, &words, !0, 4), A).is_none());
        let race = s
            .access(&access(Access::Read, &words, 1 << 5, 4), B)
            .expect("B reads what A wrote");
        assert_eq!((race.lane, race.address), (5, 0x10_000 + 20));
        assert_eq!(race.earlier.workgroup, A);
        assert_eq!(race.earlier.lane, Some(5));
        assert_eq!(race.earlier_access, Access::Write);
        // A write meets an earlier read by another workgroup.
        let t = GlobalShadow::default();
        assert!(t.access(&access(Access::Read, &words, 1, 4), A).is_none());
        assert!(t.access(&access(Access::Read, &words, 1, 4), B).is_none());
        let race = t
            .access(&access(Access::Write, &words, 1, 4), A)
            .expect("A writes what B read");
        assert_eq!(race.earlier.workgroup, B);
        assert_eq!(race.earlier_access, Access::Read);
    }

    #[test]
    fn disjoint_bytes_of_one_word_do_not_race() {
        let s = GlobalShadow::default();
        let bytes = lanes(|l| 0x20_000 + l);
        // Lane l of workgroup l % 3 writes byte l: three workgroups share words.
        for (k, wg) in [A, B, C].into_iter().enumerate() {
            let exec = (0..32).filter(|l| l % 3 == k).fold(0u32, |m, l| m | 1 << l);
            assert!(
                s.access(&access(Access::Write, &bytes, exec, 1), wg)
                    .is_none()
            );
        }
        // A 2-byte read straddling two workgroups' bytes races.
        let pair = lanes(|_| 0x20_000);
        let race = s.access(&access(Access::Read, &pair, 1, 2), C).unwrap();
        assert_eq!(race.address, 0x20_000);
        assert_eq!(race.earlier.workgroup, A);
    }

    #[test]
    fn an_access_across_a_word_boundary_checks_both_words() {
        let s = GlobalShadow::default();
        let at = lanes(|_| 0x30_006);
        assert!(s.access(&access(Access::Write, &at, 1, 4), A).is_none());
        let next = lanes(|_| 0x30_008);
        let race = s.access(&access(Access::Read, &next, 1, 1), B).unwrap();
        assert_eq!(race.address, 0x30_008);
        let prev = lanes(|_| 0x30_004);
        assert!(s.access(&access(Access::Read, &prev, 1, 2), B).is_none());
    }

    #[test]
    fn of_concurrent_writes_to_two_shards_all_but_the_first_report() {
        // 32 words = 128 bytes: two 64-byte blocks, so two shards. Checked
        // shard by shard, two workgroups could each meet the other's write
        // in one of them and both report.
        let words = lanes(|l| 0x50_000 + 4 * l);
        assert_ne!(shard_of(0x50_000 >> 2), shard_of((0x50_000 + 124) >> 2));
        const WORKGROUPS: u32 = 4;
        for _ in 0..1000 {
            let s = GlobalShadow::default();
            let start = std::sync::Barrier::new(WORKGROUPS as usize);
            let races: usize = std::thread::scope(|scope| {
                let runs: Vec<_> = (0..WORKGROUPS)
                    .map(|x| {
                        let (s, start) = (&s, &start);
                        scope.spawn(move || {
                            start.wait();
                            s.access(&access(Access::Write, &words, !0, 4), [x, 0, 0])
                                .is_some() as usize
                        })
                    })
                    .collect();
                runs.into_iter().map(|r| r.join().unwrap()).sum()
            });
            assert_eq!(races, WORKGROUPS as usize - 1);
        }
    }

    #[test]
    fn reads_by_many_workgroups_do_not_race() {
        let s = GlobalShadow::default();
        let same = lanes(|_| 0x40_000);
        for x in 0..10 {
            let wg = [x, 0, 0];
            assert!(s.access(&access(Access::Read, &same, !0, 4), wg).is_none());
        }
    }
}
