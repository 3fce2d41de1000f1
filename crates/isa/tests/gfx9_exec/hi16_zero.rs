//! GFX9's 16-bit VALU ops write zeros to the destination's high half
//! (gfx9/exec_form.rs `zeroes_high_half`), where gfx11's keep it: each op
//! of hi16_zero.s starts from a destination of 0xdead0000, and every
//! result is the host's 16-bit value alone.

use super::*;

/// The f16 bits of the small integer `n` (exact: n < 2048).
fn f16_of(n: u32) -> u32 {
    if n == 0 {
        return 0;
    }
    let b = (n as f32).to_bits();
    ((b >> 23) - 127 + 15) << 10 | (b >> 13) & 0x3FF
}

#[test]
fn sixteen_bit_results_zero_the_high_half() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(target, kernels::HI16_ZERO_GFX942, kernels::HI16_ZERO_GFX90A);
        let (_, kd) = gfx9_kernel(&mut mem, k, KERNARG_PTR, 0, 0, 0);
        mem.map_zeroed(BUF_A, 8 * 256);
        mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
        run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).expect("runs");
        let out = mem.read_u32s(BUF_A, 8 * 64);
        for l in 0..64u32 {
            let row = |t: usize| out[t * 64 + l as usize];
            let (a, b) = ((0x0103_0507 * l) as u16, (0x9000 + l) as u16);
            let want = [
                a.wrapping_sub(b),
                a.wrapping_add(b),
                a.wrapping_mul(b),
                a << 3,
                (a as i16).max(b as i16) as u16,
            ];
            for (t, w) in want.iter().enumerate() {
                assert_eq!(row(t), u32::from(*w), "{target:?} test {t} lane {l}");
            }
            assert_eq!(row(5), f16_of(l), "{target:?} v_cvt_f16_u16 lane {l}");
            assert_eq!(row(6), f16_of(2 * l), "{target:?} v_add_f16 lane {l}");
            assert_eq!(row(7), f16_of(l), "{target:?} v_cvt_f16_f32 lane {l}");
        }
    }
}
