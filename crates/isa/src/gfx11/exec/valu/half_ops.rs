//! The 16-bit scalar VALU operations beyond the basic arithmetic in
//! `mod.rs`: f16 transcendentals and roundings, 16-bit logic, three-operand
//! min/max/median, select, ldexp and the f16 dot products (RDNA3 ISA
//! guide, VOP1/VOP2/VOP3 opcode descriptions). f16 values are exact in f32,
//! so each operation is computed there (or in f64 where a sum of products
//! must round once) and rounded to f16 once on the write.

use half::{bf16, f16};

use super::{
    LANES, R, V, ceil32, floor32, fmax32, fmin32, fract32, frexp32, ldexp32, med3, round_even32,
    trunc32,
};
use crate::gfx11::exec::env::{Env, mask_read};
use crate::gfx11::opcodes::Op;

/// The largest f16 below 1.0: v_fract_f16 never returns 1.0.
const F16_BELOW_ONE: f32 = 0.999_511_7;

/// Executes `op` if it is one of this file's operations; `None` otherwise.
pub(super) fn exec(v: &mut V, env: &Env, op: Op) -> Option<R<()>> {
    use Op::*;
    Some(match op {
        VRsqF16 => v.h1(|a| 1.0 / a.sqrt()),
        VLogF16 => v.h1(|a| (a as f64).log2() as f32),
        VExpF16 => v.h1(|a| (a as f64).exp2() as f32),
        VSinF16 => v.h1(|a| turn(a, f64::sin)),
        VCosF16 => v.h1(|a| turn(a, f64::cos)),
        VFloorF16 => v.h1(floor32),
        VCeilF16 => v.h1(ceil32),
        VTruncF16 => v.h1(trunc32),
        VRndneF16 => v.h1(round_even32),
        VFractF16 => v.h1(|a| {
            let r = fract32(a);
            if r.is_finite() {
                r.min(F16_BELOW_ONE)
            } else {
                r
            }
        }),
        VFrexpMantF16 => v.h1(|a| frexp32(a).0),
        VFrexpExpI16F16 => unary16(v, true, |a| {
            let x = f16::from_bits(a).to_f32();
            frexp32(x).1 as i16 as u16
        }),
        VLdexpF16 => ldexp16(v),
        VNotB16 => unary16(v, false, |a| !a),
        VAndB16 => v.i2_16(|a, b| a & b),
        VOrB16 => v.i2_16(|a, b| a | b),
        VXorB16 => v.i2_16(|a, b| a ^ b),
        VAddNcI16 if v.i.mods.clamp => v.i2_16(|a, b| (a as i16).saturating_add(b as i16) as u16),
        VSubNcI16 if v.i.mods.clamp => v.i2_16(|a, b| (a as i16).saturating_sub(b as i16) as u16),
        VAddNcI16 => v.i2_16(u16::wrapping_add),
        VSubNcI16 => v.i2_16(u16::wrapping_sub),
        VMin3I16 => v.i3_16(|a, b, c| (a as i16).min(b as i16).min(c as i16) as u16),
        VMax3I16 => v.i3_16(|a, b, c| (a as i16).max(b as i16).max(c as i16) as u16),
        VMed3I16 => v.i3_16(|a, b, c| {
            let (a, b, c) = (a as i16, b as i16, c as i16);
            a.min(b).max(a.max(b).min(c)) as u16
        }),
        VMin3U16 => v.i3_16(|a, b, c| a.min(b).min(c)),
        VMax3U16 => v.i3_16(|a, b, c| a.max(b).max(c)),
        VMed3U16 => v.i3_16(|a, b, c| a.min(b).max(a.max(b).min(c))),
        VMin3F16 => v.h3(|a, b, c| fmin32(fmin32(a, b), c)),
        VMax3F16 => v.h3(|a, b, c| fmax32(fmax32(a, b), c)),
        VMed3F16 => v.h3(med3),
        VDivFixupF16 => v.h3(super::div_fixup32),
        VCndmaskB16 => cndmask16(v, env),
        // dst = S0 * K + S1 (fmamk) and S0 * S1 + K (fmaak); K is the
        // instruction's literal, decoded as src[2].
        VFmamkF16 => fma16_from(v, [0, 2, 1]),
        VFmaakF16 => fma16_from(v, [0, 1, 2]),
        VDot2F16F16 => dot2_16(v, false),
        VDot2Bf16Bf16 => dot2_16(v, true),
        _ => return None,
    })
}

/// sin/cos of `a` turns (the hardware's input is in revolutions); NaN for
/// infinities.
fn turn(a: f32, f: fn(f64) -> f64) -> f32 {
    if a.is_infinite() {
        f32::NAN
    } else {
        f(a as f64 * std::f64::consts::TAU) as f32
    }
}

/// A one-source 16-bit operation; `float` applies the f16 source
/// modifiers.
fn unary16(v: &mut V, float: bool, f: impl Fn(u16) -> u16) -> R<()> {
    let a = if float { v.h(0)? } else { v.hi16(0)? };
    v.put16(&a.map(f));
    Ok(())
}

/// D.f16 = S0.f16 * 2^S1.i16. Exponents past ±64 give the same f16 result
/// as ±64 (every f16 overflows or underflows there), so the clamp keeps
/// ldexp32 exact.
fn ldexp16(v: &mut V) -> R<()> {
    let (a, e) = (v.h(0)?, v.hi16(1)?);
    let mut r = [0f32; LANES];
    for l in 0..LANES {
        let x = f16::from_bits(a[l]).to_f32();
        r[l] = ldexp32(x, i32::from(e[l] as i16).clamp(-64, 64));
    }
    v.puth(&r);
    Ok(())
}

/// V_CNDMASK_B16 (VOP3 only): S1 where the lane's bit of the mask in S2 is
/// set, else S0; the f16 modifiers apply.
fn cndmask16(v: &mut V, env: &Env) -> R<()> {
    let mask = mask_read(v.w, env, v.i, 2)?;
    let (a, b) = (v.h(0)?, v.h(1)?);
    let mut r = [0u16; LANES];
    for l in 0..LANES {
        r[l] = if mask >> l & 1 != 0 { b[l] } else { a[l] };
    }
    v.put16(&r);
    Ok(())
}

/// A fused f16 multiply-add of sources `[x, y, z]`: x * y + z, rounded once.
fn fma16_from(v: &mut V, order: [usize; 3]) -> R<()> {
    let (x, y, z) = (v.h(order[0])?, v.h(order[1])?, v.h(order[2])?);
    let mut r = [0u16; LANES];
    for l in 0..LANES {
        let f = |h: u16| f16::from_bits(h).to_f64();
        // Exact enough in f64 (valu/mod.rs `fma16`).
        r[l] = super::round_once::f16_of(f(x[l]) * f(y[l]) + f(z[l]));
    }
    v.put16(&r);
    Ok(())
}

/// V_DOT2_F16_F16 / V_DOT2_BF16_BF16: D.16 = S0[0]*S1[0] + S0[1]*S1[1] +
/// S2.16 (S2's half chosen by op_sel[2]), rounded once to the 16-bit type.
/// The two products and the addend are exact in f64 (11- or 8-bit
/// significands), so the f64 sum rounds only where the exponents are far
/// apart; the single rounding of the hardware is assumed.
fn dot2_16(v: &mut V, brain: bool) -> R<()> {
    let (a, b) = (v.u(0)?, v.u(1)?);
    let c = v.hi16(2)?;
    let to_f64 = |h: u16| {
        if brain {
            bf16::from_bits(h).to_f64()
        } else {
            f16::from_bits(h).to_f64()
        }
    };
    let mut r = [0u16; LANES];
    for l in 0..LANES {
        let half = |x: u32, k: u32| to_f64((x >> (16 * k)) as u16);
        let sum = half(a[l], 0) * half(b[l], 0) + half(a[l], 1) * half(b[l], 1) + to_f64(c[l]);
        r[l] = if brain {
            super::round_once::bf16_of(sum)
        } else {
            super::round_once::f16_of(sum)
        };
    }
    v.put16(&r);
    Ok(())
}
