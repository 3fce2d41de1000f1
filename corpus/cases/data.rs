//! Test data for the corpus cases: the shared deterministic generator, little-endian
//! packing of typed slices into buffer bytes and back, f16/bf16 conversions with IEEE
//! round-to-nearest-even, and ulp distances.

pub use aqueduct_test_support::Rng;

/// Fixed-size little-endian values (what the buffers hold).
pub trait Le: Copy {
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! le {
    ($($t:ty),*) => {$(
        impl Le for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&bytes[..Self::SIZE]);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}
le!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// The bytes of `values`, little-endian.
pub fn bytes<T: Le>(values: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * T::SIZE);
    for &v in values {
        v.put(&mut out);
    }
    out
}

/// `count` copies of `value`, as bytes.
pub fn filled<T: Le>(count: usize, value: T) -> Vec<u8> {
    bytes(&vec![value; count])
}

/// The whole elements of `bytes` read as `T`.
pub fn words<T: Le>(bytes: &[u8]) -> Vec<T> {
    bytes.chunks_exact(T::SIZE).map(T::get).collect()
}

/// Hex display of integer results in failure messages.
pub trait Hex {
    fn hex(&self) -> String;
}

impl Hex for u32 {
    fn hex(&self) -> String {
        format!("{self:#010x}")
    }
}

impl Hex for u64 {
    fn hex(&self) -> String {
        format!("{self:#018x}")
    }
}

/// Units in the last place between two floats of `width` bits given as bit patterns
/// (u64::MAX when exactly one is NaN; 0 when both are NaN).
pub fn ulp_distance(a: u64, b: u64, width: u32) -> u64 {
    let sign = 1u64 << (width - 1);
    let exp_mask = match width {
        16 => 0x7c00u64,
        32 => 0x7f80_0000,
        _ => 0x7ff0_0000_0000_0000,
    };
    let frac_mask = (sign - 1) & !exp_mask;
    let nan = |x: u64| x & exp_mask == exp_mask && x & frac_mask != 0;
    match (nan(a), nan(b)) {
        (true, true) => return 0,
        (false, false) => {}
        _ => return u64::MAX,
    }
    // Map sign-magnitude to a monotonic integer line (-0 and +0 meet at the same point).
    let line = |x: u64| -> i128 {
        if x & sign != 0 {
            -((x & !sign) as i128)
        } else {
            x as i128
        }
    };
    (line(a) - line(b)).unsigned_abs() as u64
}

/// f16 bits -> f64 (exact).
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let frac = (h & 0x3ff) as f64;
    match exp {
        0 => sign * frac * (2.0f64).powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + frac / 1024.0) * (2.0f64).powi(exp - 15),
    }
}

pub fn f16_to_f32(h: u16) -> f32 {
    f16_to_f64(h) as f32
}

/// f64 -> f16 bits, rounded to nearest even once (subnormals, overflow to infinity).
pub fn f16_from_f64(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00; // at or past the midpoint above the largest finite f16
    }
    // 2^e <= a < 2^(e+1); scale so the f16 quantum at that exponent is 1, then round.
    let e = ((a.to_bits() >> 52) as i32) - 1023;
    let quantum_exp = e.max(-14) - 10;
    let m = (a * (2.0f64).powi(-quantum_exp)).round_ties_even();
    if e < -14 {
        // Subnormal (m = 1024 is the smallest normal, whose bits are also 0x400).
        return sign | m as u16;
    }
    let (m, e) = if m >= 2048.0 { (1024.0, e + 1) } else { (m, e) };
    if e > 15 {
        return sign | 0x7c00;
    }
    sign | (((e + 15) as u16) << 10) | (m as u16 - 1024)
}

/// bf16 bits of an f32 that bf16 represents exactly (small integers here).
pub fn bf16_exact(x: f32) -> u16 {
    let bits = x.to_bits();
    assert_eq!(bits & 0xffff, 0, "{x} is not exact in bf16");
    (bits >> 16) as u16
}
