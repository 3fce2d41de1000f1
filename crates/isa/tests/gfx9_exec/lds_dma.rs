//! Loads into LDS (MUBUF with the lds bit, gfx90a's global loads with the
//! lds bit, gfx942's global_load_lds_*): each lane's element at M0 + the
//! instruction offset + 4 * lane, read back with ds_read_b32 and checked
//! against the input on the host, with the buffer range check, a partial
//! EXEC and a dword past the LDS allocation.

use super::*;

#[test]
fn loads_into_lds_write_one_dword_per_lane_from_m0() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(target, kernels::LDS_DMA_GFX942, kernels::LDS_DMA_GFX90A);
        let (_, kd) = gfx9_kernel(&mut mem, k, KERNARG_PTR, 0, 0, 0);
        let input = lcg(23, 128);
        mem.map(BUF_B, &u32_bytes(&input));
        mem.map_zeroed(BUF_A, 4 * 256);
        mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
        run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).expect("runs");
        let out = mem.read_u32s(BUF_A, 4 * 64);
        let bytes = u32_bytes(&input);
        for l in 0..64usize {
            let want = [
                if l < 60 { input[l + 4] } else { 0 },
                if l % 2 == 0 {
                    bytes[l] as i8 as i32 as u32
                } else {
                    0xdead_0000 | l as u32
                },
                if l < 63 { input[l + 1] } else { 0 },
                u32::from(u16::from_le_bytes([bytes[2 * l], bytes[2 * l + 1]])),
            ];
            for (t, w) in want.iter().enumerate() {
                assert_eq!(out[t * 64 + l], *w, "{target:?} test {t} lane {l}");
            }
        }
    }
}
