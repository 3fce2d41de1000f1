//! The LDS shadow of one workgroup, for initcheck and racecheck: per LDS
//! byte, whether the workgroup wrote it, and its last write and last read
//! (wave, lane, PC, barrier epoch). The epoch counts the workgroup's
//! barrier releases, so two accesses race exactly when they are by
//! different waves in the same epoch and one of them writes.
//!
//! Atomics are writes for initcheck (and reads of what they update), and
//! never race with each other: they are left out of racecheck.
//!
//! A worker thread reuses one shadow for the workgroups it runs ([`take`]
//! and [`give_back`]): each workgroup has its own generation number, and a
//! byte whose state carries an older one is fresh, so a workgroup starts
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
            bytes: Vec::new(),
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

#[derive(Clone, Copy, Debug, Default)]
struct ByteState {
    /// The workgroup this state is of (an older one: the byte is fresh).
    generation: u32,
    write: Stamp,
    read: Stamp,
    /// Waves other than `read.wave` read the byte in `read.epoch` too.
    more_readers: bool,
    written: bool,
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
    bytes: Vec<ByteState>,
    /// The current workgroup's generation (never 0 once started).
    generation: u32,
}

impl LdsShadow {
    /// Start a new workgroup of `lds_bytes` bytes of LDS: every byte fresh.
    fn start(&mut self, lds_bytes: u32) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Generations wrapped: old states could look current.
            self.bytes.clear();
            self.generation = 1;
        }
        let n = lds_bytes as usize;
        self.bytes.truncate(n);
        self.bytes.resize(n, ByteState::default());
    }

    /// Record `size` bytes from `offset` accessed as `access` by `by` (bytes
    /// past the LDS are memcheck's). `racecheck`, `initcheck`: which events
    /// to look for. Gives the first event of each kind.
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
        let start = offset.min(self.bytes.len() as u64) as usize;
        let end = offset
            .saturating_add(size as u64)
            .min(self.bytes.len() as u64) as usize;
        let generation = self.generation;
        for (k, b) in self.bytes[start..end].iter_mut().enumerate() {
            if b.generation != generation {
                *b = ByteState {
                    generation,
                    ..ByteState::default()
                };
            }
            let at = (start + k) as u64;
            let reads = access != Access::Write;
            if initcheck && reads && !b.written && uninit.is_none() {
                uninit = Some(LdsEvent::Uninitialized { offset: at });
            }
            if access == Access::Atomic {
                b.written = true;
                continue;
            }
            let other_write = b.write.epoch == by.epoch && b.write.wave != by.wave;
            if racecheck && race.is_none() {
                if other_write {
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
}
