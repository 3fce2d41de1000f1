//! Pre-resolved VALU forms on 32 lanes: the 32-bit integer operations
//! ([`VOp`]), v_cndmask, the carry forms, v_mad_u64_u32, v_lshlrev_b64, the
//! 32-bit integer compares and v_fma_f32. Each body computes what the slow
//! path (valu/mod.rs, vcmp.rs) computes, through the same lane helpers.

use crate::gfx11::exec::operand::{
    Row, SSrc, VSrc, map2, map3, put_sgpr, row, row_pair, scalar, sdst, sread,
};
use crate::gfx11::exec::valu::fast_few;
use crate::gfx11::exec::valu::int32::{
    add_lshl, add3, alignbit, and_or, ashrrev, lshl_add, lshl_or, lshlrev, lshrrev, mad_u24,
    max_i32, min_i32, mul_hi_i32, mul_hi_u32, mul_u24, or3, subrev, xad, xor3,
};
use crate::gfx11::exec::valu::{add_carry, fma_lanes, sub_borrow};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::wave::{EXEC, LANE_BIT, LANES, Lanes, NULL, VCC, Wave, few_lanes, pack_lanes};

/// Vector 32-bit operations with one to three sources and one VGPR result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VOp {
    Mov,
    AddU32,
    SubU32,
    SubrevU32,
    And,
    Or,
    Xor,
    Lshlrev,
    Lshrrev,
    Ashrrev,
    MaxU32,
    MinU32,
    MaxI32,
    MinI32,
    MulLo,
    MulHiU32,
    MulU24,
    Add3,
    LshlAdd,
    AddLshl,
    LshlOr,
    AndOr,
    Or3,
    Xor3,
    MulHiI32,
    MadU24,
    Xad,
    BfeU32,
    BfeI32,
    Alignbit,
    /// v_cvt_f32_u32 and v_cvt_u32_f32 (no modifiers: the slow path's plain conversions).
    CvtF32U32,
    CvtU32F32,
}

/// What an integer compare tests (a [`Fast::Vcmp`](crate::gfx11::exec::fast::Fast)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntCompare {
    /// 1 lt, 2 eq, 3 le, 4 gt, 5 ne, 6 ge (as [`int_compare`] parses it).
    pub cond: u8,
    pub signed: bool,
    /// 16-bit operands: the low half of each source (no op_sel).
    pub bits16: bool,
}

/// An integer compare v_cmp[x]_{lt,eq,le,gt,ne,ge}_{signed,unsigned}, as
/// vcmp.rs parses the mnemonic: its condition (1 lt, 2 eq, 3 le, 4 gt, 5 ne,
/// 6 ge), whether it is signed, and the SGPR it writes (EXEC for v_cmpx, VCC
/// for VOPC, else the VOP3 destination). The 32- and 64-bit forms share it.
pub(crate) fn int_compare(i: &Inst, signed: &str, unsigned: &str) -> Option<(u8, bool, u8)> {
    let name = i.op.name();
    let (x, rest) = match name.strip_prefix("v_cmpx_") {
        // GFX9's v_cmpx that writes two masks takes the slow path.
        Some(_) if i.flags & Inst::CMPX_WRITES_DST != 0 => return None,
        Some(r) => (true, r),
        None => (false, name.strip_prefix("v_cmp_")?),
    };
    let (cond, ty) = rest.split_once('_')?;
    let is_signed = if ty == signed {
        true
    } else if ty == unsigned {
        false
    } else {
        return None;
    };
    let cond = match cond {
        "lt" => 1,
        "eq" => 2,
        "le" => 3,
        "gt" => 4,
        "ne" | "lg" => 5,
        "ge" => 6,
        _ => return None,
    };
    let dst = if x {
        EXEC as u8
    } else if i.family == Family::Vopc {
        VCC as u8
    } else {
        sdst(i.dst)?
    };
    Some((cond, is_signed, dst))
}

/// `Fast::Valu`.
#[inline(always)]
pub(crate) fn vop(w: &mut Wave, op: VOp, dst: u8, a: VSrc, b: VSrc, c: VSrc, exec: u32) {
    if few_lanes(exec) {
        return fast_few::vop(w, op, dst, a, b, c, exec);
    }
    let (mut ba, mut bb, mut bc) = (Row::uninit(), Row::uninit(), Row::uninit());
    let r = {
        let (x, y) = (row(w, a, &mut ba), row(w, b, &mut bb));
        match op {
            VOp::Mov => *x,
            VOp::AddU32 => map2(x, y, u32::wrapping_add),
            VOp::SubU32 => map2(x, y, u32::wrapping_sub),
            VOp::SubrevU32 => map2(x, y, subrev),
            VOp::And => map2(x, y, |a, b| a & b),
            VOp::Or => map2(x, y, |a, b| a | b),
            VOp::Xor => map2(x, y, |a, b| a ^ b),
            VOp::Lshlrev => map2(x, y, lshlrev),
            VOp::Lshrrev => map2(x, y, lshrrev),
            VOp::Ashrrev => map2(x, y, ashrrev),
            VOp::MaxU32 => map2(x, y, u32::max),
            VOp::MinU32 => map2(x, y, u32::min),
            VOp::MaxI32 => map2(x, y, max_i32),
            VOp::MinI32 => map2(x, y, min_i32),
            VOp::MulLo => map2(x, y, u32::wrapping_mul),
            VOp::MulHiU32 => map2(x, y, mul_hi_u32),
            VOp::MulU24 => map2(x, y, mul_u24),
            VOp::MulHiI32 => map2(x, y, mul_hi_i32),
            VOp::CvtF32U32 => map2(x, x, |a, _| (a as f32).to_bits()),
            VOp::CvtU32F32 => map2(x, x, |a, _| {
                crate::gfx11::exec::valu::cvt_u32(f32::from_bits(a))
            }),
            VOp::Add3
            | VOp::LshlAdd
            | VOp::AddLshl
            | VOp::LshlOr
            | VOp::AndOr
            | VOp::Or3
            | VOp::Xor3
            | VOp::MadU24
            | VOp::Xad
            | VOp::BfeU32
            | VOp::BfeI32
            | VOp::Alignbit => {
                let z = row(w, c, &mut bc);
                match op {
                    VOp::MadU24 => map3(x, y, z, mad_u24),
                    VOp::Xad => map3(x, y, z, xad),
                    VOp::BfeU32 => map3(x, y, z, crate::gfx11::exec::valu::bfe_u),
                    VOp::BfeI32 => map3(x, y, z, crate::gfx11::exec::valu::bfe_i),
                    VOp::Alignbit => map3(x, y, z, alignbit),
                    VOp::Add3 => map3(x, y, z, add3),
                    VOp::LshlAdd => map3(x, y, z, lshl_add),
                    VOp::AddLshl => map3(x, y, z, add_lshl),
                    VOp::LshlOr => map3(x, y, z, lshl_or),
                    VOp::AndOr => map3(x, y, z, and_or),
                    VOp::Or3 => map3(x, y, z, or3),
                    _ => map3(x, y, z, xor3),
                }
            }
        }
    };
    w.write_vgpr(dst as usize, &r, exec);
}

/// `Fast::Cndmask`.
#[inline(always)]
pub(crate) fn cndmask(w: &mut Wave, dst: u8, a: VSrc, b: VSrc, mask: SSrc, exec: u32) {
    if few_lanes(exec) {
        return fast_few::cndmask(w, dst, a, b, mask, exec);
    }
    let (mut ba, mut bb) = (Row::uninit(), Row::uninit());
    let m = sread(w, mask);
    let mut r = [0u32; LANES];
    {
        let (x, y) = (row(w, a, &mut ba), row(w, b, &mut bb));
        for l in 0..LANES {
            let take = if m & LANE_BIT[l] != 0 { u32::MAX } else { 0 };
            r[l] = (y[l] & take) | (x[l] & !take);
        }
    }
    w.write_vgpr(dst as usize, &r, exec);
}

/// `Fast::AddCo` (`cin` 0) and `Fast::AddCoCi` (`cin` the carry-in mask's value).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn add_co(
    w: &mut Wave,
    sub: bool,
    rev: bool,
    dst: u8,
    sdst: u8,
    a: VSrc,
    b: VSrc,
    cin: u32,
    exec: u32,
) {
    let (mut ba, mut bb) = (Row::uninit(), Row::uninit());
    let (r, co) = {
        let (x, y) = (row(w, a, &mut ba), row(w, b, &mut bb));
        if rev {
            carry_rows(y, x, sub, cin)
        } else {
            carry_rows(x, y, sub, cin)
        }
    };
    w.write_vgpr(dst as usize, &r, exec);
    put_sgpr(w, sdst, pack_lanes(&co) & exec);
}

/// `Fast::MadU64`.
#[inline(always)]
pub(crate) fn mad_u64(w: &mut Wave, dst: u8, sdst: u8, a: VSrc, b: VSrc, c: VSrc, exec: u32) {
    // Compilers mostly discard the carry-out (sdst null): then no lane computes it.
    let carry = sdst as usize != NULL;
    let (lo, hi, over) = if carry {
        mad_u64_lanes::<true>(w, a, b, c)
    } else {
        mad_u64_lanes::<false>(w, a, b, c)
    };
    w.write_vgpr(dst as usize, &lo, exec);
    w.write_vgpr(dst as usize + 1, &hi, exec);
    if carry {
        put_sgpr(w, sdst, pack_lanes(&over) & exec);
    }
}

/// [`mad_u64`]'s lanes: the low and high dwords of a * b + c and, when
/// `OVER`, each lane's carry-out (all zero otherwise).
#[inline(always)]
pub(crate) fn mad_u64_lanes<const OVER: bool>(
    w: &Wave,
    a: VSrc,
    b: VSrc,
    c: VSrc,
) -> (Lanes, Lanes, Lanes) {
    // In 32-bit halves (vectorises without 64-bit compares): the low
    // dwords' carry goes into the high add, whose carry is the overflow.
    let (mut lo, mut hi, mut over) = ([0u32; LANES], [0u32; LANES], [0u32; LANES]);
    let (mut ba, mut bb, mut bc, mut bd) =
        (Row::uninit(), Row::uninit(), Row::uninit(), Row::uninit());
    let (zl, zh) = row_pair(w, c, &mut bc, &mut bd);
    let mut add = |l: usize, p: u64| {
        let (pl, ph) = (p as u32, (p >> 32) as u32);
        lo[l] = pl.wrapping_add(zl[l]);
        let k = (lo[l] < pl) as u32;
        hi[l] = ph.wrapping_add(zh[l]).wrapping_add(k);
        if OVER {
            over[l] = ((hi[l] < ph) | ((hi[l] == ph) & (k != 0))) as u32;
        }
    };
    match (a, b) {
        // Scalar factors (a row times a workgroup size): one product
        // for every lane, no per-lane 32x32 multiplies.
        (VSrc::Sgpr(_) | VSrc::Imm(_), VSrc::Sgpr(_) | VSrc::Imm(_)) => {
            let p = scalar(w, a) as u64 * scalar(w, b) as u64;
            for l in 0..LANES {
                add(l, p);
            }
        }
        _ => {
            let (x, y) = (row(w, a, &mut ba), row(w, b, &mut bb));
            for l in 0..LANES {
                add(l, x[l] as u64 * y[l] as u64);
            }
        }
    }
    (lo, hi, over)
}

/// `Fast::LshlrevB64`.
#[inline(always)]
pub(crate) fn lshlrev_b64(w: &mut Wave, dst: u8, a: VSrc, b: VSrc, exec: u32) {
    let (mut lo, mut hi) = ([0u32; LANES], [0u32; LANES]);
    {
        let (mut ba, mut bb, mut bc) = (Row::uninit(), Row::uninit(), Row::uninit());
        let (yl, yh) = row_pair(w, b, &mut bb, &mut bc);
        let mut shift = |l: usize, by: u32| {
            let v = (yl[l] as u64 | (yh[l] as u64) << 32) << (by & 63);
            lo[l] = v as u32;
            hi[l] = (v >> 32) as u32;
        };
        if let VSrc::Vgpr(_) = a {
            let x = row(w, a, &mut ba);
            for l in 0..LANES {
                shift(l, x[l]);
            }
        } else {
            // One shift count for every lane (a constant scaling an
            // index): a uniform shift vectorises, a per-lane one does not.
            let by = scalar(w, a);
            for l in 0..LANES {
                shift(l, by);
            }
        }
    }
    w.write_vgpr(dst as usize, &lo, exec);
    w.write_vgpr(dst as usize + 1, &hi, exec);
}

/// `Fast::Vcmp`.
#[inline(always)]
pub(crate) fn vcmp(w: &mut Wave, c: IntCompare, dst: u8, a: VSrc, b: VSrc, exec: u32) {
    if few_lanes(exec) {
        return fast_few::vcmp(w, c, dst, a, b, exec);
    }
    let (mut ba, mut bb) = (Row::uninit(), Row::uninit());
    let m = {
        let (x, y) = (row(w, a, &mut ba), row(w, b, &mut bb));
        // vcmp.rs `vopc`: 16-bit forms compare the low halves, extended.
        match (c.signed, c.bits16) {
            (true, false) => compare(x, y, c.cond, |v| v as i32),
            (false, false) => compare(x, y, c.cond, |v| v),
            (true, true) => compare(x, y, c.cond, |v| v as i16 as i32),
            (false, true) => compare(x, y, c.cond, |v| v as u16 as i32),
        }
    };
    put_sgpr(w, dst, m & exec);
}

/// `Fast::FmaF32`.
#[inline(always)]
pub(crate) fn fma_f32(w: &mut Wave, dst: u8, a: VSrc, b: VSrc, c: VSrc, exec: u32) {
    let (mut ba, mut bb, mut bc) = (Row::uninit(), Row::uninit(), Row::uninit());
    let r = {
        // Bit casts (free; `array::map` was a call per row).
        let f = |x: &Lanes| bytemuck::cast::<Lanes, [f32; LANES]>(*x);
        let (x, y, z) = (row(w, a, &mut ba), row(w, b, &mut bb), row(w, c, &mut bc));
        bytemuck::cast(fma_lanes(&f(x), &f(y), &f(z)))
    };
    w.write_vgpr(dst as usize, &r, exec);
}

/// The lane mask of an integer compare; one loop per relation (1 less,
/// 2 equal, 3 less-or-equal, 4 greater, 5 not equal, 6 greater-or-equal).
#[inline(always)]
pub(crate) fn compare<T: Ord>(x: &Lanes, y: &Lanes, cond: u8, ext: impl Fn(u32) -> T) -> u32 {
    // Equality too goes through `ext`: a 16-bit compare ignores the high halves.
    let hit = match cond {
        1 => map2(x, y, |p, q| (ext(p) < ext(q)) as u32),
        2 => map2(x, y, |p, q| (ext(p) == ext(q)) as u32),
        3 => map2(x, y, |p, q| (ext(p) <= ext(q)) as u32),
        4 => map2(x, y, |p, q| (ext(p) > ext(q)) as u32),
        5 => map2(x, y, |p, q| (ext(p) != ext(q)) as u32),
        _ => map2(x, y, |p, q| (ext(p) >= ext(q)) as u32),
    };
    pack_lanes(&hit)
}

/// x ± y ± carry-in per lane (`cin`: a lane mask, 0 for none) and the carry
/// or borrow out, with the slow path's own per-lane formulas.
#[inline(always)]
pub(crate) fn carry_rows(x: &Lanes, y: &Lanes, sub: bool, cin: u32) -> (Lanes, Lanes) {
    let (mut r, mut co) = ([0u32; LANES], [0u32; LANES]);
    // Two loops, not a function pointer, so each vectorises.
    if sub {
        for l in 0..LANES {
            (r[l], co[l]) = sub_borrow(x[l], y[l], (cin & LANE_BIT[l] != 0) as u32);
        }
    } else {
        for l in 0..LANES {
            (r[l], co[l]) = add_carry(x[l], y[l], (cin & LANE_BIT[l] != 0) as u32);
        }
    }
    (r, co)
}
