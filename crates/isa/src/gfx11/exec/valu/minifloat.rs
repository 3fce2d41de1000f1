//! Narrow float inputs of gfx942's matrix ops, widened to f64 (exactly).
//!
//! FP8 and BF8 are the "FNUZ" 8-bit formats: E4M3 with exponent bias 8 and
//! E5M2 with bias 16, no infinities, no negative zero, the single NaN
//! 0x80, subnormals at exponent 0 (AMD CDNA3 ISA guide, "Matrix Arithmetic
//! Instructions", FP8/BF8 inputs; LLVM's APFloat `Float8E4M3FNUZ` and
//! `Float8E5M2FNUZ`, the types MLIR's amdgpu dialect uses for gfx942).
//!
//! XF32 is an f32 register read with a 10-bit mantissa. The CDNA3 guide
//! names the `_xf32` ops but does not say how the low 13 mantissa bits are
//! dropped; gfxsim truncates them (the behaviour most cited for such
//! reduced-precision f32 inputs). This rests on documentation alone:
//! values exact in 10 mantissa bits are unaffected either way.

/// An 8-bit FNUZ float with `mant` mantissa bits and exponent `bias`.
fn fnuz(bits: u8, mant: u32, bias: i32) -> f64 {
    if bits == 0x80 {
        return f64::NAN;
    }
    let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits & 0x7F) >> mant);
    let frac = f64::from(u32::from(bits) & ((1 << mant) - 1)) / f64::from(1u32 << mant);
    let mag = if exp == 0 {
        frac * 2f64.powi(1 - bias)
    } else {
        (1.0 + frac) * 2f64.powi(exp - bias)
    };
    sign * mag
}

/// FP8 (E4M3, bias 8) as gfx942 reads it.
pub(crate) fn fp8(bits: u8) -> f64 {
    fnuz(bits, 3, 8)
}

/// BF8 (E5M2, bias 16) as gfx942 reads it.
pub(crate) fn bf8(bits: u8) -> f64 {
    fnuz(bits, 2, 16)
}

/// An f32 register read as XF32 (low 13 mantissa bits dropped).
pub(crate) fn xf32(bits: u32) -> f64 {
    let x = f32::from_bits(bits);
    if x.is_nan() {
        return f64::from(x);
    }
    f64::from(f32::from_bits(bits & !0x1FFF))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp8_values() {
        assert_eq!(fp8(0x00), 0.0);
        assert!(fp8(0x80).is_nan());
        // 1.0: exponent field 8 (= bias), mantissa 0.
        assert_eq!(fp8(0x40), 1.0);
        assert_eq!(fp8(0xC0), -1.0);
        // Largest normal 0x7F: 1.875 * 2^7; smallest subnormal 2^-10.
        assert_eq!(fp8(0x7F), 240.0);
        assert_eq!(fp8(0x01), 2f64.powi(-10));
        assert_eq!(fp8(0x0F), 1.875 * 2f64.powi(-7));
        // No infinity: exponent all ones is a normal binade.
        assert_eq!(fp8(0x78), 128.0);
    }

    #[test]
    fn bf8_values() {
        assert_eq!(bf8(0x00), 0.0);
        assert!(bf8(0x80).is_nan());
        assert_eq!(bf8(0x40), 1.0);
        assert_eq!(bf8(0x7F), 57344.0);
        assert_eq!(bf8(0x01), 2f64.powi(-17));
        assert_eq!(bf8(0xC2), -1.5);
    }

    #[test]
    fn xf32_drops_low_bits() {
        assert_eq!(xf32(1.5f32.to_bits()), 1.5);
        assert_eq!(xf32(f32::to_bits(1.0 + f32::EPSILON)), 1.0);
        assert_eq!(
            xf32(f32::to_bits(-(1.0 + 2f32.powi(-10)))),
            -(1.0 + 2f64.powi(-10))
        );
        assert!(xf32(f32::NAN.to_bits()).is_nan());
    }
}
