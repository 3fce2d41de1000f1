//! The hot pre-resolved VALU forms (`Fast::Valu`, `Fast::Vcmp`,
//! `Fast::Cndmask`) for a wave with at most two active lanes
//! (`few_lanes`): each active lane's operands read one dword at a time and
//! its result written into its own lane, with the per-lane functions of the
//! whole-row bodies (valu/fast.rs). Inactive lanes keep their values and a
//! compare's inactive bits are 0, as on the row path.
//!
//! Why: the waves of one-invocation workgroups run one lane. On the row
//! path each instruction broadcasts scalar operands into 128-byte rows,
//! computes 32 lanes and blends the destination row with a masked store,
//! which the next instruction's row load of that register must wait for
//! (a masked store does not forward). Lane by lane is a few scalar loads
//! and stores that forward.

use crate::gfx11::exec::operand::{SSrc, VSrc, lane, put_sgpr, sread};
use crate::gfx11::exec::valu::fast::{IntCompare, VOp};
use crate::gfx11::exec::valu::int32::{
    add_lshl, add3, alignbit, and_or, ashrrev, lshl_add, lshl_or, lshlrev, lshrrev, mad_u24,
    max_i32, min_i32, mul_hi_i32, mul_hi_u32, mul_u24, or3, subrev, xad, xor3,
};
use crate::gfx11::exec::valu::{bfe_i, bfe_u, cvt_u32};
use crate::gfx11::wave::{LANES, Wave};

/// One lane of a [`VOp`]: the function the row path maps over its lanes.
#[inline(always)]
fn vop_lane(op: VOp, x: u32, y: u32, z: u32) -> u32 {
    match op {
        VOp::Mov => x,
        VOp::AddU32 => x.wrapping_add(y),
        VOp::SubU32 => x.wrapping_sub(y),
        VOp::SubrevU32 => subrev(x, y),
        VOp::And => x & y,
        VOp::Or => x | y,
        VOp::Xor => x ^ y,
        VOp::Lshlrev => lshlrev(x, y),
        VOp::Lshrrev => lshrrev(x, y),
        VOp::Ashrrev => ashrrev(x, y),
        VOp::MaxU32 => x.max(y),
        VOp::MinU32 => x.min(y),
        VOp::MaxI32 => max_i32(x, y),
        VOp::MinI32 => min_i32(x, y),
        VOp::MulLo => x.wrapping_mul(y),
        VOp::MulHiU32 => mul_hi_u32(x, y),
        VOp::MulU24 => mul_u24(x, y),
        VOp::MulHiI32 => mul_hi_i32(x, y),
        VOp::CvtF32U32 => (x as f32).to_bits(),
        VOp::CvtU32F32 => cvt_u32(f32::from_bits(x)),
        VOp::MadU24 => mad_u24(x, y, z),
        VOp::Xad => xad(x, y, z),
        VOp::BfeU32 => bfe_u(x, y, z),
        VOp::BfeI32 => bfe_i(x, y, z),
        VOp::Alignbit => alignbit(x, y, z),
        VOp::Add3 => add3(x, y, z),
        VOp::LshlAdd => lshl_add(x, y, z),
        VOp::AddLshl => add_lshl(x, y, z),
        VOp::LshlOr => lshl_or(x, y, z),
        VOp::AndOr => and_or(x, y, z),
        VOp::Or3 => or3(x, y, z),
        VOp::Xor3 => xor3(x, y, z),
    }
}

/// `Fast::Valu` on the active lanes of `exec` (at most two).
#[inline(always)]
pub(crate) fn vop(w: &mut Wave, op: VOp, dst: u8, a: VSrc, b: VSrc, c: VSrc, exec: u32) {
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize & (LANES - 1);
        m &= m - 1;
        let r = vop_lane(op, lane(w, a, l), lane(w, b, l), lane(w, c, l));
        w.vgpr[dst as usize][l] = r;
    }
}

/// One lane of an integer compare: `cond` 1 lt, 2 eq, 3 le, 4 gt, 5 ne, 6 ge
/// on the extended operands (valu/fast.rs `compare`).
#[inline(always)]
fn compare_lane(c: IntCompare, p: u32, q: u32) -> bool {
    // vcmp.rs `vopc`: 16-bit forms compare the low halves, extended.
    let (p, q): (i64, i64) = match (c.signed, c.bits16) {
        (true, false) => (p as i32 as i64, q as i32 as i64),
        (false, false) => (p as i64, q as i64),
        (true, true) => (p as i16 as i64, q as i16 as i64),
        (false, true) => (p as u16 as i64, q as u16 as i64),
    };
    match c.cond {
        1 => p < q,
        2 => p == q,
        3 => p <= q,
        4 => p > q,
        5 => p != q,
        _ => p >= q,
    }
}

/// `Fast::Vcmp` on the active lanes of `exec` (at most two); the others' bits are 0.
#[inline(always)]
pub(crate) fn vcmp(w: &mut Wave, c: IntCompare, dst: u8, a: VSrc, b: VSrc, exec: u32) {
    let (mut m, mut bits) = (exec, 0u32);
    while m != 0 {
        let l = m.trailing_zeros() as usize & (LANES - 1);
        m &= m - 1;
        bits |= (compare_lane(c, lane(w, a, l), lane(w, b, l)) as u32) << l;
    }
    put_sgpr(w, dst, bits);
}

/// `Fast::Cndmask` on the active lanes of `exec` (at most two).
#[inline(always)]
pub(crate) fn cndmask(w: &mut Wave, dst: u8, a: VSrc, b: VSrc, mask: SSrc, exec: u32) {
    let sel = sread(w, mask);
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize & (LANES - 1);
        m &= m - 1;
        let r = if sel >> l & 1 != 0 {
            lane(w, b, l)
        } else {
            lane(w, a, l)
        };
        w.vgpr[dst as usize][l] = r;
    }
}
