//! v_exp_f32 and v_log_f32: gfxsim's own base-2 exponential and logarithm,
//! written as a fixed sequence of IEEE f32 operations and fused
//! multiply-adds (each correctly rounded on every host: `f32::mul_add`,
//! `llvm.fma`, Cranelift's `fma`) so that the interpreter (here, per lane)
//! and both translator back ends (crates/isa/src/gfx11/jit/llvm/math.rs on
//! whole waves, jit/lane_inline.rs on 4-lane chunks) give the same bits on
//! every host, with no libm call, 16 lanes to a 512-bit vector.
//!
//! The hardware's results are approximations: the RDNA3 ISA guide gives
//! V_EXP_F32 and V_LOG_F32 as 1 ULP operations, and these stay within
//! 1 ULP of the exact value (the tests measure it against f64 on a dense
//! sample; every f32 input in `release` with `--ignored`).
//!
//! - exp2: `x = n + r` with `n` the nearest integer (the 1.5 * 2^23
//!   rounder) and `|r| <= 1/2` exact; `2^r` by its Taylor polynomial of
//!   degree 8 in `r` (coefficients `ln2^k / k!` as the nearest f32,
//!   truncation below 2^-32) by Horner's rule in fused multiply-adds, the
//!   last adding the constant 1; times `2^(n - h)` (exact: stays normal) and
//!   then `2^h`, `h = n >> 1`, so that the only rounding past the
//!   polynomial is the last product's, into the subnormal range too.
//! - log2: `a = m * 2^e` with `m` in `[sqrt(1/2), sqrt(2)]` (a subnormal
//!   scaled by 2^23 first, exactly); `f = m - 1` exact; with
//!   `s = f / (2 + f)`, `log2(m) = (2 / ln2) * atanh(s)`. `s` is carried as
//!   `s_hi + s_lo` (the residual of the division by fused multiply-adds,
//!   with `2 + f` itself split exactly), `2 / ln2` as `K_HI + K_LO`, and
//!   `K_HI * s_hi` with its exact error by one fused multiply-add, so the
//!   leading term is good to about 2^-45; the rest of the series,
//!   `s^3 * sum(K / (2j + 1) * s^(2j - 2))` for j = 1 to 6 (`s^2 <=
//!   0.0295`, truncation below 2^-33 relative), is under 1% of the result.
//!   `e` is added with its exact error (Fast2Sum, |e| >= 1 > |K_HI s_hi|).
//!
//! Special values are those the host libm gave before (the ISA guide does not
//! fix the NaN payloads): a NaN source comes back quieted; exp2 saturates to
//! +inf and flushes to +0 past the f32 range; log2(±0) = -inf,
//! log2(+inf) = +inf, log2(-inf) = -NaN (0xffc00000) and log2 of another
//! negative value = +NaN (0x7fc00000). Denormals are kept (the default FP32
//! denorm mode, as everywhere in gfxsim's VALU): subnormal sources are
//! exact inputs, and exp2's subnormal results are rounded once.

/// The f32 quiet bit.
pub(crate) const QUIET32: u32 = 0x0040_0000;

/// `2^r` coefficients, highest degree first (Horner order): `ln2^k / k!`
/// for k = 8 down to 1, each the nearest f32; the constant term, 1, is the
/// last fused multiply-add's addend.
pub(crate) const EXP2_POLY: [u32; 8] = [
    0x35B1_6011,
    0x377F_E5FE,
    0x3921_8489,
    0x3AAE_C3FF,
    0x3C1D_955B,
    0x3D63_5847,
    0x3E75_FDF0,
    0x3F31_7218,
];

/// Clamp of exp2's argument: 2^-151 rounds to 0 and 2^129 to +inf in f32,
/// as every value beyond them does; both keep `n` in the rounder's range and
/// `n - h`, `h` within the normal exponents.
pub(crate) const EXP2_LO: f32 = -151.0;
pub(crate) const EXP2_HI: f32 = 129.0;

/// 1.5 * 2^23: adding it rounds an f32 of magnitude below 2^22 to an
/// integer (nearest, ties to even) held in the low mantissa bits.
pub(crate) const ROUNDER: f32 = 12_582_912.0;

/// The f32 with biased exponent `k + 127`: 2^k for k in [-126, 127].
pub(crate) const fn pow2_bits(k: i32) -> u32 {
    ((k + 127) as u32) << 23
}

/// 2 / ln2 as the nearest f32 and the nearest f32 to the rest.
pub(crate) const LOG2_K_HI: u32 = 0x4038_AA3B;
pub(crate) const LOG2_K_LO: u32 = 0x3325_7060;

/// `log2(m)` series coefficients past the first in `z = s^2`, highest
/// first: `(2 / ln2) / (2j + 1)` for j = 6 down to 1, each the nearest f32.
pub(crate) const LOG2_POLY: [u32; 6] = [
    0x3E63_47AB,
    0x3E86_4D42,
    0x3EA4_258A,
    0x3ED3_0BB1,
    0x3F13_BB63,
    0x3F76_384F,
];

/// The nearest f32 to sqrt(2) (just above it): mantissas above it are
/// halved.
pub(crate) const SQRT2: f32 = std::f32::consts::SQRT_2;

/// 2^23, which makes every subnormal f32 normal (exactly).
pub(crate) const TWO23: f32 = 8_388_608.0;

/// f32 fraction bits.
pub(crate) const FRACTION: u32 = (1 << 23) - 1;

/// log2's results for negative sources other than -inf, and for -inf.
pub(crate) const LOG2_NEGATIVE: u32 = 0x7FC0_0000;
pub(crate) const LOG2_NEG_INF: u32 = 0xFFC0_0000;

/// v_exp_f32: 2^a.
pub(crate) fn exp2_f32(a: f32) -> f32 {
    if a.is_nan() {
        return f32::from_bits(a.to_bits() | QUIET32);
    }
    let x = if a < EXP2_LO { EXP2_LO } else { a };
    let x = if x > EXP2_HI { EXP2_HI } else { x };
    let t = x + ROUNDER;
    let n = t - ROUNDER;
    let r = x - n;
    let mut p = f32::from_bits(EXP2_POLY[0]);
    for c in &EXP2_POLY[1..] {
        p = p.mul_add(r, f32::from_bits(*c));
    }
    let p = p.mul_add(r, 1.0);
    // n in [-151, 129], the integer in t's low bits; p * 2^(n - h) is
    // normal and exact, the product with 2^h rounds once.
    let n = t.to_bits().wrapping_sub(ROUNDER.to_bits()) as i32;
    let h = n >> 1;
    let p = p * f32::from_bits(pow2_bits(n - h));
    p * f32::from_bits(pow2_bits(h))
}

/// v_log_f32: log2(a).
pub(crate) fn log2_f32(a: f32) -> f32 {
    if a.is_nan() {
        return f32::from_bits(a.to_bits() | QUIET32);
    }
    if a == 0.0 {
        return f32::NEG_INFINITY;
    }
    if a < 0.0 {
        let bits = if a == f32::NEG_INFINITY {
            LOG2_NEG_INF
        } else {
            LOG2_NEGATIVE
        };
        return f32::from_bits(bits);
    }
    if a == f32::INFINITY {
        return a;
    }
    let subnormal = a.to_bits() < 1 << 23;
    let (a, adjust) = if subnormal { (a * TWO23, 23) } else { (a, 0) };
    let bits = a.to_bits();
    let m = f32::from_bits((bits & FRACTION) | (127 << 23));
    let e = (bits >> 23) as i32 - 127 - adjust;
    let (m, e) = if m > SQRT2 { (m * 0.5, e + 1) } else { (m, e) };
    let f = m - 1.0;
    // 2 + f = d_hi + d_lo exactly (Fast2Sum).
    let d_hi = 2.0 + f;
    let d_lo = f - (d_hi - 2.0);
    // s = f / (2 + f) = s_hi + s_lo: s_lo from the division's residual.
    let inv = 1.0 / d_hi;
    let s_hi = f * inv;
    let res = (-s_hi).mul_add(d_hi, f);
    let res = (-s_hi).mul_add(d_lo, res);
    let s_lo = res * inv;
    let z = s_hi * s_hi;
    let mut q = f32::from_bits(LOG2_POLY[0]);
    for c in &LOG2_POLY[1..] {
        q = q.mul_add(z, f32::from_bits(*c));
    }
    let tail = (s_hi * z) * q;
    // K * s: the high product and its exact error, then the small terms.
    let (k_hi, k_lo) = (f32::from_bits(LOG2_K_HI), f32::from_bits(LOG2_K_LO));
    let hi = k_hi * s_hi;
    let lo = k_hi.mul_add(s_hi, -hi);
    let lo = lo + k_hi.mul_add(s_lo, k_lo * s_hi);
    let lo = lo + tail;
    // e + hi with its exact error (Fast2Sum: e is 0 or |e| >= 1 > |hi|).
    let ef = e as f32;
    let sum = ef + hi;
    let err = hi - (sum - ef);
    sum + (err + lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error of `have` against `exact` (f64, accurate far past f32) in
    /// f32 units in the last place at `exact` (2^-149 below the normals).
    fn ulp_error(have: f32, exact: f64) -> f64 {
        let m = exact.abs();
        let ulp = if m < f64::from(f32::MIN_POSITIVE) {
            2f64.powi(-149)
        } else {
            2f64.powi(m.log2().floor() as i32 - 23)
        };
        (f64::from(have) - exact).abs() / ulp
    }

    /// Is `have` the f32 nearest to `want` (f64's conversion rounds to
    /// nearest)?
    fn nearest_f32(have: u32, want: f64) -> bool {
        (want as f32).to_bits() == have
    }

    /// The coefficients are the nearest f32 to their formulas.
    #[test]
    fn coefficients_follow_their_formulas() {
        let ln2 = std::f64::consts::LN_2;
        let mut c = 1.0f64;
        for k in 1..=8 {
            c = c * ln2 / k as f64;
            assert!(nearest_f32(EXP2_POLY[8 - k], c), "exp2 c{k}");
        }
        let k = 2.0 / ln2;
        assert!(nearest_f32(LOG2_K_HI, k));
        let rest = k - f64::from(f32::from_bits(LOG2_K_HI));
        assert!(nearest_f32(LOG2_K_LO, rest));
        for j in 1..=6 {
            assert!(
                nearest_f32(LOG2_POLY[6 - j], k / (2 * j + 1) as f64),
                "log2 c{j}"
            );
        }
        assert_eq!(ROUNDER, 1.5 * (1u32 << 23) as f32);
        assert_eq!(f32::from_bits(pow2_bits(-126)), f32::MIN_POSITIVE);
    }

    /// Checks every `step`-th bit pattern: within one ULP of the exact
    /// value (f64's exp2 and log2, far more accurate than f32), exact on
    /// powers of two; returns how many were not the correctly rounded f32.
    fn sweep(step: u32) -> (u64, u64, u64) {
        let (mut n, mut exp_off, mut log_off) = (0u64, 0u64, 0u64);
        let mut bits = 0u32;
        loop {
            let a = f32::from_bits(bits);
            if !a.is_nan() {
                n += 1;
                let (have, exact) = (exp2_f32(a), (a as f64).exp2());
                if exact < f64::from(f32::MAX) {
                    let e = ulp_error(have, exact);
                    assert!(e <= 1.0, "exp2({a:e}) = {have:e}: {e} ULP from {exact:e}");
                    exp_off += u64::from(have != exact as f32);
                }
                if a > 0.0 && a.is_finite() {
                    let (have, exact) = (log2_f32(a), (a as f64).log2());
                    let e = ulp_error(have, exact);
                    assert!(e <= 1.0, "log2({a:e}) = {have:e}: {e} ULP from {exact:e}");
                    log_off += u64::from(have != exact as f32);
                }
            }
            match bits.checked_add(step) {
                Some(b) => bits = b,
                None => break,
            }
        }
        (n, exp_off, log_off)
    }

    /// A sweep of every 251st bit pattern (every sign, binade and
    /// subnormal range); mostly correctly rounded, exact on integers and
    /// powers of two.
    #[test]
    fn within_one_ulp() {
        let (n, exp_off, log_off) = sweep(251);
        assert!(exp_off * 100 < n, "exp2 off on {exp_off} of {n}");
        assert!(log_off * 1000 < n, "log2 off on {log_off} of {n}");
        for k in -149..128 {
            let p = (k as f64).exp2() as f32;
            assert_eq!(exp2_f32(k as f32), p, "2^{k}");
            assert_eq!(log2_f32(p), k as f32, "log2 2^{k}");
        }
    }

    /// Every f32: `cargo test --release -p aqueduct-isa --lib
    /// transcendental -- --ignored` (seconds in release, long in debug).
    #[test]
    #[ignore]
    fn every_input_within_one_ulp() {
        sweep(1);
    }

    #[test]
    fn special_values() {
        let e = |b: u32| exp2_f32(f32::from_bits(b)).to_bits();
        let l = |b: u32| log2_f32(f32::from_bits(b)).to_bits();
        // NaNs come back quieted, payload and sign kept.
        assert_eq!(e(0x7F80_0001), 0x7FC0_0001);
        assert_eq!(l(0xFFA0_0001), 0xFFE0_0001);
        assert_eq!(e(0x7F80_0000), 0x7F80_0000);
        assert_eq!(e(0xFF80_0000), 0);
        assert_eq!(e(128f32.to_bits()), 0x7F80_0000);
        assert_eq!(e(f32::MAX.to_bits()), 0x7F80_0000);
        assert_eq!(e((-150f32).to_bits()), 0);
        assert_eq!(e((-149.5f32).to_bits()), 1);
        assert_eq!(e(f32::MIN.to_bits()), 0);
        // Subnormal sources: 2^x rounds to 1.
        assert_eq!(e(1), 1f32.to_bits());
        assert_eq!(e(0x8000_0001), 1f32.to_bits());
        assert_eq!(l(0), 0xFF80_0000);
        assert_eq!(l(0x8000_0000), 0xFF80_0000);
        assert_eq!(l(0x7F80_0000), 0x7F80_0000);
        assert_eq!(l(0xFF80_0000), LOG2_NEG_INF);
        assert_eq!(l((-1f32).to_bits()), LOG2_NEGATIVE);
        assert_eq!(l(0x8000_0001), LOG2_NEGATIVE);
        assert_eq!(l(1), (-149f32).to_bits());
        assert_eq!(l(f32::MAX.to_bits()), 128f32.to_bits());
    }
}
