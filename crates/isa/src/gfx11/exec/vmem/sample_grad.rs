//! The LOD of the derivative sampling forms (`image_sample_d`,
//! `image_sample_d_o`): the lane's explicit derivatives of the normalized
//! coordinates, scaled to texels of level 0, give the level of detail that
//! picks the sampler's minification or magnification filter (sample.rs).
//!
//! The formula is Vulkan's ("Scale Factor Operation, LOD Operation and
//! Image Level(s) Selection"): `m_x = sqrt(Σ (size_a · ∂a/∂x)²)` over the
//! image's axes, likewise `m_y`, `ρ = max(m_x, m_y)`, `λ = log2(ρ) +
//! bias` with the S#'s LOD_BIAS (where radv places `mipLodBias`), then the
//! S#'s MIN_LOD..MAX_LOD clamp. The texture unit's exact ρ is not public:
//! Vulkan lets an implementation approximate the lengths (e.g. by the
//! largest component, or a sum), and the RDNA3 ISA guide does not say
//! which the hardware uses. gfxsim computes the exact Euclidean lengths in
//! f64, an assumption: a GPU may put λ on the other side of 0 only when ρ
//! lies within the approximation's error of 1 texel per pixel.

use crate::gfx11::sampler_desc::SamplerDescriptor;

/// λ of derivatives `ddx` and `ddy` (per axis, normalized units) on an
/// image of level-0 extent `size`, before the S#'s LOD clamp (which
/// `select_filter` applies); the first `axes` components count.
pub(crate) fn gradient_lod(
    samp: &SamplerDescriptor,
    size: [u32; 3],
    axes: usize,
    ddx: [f32; 3],
    ddy: [f32; 3],
) -> f32 {
    let length = |d: [f32; 3]| -> f64 {
        (0..axes)
            .map(|a| {
                // Unnormalized coordinates are texels already (Vulkan's
                // scale factor with unnormalizedCoordinates).
                let scale = if samp.unnormalized {
                    1.0
                } else {
                    size[a] as f64
                };
                let v = d[a] as f64 * scale;
                v * v
            })
            .sum::<f64>()
            .sqrt()
    };
    let rho = length(ddx).max(length(ddy));
    (rho.log2() + samp.lod_bias as f64) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfx11::sampler_desc::{AddressMode, XyFilter};

    #[test]
    fn lod_is_log2_of_the_longest_scaled_derivative() {
        let samp =
            SamplerDescriptor::new([AddressMode::Wrap; 3], XyFilter::Point, XyFilter::Bilinear);
        // 8x4 image: ddx spans (3, 4) texels (length 5), ddy 2 texels.
        let lod = gradient_lod(&samp, [8, 4, 1], 2, [0.375, 1.0, 0.0], [0.0, 0.5, 0.0]);
        assert_eq!(lod, 5f64.log2() as f32);
        // Half a texel per pixel: magnification.
        let lod = gradient_lod(&samp, [8, 4, 1], 2, [0.0625, 0.0, 0.0], [0.0, 0.0, 0.0]);
        assert_eq!(lod, -1.0);
        // No derivative: log2(0), which the clamp sends to MIN_LOD.
        let lod = gradient_lod(&samp, [8, 4, 1], 2, [0.0; 3], [0.0; 3]);
        assert_eq!(lod, f32::NEG_INFINITY);
        // The third axis counts only for 3D.
        let lod = gradient_lod(&samp, [2, 2, 16], 3, [0.0, 0.0, 0.25], [0.0; 3]);
        assert_eq!(lod, 2.0);
    }
}
