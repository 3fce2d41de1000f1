//! memcheck's rules: a lane's access must end inside the allocation its
//! address lies in (the size the runtime asked for, not the BO's pages), the
//! workgroup's LDS, or the lane's private segment. Each check gives the
//! first active lane that breaks its rule.

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

/// The first lane whose access ends past `bytes` bytes of its segment.
pub(super) fn past(a: &LaneAccesses<'_>, bytes: u32) -> Option<usize> {
    lanes(a).find(|&l| a.addrs[l].saturating_add(a.size as u64) > bytes as u64)
}
