//! Address resolution for per-lane memory accesses through [`GpuMemory`].
//! The common case (all active lanes inside one mapping, e.g. a coalesced
//! load) costs one `translate` of the lanes' whole span; otherwise each lane
//! is translated alone, and the first (lowest) faulting lane's address is
//! the one reported.

use crate::isa::wave::LANES;
use crate::isa::{Access, GpuMemory, MemoryFault};

/// Largest span translated in one call before falling back to per-lane.
const MAX_SPAN: u64 = 1 << 24;

/// Host pointers for each active lane's `size`-byte access at `addrs[l]`.
pub(crate) fn resolve(
    mem: &dyn GpuMemory,
    addrs: &[u64; LANES],
    mask: u32,
    size: u64,
    access: Access,
) -> Result<[*mut u8; LANES], MemoryFault> {
    let mut ptrs = [std::ptr::null_mut(); LANES];
    if mask == 0 {
        return Ok(ptrs);
    }
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for l in 0..LANES {
        if mask >> l & 1 != 0 {
            lo = lo.min(addrs[l]);
            hi = hi.max(addrs[l].saturating_add(size));
        }
    }
    if hi - lo <= MAX_SPAN
        && let Ok(base) = mem.translate(lo, hi - lo, access)
    {
        for l in 0..LANES {
            if mask >> l & 1 != 0 {
                // The span [lo, hi) was translated as one range, so base + offset stays inside it.
                ptrs[l] = base.wrapping_add((addrs[l] - lo) as usize);
            }
        }
        return Ok(ptrs);
    }
    for l in 0..LANES {
        if mask >> l & 1 != 0 {
            ptrs[l] = mem.translate(addrs[l], size, access)?;
        }
    }
    Ok(ptrs)
}

/// Read `N` bytes from a resolved pointer.
#[inline]
pub(crate) fn read_bytes<const N: usize>(p: *mut u8) -> [u8; N] {
    let mut b = [0u8; N];
    // SAFETY: `p` came from GpuMemory::translate for at least N bytes (resolve's contract).
    unsafe { std::ptr::copy_nonoverlapping(p as *const u8, b.as_mut_ptr(), N) };
    b
}

/// Write bytes to a resolved pointer.
#[inline]
pub(crate) fn write_bytes(p: *mut u8, b: &[u8]) {
    // SAFETY: `p` came from GpuMemory::translate for at least b.len() bytes (resolve's contract).
    unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, b.len()) };
}
