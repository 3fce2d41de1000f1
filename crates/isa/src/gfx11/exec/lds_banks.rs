//! LDS bank conflicts of the dword loads and stores ([`DsRows`]), for a
//! counting dispatch's per-dispatch counters.
//!
//! The model: the LDS is 32 banks of 4 bytes, dword address `a` in bank
//! `a mod 32`, each bank serving one dword per cycle; lanes reading or
//! writing the same dword share its cycle (a broadcast). A wave's access is
//! served in phases of 128 bytes, one dword per bank: 32 lanes of a b32
//! access, 16 of a b64, 8 of a b96 or b128 (ROCm Composable Kernel's
//! "Understanding AMD GPU LDS and Bank Conflicts", for CDNA; the GCN OpenCL
//! optimisation guide gives the same 32 banks and address bits 6:2). A
//! phase takes as many cycles as its busiest bank has distinct dwords; its
//! conflict cycles are the ones past the first. The two elements of a
//! two-address form are separate accesses. This is an assumption for gfx11:
//! RDNA3's LDS in WGP mode has 64 banks across its two halves, which the
//! model does not distinguish. Atomics, sub-dword accesses and FLAT
//! accesses to the LDS aperture are not counted.

use super::lds::DsRows;
use crate::gfx11::wave::LANES;

/// Banks of the model (and dwords a phase serves).
const BANKS: usize = 32;

/// Conflict cycles of `d` over the active lanes (`exec`) of a 32-lane
/// pass whose address VGPR row is `addr_row`.
pub(crate) fn conflict_cycles(addr_row: &[u32; LANES], exec: u32, d: &DsRows) -> u64 {
    let dwords = usize::from(d.n);
    // Lanes per phase: 128 bytes of lanes' dwords (b96 moves like b128).
    let per_phase = BANKS / dwords.next_power_of_two();
    let mut cycles = 0;
    let elements: &[u32] = if d.two { &[d.o0, d.o1] } else { &[d.o0] };
    for &off in elements {
        for first in (0..LANES).step_by(per_phase) {
            cycles += phase_conflicts(addr_row, exec, first..first + per_phase, off, dwords);
        }
    }
    cycles
}

/// Cycles past the first that lanes `lanes` need for `dwords` dwords each
/// from byte `addr_row[l] + off`.
fn phase_conflicts(
    addr_row: &[u32; LANES],
    exec: u32,
    lanes: std::ops::Range<usize>,
    off: u32,
    dwords: usize,
) -> u64 {
    // The phase's distinct dwords: at most 32 (128 bytes).
    let mut seen = [0u32; BANKS];
    let mut count = 0;
    let mut per_bank = [0u8; BANKS];
    for l in lanes.filter(|&l| exec >> l & 1 != 0) {
        let base = (u64::from(addr_row[l]) + u64::from(off)) / 4;
        for k in 0..dwords as u64 {
            let dword = (base + k) as u32;
            if seen[..count].contains(&dword) {
                continue;
            }
            seen[count] = dword;
            count += 1;
            per_bank[dword as usize % BANKS] += 1;
        }
    }
    u64::from(
        per_bank
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .saturating_sub(1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: u8, two: bool, o0: u32, o1: u32) -> DsRows {
        DsRows {
            load: true,
            two,
            n,
            addr: 0,
            dst: 0,
            data: [0, 0],
            o0,
            o1,
        }
    }

    fn row(f: impl Fn(u32) -> u32) -> [u32; LANES] {
        std::array::from_fn(|l| f(l as u32))
    }

    #[test]
    fn consecutive_dwords_and_broadcasts_are_free() {
        let b32 = rows(1, false, 0, 0);
        assert_eq!(conflict_cycles(&row(|l| 4 * l), !0, &b32), 0);
        assert_eq!(
            conflict_cycles(&row(|_| 64), !0, &b32),
            0,
            "one dword for all"
        );
        // b64 and b128 at consecutive elements: 16 and 8 lanes per phase.
        assert_eq!(
            conflict_cycles(&row(|l| 8 * l), !0, &rows(2, false, 0, 0)),
            0
        );
        assert_eq!(
            conflict_cycles(&row(|l| 16 * l), !0, &rows(4, false, 0, 0)),
            0
        );
    }

    #[test]
    fn strided_accesses_conflict_by_their_stride() {
        let b32 = rows(1, false, 0, 0);
        // Stride of 2 dwords: 16 banks used, two dwords each.
        assert_eq!(conflict_cycles(&row(|l| 8 * l), !0, &b32), 1);
        // A column of a 32-wide f32 matrix: every lane in bank 0.
        assert_eq!(conflict_cycles(&row(|l| 128 * l), !0, &b32), 31);
        // Padding the row to 33 dwords removes them.
        assert_eq!(conflict_cycles(&row(|l| 132 * l), !0, &b32), 0);
        // Inactive lanes do not count: only lanes 0 and 1 remain.
        assert_eq!(conflict_cycles(&row(|l| 128 * l), 0b11, &b32), 1);
        assert_eq!(conflict_cycles(&row(|l| 128 * l), 0, &b32), 0);
    }

    #[test]
    fn two_address_elements_are_separate_accesses() {
        // Each element alone is conflict-free; together they would share banks.
        let two = rows(1, true, 0, 128);
        assert_eq!(conflict_cycles(&row(|l| 4 * l), !0, &two), 0);
        // Both elements a column: 31 cycles each.
        assert_eq!(conflict_cycles(&row(|l| 128 * l), !0, &two), 62);
    }
}
