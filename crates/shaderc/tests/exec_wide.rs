//! 64-bit scalars through WGSL (naga 30 accepts i64/u64/f64 with its
//! SHADER_INT64 / SHADER_FLOAT64 capabilities): integer arithmetic with
//! wrapping, shifts and division, f64 arithmetic, sqrt, fma, floor,
//! conversions and comparisons, on gfxsim against the host.

use aqueduct_test_harness::shaderc::*;

#[test]
fn int64_and_float64_arithmetic() {
    const SLOTS: usize = 10;
    let n = 128;
    let mut rng = Rng::new(91);
    let a: Vec<i64> = (0..n)
        .map(|_| ((rng.u32() as u64) << 32 | rng.u32() as u64) as i64)
        .collect();
    let b: Vec<u64> = (0..n)
        .map(|_| (rng.u32() as u64) << 32 | rng.u32() as u64)
        .collect();
    let c: Vec<f64> = (0..n)
        .map(|_| {
            let hi = (rng.u32() >> 6) as f64;
            let lo = rng.u32() as f64;
            (hi * 4294967296.0 + lo) / (1u64 << 58) as f64 * 2000.0 - 1000.0
        })
        .collect();
    let out = run(
        "tests/int64_float64",
        "main",
        &[
            (0, 0, bytes_of(&a)),
            (0, 1, bytes_of(&b)),
            (0, 2, bytes_of(&c)),
            (0, 3, vec![0; n * SLOTS * 8]),
        ],
        [2, 1, 1],
    );
    let got: Vec<u64> = out[3]
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
        .collect();
    for i in 0..n {
        let (x, y, z) = (a[i], b[i], c[i]);
        let slot = |k: usize| got[i * SLOTS + k];
        let want0 = x
            .wrapping_mul(3)
            .wrapping_sub(x >> 5)
            .wrapping_add(x / 7)
            .wrapping_add(x % 11) as u64;
        assert_eq!(slot(0), want0, "i64 arithmetic, item {i}");
        let want1 = y.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (y >> 13).wrapping_add(y << 7)
            ^ (y / 1_000_003);
        assert_eq!(slot(1), want1, "u64 arithmetic, item {i}");
        assert_eq!(
            f64::from_bits(slot(2)),
            z * z + i as f64 / 3.0,
            "f64 mul/div/add, item {i}"
        );
        assert_eq!(
            f64::from_bits(slot(3)),
            z.mul_add(2.0, 1.0) - z.floor(),
            "f64 fma/floor, item {i}"
        );
        let root = z.abs().sqrt();
        let ulps = (slot(4) as i64 - root.to_bits() as i64).abs();
        assert!(
            ulps <= 1,
            "sqrt({}) = {} ({ulps} ulp)",
            z.abs(),
            f64::from_bits(slot(4))
        );
        let want5 = ((x.min(5) & 0xffff) as u64)
            .wrapping_add((z as f32 * 1000.0) as u64)
            .wrapping_add(z as i64 as u64);
        assert_eq!(slot(5), want5, "conversions, item {i}");
        let want6 = u64::from(y.count_ones()) + ((y.max(1 << 63) >> 62) << 32);
        assert_eq!(slot(6), want6, "countOneBits/max, item {i}");
        let want7 = u64::from(x < 0) + 2 * u64::from(z > 0.0) + 4 * u64::from(y >= 1 << 63);
        assert_eq!(slot(7), want7, "comparisons, item {i}");
        assert_eq!(
            slot(8),
            (y >> 3) & ((1 << 40) - 1),
            "extractBits u64, item {i}"
        );
        // Signed field of 30 bits at 20; insertBits count clamped to 64 - 60.
        let field = ((x << 14) >> 34) as u64;
        let mask = 0xFu64 << 60;
        let inserted = (y & !mask) | ((0x5a << 60) & mask);
        assert_eq!(
            slot(9),
            field ^ inserted,
            "extract/insertBits i64, item {i}"
        );
    }
}

#[test]
fn int64_atomics() {
    let n = 256;
    let mut rng = Rng::new(92);
    let d: Vec<u64> = (0..n)
        .map(|_| (rng.u32() as u64) << 32 | rng.u32() as u64)
        .collect();
    let init_u: [u64; 3] = [5, 0, u64::MAX];
    let init_i: [i64; 2] = [i64::MAX, 0];
    let out = run(
        "tests/atomics64",
        "main",
        &[
            (0, 0, bytes_of(&d)),
            (0, 1, bytes_of(&init_u)),
            (0, 2, bytes_of(&init_i)),
        ],
        [n as u32 / 64, 1, 1],
    );
    let words = |b: &[u8]| -> Vec<u64> {
        b.chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
            .collect()
    };
    let u = words(&out[1]);
    let s = words(&out[2]);
    let sum = d.iter().fold(5u64, |a, &v| a.wrapping_add(v));
    assert_eq!(u, [sum, *d.iter().max().unwrap(), *d.iter().min().unwrap()]);
    assert_eq!(s[0] as i64, d.iter().map(|&v| v as i64).min().unwrap());
    let groups: i64 = d
        .chunks(64)
        .map(|g| (g.iter().map(|v| v >> 1).max().unwrap() as i64) & 0xffff)
        .sum();
    assert_eq!(s[1] as i64, groups);
}
