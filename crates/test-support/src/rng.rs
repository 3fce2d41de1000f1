//! A deterministic generator: xorshift64* (Vigna, "An experimental
//! exploration of Marsaglia's xorshift generators, scrambled", 2016). Small,
//! fast, good enough for test data, and the same stream on every host.

/// A reproducible stream of pseudo-random values.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value; 0 is remapped, xorshift must not
    /// start at zero).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// The high half of [`Rng::u64`] (the better-mixed bits).
    pub fn u32(&mut self) -> u32 {
        (self.u64() >> 32) as u32
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is irrelevant for tests).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        self.u64() % n
    }

    /// Uniform in `0..n`, or 0 when `n` is 0: a position in data that may
    /// be empty (a mutation point, a cut).
    pub fn index(&mut self, n: usize) -> usize {
        (self.u64() % n.max(1) as u64) as usize
    }

    /// Uniform in `lo..hi` (`hi > lo`).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(hi > lo, "Rng::range({lo}, {hi})");
        lo.wrapping_add(self.below(hi.wrapping_sub(lo) as u64) as i64)
    }

    /// Uniform f32 in `[lo, hi)`.
    pub fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.u32() >> 8) as f32 / (1u32 << 24) as f32)
    }

    /// Uniform f64 in `[lo, hi)`.
    pub fn f64(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.u64() >> 11) as f64 / (1u64 << 53) as f64)
    }

    pub fn u32s(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.u32()).collect()
    }

    pub fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32(lo, hi)).collect()
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u64() as u8).collect()
    }

    /// A 32-bit word biased to the values instruction semantics get wrong:
    /// 0, 1, shift amounts, sign bits, all ones, small numbers, negative
    /// numbers, and NaNs with payloads (quiet and signalling; as f32, as
    /// the high word of an f64 and as f16 halves), so float operations
    /// given two NaNs are checked to pick the same one on every path.
    pub fn edge_u32(&mut self) -> u32 {
        match self.below(9) {
            0 => [0, 1, 2, 31, 32, 0x7FFF_FFFF, 0x8000_0000, u32::MAX][self.below(8) as usize],
            1 => self.below(64) as u32,
            2 => self.u32() | 0x8000_0000,
            3 => [
                0x7FC0_1234,
                0xFF80_0042,
                0x7FF8_00A5,
                0xFFF0_0007,
                0x7E01_7C02,
                0xFE33_FC44,
            ][self.below(6) as usize],
            _ => self.u32(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn streams_are_reproducible_and_seeded() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::new(7);
                move |_| r.u64()
            })
            .collect();
        let mut r = Rng::new(7);
        assert_eq!(a, (0..4).map(|_| r.u64()).collect::<Vec<_>>());
        assert_ne!(Rng::new(7).u64(), Rng::new(8).u64());
        assert_ne!(Rng::new(0).u64(), 0, "seed 0 must not stick at zero");
    }

    #[test]
    fn ranges_hold() {
        let mut r = Rng::new(1);
        for _ in 0..10_000 {
            assert!((-5..5).contains(&r.range(-5, 5)));
            assert!(r.below(3) < 3);
            let f = r.f32(-1.0, 1.0);
            assert!((-1.0..1.0).contains(&f), "{f}");
            let d = r.f64(2.0, 3.0);
            assert!((2.0..3.0).contains(&d), "{d}");
        }
    }
}
