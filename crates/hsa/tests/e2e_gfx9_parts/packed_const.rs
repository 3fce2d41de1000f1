//! packed_const (kernels/src/packed_const.cl): float2 arithmetic with splat
//! constants, which clang-19 compiles for gfx90a and gfx942 to v_pk_fma_f32
//! and v_pk_add_f32 with inline constant sources; run through the runtime
//! and compared bit for bit with the host's f32 arithmetic.

use super::{SENTINEL, gpu_of, load, parts};
use aqueduct_test_harness::hsa_sim::{Arg, Rng, read_u32};

#[test]
fn packed_f32_with_constants_matches_the_host() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let program = load(&gpu, gfx, "packed_const");
        let queue = gpu.queue(64);
        let mut rng = Rng::new(9);
        let n = 300u32;
        let len = 2 * n as usize + 8;
        let a: Vec<f32> = (0..len).map(|_| rng.f32(-8.0, 8.0)).collect();
        let b: Vec<f32> = (0..len).map(|_| rng.f32(-8.0, 8.0)).collect();
        let (ab, bb) = (gpu.upload_f32(&a), gpu.upload_f32(&b));
        let out = gpu.filled_u32(len, SENTINEL);
        let launch = gpu.launch(
            &program.kernel,
            &[
                Arg::Ptr(ab.gpu_va()),
                Arg::Ptr(bb.gpu_va()),
                Arg::Ptr(out.gpu_va()),
                Arg::U32(n),
            ],
            [n, 1, 1],
            [64, 1, 1],
        );
        gpu.run_on(&queue, &launch)
            .unwrap_or_else(|e| panic!("{gfx} packed_const: {e}"));
        let want: Vec<u32> = (0..len)
            .map(|k| {
                if k < 2 * n as usize {
                    (a[k].mul_add(b[k], 0.5) + -4.0).to_bits()
                } else {
                    SENTINEL
                }
            })
            .collect();
        assert_eq!(read_u32(&out, len), want, "{gfx} packed_const");
    }
}
