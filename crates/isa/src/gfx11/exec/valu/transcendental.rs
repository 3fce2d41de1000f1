//! v_exp_f32 and v_log_f32: gfxsim's own base-2 exponential and logarithm,
//! written as a fixed sequence of IEEE f64 operations so that the
//! interpreter (here, per lane) and the translator (crates/isa/src/gfx11/
//! jit/lane_inline.rs, the same operations on f64x2 vectors) give the same
//! bits on every host, with no libm call.
//!
//! The hardware's results are approximations: the RDNA3 ISA guide gives
//! V_EXP_F32 and V_LOG_F32 as 1 ULP operations. Here the result is computed
//! in f64 with a relative error near 2^-46 and rounded once to f32, so it
//! is the correctly rounded f32 except where the exact value lies within
//! about 2^-22 ULP of a rounding boundary, and then one ULP away: within the
//! hardware's bound either way.
//!
//! - exp2: `x = n + r` with `n` the nearest integer and `|r| <= 1/2`;
//!   `2^r` by its Taylor polynomial of degree 11 in `r` (coefficients
//!   `ln2^k / k!`, truncation below 2^-47 on that range); times `2^n` exactly.
//! - log2: `a = m * 2^e` with `m` in `[sqrt(1/2), sqrt(2))`; with
//!   `s = (m - 1) / (m + 1)`, `log2(m) = (2 / ln2) * atanh(s)`, the series
//!   `s * sum(s^2j / (2j + 1))` to j = 8 (`s^2 <= 0.0295`, truncation below
//!   2^-50 relative).
//!
//! Special values are those the host libm gave before (the ISA guide does not
//! fix the NaN payloads): a NaN source comes back quieted; exp2 saturates to
//! +inf and flushes to +0 past the f32 range; log2(±0) = -inf,
//! log2(+inf) = +inf, log2(-inf) = -NaN (0xffc00000) and log2 of another
//! negative value = +NaN (0x7fc00000).

/// The f32 quiet bit.
pub(crate) const QUIET32: u32 = 0x0040_0000;

/// `2^r` coefficients, highest degree first (Horner order): `ln2^k / k!`
/// for k = 11 down to 0, each the nearest f64.
pub(crate) const EXP2_POLY: [u64; 12] = [
    0x3DFE_8CAC_7351_BB25,
    0x3E3E_4CF5_158B_8ECA,
    0x3E7B_5253_D395_E7C4,
    0x3EB6_2C02_23A5_C824,
    0x3EEF_FCBF_C588_B0C7,
    0x3F24_3091_2F86_C787,
    0x3F55_D87F_E78A_6731,
    0x3F83_B2AB_6FBA_4E77,
    0x3FAC_6B08_D704_A0C0,
    0x3FCE_BFBD_FF82_C58F,
    0x3FE6_2E42_FEFA_39EF,
    0x3FF0_0000_0000_0000,
];

/// Clamp of exp2's argument: 2^-160 and 2^130 round to 0 and +inf in f32,
/// as every value beyond them does, and stay normal in f64.
pub(crate) const EXP2_LO: f64 = -160.0;
pub(crate) const EXP2_HI: f64 = 130.0;

/// 1.5 * 2^52: adding it rounds an f64 of magnitude below 2^51 to an
/// integer (nearest, ties to even) held in the low mantissa bits.
pub(crate) const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// `log2(m)` series coefficients in `z = s^2`, highest first:
/// `(2 / ln2) / (2j + 1)` for j = 8 down to 0, each the nearest f64.
pub(crate) const LOG2_POLY: [u64; 9] = [
    0x3FC5_B9AC_9B74_3F0D,
    0x3FC8_9F3B_1694_CFFE,
    0x3FCC_68F5_68D3_1760,
    0x3FD0_C9A8_4994_022D,
    0x3FD4_84B1_3D7C_02A9,
    0x3FDA_6176_2A7A_DED9,
    0x3FE2_776C_50EF_9BFE,
    0x3FEE_C709_DC3A_03FD,
    0x4007_1547_652B_82FE,
];

/// sqrt(2), the nearest f64: mantissas above it are halved.
pub(crate) const SQRT2: f64 = std::f64::consts::SQRT_2;

/// f64 fraction bits.
pub(crate) const FRACTION: u64 = (1 << 52) - 1;

/// log2's results for negative sources other than -inf, and for -inf.
pub(crate) const LOG2_NEGATIVE: u32 = 0x7FC0_0000;
pub(crate) const LOG2_NEG_INF: u32 = 0xFFC0_0000;

/// v_exp_f32: 2^a.
pub(crate) fn exp2_f32(a: f32) -> f32 {
    if a.is_nan() {
        return f32::from_bits(a.to_bits() | QUIET32);
    }
    let x = a as f64;
    let x = if x < EXP2_LO { EXP2_LO } else { x };
    let x = if x > EXP2_HI { EXP2_HI } else { x };
    let t = x + ROUNDER;
    let n = t - ROUNDER;
    let r = x - n;
    let mut p = f64::from_bits(EXP2_POLY[0]);
    for c in &EXP2_POLY[1..] {
        p = p * r + f64::from_bits(*c);
    }
    // n in [-160, 130]: 2^n is a normal f64, built from the integer in t's
    // low bits.
    let k = t.to_bits().wrapping_sub(ROUNDER.to_bits());
    let scale = f64::from_bits(k.wrapping_add(1023) << 52);
    (p * scale) as f32
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
    // Every positive f32, subnormals included, is a normal f64.
    let d = (a as f64).to_bits();
    let m = f64::from_bits((d & FRACTION) | (1023 << 52));
    let e = ((d >> 52) as i64 - 1023) as f64;
    let (m, e) = if m > SQRT2 {
        (m * 0.5, e + 1.0)
    } else {
        (m, e)
    };
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let mut q = f64::from_bits(LOG2_POLY[0]);
    for c in &LOG2_POLY[1..] {
        q = q * z + f64::from_bits(*c);
    }
    (e + s * q) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ULP distance between two finite f32 of one sign.
    fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    /// The coefficients are the nearest f64 to their formulas (checked
    /// against the recurrences c_k = c_{k-1} * ln2 / k and (2/ln2)/(2j+1)
    /// to f64 accuracy).
    #[test]
    fn coefficients_follow_their_formulas() {
        let ln2 = std::f64::consts::LN_2;
        let mut c = 1.0f64;
        for k in 0..12 {
            if k > 0 {
                c = c * ln2 / k as f64;
            }
            let have = f64::from_bits(EXP2_POLY[11 - k]);
            assert!(
                (have - c).abs() <= c * 1e-15,
                "exp2 c{k}: {have:e} vs {c:e}"
            );
        }
        for j in 0..9 {
            let want = 2.0 / ln2 / (2 * j + 1) as f64;
            let have = f64::from_bits(LOG2_POLY[8 - j]);
            assert!((have - want).abs() <= want * 1e-15, "log2 c{j}");
        }
        assert_eq!(ROUNDER, 1.5 * (1u64 << 52) as f64);
    }

    /// Within one ULP of the host's f64 libm rounded to f32 on a sweep of
    /// every 61st bit pattern, equal on almost all, exact on integers and
    /// powers of two.
    #[test]
    fn agrees_with_libm_within_one_ulp() {
        let (mut n, mut exp_off, mut log_off) = (0u64, 0u64, 0u64);
        let mut bits = 0u32;
        loop {
            let a = f32::from_bits(bits);
            if !a.is_nan() {
                n += 1;
                let (have, want) = (exp2_f32(a), (a as f64).exp2() as f32);
                if have != want {
                    assert!(ulps(have, want) <= 1, "exp2({a:e}): {have:e} vs {want:e}");
                    exp_off += 1;
                }
                if a > 0.0 && a.is_finite() {
                    let (have, want) = (log2_f32(a), (a as f64).log2() as f32);
                    if have != want {
                        assert!(ulps(have, want) <= 1, "log2({a:e}): {have:e} vs {want:e}");
                        log_off += 1;
                    }
                }
            }
            match bits.checked_add(61) {
                Some(b) => bits = b,
                None => break,
            }
        }
        assert!(
            exp_off * 100_000 < n,
            "exp2 off by one ULP on {exp_off} of {n}"
        );
        assert!(
            log_off * 100_000 < n,
            "log2 off by one ULP on {log_off} of {n}"
        );
        for k in -149..128 {
            let p = (k as f64).exp2() as f32;
            assert_eq!(exp2_f32(k as f32), p, "2^{k}");
            assert_eq!(log2_f32(p), k as f32, "log2 2^{k}");
        }
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
        assert_eq!(e((-150f32).to_bits()), 0);
        assert_eq!(e((-149.5f32).to_bits()), 1);
        assert_eq!(l(0), 0xFF80_0000);
        assert_eq!(l(0x8000_0000), 0xFF80_0000);
        assert_eq!(l(0x7F80_0000), 0x7F80_0000);
        assert_eq!(l(0xFF80_0000), LOG2_NEG_INF);
        assert_eq!(l((-1f32).to_bits()), LOG2_NEGATIVE);
        assert_eq!(l(1), (-149f32).to_bits());
    }
}
