//! synccheck's rules, applied when a workgroup's barrier is released: every
//! waiting wave should wait at the same `s_barrier`, and no wave should
//! have ended while others wait.
//!
//! Hardware releases the barrier all the same: waves that have terminated
//! are not waited for (AMD "RDNA3" Instruction Set Architecture Reference
//! Guide, SOPP S_BARRIER), and s_barrier carries no identity, so waves at
//! different barriers release each other. These are findings about the
//! program (a barrier in control flow not every wave takes), not faults.

use aqueduct_isa::observer::WaveSync;

/// A rule a barrier release breaks: wave indices and their PCs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SyncBreak {
    /// Wave `wave` waits at `pc`; `other` at another barrier, `other_pc`.
    Divergent {
        wave: u32,
        pc: u64,
        other: u32,
        other_pc: u64,
    },
    /// Wave `wave` ended at `pc` while `waiting` waits at `barrier_pc`.
    Ended {
        wave: u32,
        pc: u64,
        waiting: u32,
        barrier_pc: u64,
    },
}

/// What a release with the waves at `waves` breaks (at most one of each
/// kind per release: the first mismatching wave, and each ended wave).
pub(super) fn check(waves: &[WaveSync]) -> Vec<SyncBreak> {
    let mut breaks = Vec::new();
    let first = waves.iter().enumerate().find_map(|(k, w)| match w {
        WaveSync::AtBarrier { pc } => Some((k as u32, *pc)),
        WaveSync::Ended { .. } => None,
    });
    let Some((first, first_pc)) = first else {
        return breaks;
    };
    if let Some((k, pc)) = waves.iter().enumerate().find_map(|(k, w)| match w {
        WaveSync::AtBarrier { pc } if *pc != first_pc => Some((k as u32, *pc)),
        _ => None,
    }) {
        breaks.push(SyncBreak::Divergent {
            wave: k,
            pc,
            other: first,
            other_pc: first_pc,
        });
    }
    for (k, w) in waves.iter().enumerate() {
        if let WaveSync::Ended { pc } = w {
            breaks.push(SyncBreak::Ended {
                wave: k as u32,
                pc: *pc,
                waiting: first,
                barrier_pc: first_pc,
            });
        }
    }
    breaks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_breaks_the_rules_its_waves_show() {
        let at = |pc| WaveSync::AtBarrier { pc };
        assert_eq!(check(&[at(0x10), at(0x10)]), vec![]);
        assert_eq!(
            check(&[at(0x10), at(0x20)]),
            vec![SyncBreak::Divergent {
                wave: 1,
                pc: 0x20,
                other: 0,
                other_pc: 0x10
            }]
        );
        assert_eq!(
            check(&[WaveSync::Ended { pc: 0x40 }, at(0x10)]),
            vec![SyncBreak::Ended {
                wave: 0,
                pc: 0x40,
                waiting: 1,
                barrier_pc: 0x10
            }]
        );
    }
}
