//! GFX9 typed buffer access (buffer_*_format_* through the V#'s
//! DATA_FORMAT/NUM_FORMAT, tbuffer_* through the instruction's): UNORM and
//! SNORM loads, DST_SEL, the raw range check per element, a 16-bit float
//! store, each result computed on the host.

use super::*;

#[test]
fn typed_access_converts_through_gfx9_format_pairs() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(target, kernels::TYPED_GFX942, kernels::TYPED_GFX90A);
        let (_, kd) = gfx9_kernel(&mut mem, k, KERNARG_PTR, 0, 0, 0);
        let input = lcg(31, 64);
        mem.map(BUF_B, &u32_bytes(&input));
        mem.map_zeroed(BUF_A, 2048);
        mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
        run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).expect("runs");
        let out = mem.read_u32s(BUF_A, 512);
        let stored = u32_bytes(&out[448..480]);
        let unorm8 = |b: u32| ((b & 0xFF) as f32 / 255.0).to_bits();
        let snorm16 = |h: u32| ((h as u16 as i16) as f32 / 32767.0).max(-1.0).to_bits();
        for l in 0..64usize {
            let v = input[l];
            let t0: [u32; 4] = std::array::from_fn(|c| unorm8(v >> (8 * c)));
            assert_eq!(out[4 * l..4 * l + 4], t0, "{target:?} t0 lane {l}");
            let t1 = [snorm16(v), snorm16(v >> 16)];
            assert_eq!(out[256 + 2 * l..258 + 2 * l], t1, "{target:?} t1 lane {l}");
            let t2 = if l < 32 { unorm8(v >> 24) } else { 0 };
            assert_eq!(out[384 + l], t2, "{target:?} t2 lane {l}");
            let t3 = if l < 48 {
                half::f16::from_f32(l as f32 + 0.25).to_bits()
            } else {
                0
            };
            let got = u16::from_le_bytes([stored[2 * l], stored[2 * l + 1]]);
            assert_eq!(got, t3, "{target:?} t3 lane {l}");
        }
    }
}

/// A typed load through a swizzled V# has no rule for its elements: the
/// wave stops at it, the refusal naming why.
#[test]
fn a_typed_load_through_a_swizzled_buffer_is_refused() {
    for target in TARGETS {
        let k = code(
            target,
            kernels::TYPED_SWIZZLED_GFX942,
            kernels::TYPED_SWIZZLED_GFX90A,
        );
        // The load is the two dwords before s_endpgm.
        let at = k.len() - 3;
        assert_refused_at(target, k, at, "buffer_load_format_x", "private or swizzled");
    }
}
