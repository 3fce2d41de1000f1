//! gfx90a's and gfx942's row_newbcast DPP control: every lane reads lane n
//! of its own row of 16, under row masks and with the source lane inactive
//! (not written, or 0 with bound_ctrl), each result computed on the host.

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
