//! Pre-resolved VOPD dual-issue forms whose halves are moves,
//! integer ops or f32 two-source arithmetic: v_dual_mov_b32,
//! v_dual_cndmask_b32 (mask VCC), v_dual_add_nc_u32, v_dual_lshlrev_b32,
//! v_dual_and_b32, v_dual_{mul,add,sub,subrev,max,min}_f32 in either half.
//! The f32 halves matter beyond their count: LLVM's unsigned 32-bit
//! division by a runtime value pairs its reciprocal scaling
//! (v_mul_f32 0x4f7ffffe) with a move, so every `i % n` kernel has one.
//!
//! As in the slow path (valu/mod.rs vopd / half_compute), both halves read their
//! sources before either writes, then X's result and Y's result are written
//! under EXEC in that order, and each f32 lane is half_compute's own per-lane
//! function. src0 of a half is a VGPR, SGPR or constant (decoded once);
//! vsrc1 is always a VGPR. Halves with the three-source f32 ops (fmac,
//! fmaak, fmamk) and v_dual_dot2acc take `step`.

use crate::gfx11::decode::vgpr_src;
use crate::gfx11::exec::operand::lane;
use crate::gfx11::exec::operand::{VSrc, row, vsrc};
use crate::gfx11::exec::valu::{add32, fmax32, fmin32, mul32, nan2_32};
use crate::gfx11::inst::{Family, Inst, Mods, Src};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANE_BIT, LANES, Lanes, VCC, Wave, few_lanes};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DualOp {
    Mov,
    Cndmask,
    Add,
    Lshlrev,
    And,
    MulF32,
    AddF32,
    SubF32,
    SubrevF32,
    MaxF32,
    MinF32,
}

/// One half: `dst` = `op`(`a`, VGPR `b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Half {
    pub op: DualOp,
    pub dst: u8,
    pub b: u8,
    pub a: VSrc,
}

/// Both halves (a [`Fast::Vopd`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Vopd {
    pub x: Half,
    pub y: Half,
}

fn dual_op(op: Op) -> Option<DualOp> {
    Some(match op {
        Op::VMovB32 => DualOp::Mov,
        Op::VCndmaskB32 => DualOp::Cndmask,
        Op::VAddNcU32 => DualOp::Add,
        Op::VLshlrevB32 => DualOp::Lshlrev,
        Op::VAndB32 => DualOp::And,
        Op::VMulF32 => DualOp::MulF32,
        Op::VAddF32 => DualOp::AddF32,
        Op::VSubF32 => DualOp::SubF32,
        Op::VSubrevF32 => DualOp::SubrevF32,
        Op::VMaxF32 => DualOp::MaxF32,
        Op::VMinF32 => DualOp::MinF32,
        _ => return None,
    })
}

pub(crate) fn half(op: Op, dst: u8, a: Src, b: Src) -> Option<Half> {
    let Src::Vgpr(b) = b else { return None };
    Some(Half {
        op: dual_op(op)?,
        dst,
        b,
        a: vsrc(a)?,
    })
}

pub(crate) fn compile(i: &Inst) -> Option<Vopd> {
    if i.family != Family::Vopd || i.dpp.is_some() || i.mods != Mods::default() {
        return None;
    }
    let y = i.dual?;
    Some(Vopd {
        x: half(i.op, u8::try_from(i.dst).ok()?, i.src[0].src, i.src[1].src)?,
        y: half(y.op, y.dst, y.src0.src, vgpr_src(y.vsrc1).src)?,
    })
}

/// One half's result (sources read, nothing written).
#[inline(always)]
fn compute(w: &Wave, h: &Half) -> Lanes {
    let mut buf = std::mem::MaybeUninit::uninit();
    let a = row(w, h.a, &mut buf);
    let b = &w.vgpr[h.b as usize];
    let mut r = [0u32; LANES];
    match h.op {
        DualOp::Mov => r = *a,
        DualOp::Cndmask => {
            let vcc = w.sgpr[VCC];
            for l in 0..LANES {
                let take = if vcc & LANE_BIT[l] != 0 { u32::MAX } else { 0 };
                r[l] = (b[l] & take) | (a[l] & !take);
            }
        }
        DualOp::Add => {
            for l in 0..LANES {
                r[l] = a[l].wrapping_add(b[l]);
            }
        }
        DualOp::Lshlrev => {
            for l in 0..LANES {
                r[l] = b[l] << (a[l] & 31);
            }
        }
        DualOp::And => {
            for l in 0..LANES {
                r[l] = a[l] & b[l];
            }
        }
        // half_compute's formulas, lane by lane.
        DualOp::MulF32 => f32_lanes(&mut r, a, b, mul32),
        DualOp::AddF32 => f32_lanes(&mut r, a, b, add32),
        DualOp::SubF32 => f32_lanes(&mut r, a, b, |x, y| x - y),
        DualOp::SubrevF32 => f32_lanes(&mut r, a, b, |x, y| nan2_32(x, y, y - x)),
        DualOp::MaxF32 => f32_lanes(&mut r, a, b, fmax32),
        DualOp::MinF32 => f32_lanes(&mut r, a, b, fmin32),
    }
    r
}

/// `r[l] = f(a[l], b[l])` on the lanes as f32.
#[inline(always)]
fn f32_lanes(r: &mut Lanes, a: &Lanes, b: &Lanes, f: impl Fn(f32, f32) -> f32) {
    for l in 0..LANES {
        r[l] = f(f32::from_bits(a[l]), f32::from_bits(b[l])).to_bits();
    }
}

/// Run both halves on 32 lanes (wave32) under `exec`.
#[inline(always)]
pub(crate) fn run(w: &mut Wave, v: &Vopd, exec: u32) {
    if few_lanes(exec) {
        return run_few(w, v, exec);
    }
    let (x, y) = (compute(w, &v.x), compute(w, &v.y));
    w.write_vgpr(v.x.dst as usize, &x, exec);
    w.write_vgpr(v.y.dst as usize, &y, exec);
}

/// One lane of a half: [`compute`]'s formula for lane `l`.
#[inline(always)]
fn half_lane(w: &Wave, h: &Half, l: usize) -> u32 {
    let (a, b) = (lane(w, h.a, l), w.vgpr[h.b as usize][l & (LANES - 1)]);
    let f = |g: fn(f32, f32) -> f32| g(f32::from_bits(a), f32::from_bits(b)).to_bits();
    match h.op {
        DualOp::Mov => a,
        DualOp::Cndmask => {
            if w.sgpr[VCC] & LANE_BIT[l & (LANES - 1)] != 0 {
                b
            } else {
                a
            }
        }
        DualOp::Add => a.wrapping_add(b),
        DualOp::Lshlrev => b << (a & 31),
        DualOp::And => a & b,
        DualOp::MulF32 => f(mul32),
        DualOp::AddF32 => f(add32),
        DualOp::SubF32 => f(|x, y| x - y),
        DualOp::SubrevF32 => f(|x, y| nan2_32(x, y, y - x)),
        DualOp::MaxF32 => f(fmax32),
        DualOp::MinF32 => f(fmin32),
    }
}

/// [`run`] with at most two active lanes (`few_lanes`): per lane, both
/// halves read before X's result and then Y's are written, as on whole
/// rows (valu/fast_few.rs says why lane by lane).
#[inline(always)]
fn run_few(w: &mut Wave, v: &Vopd, exec: u32) {
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize & (LANES - 1);
        m &= m - 1;
        let (x, y) = (half_lane(w, &v.x, l), half_lane(w, &v.y, l));
        w.vgpr[v.x.dst as usize][l] = x;
        w.vgpr[v.y.dst as usize][l] = y;
    }
}
