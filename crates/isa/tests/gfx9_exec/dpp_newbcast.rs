//! gfx90a's and gfx942's row_newbcast DPP control: every lane reads lane n
//! of its own row of 16, under row masks and with the source lane inactive
//! (not written, or 0 with bound_ctrl), each result computed on the host;
//! and the same control on the DP ALU ops' 64-bit sources, both dwords from
//! the one lane.

use super::*;

#[test]
fn row_newbcast_reads_one_lane_of_each_row() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(
            target,
            kernels::DPP_NEWBCAST_GFX942,
            kernels::DPP_NEWBCAST_GFX90A,
        );
        let (_, kd) = gfx9_kernel(&mut mem, k, KERNARG_PTR, 0, 0, 0);
        mem.map_zeroed(BUF_A, 4 * 256);
        mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
        run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).expect("runs");
        let out = mem.read_u32s(BUF_A, 4 * 64);
        for l in 0..64u32 {
            let row = l & !15;
            let in_row_0_or_2 = (l / 16) % 2 == 0;
            let lane3 = l & 15 == 3;
            let want = [
                1000 + row + 5,
                if in_row_0_or_2 {
                    2000 + row + 15 + l
                } else {
                    2000 + l
                },
                3000 + l,
                if lane3 { 4000 + l } else { 0 },
            ];
            for (t, w) in want.iter().enumerate() {
                assert_eq!(out[t * 64 + l as usize], *w, "{target:?} test {t} lane {l}");
            }
        }
    }
}

/// src v[2:3] of lane `l` in dpp64_newbcast.s and dpp64_mov_gfx942.s.
fn dpp64_src(l: u32) -> u64 {
    ((0x4000_0000 | l << 12) as u64) << 32 | (0x12345 | l << 20) as u64
}

#[test]
fn row_newbcast_reads_both_dwords_of_a_64_bit_source() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(
            target,
            kernels::DPP64_NEWBCAST_GFX942,
            kernels::DPP64_NEWBCAST_GFX90A,
        );
        let (_, kd) = gfx9_kernel(&mut mem, k, KERNARG_PTR, 0, 0, 0);
        mem.map_zeroed(BUF_A, 1024 + 8 * 64);
        mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
        run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).expect("runs");
        let out = mem.read_u32s(BUF_A, 256 + 2 * 64);
        let cvt = |s: u64| (f64::from_bits(s) as f32).to_bits();
        for l in 0..64u32 {
            let row = l & !15;
            let lane = l as usize;
            assert_eq!(out[lane], cvt(dpp64_src(row + 5)), "{target:?} t0 lane {l}");
            // Rows 0 and 2, banks 0 and 1 take the fused multiply-add.
            let on = (l / 16) % 2 == 0 && (l >> 2) & 3 < 2;
            let d = if on {
                f64::from_bits(dpp64_src(row + 7)).mul_add(2.0, l as f64)
            } else {
                l as f64
            };
            let got = out[256 + 2 * lane] as u64 | (out[257 + 2 * lane] as u64) << 32;
            assert_eq!(got, d.to_bits(), "{target:?} t1 lane {l}");
            assert_eq!(out[128 + lane], 3000 + l, "{target:?} t2 lane {l}");
            let t3 = if l & 15 == 3 { 4000 + l } else { 0 };
            assert_eq!(out[192 + lane], t3, "{target:?} t3 lane {l}");
        }
    }
}

#[test]
fn v_mov_b64_dpp_moves_all_64_bits_under_the_masks() {
    let target = Target::Gfx942;
    let mut mem = TestMem::new();
    let (_, kd) = gfx9_kernel(&mut mem, kernels::DPP64_MOV_GFX942, KERNARG_PTR, 0, 0, 0);
    mem.map_zeroed(BUF_A, 2 * 8 * 64);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).expect("runs");
    let out = mem.read_u32s(BUF_A, 4 * 64);
    for l in 0..64u32 {
        let row = l & !15;
        let init = ((0xCD00_0000 | l) as u64) << 32 | (0xAB00_0000 | l) as u64;
        // Rows 1 and 3, banks 2 and 3; lane 57 (row 3's lane 9) inactive:
        // it is not written, and its row reads nothing from it (0 with
        // bound_ctrl).
        let on = (l / 16) % 2 == 1 && (l >> 2) & 3 >= 2 && l != 57;
        let source_active = row + 9 != 57;
        let want = [
            if on && source_active {
                dpp64_src(row + 9)
            } else {
                init
            },
            match (on, source_active) {
                (true, true) => dpp64_src(row + 9),
                (true, false) => 0,
                (false, _) => init,
            },
        ];
        for (t, w) in want.iter().enumerate() {
            let at = t * 128 + 2 * l as usize;
            let got = out[at] as u64 | (out[at + 1] as u64) << 32;
            assert_eq!(got, *w, "test {t} lane {l}");
        }
    }
}
