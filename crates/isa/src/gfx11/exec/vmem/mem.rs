//! Address resolution for per-lane memory accesses through [`GpuMemory`].
//! The common case (all active lanes inside one mapping, e.g. a coalesced
//! load) costs one `translate` of the lanes' whole span; otherwise each lane
//! is translated alone, and the first (lowest) faulting lane's address is
//! the one reported. A coalesced access (all lanes, unit stride) is one
//! translate and one block copy. Lane data moves as dword rows with
//! fixed-size unaligned reads/writes, no per-lane byte buffers.

use crate::gfx11::wave::LANES;
use crate::{Access, GpuMemory, MemoryFault};

/// Largest span translated in one call before falling back to per-lane.
pub(crate) const MAX_SPAN: u64 = 1 << 24;

/// Where the active lanes' accesses go on the host.
#[derive(Clone, Copy)]
// A short-lived stack value per instruction: boxing the large variant would cost an allocation.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Resolved {
    /// All 32 lanes active and lane `l` at `base + l * size` (a coalesced
    /// access): lane `l`'s bytes are at `ptr + l * size`.
    Dense(*mut u8),
    /// Every active lane inside one range translated at once: lane `l`'s
    /// bytes are at `ptr + (addrs[l] - lo)`; the fields are (ptr, lo).
    Span(*mut u8, u64),
    /// A host pointer per active lane (null for inactive lanes).
    Lanes([*mut u8; LANES]),
}

/// Host pointers for each active lane's `size`-byte access at `addrs[l]`.
pub(crate) fn resolve(
    mem: &dyn GpuMemory,
    addrs: &[u64; LANES],
    mask: u32,
    size: u64,
    access: Access,
) -> Result<Resolved, MemoryFault> {
    if mask == 0 {
        return Ok(Resolved::Span(std::ptr::null_mut(), 0));
    }
    if mask == u32::MAX {
        // Coalesced: lane l at addrs[0] + l * size, nothing wrapping around.
        let base = addrs[0];
        let mut dense = base.checked_add(size * LANES as u64).is_some();
        for l in 0..LANES {
            dense &= addrs[l] == base.wrapping_add(l as u64 * size);
        }
        if dense && let Ok(p) = mem.translate(base, size * LANES as u64, access) {
            return Ok(Resolved::Dense(p));
        }
    }
    // Branch-free span of the active lanes (inactive lanes leave lo/hi as they are).
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for l in 0..LANES {
        let active = mask >> l & 1 != 0;
        let a = addrs[l];
        lo = if active { lo.min(a) } else { lo };
        hi = if active {
            hi.max(a.saturating_add(size))
        } else {
            hi
        };
    }
    if hi - lo <= MAX_SPAN
        && let Ok(base) = mem.translate(lo, hi - lo, access)
    {
        return Ok(Resolved::Span(base, lo));
    }
    let mut ptrs = [std::ptr::null_mut(); LANES];
    for l in 0..LANES {
        if mask >> l & 1 != 0 {
            ptrs[l] = mem.translate(addrs[l], size, access)?;
        }
    }
    Ok(Resolved::Lanes(ptrs))
}

/// Read a little-endian dword at `p` (unaligned).
#[inline(always)]
fn load_u32(p: *const u8) -> u32 {
    // SAFETY: callers pass pointers from `resolve` with at least 4 bytes left in the lane's access.
    u32::from_le(unsafe { std::ptr::read_unaligned(p as *const u32) })
}

/// Load every active lane's `size`-byte access (1, 2, 4, 8, 12 or 16
/// bytes) as dword rows: `rows[k][l]` is dword `k` of lane `l`; 1- and
/// 2-byte accesses are zero-extended into row 0. Inactive lanes read 0.
pub(crate) fn gather(
    r: &Resolved,
    addrs: &[u64; LANES],
    mask: u32,
    size: usize,
) -> [[u32; LANES]; 4] {
    let mut rows = [[0u32; LANES]; 4];
    match *r {
        Resolved::Dense(base) => {
            let base = base as *const u8;
            match size {
                1 => {
                    for l in 0..LANES {
                        // SAFETY: the dense span covers 32 * size bytes from base.
                        rows[0][l] = unsafe { base.add(l).read() } as u32;
                    }
                }
                2 => {
                    for l in 0..LANES {
                        // SAFETY: as above; lane l's 2 bytes are at base + 2l.
                        let v = unsafe { std::ptr::read_unaligned(base.add(2 * l) as *const u16) };
                        rows[0][l] = u16::from_le(v) as u32;
                    }
                }
                4 => {
                    // SAFETY: as above; 128 contiguous bytes are lanes 0..32's dwords.
                    let v = unsafe { std::ptr::read_unaligned(base as *const [u32; LANES]) };
                    rows[0] = le_row(v);
                }
                _ => {
                    for l in 0..LANES {
                        for k in 0..size / 4 {
                            rows[k][l] = load_u32(base.wrapping_add(l * size + 4 * k));
                        }
                    }
                }
            }
        }
        // One match outside the lane loop, and a loop per access size.
        // The span [lo, hi) was translated as one range: ptr + (addr - lo) stays
        // inside it for every active lane.
        Resolved::Span(ptr, lo) => gather_lanes(&mut rows, mask, size, move |l| {
            ptr.wrapping_add((addrs[l].wrapping_sub(lo)) as usize)
        }),
        Resolved::Lanes(ptrs) => gather_lanes(&mut rows, mask, size, |l| ptrs[l]),
    }
    rows
}

/// The active lanes' `size`-byte loads at `lane(l)` (translated for at
/// least `size` bytes) into dword rows, as [`gather`].
#[inline(always)]
fn gather_lanes(
    rows: &mut [[u32; LANES]; 4],
    mask: u32,
    size: usize,
    lane: impl Fn(usize) -> *mut u8 + Copy,
) {
    match size {
        1 => gather_sized::<1>(rows, mask, lane),
        2 => gather_sized::<2>(rows, mask, lane),
        4 => gather_sized::<4>(rows, mask, lane),
        8 => gather_sized::<8>(rows, mask, lane),
        12 => gather_sized::<12>(rows, mask, lane),
        _ => gather_sized::<16>(rows, mask, lane),
    }
}

/// [`gather_lanes`] for `N` bytes per lane.
#[inline(always)]
fn gather_sized<const N: usize>(
    rows: &mut [[u32; LANES]; 4],
    mask: u32,
    lane: impl Fn(usize) -> *mut u8,
) {
    for l in 0..LANES {
        if mask & (1 << l) == 0 {
            continue;
        }
        let p = lane(l);
        match N {
            // SAFETY: lane(l) was translated for 1 byte.
            1 => rows[0][l] = unsafe { p.read() } as u32,
            // SAFETY: lane(l) was translated for 2 bytes; unaligned read.
            2 => rows[0][l] = u16::from_le(unsafe { (p as *const u16).read_unaligned() }) as u32,
            _ => {
                for (k, row) in rows.iter_mut().enumerate().take(N / 4) {
                    row[l] = load_u32(p.wrapping_add(4 * k));
                }
            }
        }
    }
}

/// Store every active lane's `size`-byte access from dword rows
/// (`rows[k][l]` is dword `k` of lane `l`; 1- and 2-byte stores take the
/// low bytes of row 0). Lanes are written in lane order, each whole before
/// the next, so overlapping lanes resolve to the highest lane's bytes.
pub(crate) fn scatter(
    r: &Resolved,
    addrs: &[u64; LANES],
    mask: u32,
    size: usize,
    rows: &[[u32; LANES]; 4],
) {
    let write = |p: *mut u8, l: usize| match size {
        // SAFETY: p was translated for `size` bytes of this lane's access.
        1 => unsafe { p.write(rows[0][l] as u8) },
        // SAFETY: as above.
        2 => unsafe { std::ptr::write_unaligned(p as *mut u16, (rows[0][l] as u16).to_le()) },
        _ => {
            for k in 0..size / 4 {
                // SAFETY: as above; dword k lies inside the lane's `size` bytes.
                unsafe {
                    std::ptr::write_unaligned(p.wrapping_add(4 * k) as *mut u32, rows[k][l].to_le())
                };
            }
        }
    };
    match *r {
        Resolved::Dense(base) => {
            if size == 4 {
                let v = le_row(rows[0]);
                // SAFETY: the dense span covers 32 * 4 bytes from base.
                unsafe { std::ptr::write_unaligned(base as *mut [u32; LANES], v) };
            } else {
                for l in 0..LANES {
                    write(base.wrapping_add(l * size), l);
                }
            }
        }
        // One match outside the lane loop (lanes still in order).
        Resolved::Span(ptr, lo) => {
            for l in 0..LANES {
                if mask & (1 << l) != 0 {
                    write(ptr.wrapping_add((addrs[l].wrapping_sub(lo)) as usize), l);
                }
            }
        }
        Resolved::Lanes(ptrs) => {
            for l in 0..LANES {
                if mask & (1 << l) != 0 {
                    write(ptrs[l], l);
                }
            }
        }
    }
}

/// `v` with every dword converted between host and little-endian order
/// (nothing on x86). A loop: `array::map` was left out of line (~18 host
/// instructions a call on the hottest accesses).
#[inline(always)]
pub(crate) fn le_row<const N: usize>(mut v: [u32; N]) -> [u32; N] {
    for x in &mut v {
        *x = u32::from_le(*x);
    }
    v
}

/// Dword `k` of every lane of a coalesced access (lane `l`'s `size` bytes
/// at `p + l * size`, `size` 4, 8, 12 or 16): a 128-byte copy for
/// `size` 4, a strided read otherwise.
#[inline(always)]
pub(crate) fn coalesced_row(p: *const u8, size: usize, k: usize) -> [u32; LANES] {
    if size == 4 {
        // SAFETY: the caller translated 32 * size bytes at p; lanes 0..32's dwords are contiguous.
        let v = unsafe { std::ptr::read_unaligned(p as *const [u32; LANES]) };
        return le_row(v);
    }
    let mut row = [0u32; LANES];
    for (l, v) in row.iter_mut().enumerate() {
        *v = load_u32(p.wrapping_add(l * size + 4 * k));
    }
    row
}

/// Store `row` as dword `k` of every lane of a coalesced access (as
/// [`coalesced_row`]).
#[inline(always)]
pub(crate) fn store_coalesced_row(p: *mut u8, size: usize, k: usize, row: &[u32; LANES]) {
    if size == 4 {
        // SAFETY: the caller translated 32 * size bytes at p for writing.
        unsafe { std::ptr::write_unaligned(p as *mut [u32; LANES], le_row(*row)) };
        return;
    }
    for (l, v) in row.iter().enumerate() {
        // SAFETY: as above; lane l's dword k lies inside its `size` bytes.
        unsafe {
            std::ptr::write_unaligned(p.wrapping_add(l * size + 4 * k) as *mut u32, v.to_le())
        };
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One flat buffer at GPU address `BASE`.
    struct Flat(std::cell::UnsafeCell<Vec<u8>>);
    // SAFETY: the tests use it from one thread only.
    unsafe impl Sync for Flat {}
    const BASE: u64 = 0x10_0000;

    impl GpuMemory for Flat {
        fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
            // SAFETY: single-threaded test; the pointer stays inside the vector.
            let v = unsafe { &mut *self.0.get() };
            if addr < BASE || addr + len > BASE + v.len() as u64 {
                return Err(MemoryFault {
                    address: addr,
                    access,
                });
            }
            Ok(v.as_mut_ptr().wrapping_add((addr - BASE) as usize))
        }
    }

    /// `Flat` that refuses any translation longer than one lane's access, so
    /// `resolve` must translate lane by lane (`Resolved::Lanes`).
    struct LaneByLane(Flat);
    impl GpuMemory for LaneByLane {
        fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
            if len > 16 {
                return Err(MemoryFault {
                    address: addr,
                    access,
                });
            }
            self.0.translate(addr, len, access)
        }
    }

    fn bytes(m: &Flat) -> Vec<u8> {
        // SAFETY: single-threaded test.
        unsafe { (*m.0.get()).clone() }
    }

    /// gather/scatter against a byte-by-byte model, for every access size,
    /// dense (coalesced) and scattered addresses, full and partial masks,
    /// resolved as one span or (memory refusing long ranges) lane by lane.
    #[test]
    fn gather_scatter_match_bytewise_model() {
        let init: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
        let cases = [
            (true, u32::MAX, false),
            (false, u32::MAX, false),
            (false, 0x8000_F00D, false),
            (false, u32::MAX, true),
            (false, 0x8000_F00D, true),
        ];
        for size in [1usize, 2, 4, 8, 12, 16] {
            for (dense, mask, lane_by_lane) in cases {
                let mut addrs = [0u64; LANES];
                for l in 0..LANES {
                    addrs[l] = if dense {
                        BASE + 64 + (l * size) as u64
                    } else {
                        // Overlapping, unordered lanes.
                        BASE + ((l * 37) % 50) as u64 * 3
                    };
                }
                let m = LaneByLane(Flat(std::cell::UnsafeCell::new(init.clone())));
                let mem: &dyn GpuMemory = if lane_by_lane { &m } else { &m.0 };
                let r = resolve(mem, &addrs, mask, size as u64, Access::Read).unwrap();
                assert_eq!(matches!(r, Resolved::Dense(_)), dense);
                assert_eq!(matches!(r, Resolved::Lanes(_)), lane_by_lane);
                let rows = gather(&r, &addrs, mask, size);
                for l in 0..LANES {
                    let mut expect = [0u8; 16];
                    if mask >> l & 1 != 0 {
                        let o = (addrs[l] - BASE) as usize;
                        expect[..size].copy_from_slice(&init[o..o + size]);
                    }
                    for k in 0..4 {
                        let e = u32::from_le_bytes(expect[4 * k..4 * k + 4].try_into().unwrap());
                        assert_eq!(rows[k][l], e, "size {size} lane {l} dword {k}");
                    }
                }
                let mut src = [[0u32; LANES]; 4];
                for k in 0..4 {
                    for l in 0..LANES {
                        src[k][l] = 0x9E37_79B9u32.wrapping_mul((k * 32 + l + 1) as u32);
                    }
                }
                let w = resolve(mem, &addrs, mask, size as u64, Access::Write).unwrap();
                scatter(&w, &addrs, mask, size, &src);
                let mut model = init.clone();
                for l in 0..LANES {
                    if mask >> l & 1 != 0 {
                        let mut b = [0u8; 16];
                        for k in 0..4 {
                            b[4 * k..4 * k + 4].copy_from_slice(&src[k][l].to_le_bytes());
                        }
                        let o = (addrs[l] - BASE) as usize;
                        model[o..o + size].copy_from_slice(&b[..size]);
                    }
                }
                assert_eq!(
                    bytes(&m.0),
                    model,
                    "size {size} dense {dense} mask {mask:#x} lane by lane {lane_by_lane}"
                );
            }
        }
    }

    /// The lowest faulting lane's address is reported, dense or not.
    #[test]
    fn first_faulting_lane_is_reported() {
        let m = Flat(std::cell::UnsafeCell::new(vec![0; 256]));
        let mut addrs = [0u64; LANES];
        for l in 0..LANES {
            addrs[l] = BASE + 4 * l as u64 + if l >= 20 { 0x1000 } else { 0 };
        }
        let e = resolve(&m, &addrs, u32::MAX, 4, Access::Write)
            .err()
            .unwrap();
        assert_eq!(e.address, BASE + 80 + 0x1000);
        let e = resolve(&m, &addrs, 0xFFE0_0000, 4, Access::Read)
            .err()
            .unwrap();
        assert_eq!(e.address, BASE + 84 + 0x1000);
    }
}
