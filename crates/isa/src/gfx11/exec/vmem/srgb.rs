//! The sRGB decode of image reads: an `8_8_8_8_SRGB` texel's x, y and z
//! components are sRGB-encoded and read as linear values, alpha stays
//! linear. The texture unit decodes each texel before filtering, as Vulkan
//! requires for sRGB formats ("Format Conversion", sRGB to linear before
//! the texel filtering step), so sample.rs and image.rs share this
//! per-texel function.
//!
//! The function is the sRGB EOTF of the Khronos Data Format Specification
//! ("sRGB EOTF"): `c / 12.92` for `c <= 0.04045`, else
//! `((c + 0.055) / 1.055)^2.4`, with `c = k / 255`. gfxsim evaluates it in
//! f64 and rounds to f32 once; the hardware's table is not public, and
//! Vulkan allows implementations a tolerance here, so a kernel must not
//! depend on the last bits.

/// The linear f32 bits of the `width`-bit sRGB-encoded component `raw`.
pub(crate) fn decode(raw: u32, width: u32) -> u32 {
    let c = f64::from(raw) / f64::from((1u32 << width) - 1);
    let linear = if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    };
    (linear as f32).to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eotf_meets_its_ends_and_its_linear_segment() {
        assert_eq!(f32::from_bits(decode(0, 8)), 0.0);
        assert_eq!(f32::from_bits(decode(255, 8)), 1.0);
        // 10 / 255 = 0.0392 is on the linear segment.
        assert_eq!(f32::from_bits(decode(10, 8)), (10.0 / 255.0 / 12.92) as f32);
        // Mid-grey 128 decodes to about 0.2158 (the published sRGB value).
        assert!((f32::from_bits(decode(128, 8)) - 0.215_861).abs() < 1e-6);
        // Monotonic over all 8-bit codes.
        assert!((1..256).all(|k| decode(k, 8) > decode(k - 1, 8)));
    }
}
