//! The LDS shadow of one workgroup, for initcheck and racecheck: per LDS
//! byte, whether the workgroup wrote it, and its last write and last read
//! (wave, lane, PC, barrier epoch). The epoch counts the workgroup's
//! barrier releases, so two accesses race exactly when they are by
//! different waves in the same epoch and one of them writes.
//!
//! Atomics are writes for initcheck (and reads of what they update), and
//! never race with each other: they are left out of racecheck.
//!
//! The shadow is kept per dword, in 32 bytes ([`History`]): the two stamps
//! packed into 16 bytes each, and per byte only the written bit. Kernels
//! mostly move whole aligned dwords, whose four bytes then share one
//! history, so an aligned dword access reads and writes one half cache
//! line instead of four bytes' states. A dword that an access covers only
//! in part (a sub-dword or unaligned access) is split: its four bytes get
//! their own stamps in a side table until their histories agree again, so
//! every finding (lane, offset, the earlier access) is the one a per-byte
//! shadow gives.
//!
//! A worker thread reuses one shadow for the workgroups it runs ([`take`]
//! and [`give_back`]): each workgroup has its own generation number, and a
//! dword whose state carries an older one is fresh, so a workgroup starts
//! without clearing or allocating anything.

use std::cell::RefCell;

use aqueduct_isa::Access;

thread_local! {
    /// The shadow this thread's last workgroup used.
    static SPARE: RefCell<Option<LdsShadow>> = const { RefCell::new(None) };
}

/// This thread's shadow (or a new one), for a new workgroup with `lds_bytes`
/// bytes of LDS.
pub(super) fn take(lds_bytes: u32) -> LdsShadow {
    let mut shadow = SPARE
        .with(|s| s.borrow_mut().take())
        .unwrap_or_else(|| LdsShadow {
            words: Vec::new(),
            bytes: Vec::new(),
            len: 0,
            generation: 0,
        });
    shadow.start(lds_bytes);
    shadow
}

/// Keep `shadow` for this thread's next workgroup.
pub(super) fn give_back(shadow: LdsShadow) {
    SPARE.with(|s| *s.borrow_mut() = Some(shadow));
}

/// One access of an LDS byte (epoch 0: none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Stamp {
    pub epoch: u32,
    pub wave: u32,
    pub lane: u32,
    pub pc: u64,
}

/// A [`Stamp`] in 16 bytes, with 16 bits its holder uses ([`History`]).
/// The wave fits a byte: a workgroup has at most 1024 work-items (LLVM
/// AMDGPUUsage, "amdgpu-flat-work-group-size"), so at most 32 waves of 32
/// lanes; a lane number is below 64 (wave64).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
struct Packed {
    pc: u64,
    epoch: u32,
    wave: u8,
    lane: u8,
    meta: u16,
}

impl Packed {
    fn of(s: Stamp) -> Packed {
        debug_assert!(s.wave <= u8::MAX as u32 && s.lane <= u8::MAX as u32);
        Packed {
            pc: s.pc,
            epoch: s.epoch,
            wave: s.wave as u8,
            lane: s.lane as u8,
            meta: 0,
        }
    }

    fn stamp(self) -> Stamp {
        Stamp {
            epoch: self.epoch,
            wave: self.wave.into(),
            lane: self.lane.into(),
            pc: self.pc,
        }
    }
}

/// `write.meta` of a [`LdsShadow::words`] entry: the written bit of each of
/// its bytes (bit k: byte k)...
const WRITTEN: u16 = 0xF;
/// ...whether its bytes' stamps are in [`LdsShadow::bytes`]...
const SPLIT: u16 = 1 << 4;
/// ...and from this bit on, the generation of the workgroup it is of.
const GENERATION_SHIFT: u32 = 5;
const MAX_GENERATION: u16 = u16::MAX >> GENERATION_SHIFT;
/// `read.meta`: waves other than `read.wave` read in `read.epoch` too.
const MORE_READERS: u16 = 1;

/// The last write and last read of a dword (or of one byte of a split one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(32))]
struct History {
    write: Packed,
    read: Packed,
}

impl History {
    /// Record an access by `by` of the bytes this history is of, and look for
    /// the race it makes (at `at`, its first byte) unless one is found.
    #[inline(always)]
    fn step(
        &mut self,
        by: Packed,
        access: Access,
        racecheck: bool,
        at: u64,
        race: &mut Option<LdsEvent>,
    ) {
        if racecheck && race.is_none() {
            if self.write.epoch == by.epoch && self.write.wave != by.wave {
                *race = Some(LdsEvent::Race {
                    offset: at,
                    earlier: self.write.stamp(),
                    earlier_access: Access::Write,
                });
            } else if access == Access::Write
                && self.read.epoch == by.epoch
                && (self.read.wave != by.wave || self.read.meta & MORE_READERS != 0)
            {
                *race = Some(LdsEvent::Race {
                    offset: at,
                    earlier: self.read.stamp(),
                    earlier_access: Access::Read,
                });
            }
        }
        if access == Access::Write {
            self.write = Packed {
                meta: self.write.meta,
                ..by
            };
        } else if self.read.epoch == by.epoch {
            if self.read.wave != by.wave {
                self.read.meta |= MORE_READERS;
            }
        } else {
            self.read = by;
        }
    }
}

/// What one lane's access found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LdsEvent {
    /// It reads bytes from `offset` on that were never written.
    Uninitialized { offset: u64 },
    /// It conflicts at `offset` with `earlier` (an access of that kind).
    Race {
        offset: u64,
        earlier: Stamp,
        earlier_access: Access,
    },
}

/// The shadow of a workgroup's LDS.
#[derive(Debug)]
pub(super) struct LdsShadow {
    /// Per dword: its history while its bytes share one, and its bytes'
    /// written bits, split flag and generation (`write.meta`).
    words: Vec<History>,
    /// Per dword, its bytes' own histories while it is split (grown at the
    /// first split; an entry is filled when its dword splits).
    bytes: Vec<[History; 4]>,
    /// LDS bytes of the current workgroup.
    len: u64,
    /// The current workgroup's generation (1..=MAX_GENERATION once started).
    generation: u16,
}

impl LdsShadow {
    /// Start a new workgroup of `lds_bytes` bytes of LDS: every byte fresh.
    fn start(&mut self, lds_bytes: u32) {
        self.generation += 1;
        if self.generation > MAX_GENERATION {
            // Generations wrapped: old states could look current.
            self.words.fill(History::default());
            self.generation = 1;
        }
        self.len = lds_bytes.into();
        let n = lds_bytes.div_ceil(4) as usize;
        self.words.truncate(n);
        self.words.resize(n, History::default());
    }

    /// Record `size` bytes from `offset` accessed as `access` by `by` (bytes
    /// past the LDS are memcheck's). `racecheck`, `initcheck`: which events
    /// to look for. Gives the first event of each kind.
    #[inline]
    pub(super) fn access(
        &mut self,
        by: Stamp,
        offset: u64,
        size: u32,
        access: Access,
        racecheck: bool,
        initcheck: bool,
    ) -> (Option<LdsEvent>, Option<LdsEvent>) {
        let (mut uninit, mut race) = (None, None);
        let end = offset.saturating_add(size.into()).min(self.len);
        let by = Packed::of(by);
        let mut at = offset;
        while at < end {
            let start = at & !3;
            let lo = (at - start) as u32;
            let hi = (end - start).min(4) as u32;
            let found = (&mut uninit, &mut race);
            self.word(
                (start / 4) as usize,
                lo,
                hi,
                by,
                access,
                racecheck,
                initcheck,
                found,
            );
            at = start + u64::from(hi);
        }
        (uninit, race)
    }

    /// Bytes `lo..hi` of dword `w`'s part of an access.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn word(
        &mut self,
        w: usize,
        lo: u32,
        hi: u32,
        by: Packed,
        access: Access,
        racecheck: bool,
        initcheck: bool,
        (uninit, race): (&mut Option<LdsEvent>, &mut Option<LdsEvent>),
    ) {
        let generation = self.generation;
        let word = &mut self.words[w];
        if word.write.meta >> GENERATION_SHIFT != generation {
            *word = History::default();
            word.write.meta = generation << GENERATION_SHIFT;
        }
        let at = 4 * w as u64;
        let mask = (WRITTEN << lo) & (WRITTEN >> (4 - hi));
        if initcheck && access != Access::Write && uninit.is_none() {
            let unwritten = mask & !word.write.meta;
            if unwritten != 0 {
                let offset = at + u64::from(unwritten.trailing_zeros());
                *uninit = Some(LdsEvent::Uninitialized { offset });
            }
        }
        if access != Access::Read {
            word.write.meta |= mask;
        }
        if access == Access::Atomic {
            return;
        }
        if mask == WRITTEN && word.write.meta & SPLIT == 0 {
            word.step(by, access, racecheck, at, race);
        } else {
            self.bytes_step(w, lo, hi, by, access, racecheck, race);
        }
    }

    /// [`Self::word`] on a dword accessed in part or already split: step its
    /// bytes one by one, and join them again once their histories agree.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn bytes_step(
        &mut self,
        w: usize,
        lo: u32,
        hi: u32,
        by: Packed,
        access: Access,
        racecheck: bool,
        race: &mut Option<LdsEvent>,
    ) {
        if self.bytes.len() < self.words.len() {
            self.bytes.resize(self.words.len(), [History::default(); 4]);
        }
        let word = &mut self.words[w];
        let bytes = &mut self.bytes[w];
        if word.write.meta & SPLIT == 0 {
            let shared = History {
                write: Packed {
                    meta: 0,
                    ..word.write
                },
                read: word.read,
            };
            *bytes = [shared; 4];
            word.write.meta |= SPLIT;
        }
        for k in lo..hi {
            let at = 4 * w as u64 + u64::from(k);
            bytes[k as usize].step(by, access, racecheck, at, race);
        }
        if bytes[1..].iter().all(|b| *b == bytes[0]) {
            word.write = Packed {
                meta: word.write.meta & !SPLIT,
                ..bytes[0].write
            };
            word.read = bytes[0].read;
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(epoch: u32, wave: u32) -> Stamp {
        Stamp {
            epoch,
            wave,
            lane: 0,
            pc: 0x100 + wave as u64,
        }
    }

    #[test]
    fn reads_of_unwritten_bytes_are_uninitialized() {
        let mut s = take(16);
        s.access(stamp(1, 0), 0, 4, Access::Write, true, true);
        let (uninit, _) = s.access(stamp(2, 1), 2, 4, Access::Read, true, true);
        assert_eq!(uninit, Some(LdsEvent::Uninitialized { offset: 4 }));
        let (uninit, race) = s.access(stamp(2, 1), 0, 4, Access::Read, true, true);
        assert_eq!((uninit, race), (None, None));
    }

    #[test]
    fn conflicts_race_only_between_waves_within_an_epoch() {
        let mut s = take(16);
        s.access(stamp(1, 0), 0, 4, Access::Write, true, true);
        // Same wave: program order.
        assert_eq!(
            s.access(stamp(1, 0), 0, 4, Access::Read, true, true).1,
            None
        );
        // Another wave, same epoch: read after write.
        let (_, race) = s.access(stamp(1, 1), 0, 4, Access::Read, true, true);
        assert_eq!(
            race,
            Some(LdsEvent::Race {
                offset: 0,
                earlier: stamp(1, 0),
                earlier_access: Access::Write
            })
        );
        // After a barrier: no race; then a write after wave 2's read races.
        assert_eq!(
            s.access(stamp(2, 2), 0, 4, Access::Read, true, true).1,
            None
        );
        let (_, race) = s.access(stamp(2, 3), 1, 1, Access::Write, true, true);
        assert!(
            matches!(
                race,
                Some(LdsEvent::Race {
                    offset: 1,
                    earlier_access: Access::Read,
                    ..
                })
            ),
            "{race:?}"
        );
        // Atomics never race.
        assert_eq!(
            s.access(stamp(3, 0), 8, 4, Access::Atomic, true, false).1,
            None
        );
        assert_eq!(
            s.access(stamp(3, 1), 8, 4, Access::Atomic, true, false).1,
            None
        );
    }

    #[test]
    fn a_reused_shadow_starts_fresh() {
        let mut s = take(8);
        s.access(stamp(1, 0), 0, 8, Access::Write, true, true);
        give_back(s);
        let mut s = take(8);
        let (uninit, race) = s.access(stamp(1, 1), 0, 4, Access::Read, true, true);
        assert_eq!(uninit, Some(LdsEvent::Uninitialized { offset: 0 }));
        assert_eq!(race, None, "the last workgroup's write is not this one's");
    }

    /// The per-byte shadow this one stands for: each byte its own written
    /// flag and stamps, stepped byte after byte.
    #[derive(Clone, Copy, Default)]
    struct RefByte {
        written: bool,
        write: Stamp,
        read: Stamp,
        more_readers: bool,
    }

    fn reference(
        bytes: &mut [RefByte],
        by: Stamp,
        offset: u64,
        size: u32,
        access: Access,
        racecheck: bool,
        initcheck: bool,
    ) -> (Option<LdsEvent>, Option<LdsEvent>) {
        let (mut uninit, mut race) = (None, None);
        let n = bytes.len() as u64;
        let (start, end) = (offset.min(n), (offset + u64::from(size)).min(n));
        for at in start..end {
            let b = &mut bytes[at as usize];
            if initcheck && access != Access::Write && !b.written && uninit.is_none() {
                uninit = Some(LdsEvent::Uninitialized { offset: at });
            }
            if access == Access::Atomic {
                b.written = true;
                continue;
            }
            if racecheck && race.is_none() {
                if b.write.epoch == by.epoch && b.write.wave != by.wave {
                    race = Some(LdsEvent::Race {
                        offset: at,
                        earlier: b.write,
                        earlier_access: Access::Write,
                    });
                } else if access == Access::Write
                    && b.read.epoch == by.epoch
                    && (b.read.wave != by.wave || b.more_readers)
                {
                    race = Some(LdsEvent::Race {
                        offset: at,
                        earlier: b.read,
                        earlier_access: Access::Read,
                    });
                }
            }
            if access == Access::Write {
                b.write = by;
                b.written = true;
            } else if b.read.epoch == by.epoch && b.read.wave != by.wave {
                b.more_readers = true;
            } else if b.read.epoch != by.epoch {
                b.read = by;
                b.more_readers = false;
            }
        }
        (uninit, race)
    }

    /// A dword written whole, then a byte of it written by another wave:
    /// the dword splits, and the race names that byte and the dword's write.
    /// A whole-dword read by a third wave then races at the dword's first
    /// byte with the first write, and at byte 2 of a dword whose other
    /// bytes were written in an earlier epoch.
    #[test]
    fn a_byte_access_races_with_the_dword_access_it_overlaps() {
        let mut s = take(16);
        s.access(stamp(1, 0), 0, 4, Access::Write, true, true);
        let (_, race) = s.access(stamp(1, 1), 2, 1, Access::Write, true, true);
        assert_eq!(
            race,
            Some(LdsEvent::Race {
                offset: 2,
                earlier: stamp(1, 0),
                earlier_access: Access::Write
            })
        );
        let (_, race) = s.access(stamp(1, 2), 0, 4, Access::Read, true, true);
        assert_eq!(
            race,
            Some(LdsEvent::Race {
                offset: 0,
                earlier: stamp(1, 0),
                earlier_access: Access::Write
            })
        );
        s.access(stamp(2, 0), 4, 4, Access::Write, true, true);
        s.access(stamp(3, 1), 6, 2, Access::Write, true, true);
        let (_, race) = s.access(stamp(3, 2), 4, 4, Access::Read, true, true);
        assert_eq!(
            race,
            Some(LdsEvent::Race {
                offset: 6,
                earlier: stamp(3, 1),
                earlier_access: Access::Write
            })
        );
    }

    /// Bytes written one by one join into one dword again, and a later race
    /// on the joined dword still names the last writer of its first byte;
    /// an unaligned dword spans two dwords' halves.
    #[test]
    fn a_race_after_the_bytes_join_again_names_the_same_access() {
        let mut s = take(16);
        for b in 0..4 {
            s.access(stamp(1, 0), b, 1, Access::Write, true, true);
        }
        s.access(stamp(1, 3), 0, 4, Access::Write, true, true);
        let (uninit, race) = s.access(stamp(1, 1), 0, 4, Access::Read, true, true);
        assert_eq!(uninit, None);
        assert_eq!(
            race,
            Some(LdsEvent::Race {
                offset: 0,
                earlier: stamp(1, 3),
                earlier_access: Access::Write
            })
        );
        let (uninit, race) = s.access(stamp(2, 2), 2, 4, Access::Write, true, true);
        assert_eq!((uninit, race), (None, None));
        let (uninit, race) = s.access(stamp(2, 1), 4, 4, Access::Read, true, true);
        assert_eq!(uninit, Some(LdsEvent::Uninitialized { offset: 6 }));
        assert_eq!(
            race,
            Some(LdsEvent::Race {
                offset: 4,
                earlier: stamp(2, 2),
                earlier_access: Access::Write
            })
        );
    }

    /// Many workgroups on one shadow: the generation wraps, and old states
    /// never look current.
    #[test]
    fn generations_wrap_without_old_states_coming_back() {
        let mut s = take(8);
        for k in 0..2 * MAX_GENERATION as u32 + 3 {
            let (uninit, race) = s.access(stamp(1, k % 2), 0, 4, Access::Read, true, true);
            assert_eq!(
                (uninit, race),
                (Some(LdsEvent::Uninitialized { offset: 0 }), None)
            );
            s.access(stamp(1, k % 2), 0, 8, Access::Write, true, true);
            give_back(s);
            s = take(8);
        }
    }

    /// Random accesses of every size and alignment, by four waves over a few
    /// epochs: every event is the one the per-byte shadow finds.
    #[test]
    fn every_event_is_the_per_byte_shadows() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..20 {
            let lds = 40 + 4 * round;
            let mut s = take(lds);
            let mut r = vec![RefByte::default(); lds as usize];
            let mut epoch = 1;
            for _ in 0..600 {
                if next(40) == 0 {
                    epoch += 1;
                }
                let by = Stamp {
                    epoch,
                    wave: next(4) as u32,
                    lane: next(64) as u32,
                    pc: 0x1000 + 4 * next(8),
                };
                let size = [1, 2, 4, 4, 4, 8, 12, 16][next(8) as usize];
                let offset = if next(4) == 0 {
                    next(u64::from(lds) + 4)
                } else {
                    4 * next(u64::from(lds) / 4 + 1)
                };
                let access = [Access::Read, Access::Write, Access::Atomic][next(3) as usize];
                let (rc, ic) = (next(8) != 0 && access != Access::Atomic, next(8) != 0);
                assert_eq!(
                    s.access(by, offset, size, access, rc, ic),
                    reference(&mut r, by, offset, size, access, rc, ic),
                    "{by:?} {access:?} {size} bytes at {offset}"
                );
            }
            give_back(s);
        }
    }
}
