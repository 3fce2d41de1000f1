//! Where a lane's private (scratch) bytes live in its wave's slot of the
//! queue's scratch backing memory.
//!
//! A wave's lanes own `slot_bytes(per)` bytes per 32 lanes, their private
//! segments interleaved a dword at a time: byte `b` of lane `l` (0..63 in a
//! wave64) sits at `(b / 4) * lanes * 4 + l * 4 + b % 4`, `lanes` being the
//! wave's 32 or 64. This is the swizzled layout real hardware gives scratch
//! (element size 4, index stride = the wave's lanes: LLVM AMDGPUUsage
//! "Private Segment"; ROCr's gfx9 scratch V# says INDEX_STRIDE 64), and
//! gfx90a kernels observe it: their MUBUF accesses address the same bytes
//! through that V# (gfx9_buffer.rs) as their flat private accesses do here.
//! A wave64's high half is the lanes from 32 on, so its 32 lanes' dword
//! row starts 128 bytes into each 256-byte row. The layout is also what
//! makes the common scratch access cheap: a spill or reload at one address
//! for every lane (`scratch_store_b32 off, v3, off offset:N`) is one
//! contiguous row of 32 dwords, moved like a VGPR row, where a
//! lane-after-lane layout needed 32 strided accesses.

use crate::gfx11::wave::LANES;

/// Bytes of one block of 32 lanes for `per` private bytes per lane
/// (rounded up to whole dwords).
#[inline(always)]
pub(crate) fn slot_bytes(per: usize) -> usize {
    per.div_ceil(4) * 4 * LANES
}

/// Lanes interleaved in a wave's rows: 32, or 64 for a wave64.
#[inline(always)]
pub(crate) fn row_lanes(wave64: bool) -> usize {
    LANES << wave64 as usize
}

/// Bytes from the start of a 32-lane half (its first row) to the end of its
/// last row: a wave32's whole slot, or a wave64 half's rows up to the last
/// (none when the lanes have no private bytes).
#[inline(always)]
pub(crate) fn half_span(per: usize, wave64: bool) -> usize {
    if wave64 {
        (2 * slot_bytes(per)).saturating_sub(4 * LANES)
    } else {
        slot_bytes(per)
    }
}

/// Offset from its half's start of byte `b` of lane `lane`'s (0..31)
/// private segment, in rows of `lanes` lanes ([`row_lanes`]).
#[inline(always)]
pub(crate) fn lane_byte(lanes: usize, lane: usize, b: usize) -> usize {
    (b & !3) * lanes + lane * 4 + (b & 3)
}

/// [`lane_byte`] in u32, for slots below 4 GiB.
#[inline(always)]
pub(crate) fn lane_byte32(lanes: u32, lane: u32, b: u32) -> u32 {
    (b & !3) * lanes + lane * 4 + (b & 3)
}

/// Lane `lane`'s `buf.len()` private bytes at `addr` of the half starting at
/// `slot` in `scratch` (the caller checked `addr + len <= per`).
#[inline(always)]
pub(crate) fn read_lane(
    scratch: &[u8],
    lanes: usize,
    slot: usize,
    lane: usize,
    addr: usize,
    buf: &mut [u8],
) {
    for (j, b) in buf.iter_mut().enumerate() {
        *b = scratch[slot + lane_byte(lanes, lane, addr + j)];
    }
}

/// [`read_lane`]'s store.
#[inline(always)]
pub(crate) fn write_lane(
    scratch: &mut [u8],
    lanes: usize,
    slot: usize,
    lane: usize,
    addr: usize,
    buf: &[u8],
) {
    for (j, b) in buf.iter().enumerate() {
        scratch[slot + lane_byte(lanes, lane, addr + j)] = *b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (lane, byte) of a slot has its own offset inside the slot, and a
    /// dword row at an aligned address is the 32 lanes' dwords side by side.
    #[test]
    fn lanes_interleave_a_dword_at_a_time() {
        let per = 40;
        let mut seen = vec![false; slot_bytes(per)];
        for lane in 0..LANES {
            for b in 0..per {
                let at = lane_byte(LANES, lane, b);
                assert!(!seen[at], "lane {lane} byte {b} collides");
                seen[at] = true;
            }
        }
        assert!(seen.iter().all(|s| *s));
        assert_eq!(lane_byte(LANES, 0, 8), 8 * LANES);
        assert_eq!(lane_byte(LANES, 5, 8), 8 * LANES + 20);
        assert_eq!(lane_byte(LANES, 5, 11), 8 * LANES + 23);
        assert_eq!(slot_bytes(37), 40 * LANES);
        for (lane, b) in [(0, 0), (31, 39), (7, 1234567)] {
            assert_eq!(
                lane_byte32(64, lane, b) as usize,
                lane_byte(64, lane as usize, b as usize)
            );
        }
    }

    /// A wave64's two halves interleave 64 lanes: the high half's lane l is
    /// lane 32 + l of each 256-byte row, and both halves stay inside the
    /// wave's two 32-lane blocks.
    #[test]
    fn wave64_halves_interleave_in_rows_of_64_lanes() {
        let per = 40;
        let lanes = row_lanes(true);
        let mut seen = vec![false; 2 * slot_bytes(per)];
        for half in 0..2 {
            let start = half * 4 * LANES;
            for lane in 0..LANES {
                for b in 0..per {
                    let at = start + lane_byte(lanes, lane, b);
                    assert_eq!(at, (b / 4) * 256 + (32 * half + lane) * 4 + b % 4);
                    assert!(at < start + half_span(per, true));
                    assert!(!seen[at]);
                    seen[at] = true;
                }
            }
        }
        assert!(seen.iter().all(|s| *s));
    }

    /// Lanes without private bytes have an empty span in a wave32 and a
    /// wave64 alike (a wave64 kernel with no scratch reaching a private
    /// address takes the fault path, not an underflow).
    #[test]
    fn no_private_bytes_span_nothing() {
        assert_eq!(half_span(0, false), 0);
        assert_eq!(half_span(0, true), 0);
        assert_eq!(half_span(1, true), 4 * LANES);
    }
}
