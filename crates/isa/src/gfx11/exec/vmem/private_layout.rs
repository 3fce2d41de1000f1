//! Where a lane's private (scratch) bytes live in its wave's slot of the
//! queue's scratch backing memory.
//!
//! Each 32 lanes own `slot_bytes(per)` bytes (a wave64's two blocks lie one
//! after the other in its wave slot); inside them the lanes' private
//! segments are interleaved a dword at a time: byte `b` of lane `l` sits at
//! `(b / 4) * 32 * 4 + l * 4 + b % 4`. This is the swizzled layout real
//! hardware gives scratch (element size 4, index stride = the lanes: LLVM
//! AMDGPUUsage "Private Segment"; a wave64 interleaves 64 lanes there), and
//! it is what makes the common scratch access cheap here: a spill or reload
//! at one address for every lane (`scratch_store_b32 off, v3, off offset:N`)
//! is one contiguous row of 32 dwords, moved like a VGPR row, where a
//! lane-after-lane layout needed 32 strided accesses. Kernels cannot observe
//! the layout: private addresses are per-lane offsets, checked against the
//! per-lane size `per`, so faults do not depend on it.

use crate::gfx11::wave::LANES;

/// Bytes of one block of 32 lanes for `per` private bytes per lane
/// (rounded up to whole dwords).
#[inline(always)]
pub(crate) fn slot_bytes(per: usize) -> usize {
    per.div_ceil(4) * 4 * LANES
}

/// Offset from its slot's start of byte `b` of lane `lane`'s private segment.
#[inline(always)]
pub(crate) fn lane_byte(lane: usize, b: usize) -> usize {
    (b & !3) * LANES + lane * 4 + (b & 3)
}

/// [`lane_byte`] in u32, for slots below 4 GiB.
#[inline(always)]
pub(crate) fn lane_byte32(lane: u32, b: u32) -> u32 {
    (b & !3) * LANES as u32 + lane * 4 + (b & 3)
}

/// Lane `lane`'s `buf.len()` private bytes at `addr` of the slot starting at
/// `slot` in `scratch` (the caller checked `addr + len <= per`).
#[inline(always)]
pub(crate) fn read_lane(scratch: &[u8], slot: usize, lane: usize, addr: usize, buf: &mut [u8]) {
    for (j, b) in buf.iter_mut().enumerate() {
        *b = scratch[slot + lane_byte(lane, addr + j)];
    }
}

/// [`read_lane`]'s store.
#[inline(always)]
pub(crate) fn write_lane(scratch: &mut [u8], slot: usize, lane: usize, addr: usize, buf: &[u8]) {
    for (j, b) in buf.iter().enumerate() {
        scratch[slot + lane_byte(lane, addr + j)] = *b;
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
                let at = lane_byte(lane, b);
                assert!(!seen[at], "lane {lane} byte {b} collides");
                seen[at] = true;
            }
        }
        assert!(seen.iter().all(|s| *s));
        assert_eq!(lane_byte(0, 8), 8 * LANES);
        assert_eq!(lane_byte(5, 8), 8 * LANES + 20);
        assert_eq!(lane_byte(5, 11), 8 * LANES + 23);
        assert_eq!(slot_bytes(37), 40 * LANES);
        for (lane, b) in [(0, 0), (31, 39), (7, 1234567)] {
            assert_eq!(
                lane_byte32(lane, b) as usize,
                lane_byte(lane as usize, b as usize)
            );
        }
    }
}
