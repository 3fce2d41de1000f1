//! Rounding an exact result held in f64 once to f32, f16 or bf16.
//!
//! The fused and mixed-precision forms (v_fma_f16, v_pk_fma_f16,
//! v_fma_mix*, v_dot2_*, WMMA's 16-bit results) compute in f64, where their
//! products are exact, and round the result once to the destination type:
//! the RDNA3 and CDNA3 ISA guides describe these forms as fused
//! multiply-adds, which IEEE 754-2008 (5.4.1, fusedMultiplyAdd) defines
//! as one rounding of the result computed with unbounded precision. Two
//! steps of round-to-nearest-even (f64, then the narrow type) are not one:
//! a value just off a tie of the narrow type lands on the tie in f64 or
//! f32 and then goes to even. `half`'s `f16::from_f64` does exactly that
//! on an F16C host (it narrows to f32 first), and its software path and
//! `bf16::from_f64` drop the f64's low 32 bits before rounding, so neither
//! is used here.
//!
//! The method: the exact value is `s + e`, where `s` is the f64 result and
//! `e` what its rounding left off (0 when exact; [`two_sum`] gives it for a
//! sum of two exact terms). To reach f32 it rounds to nearest even,
//! deciding an f64 tie of f32 by `e`'s sign. To reach f16 or bf16 it
//! rounds to odd in f32 (truncate toward zero, set the last bit when
//! inexact), which keeps every bit a second rounding needs, as f32 has at
//! least two more significand bits than f16 (11) or bf16 (8) and covers
//! their exponent ranges; then nearest even to the narrow type (Boldo and
//! Melquiond, "Emulation of FMA and correctly rounded sums: proved
//! algorithms using rounding to odd", IEEE Trans. Computers 57(4), 2008).
//! NaNs keep the conversions of `half` (the quiet bit set, the payload's
//! high bits kept), which is what the forms gave before and what their
//! NaN rules pick from.

use half::{bf16, f16};

/// `a + b` as the nearest f64 and the exact error of that rounding (Knuth's
/// TwoSum: exact for finite `a`, `b` unless the sum overflows); the error
/// is 0 for a non-finite sum.
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    if !s.is_finite() {
        return (s, 0.0);
    }
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// The f32 next to `x` away from zero (`x` finite, not the greatest
/// magnitude): one more in the magnitude bits.
fn away(x: f32) -> f32 {
    f32::from_bits(x.to_bits() + 1)
}

/// `s + e` truncated toward zero to f32: (the truncation, whether it is
/// exact). `s` is not NaN; `e` is 0 or under half an f64 ulp of `s`.
fn truncate32(s: f64, e: f64) -> (f32, bool) {
    let near = s as f32;
    // Nearest of s, then toward zero where it rounded away (infinity
    // becomes the greatest finite magnitude).
    let mut t = if f64::from(near).abs() > s.abs() {
        f32::from_bits(near.to_bits() - 1)
    } else {
        near
    };
    let s_exact = f64::from(t) == s;
    if e == 0.0 || s.is_infinite() {
        return (t, s_exact);
    }
    if s_exact && (e < 0.0) != (s < 0.0) {
        // s + e lies just inside s's magnitude: one step further toward 0
        // (s is not 0: an exact zero sum has no error).
        t = f32::from_bits(t.to_bits() - 1);
    }
    (t, false)
}

/// `s + e` rounded to nearest even f32 (`s` the f64 nearest to the exact
/// value, `e` the rest).
pub(crate) fn f32_nearest(s: f64, e: f64) -> f32 {
    let near = s as f32;
    if e == 0.0 || s.is_nan() || s.is_infinite() {
        return near;
    }
    // Only an f64 that is exactly halfway between two f32s can round the
    // wrong way; `e` says which side the exact value is on.
    let (low, _) = truncate32(s, 0.0);
    if low.to_bits() & 0x7FFF_FFFF == 0x7F7F_FFFF {
        // Halfway between the greatest f32 and 2^128 (where the exact
        // value overflows unless it lies below).
        let half = f64::from(low).abs() + 2f64.powi(103);
        return if s.abs() == half && (e < 0.0) != (s < 0.0) {
            low
        } else {
            near
        };
    }
    let high = away(low);
    let mid = (f64::from(low) + f64::from(high)) / 2.0;
    if s != mid {
        return near;
    }
    if (e < 0.0) == (s < 0.0) { high } else { low }
}

/// `s + e` rounded to odd in f32: truncated toward zero, the last bit set
/// when that is inexact. `s` is not NaN.
fn odd32(s: f64, e: f64) -> f32 {
    let (t, exact) = truncate32(s, e);
    if exact {
        t
    } else {
        f32::from_bits(t.to_bits() | 1)
    }
}

/// `s + e` rounded once to nearest even f16 (bits).
pub(crate) fn f16_nearest(s: f64, e: f64) -> u16 {
    if s.is_nan() {
        return f16::from_f64(s).to_bits();
    }
    f16::from_f32(odd32(s, e)).to_bits()
}

/// `s + e` rounded once to nearest even bf16 (bits).
pub(crate) fn bf16_nearest(s: f64, e: f64) -> u16 {
    if s.is_nan() {
        return bf16::from_f64(s).to_bits();
    }
    bf16::from_f32(odd32(s, e)).to_bits()
}

/// The exact `x` rounded once to nearest even f16 (bits).
pub(crate) fn f16_of(x: f64) -> u16 {
    f16_nearest(x, 0.0)
}

/// The exact `x` rounded once to nearest even bf16 (bits).
pub(crate) fn bf16_of(x: f64) -> u16 {
    bf16_nearest(x, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering::{self, Equal, Greater, Less};

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    /// The sign of (s + e) - m: s - m rounds to nearest, which keeps its
    /// sign, and |e| is under half an ulp of s, so where s - m is not 0 it
    /// decides, and where it is, e does.
    fn side(s: f64, e: f64, m: f64) -> Ordering {
        let d = s - m;
        let x = if d != 0.0 { d } else { e };
        x.partial_cmp(&0.0).expect("no NaN")
    }

    /// A binary format for the check: its sign bit, the bits of +infinity,
    /// 2^(emax + 1) (where rounding puts infinity) and its values.
    struct Format {
        name: &'static str,
        sign: u32,
        inf: u32,
        top: f64,
        value: fn(u32) -> f64,
    }

    impl Format {
        /// The value at signed magnitude index `k` (infinity counting as
        /// `top`, past it infinite).
        fn at(&self, k: i64) -> f64 {
            let m = k.unsigned_abs() as u32;
            let v = if m == self.inf {
                self.top
            } else if m > self.inf {
                f64::INFINITY
            } else {
                (self.value)(m)
            };
            if k < 0 { -v } else { v }
        }

        /// Check that `bits` is s + e rounded to nearest even: s + e lies
        /// between the midpoints to its neighbours, on one only where
        /// `bits` is even, and a zero has s's sign.
        fn check(&self, s: f64, e: f64, bits: u32) {
            let mag = bits & !self.sign;
            assert!(mag <= self.inf, "{}: {s:e} + {e:e} gave NaN", self.name);
            let k = if bits & self.sign != 0 {
                -i64::from(mag)
            } else {
                i64::from(mag)
            };
            let got = self.at(k);
            let (lo, hi) = ((got + self.at(k - 1)) / 2.0, (got + self.at(k + 1)) / 2.0);
            let even = bits & 1 == 0;
            let ok = match (side(s, e, lo), side(s, e, hi)) {
                (Greater, Less) => true,
                (Equal, Less) | (Greater, Equal) => even,
                _ => false,
            };
            assert!(ok, "{}: {s:e} + {e:e} gave {bits:#x}", self.name);
            if mag == 0 {
                assert_eq!(bits != 0, s < 0.0, "{}: sign of zero", self.name);
            }
        }
    }

    /// s near the grid of a format of `bits` significand bits at an
    /// exponent in `exps`: on a point, a midpoint, or up to 3 f64 ulps off
    /// either, either sign; e none, or a quarter or eighth of an f64 ulp
    /// of either sign.
    fn near_grid(rng: &mut Rng, exps: std::ops::Range<i32>, bits: u32) -> (f64, f64) {
        let span = (exps.end - exps.start) as u64;
        let exp = exps.start + (rng.next() % span) as i32;
        let m = (rng.next() >> (63 - bits)) | (1 << bits);
        let mut s = m as f64 * 2f64.powi(exp - bits as i32);
        let nudge = (rng.next() % 7) as i64 - 3;
        for _ in 0..nudge.unsigned_abs() {
            s = if nudge > 0 {
                s.next_up()
            } else {
                s.next_down()
            };
        }
        if rng.next().is_multiple_of(2) {
            s = -s;
        }
        let ulp = s.abs().next_up() - s.abs();
        let e = match rng.next() % 3 {
            0 => 0.0,
            1 => ulp / 4.0,
            _ => -ulp / 8.0,
        };
        (s, e)
    }

    const F16: Format = Format {
        name: "f16",
        sign: 0x8000,
        inf: 0x7C00,
        top: 65536.0,
        value: |m| f16::from_bits(m as u16).to_f64(),
    };
    const BF16: Format = Format {
        name: "bf16",
        sign: 0x8000,
        inf: 0x7F80,
        top: 3.402823669209385e38,
        value: |m| bf16::from_bits(m as u16).to_f64(),
    };
    const F32: Format = Format {
        name: "f32",
        sign: 0x8000_0000,
        inf: 0x7F80_0000,
        top: 3.402823669209385e38,
        value: |m| f64::from(f32::from_bits(m)),
    };

    #[test]
    fn every_width_rounds_once() {
        let mut rng = Rng(0x1234_5678_9ABC_DEF1);
        for _ in 0..100_000 {
            // From below the subnormals to past the overflow.
            let (s, e) = near_grid(&mut rng, -27..18, 11);
            F16.check(s, e, u32::from(f16_nearest(s, e)));
            let (s, e) = near_grid(&mut rng, -136..130, 8);
            BF16.check(s, e, u32::from(bf16_nearest(s, e)));
            let (s, e) = near_grid(&mut rng, -152..130, 24);
            F32.check(s, e, f32_nearest(s, e).to_bits());
        }
    }

    #[test]
    fn sums_just_off_an_f16_tie_round_away_from_it() {
        // 0x0FFE * 0x3C01 + 0x3C01 = 1 + 2^-10 + 2^-11 - 2^-31, exact in
        // f64: nearest f32 is the tie 1 + 2^-10 + 2^-11, which would go to
        // the even 1 + 2^-9 (0x3C02).
        let h = |b: u16| f16::from_bits(b).to_f64();
        let x = h(0x0FFE) * h(0x3C01) + h(0x3C01);
        assert_eq!(f16_of(x), 0x3C01);
        assert_eq!(f16_of(-x), 0xBC01);
        // 0x3C16 * 0x0FD5 + 0x3C02 = 1 + 2^-9 + 2^-11 + 78 * 2^-32: just
        // above a tie, which truncating to f32 would reach.
        let x = h(0x3C16) * h(0x0FD5) + h(0x3C02);
        assert_eq!(f16_of(x), 0x3C03);
    }

    #[test]
    fn the_error_term_decides_ties() {
        let tie = 1.0 + 2f64.powi(-24);
        assert_eq!(f32_nearest(tie, 0.0), 1.0);
        assert_eq!(f32_nearest(tie, 1e-30), 1.0 + 2f32.powi(-23));
        assert_eq!(f32_nearest(-tie, -1e-30), -1.0 - 2f32.powi(-23));
        assert_eq!(f32_nearest(tie, -1e-30), 1.0);
        let (s, e) = two_sum(2f64.powi(30) + 2f64.powi(22), 2f64.powi(-40));
        assert_eq!((s, e), (2f64.powi(30) + 2f64.powi(22), 2f64.powi(-40)));
        assert_eq!(bf16_nearest(s, e), 0x4E80 | 1);
    }
}
