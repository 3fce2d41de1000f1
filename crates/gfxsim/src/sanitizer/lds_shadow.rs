//! The LDS shadow of one workgroup, for initcheck and racecheck: per LDS
//! byte, whether the workgroup wrote it, and its last write and last read
//! (wave, lane, PC, barrier epoch). The epoch counts the workgroup's
//! barrier releases, so two accesses race exactly when they are by
//! different waves in the same epoch and one of them writes.
//!
//! Atomics are writes for initcheck (and reads of what they update), and
//! never race with each other: they are left out of racecheck.

use aqueduct_isa::Access;

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
}

impl LdsShadow {
    pub(super) fn new(lds_bytes: u32) -> LdsShadow {
        LdsShadow {
            bytes: vec![ByteState::default(); lds_bytes as usize],
        }
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
        for (k, b) in self.bytes[start..end].iter_mut().enumerate() {
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
        let mut s = LdsShadow::new(16);
        s.access(stamp(1, 0), 0, 4, Access::Write, true, true);
        let (uninit, _) = s.access(stamp(2, 1), 2, 4, Access::Read, true, true);
        assert_eq!(uninit, Some(LdsEvent::Uninitialized { offset: 4 }));
        let (uninit, race) = s.access(stamp(2, 1), 0, 4, Access::Read, true, true);
        assert_eq!((uninit, race), (None, None));
    }

    #[test]
    fn conflicts_race_only_between_waves_within_an_epoch() {
        let mut s = LdsShadow::new(16);
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
}
