//! V_TRIG_PREOP_F64: one 53-bit segment of 2/π, scaled, for the
//! Payne-Hanek argument reduction of f64 sin/cos (ROCm device libraries
//! reach it through `llvm.amdgcn.trig.preop`). RDNA3 ISA guide, VOP3:
//! segment S1[4:0] starts 53 * S1[4:0] bits into the 1201-bit fraction of
//! 2/π, moved further along by exponent(S0) - 1077 for large S0, and is
//! scaled by 2^(-53 - shift) (2^128 more where exponent(S0) >= 1968, the
//! range whose reduction runs pre-scaled).

use super::{F64s, LANES, R, V, ldexp64};

/// The first 1216 bits of the binary fraction of 2/π, most significant
/// first (the bits past 1201 are zero: the hardware's table ends there).
/// Computed from Machin's formula with 1500-bit integers; the leading words
/// agree with the well-known Payne-Hanek table (0xA2F9836E 0x4E441529 ...).
const TWO_OVER_PI: [u64; 19] = [
    0xA2F9_836E_4E44_1529,
    0xFC27_57D1_F534_DDC0,
    0xDB62_9599_3C43_9041,
    0xFE51_63AB_DEBB_C561,
    0xB724_6E3A_424D_D2E0,
    0x0649_2EEA_09D1_921C,
    0xFE1D_EB1C_B129_A73E,
    0xE882_35F5_2EBB_4484,
    0xE99C_7026_B45F_7E41,
    0x3991_D639_8353_39F4,
    0x9C84_5F8B_BDF9_283B,
    0x1FF8_97FF_DE05_980F,
    0xEF2F_118B_5A0A_6D1F,
    0x6D36_7ECF_27CB_09B7,
    0x4F46_3F66_9E5F_EA2D,
    0x7527_BAC7_EBE5_F17B,
    0x3D07_39F7_8A52_92EA,
    0x6BFB_5FB1_1F8D_5D08,
    0x5603_3046_FC7B_0000,
];

/// The 53 bits of 2/π's fraction starting `shift` bits after the binary
/// point, as an integer (zeros past the table's 1201 bits).
fn segment(shift: u32) -> u64 {
    let bit = |n: u32| -> u64 {
        if n >= 1201 {
            return 0;
        }
        (TWO_OVER_PI[(n / 64) as usize] >> (63 - n % 64)) & 1
    };
    (0..53).fold(0, |acc, k| acc << 1 | bit(shift + k))
}

pub(crate) fn trig_preop(x: f64, select: u32) -> f64 {
    let exponent = ((x.to_bits() >> 52) & 0x7FF) as u32;
    let mut shift = (select & 31) * 53;
    if exponent > 1077 {
        shift += exponent - 1077;
    }
    let mut scale = -53 - shift as i32;
    if exponent >= 1968 {
        scale += 128;
    }
    ldexp64(segment(shift) as f64, scale)
}

pub(super) fn exec(v: &mut V) -> R<()> {
    let (x, sel) = (v.d(0)?, v.u(1)?);
    let mut r: F64s = [0.0; LANES];
    for l in 0..LANES {
        r[l] = trig_preop(x[l], sel[l]);
    }
    v.putd(&r);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The segments of a small argument add up to 2/π.
    #[test]
    fn segments_sum_to_two_over_pi() {
        let sum: f64 = (0..3).map(|s| trig_preop(1.0, s)).sum();
        assert_eq!(sum, std::f64::consts::FRAC_2_PI);
        // Segment 0 is 2/π cut (not rounded) to 53 bits: one ulp below the
        // rounded constant.
        assert_eq!(trig_preop(1.0, 0).to_bits(), 0x3FE4_5F30_6DC9_C882);
        assert!(trig_preop(1.0, 1) < 2f64.powi(-53));
        // A large argument moves the window: exponent 1078 is one bit along.
        let big = f64::from_bits(1078u64 << 52);
        assert_eq!(trig_preop(big, 0), ldexp64(segment(1) as f64, -54));
        // Past the table only zeros remain.
        assert_eq!(segment(1200) >> 52, TWO_OVER_PI[18] >> 15 & 1);
        assert_eq!(segment(1201), 0);
    }
}
