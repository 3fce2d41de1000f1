//! memcheck's rules: a lane's access must end inside the allocation its
//! address lies in (the size the runtime asked for, not the BO's pages), the
//! workgroup's LDS, or the lane's private segment; and, for a dispatch whose
//! bound ranges the runtime noted, lie inside one of the ranges it binds of
//! that allocation. Each check gives the first active lane that breaks its
//! rule.

use std::ops::Range;

use aqueduct_isa::observer::LaneAccesses;

use super::allocations::{Allocation, AllocationSnapshot};

/// The active lanes of `a`, in order.
fn lanes(a: &LaneAccesses<'_>) -> impl Iterator<Item = usize> + use<> {
    let exec = a.exec;
    (0..32).filter(move |l| exec >> l & 1 != 0)
}

/// A global access past its allocation's requested bytes: (lane in the
/// 32, the allocation, bytes past its end). Addresses in no described
/// allocation are not checked (the page table faults those outside every
/// BO).
pub(super) fn global(
    a: &LaneAccesses<'_>,
    allocations: &AllocationSnapshot,
) -> Option<(usize, Allocation, u64)> {
    let size = a.size as u64;
    // Every lane between the lowest and highest address of one allocation:
    // one lookup for the instruction.
    let (mut lo, mut hi) = (u64::MAX, 0);
    for l in lanes(a) {
        lo = lo.min(a.addrs[l]);
        hi = hi.max(a.addrs[l]);
    }
    if let Some(alloc) = allocations.containing(lo)
        && hi.saturating_add(size) <= alloc.end()
    {
        return None;
    }
    lanes(a).find_map(|l| {
        let addr = a.addrs[l];
        let alloc = allocations.containing(addr)?;
        let end = addr.saturating_add(size);
        (end > alloc.end()).then(|| (l, alloc, end - alloc.end()))
    })
}

/// A global access inside its allocation but outside every range of that
/// allocation the dispatch binds: (lane in the 32, the allocation, the
/// bound range nearest the access). Allocations the dispatch binds nothing
/// of (its kernarg block, buffers reached through pointers) are not
/// checked, nor accesses past their allocation (`global` reports those).
pub(super) fn binding(
    a: &LaneAccesses<'_>,
    allocations: &AllocationSnapshot,
    bindings: &[Range<u64>],
) -> Option<(usize, Allocation, Range<u64>)> {
    let size = a.size as u64;
    let inside = |r: &Range<u64>, addr: u64| r.start <= addr && addr.saturating_add(size) <= r.end;
    // Every lane inside one bound range: one pass for the instruction.
    let (mut lo, mut hi) = (u64::MAX, 0);
    for l in lanes(a) {
        lo = lo.min(a.addrs[l]);
        hi = hi.max(a.addrs[l]);
    }
    if bindings
        .iter()
        .any(|r| r.start <= lo && hi.saturating_add(size) <= r.end)
    {
        return None;
    }
    lanes(a).find_map(|l| {
        let addr = a.addrs[l];
        let alloc = allocations.containing(addr)?;
        if addr.saturating_add(size) > alloc.end() {
            return None;
        }
        let mut bound = bindings
            .iter()
            .filter(|r| r.start >= alloc.base && r.start < alloc.end())
            .peekable();
        bound.peek()?;
        let mut nearest: Option<&Range<u64>> = None;
        for r in bound {
            if inside(r, addr) {
                return None;
            }
            let distance = |r: &Range<u64>| {
                if addr < r.start {
                    r.start - addr
                } else {
                    addr.saturating_add(size).saturating_sub(r.end)
                }
            };
            if nearest.is_none_or(|n| distance(r) < distance(n)) {
                nearest = Some(r);
            }
        }
        nearest.map(|r| (l, alloc, r.clone()))
    })
}

/// The first lane whose access ends past `bytes` bytes of its segment.
pub(super) fn past(a: &LaneAccesses<'_>, bytes: u32) -> Option<usize> {
    lanes(a).find(|&l| a.addrs[l].saturating_add(a.size as u64) > bytes as u64)
}

#[cfg(test)]
mod tests {
    use aqueduct_isa::Access;
    use aqueduct_isa::observer::Segment;

    use super::super::allocations::Allocations;
    use super::*;

    /// Lanes 0 and 1 writing 4 bytes at `addrs`.
    fn two_lanes(addrs: &[u64; 32]) -> LaneAccesses<'_> {
        LaneAccesses {
            pc: 0x100,
            wave: 0,
            first_lane: 0,
            segment: Segment::Global,
            access: Access::Write,
            size: 4,
            exec: 0b11,
            addrs,
            scalar: false,
            sc1: false,
        }
    }

    #[test]
    fn an_access_outside_every_bound_range_of_its_allocation_is_found() {
        let table = Allocations::default();
        table.insert(0x10_000, 1024);
        table.insert(0x20_000, 64);
        let s = table.snapshot();
        let bound = [0x10_000..0x10_100, 0x10_200..0x10_300];
        let mut addrs = [0u64; 32];
        // Both lanes inside one bound range, then in the other.
        addrs[..2].copy_from_slice(&[0x10_000, 0x10_0FC]);
        assert_eq!(binding(&two_lanes(&addrs), &s, &bound), None);
        addrs[..2].copy_from_slice(&[0x10_000, 0x10_200]);
        assert_eq!(binding(&two_lanes(&addrs), &s, &bound), None);
        // Lane 1 straddles the first range's end: the nearest is that one.
        addrs[..2].copy_from_slice(&[0x10_000, 0x10_0FE]);
        let (lane, alloc, range) = binding(&two_lanes(&addrs), &s, &bound).unwrap();
        assert_eq!((lane, alloc.base, range), (1, 0x10_000, 0x10_000..0x10_100));
        // Just before the second range: that one is nearest.
        addrs[..2].copy_from_slice(&[0x10_1FC, 0x10_200]);
        let (lane, _, range) = binding(&two_lanes(&addrs), &s, &bound).unwrap();
        assert_eq!((lane, range), (0, 0x10_200..0x10_300));
        // An allocation the dispatch binds nothing of is not checked, nor an
        // access past its allocation (`global` reports that one).
        addrs[..2].copy_from_slice(&[0x20_000, 0x10_400]);
        assert_eq!(binding(&two_lanes(&addrs), &s, &bound), None);
    }
}
