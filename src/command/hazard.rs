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
//! Fence scopes follow ownership: a packet that reads memory the host wrote
//! (fine-grained buffers: mapped uploads, the staging ring) acquires at
//! system scope, one that writes memory the host will read releases at
//! system scope; device-only traffic uses agent scope. Acquire is never
//! below agent scope for dispatches: it invalidates the scalar cache that
//! would otherwise hold stale kernargs from a reused ring block.

use std::ops::Range;

use aqueduct_kfd::abi::FenceScope;

/// One memory access of a packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Access {
    /// Device address range.
    pub range: Range<u64>,
    pub write: bool,
    /// The memory is fine-grained and host visible.
    pub host_visible: bool,
}

impl Access {
    fn conflicts(&self, other: &Access) -> bool {
        (self.write || other.write)
            && self.range.start < other.range.end
            && other.range.start < self.range.end
    }
}

#[derive(Debug, Default)]
pub(crate) struct HazardTracker {
    since_barrier: Vec<Access>,
}

impl HazardTracker {
    /// Record a packet's accesses; returns whether it needs the barrier bit.
    pub(crate) fn record(&mut self, accesses: &[Access]) -> bool {
        let barrier = accesses
            .iter()
            .any(|a| self.since_barrier.iter().any(|p| a.conflicts(p)));
        if barrier {
            self.since_barrier.clear();
        }
        self.since_barrier.extend(accesses.iter().cloned());
        barrier
    }

    /// Record a packet that always gets the barrier bit (a timestamp:
    /// it orders after everything before it).
    pub(crate) fn record_barrier(&mut self, accesses: &[Access]) {
        self.since_barrier.clear();
        self.since_barrier.extend(accesses.iter().cloned());
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

    fn a(start: u64, end: u64, write: bool) -> Access {
        Access {
            range: start..end,
            write,
            host_visible: false,
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

    #[test]
    fn scopes_follow_host_visibility() {
        let host_read = Access {
            range: 0..4,
            write: false,
            host_visible: true,
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
