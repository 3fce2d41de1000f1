//! Constant sources of the packed 32-bit ops (v_pk_fma/mul/add_f32,
//! v_pk_mov_b32): the forms clang-19 emits (the constant's low dword for
//! both halves) against the host's f32 arithmetic, and the high dword of a
//! non-zero constant refused by name.

use super::*;

#[test]
fn packed_ops_read_a_constant_as_its_low_dword() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(target, kernels::PK_CONST_GFX942, kernels::PK_CONST_GFX90A);
        let (_, kd) = gfx9_kernel(&mut mem, k, KERNARG_PTR, 0, 0, 0);
        let input: Vec<f32> = lcg(11, 2 * 128)
            .iter()
            .map(|&v| (v >> 8) as f32 / 4_194_304.0 - 2.0)
            .collect();
        mem.map(BUF_B, &f32_bytes(&input));
        mem.map_zeroed(BUF_A, 6 * 4 * 128);
        mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
        run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).expect("runs");
        let out = mem.read_u32s(BUF_A, 6 * 128);
        let inv_2pi = f32::from_bits(0x3E22_F983);
        let tiny = f32::from_bits(2);
        for l in 0..64 {
            let pair = |t: usize| [input[t * 128 + 2 * l], input[t * 128 + 2 * l + 1]];
            let (a, b) = (pair(0), pair(1));
            let f = |x: [f32; 2]| x.map(f32::to_bits);
            let want = [
                f([a[0].mul_add(b[0], 0.5), a[1].mul_add(b[1], 0.5)]),
                f([-4.0 + b[0], 4.0 + b[1]]),
                f([
                    (a[0] * inv_2pi).mul_add(tiny, b[0]),
                    (a[1] * inv_2pi).mul_add(tiny, b[1]),
                ]),
                [u32::MAX, b[1].to_bits()],
                [a[1].to_bits(), 2.0f32.to_bits()],
                f([a[0] + 0.0, a[1] + 0.0]),
            ];
            for (t, w) in want.iter().enumerate() {
                let got = [out[t * 128 + 2 * l], out[t * 128 + 2 * l + 1]];
                assert_eq!(got, *w, "{target:?} test {t} lane {l}");
            }
        }
    }
}

#[test]
fn a_constant_high_dword_is_refused() {
    for target in TARGETS {
        let k = code(
            target,
            kernels::PK_CONST_HIGH_GFX942,
            kernels::PK_CONST_HIGH_GFX90A,
        );
        assert_refused_at(
            target,
            k,
            0,
            "v_pk_mul_f32",
            "high dword of a packed constant",
        );
    }
}
