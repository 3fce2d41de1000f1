//! Pre-resolved f32 and f16 VALU forms: the f32 arithmetic,
//! min/max, v_ldexp/v_rcp/v_rsq/v_sqrt/v_trunc_f32 and v_frexp_mant/exp_f32 with
//! abs/neg modifiers, and the f16 add/sub/mul/min/max, v_fmac_f16 and
//! v_pack_b32_f16 on the low halves.
//!
//! The slow path (valu/mod.rs) copies every source row, applies the modifiers in
//! another array and dispatches on the opcode per instruction, outside the
//! AVX2-compiled loop. These forms read the rows in place, apply the same
//! and/xor of the sign bit, and compute with valu/mod.rs's own per-lane functions
//! and f16 slice conversions, so each lane is the same host operation on the
//! same value. Only instructions without omod, clamp, op_sel or DPP compile
//! (f16 forms then read and write the low halves, keeping the high half of
//! the destination as `put16` does). They also run in wave64 (fast/wave64.rs).

use crate::gfx11::exec::operand::{Row, VSrc, row, vsrc};
use crate::gfx11::exec::valu::{
    add32, f16s_to_f32, f32s_to_f16, fma16, fmax32, fmin32, frexp32, ldexp32, mul32, nan2_32,
    rcp32, rsq32, trunc32,
};
use crate::gfx11::inst::{Family, Inst, Mods};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, Lanes, Wave};

type F32s = [f32; LANES];

/// The operation of a [`Flt`] form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FltOp {
    Add,
    Sub,
    Subrev,
    Mul,
    Max,
    Min,
    /// a * 2^b, b a raw 32-bit source.
    Ldexp,
    Rcp,
    Rsq,
    Sqrt,
    FrexpMant,
    /// Round toward zero (`trunc32`: a NaN comes back quiet).
    Trunc,
    /// The exponent as a 32-bit integer.
    FrexpExp,
    AddF16,
    SubF16,
    SubrevF16,
    MulF16,
    MaxF16,
    MinF16,
    /// dst.lo = a * b + dst.lo (fma16).
    FmacF16,
    /// dst = a.lo | b.lo << 16 (modifiers on the halves).
    PackF16,
}

/// One pre-resolved f32/f16 form (a [`Fast::Flt`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Flt {
    pub op: FltOp,
    pub dst: u8,
    /// abs bits per source in bits 0..2, neg bits in 4..6.
    pub mods: u8,
    pub a: VSrc,
    pub b: VSrc,
    /// A GFX9 f16 op (`Inst::ZERO_HI16`): the result's high half is 0
    /// rather than the destination's (valu/mod.rs `put16`).
    pub zero_hi: bool,
}

pub(crate) fn compile(i: &Inst) -> Option<Flt> {
    use Op::*;
    if i.dpp.is_some() || i.mods.omod != 0 || i.mods.clamp || i.mods.opsel != 0 {
        return None;
    }
    if i.mods.opsel_hi != Mods::default().opsel_hi {
        return None;
    }
    if !matches!(i.family, Family::Vop1 | Family::Vop2 | Family::Vop3) {
        return None;
    }
    if i.family == Family::Vop3 && crate::gfx11::decode::is_vop3_compare(i) {
        return None;
    }
    let (op, n) = match i.op {
        VAddF32 => (FltOp::Add, 2),
        VSubF32 => (FltOp::Sub, 2),
        VSubrevF32 => (FltOp::Subrev, 2),
        VMulF32 => (FltOp::Mul, 2),
        VMaxF32 => (FltOp::Max, 2),
        VMinF32 => (FltOp::Min, 2),
        VLdexpF32 => (FltOp::Ldexp, 2),
        VRcpF32 | VRcpIflagF32 => (FltOp::Rcp, 1),
        VRsqF32 => (FltOp::Rsq, 1),
        VSqrtF32 => (FltOp::Sqrt, 1),
        VFrexpMantF32 => (FltOp::FrexpMant, 1),
        VTruncF32 => (FltOp::Trunc, 1),
        VFrexpExpI32F32 => (FltOp::FrexpExp, 1),
        VAddF16 => (FltOp::AddF16, 2),
        VSubF16 => (FltOp::SubF16, 2),
        VSubrevF16 => (FltOp::SubrevF16, 2),
        VMulF16 => (FltOp::MulF16, 2),
        VMaxF16 => (FltOp::MaxF16, 2),
        VMinF16 => (FltOp::MinF16, 2),
        VFmacF16 => (FltOp::FmacF16, 2),
        VPackB32F16 => (FltOp::PackF16, 2),
        _ => return None,
    };
    // GFX9's f16 arithmetic zeroes the high half; its other 16-bit ops
    // keep the slow path.
    let zero_hi = i.flags & Inst::ZERO_HI16 != 0;
    if zero_hi
        && !matches!(
            op,
            FltOp::AddF16
                | FltOp::SubF16
                | FltOp::SubrevF16
                | FltOp::MulF16
                | FltOp::MaxF16
                | FltOp::MinF16
        )
    {
        return None;
    }
    let b = if n == 2 {
        vsrc(i.src[1].src)?
    } else {
        VSrc::Imm(0)
    };
    Some(Flt {
        op,
        dst: u8::try_from(i.dst).ok()?,
        mods: (i.mods.abs & 3) | (i.mods.neg & 3) << 4,
        a: vsrc(i.src[0].src)?,
        b,
        zero_hi,
    })
}

/// The sign-bit and/xor of source `k` at `sign` (the f32 or f16 sign bit),
/// as `f32s` / `h16s` apply abs and neg.
#[inline(always)]
fn and_xor(f: &Flt, k: usize, sign: u32) -> (u32, u32) {
    let and = if f.mods >> k & 1 != 0 {
        !sign
    } else {
        u32::MAX
    };
    let xor = if f.mods >> (4 + k) & 1 != 0 { sign } else { 0 };
    (and, xor)
}

/// Source `k` as f32 with its modifiers.
#[inline(always)]
fn f32s(x: &Lanes, f: &Flt, k: usize) -> F32s {
    let (and, xor) = and_xor(f, k, 0x8000_0000);
    let mut out = [0f32; LANES];
    for l in 0..LANES {
        out[l] = f32::from_bits((x[l] & and) ^ xor);
    }
    out
}

/// Source `k`'s low halves as f16 bits with their modifiers.
#[inline(always)]
fn h16s(x: &Lanes, f: &Flt, k: usize) -> [u16; LANES] {
    let (and, xor) = and_xor(f, k, 0x8000);
    let mut out = [0u16; LANES];
    for l in 0..LANES {
        out[l] = ((x[l] & and) ^ xor) as u16;
    }
    out
}

#[inline(always)]
fn map1(a: &F32s, g: impl Fn(f32) -> f32) -> F32s {
    let mut r = [0f32; LANES];
    for l in 0..LANES {
        r[l] = g(a[l]);
    }
    r
}

#[inline(always)]
fn map2(a: &F32s, b: &F32s, g: impl Fn(f32, f32) -> f32) -> F32s {
    let mut r = [0f32; LANES];
    for l in 0..LANES {
        r[l] = g(a[l], b[l]);
    }
    r
}

/// Run `f` on the 32 lanes of `w.vgpr` under `exec` (wave32, or one pass of wave64).
#[inline(always)]
pub(crate) fn run(w: &mut Wave, f: &Flt, exec: u32) {
    let (mut ba, mut bb) = (Row::uninit(), Row::uninit());
    let (x, y) = (row(w, f.a, &mut ba), row(w, f.b, &mut bb));
    let r: Lanes = match f.op {
        FltOp::Add
        | FltOp::Sub
        | FltOp::Subrev
        | FltOp::Mul
        | FltOp::Max
        | FltOp::Min
        | FltOp::Rcp
        | FltOp::Rsq
        | FltOp::Sqrt
        | FltOp::FrexpMant
        | FltOp::Trunc => {
            let a = f32s(x, f, 0);
            let r = match f.op {
                FltOp::Add => map2(&a, &f32s(y, f, 1), add32),
                FltOp::Sub => map2(&a, &f32s(y, f, 1), |a, b| a - b),
                FltOp::Subrev => map2(&a, &f32s(y, f, 1), |a, b| nan2_32(a, b, b - a)),
                FltOp::Mul => map2(&a, &f32s(y, f, 1), mul32),
                FltOp::Max => map2(&a, &f32s(y, f, 1), fmax32),
                FltOp::Min => map2(&a, &f32s(y, f, 1), fmin32),
                FltOp::Rcp => map1(&a, rcp32),
                FltOp::Rsq => map1(&a, rsq32),
                FltOp::Sqrt => map1(&a, f32::sqrt),
                FltOp::Trunc => map1(&a, trunc32),
                _ => map1(&a, |a| frexp32(a).0),
            };
            bytemuck::cast(r)
        }
        FltOp::Ldexp => {
            let a = f32s(x, f, 0);
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = ldexp32(a[l], y[l] as i32).to_bits();
            }
            r
        }
        FltOp::FrexpExp => {
            let a = f32s(x, f, 0);
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = frexp32(a[l]).1 as u32;
            }
            r
        }
        FltOp::PackF16 => {
            let (a, b) = (h16s(x, f, 0), h16s(y, f, 1));
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = a[l] as u32 | (b[l] as u32) << 16;
            }
            r
        }
        _ => {
            // f16 on the low halves; the result keeps the destination's
            // high half (GFX9: zeroes it).
            let (a, b) = (h16s(x, f, 0), h16s(y, f, 1));
            let cur = &w.vgpr[f.dst as usize];
            let r = if f.op == FltOp::FmacF16 {
                let mut r = [0f32; LANES];
                for l in 0..LANES {
                    r[l] = fma16(a[l], b[l], cur[l] as u16);
                }
                r
            } else {
                let (a, b) = (f16s_to_f32(&a), f16s_to_f32(&b));
                match f.op {
                    FltOp::AddF16 => map2(&a, &b, add32),
                    FltOp::SubF16 => map2(&a, &b, |a, b| a - b),
                    FltOp::SubrevF16 => map2(&a, &b, |a, b| nan2_32(a, b, b - a)),
                    FltOp::MulF16 => map2(&a, &b, mul32),
                    FltOp::MaxF16 => map2(&a, &b, fmax32),
                    _ => map2(&a, &b, fmin32),
                }
            };
            let h = f32s_to_f16(&r);
            let keep = if f.zero_hi { 0 } else { 0xFFFF_0000 };
            let mut o = [0u32; LANES];
            for l in 0..LANES {
                o[l] = (cur[l] & keep) | h[l] as u32;
            }
            o
        }
    };
    w.write_vgpr(f.dst as usize, &r, exec);
}
