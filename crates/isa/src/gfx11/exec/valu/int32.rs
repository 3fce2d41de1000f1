//! Per-lane formulas of the 32-bit integer VALU operations that both the
//! slow path (valu/mod.rs) and the pre-resolved forms (valu/fast.rs) run:
//! each is written here once and inlined into both lane loops.

/// v_subrev: `b - a`.
#[inline(always)]
pub(crate) fn subrev(a: u32, b: u32) -> u32 {
    b.wrapping_sub(a)
}

/// v_lshlrev_b32: `b << a`.
#[inline(always)]
pub(crate) fn lshlrev(a: u32, b: u32) -> u32 {
    b << (a & 31)
}

/// v_lshrrev_b32: `b >> a`.
#[inline(always)]
pub(crate) fn lshrrev(a: u32, b: u32) -> u32 {
    b >> (a & 31)
}

/// v_ashrrev_i32: `b >> a`, arithmetic.
#[inline(always)]
pub(crate) fn ashrrev(a: u32, b: u32) -> u32 {
    ((b as i32) >> (a & 31)) as u32
}

#[inline(always)]
pub(crate) fn max_i32(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}

#[inline(always)]
pub(crate) fn min_i32(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}

#[inline(always)]
pub(crate) fn mul_hi_u32(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}

#[inline(always)]
pub(crate) fn mul_hi_i32(a: u32, b: u32) -> u32 {
    ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
}

/// v_mul_u32_u24: the low 24 bits of each source multiplied.
#[inline(always)]
pub(crate) fn mul_u24(a: u32, b: u32) -> u32 {
    (a & 0xFF_FFFF).wrapping_mul(b & 0xFF_FFFF)
}

/// v_mad_u32_u24.
#[inline(always)]
pub(crate) fn mad_u24(a: u32, b: u32, c: u32) -> u32 {
    mul_u24(a, b).wrapping_add(c)
}

#[inline(always)]
pub(crate) fn add3(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_add(b).wrapping_add(c)
}

#[inline(always)]
pub(crate) fn lshl_add(a: u32, b: u32, c: u32) -> u32 {
    (a << (b & 31)).wrapping_add(c)
}

#[inline(always)]
pub(crate) fn add_lshl(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_add(b) << (c & 31)
}

#[inline(always)]
pub(crate) fn lshl_or(a: u32, b: u32, c: u32) -> u32 {
    (a << (b & 31)) | c
}

#[inline(always)]
pub(crate) fn and_or(a: u32, b: u32, c: u32) -> u32 {
    (a & b) | c
}

#[inline(always)]
pub(crate) fn or3(a: u32, b: u32, c: u32) -> u32 {
    a | b | c
}

#[inline(always)]
pub(crate) fn xor3(a: u32, b: u32, c: u32) -> u32 {
    a ^ b ^ c
}

/// v_xad_u32: `(a ^ b) + c`.
#[inline(always)]
pub(crate) fn xad(a: u32, b: u32, c: u32) -> u32 {
    (a ^ b).wrapping_add(c)
}

/// v_alignbit_b32: bits `c & 31 ..` of the 64-bit `a:b`.
#[inline(always)]
pub(crate) fn alignbit(a: u32, b: u32, c: u32) -> u32 {
    ((((a as u64) << 32) | b as u64) >> (c & 31)) as u32
}
