//! The VALU's byte- and nibble-wise integer operations (sums of absolute
//! differences, averaging, saturating packs, the integer dot products) and
//! the remaining mixed-format ones: bf16 and f16 dot products into f32,
//! the packed f16 accumulate, DX9-style fmac and V_CVT_OFF_F32_I4 (RDNA3
//! ISA guide, VOP1/VOP2/VOP3/VOP3P opcode descriptions).

use half::{bf16, f16};

use super::{LANES, R, V, nan3_32};
use crate::gfx11::opcodes::Op;

/// Executes `op` if it is one of this file's operations; `None` otherwise.
pub(super) fn exec(v: &mut V, op: Op) -> Option<R<()>> {
    use Op::*;
    Some(match op {
        VSatPkU8I16 => sat_pk_u8(v),
        // S0[3:0] as a signed 4-bit value over 16: 0, 1/16 .. 7/16, -8/16 .. -1/16.
        VCvtOffF32I4 => v.uf(|a| f32::from(((a as u8) << 4) as i8 >> 4) / 16.0),
        VLerpU8 => v.u3(|a, b, c| bytes(|k| (byte(a, k) + byte(b, k) + (byte(c, k) & 1)) >> 1)),
        VSadU8 => v.u3(|a, b, c| sad_u8(a, b, false).wrapping_add(c)),
        VSadHiU8 => v.u3(|a, b, c| (sad_u8(a, b, false) << 16).wrapping_add(c)),
        VMsadU8 => v.u3(|a, b, c| sad_u8(a, b, true).wrapping_add(c)),
        VSadU16 => v.u3(|a, b, c| {
            let half = |x: u32, k: u32| (x >> (16 * k)) & 0xFFFF;
            (half(a, 0).abs_diff(half(b, 0)) + half(a, 1).abs_diff(half(b, 1))).wrapping_add(c)
        }),
        VCvtPkU8F32 => cvt_pk_u8(v),
        VDot4I32Iu8 | VDot4U32U8 => dot_int(v, 8),
        VDot8I32Iu4 | VDot8U32U4 => dot_int(v, 4),
        VDot2F32Bf16 => dot2_f32(v, true, false),
        VDot2accF32F16 => dot2_f32(v, false, true),
        VPkFmacF16 => pk_fmac(v),
        VFmacDx9ZeroF32 => fmac_dx9(v),
        _ => return None,
    })
}

fn byte(x: u32, k: u32) -> u32 {
    (x >> (8 * k)) & 0xFF
}

fn bytes(f: impl Fn(u32) -> u32) -> u32 {
    (0..4).fold(0, |acc, k| acc | (f(k) & 0xFF) << (8 * k))
}

/// The sum of |a.byte - b.byte| over the four bytes; `masked` (MSAD) skips
/// the bytes where the reference `b` is zero.
pub(super) fn sad_u8(a: u32, b: u32, masked: bool) -> u32 {
    (0..4)
        .filter(|&k| !masked || byte(b, k) != 0)
        .map(|k| byte(a, k).abs_diff(byte(b, k)))
        .sum()
}

/// V_SAT_PK_U8_I16: the two signed halves of S0 clamped to [0, 255] and
/// packed into the low 16 bits.
fn sat_pk_u8(v: &mut V) -> R<()> {
    let a = v.u(0)?;
    let sat = |h: u32| (h as u16 as i16).clamp(0, 255) as u16;
    let mut r = [0u16; LANES];
    for l in 0..LANES {
        r[l] = sat(a[l]) | sat(a[l] >> 16) << 8;
    }
    v.put16(&r);
    Ok(())
}

/// V_CVT_PK_U8_F32: S0 converted to an unsigned byte (rounded to nearest
/// even and clamped to [0, 255], NaN 0; the rounding is our reading of the
/// guide, which names the conversion only) replaces byte S1[1:0] of S2.
fn cvt_pk_u8(v: &mut V) -> R<()> {
    let (a, sel, c) = (v.f(0)?, v.u(1)?, v.u(2)?);
    let mut r = [0u32; LANES];
    for l in 0..LANES {
        let b = if a[l].is_nan() {
            0
        } else {
            a[l].round_ties_even().clamp(0.0, 255.0) as u32
        };
        let shift = 8 * (sel[l] & 3);
        r[l] = (c[l] & !(0xFF << shift)) | b << shift;
    }
    v.put(&r);
    Ok(())
}

/// V_DOT4_*_8 and V_DOT8_*_4: the sum of the products of the `bits`-wide
/// elements of S0 and S1, plus S2. In the IU forms neg_lo bit k makes
/// source k signed (LLVM's sudot4/sudot8 intrinsics set it); clamp
/// saturates the sum instead of wrapping.
fn dot_int(v: &mut V, bits: u32) -> R<()> {
    let (a, b, c) = (v.u(0)?, v.u(1)?, v.u(2)?);
    let signed_out = matches!(v.i.op, Op::VDot4I32Iu8 | Op::VDot8I32Iu4);
    let sign = |k: u32| signed_out && (v.i.mods.neg >> k) & 1 != 0;
    let (sa, sb) = (sign(0), sign(1));
    let n = 32 / bits;
    let mask = (1u32 << bits) - 1;
    let elem = |x: u32, e: u32, signed: bool| -> i64 {
        let raw = (x >> (bits * e)) & mask;
        if signed {
            i64::from(((raw << (32 - bits)) as i32) >> (32 - bits))
        } else {
            i64::from(raw)
        }
    };
    let clamp = v.i.mods.clamp;
    let mut r = [0u32; LANES];
    for l in 0..LANES {
        let products: i64 = (0..n).map(|e| elem(a[l], e, sa) * elem(b[l], e, sb)).sum();
        r[l] = if signed_out {
            let sum = products + i64::from(c[l] as i32);
            if clamp {
                sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32
            } else {
                sum as u32
            }
        } else {
            let sum = products + i64::from(c[l]);
            if clamp {
                sum.min(i64::from(u32::MAX)) as u32
            } else {
                sum as u32
            }
        };
    }
    v.put(&r);
    Ok(())
}

/// D.f32 = S0[0]*S1[0] + S0[1]*S1[1] + C with bf16 (V_DOT2_F32_BF16) or
/// f16 (V_DOT2ACC_F32_F16, C = D) halves; the products are exact in f64
/// and the sum rounds once to f32.
fn dot2_f32(v: &mut V, brain: bool, accumulate: bool) -> R<()> {
    let (a, b) = (v.u(0)?, v.u(1)?);
    let c = if accumulate {
        v.w.vgpr[v.i.dst as usize].map(f32::from_bits)
    } else {
        v.f(2)?
    };
    let to_f64 = |h: u16| {
        if brain {
            bf16::from_bits(h).to_f64()
        } else {
            f16::from_bits(h).to_f64()
        }
    };
    let mut r = [0f32; LANES];
    for l in 0..LANES {
        let half = |x: u32, k: u32| to_f64((x >> (16 * k)) as u16);
        r[l] = (half(a[l], 0) * half(b[l], 0) + half(a[l], 1) * half(b[l], 1) + f64::from(c[l]))
            as f32;
    }
    v.putf(&r);
    Ok(())
}

/// V_PK_FMAC_F16: each half of D += S0.half * S1.half, fused.
fn pk_fmac(v: &mut V) -> R<()> {
    let (a, b) = (v.u(0)?, v.u(1)?);
    let d = v.w.vgpr[v.i.dst as usize];
    let mut r = [0u32; LANES];
    for l in 0..LANES {
        let h = |x: u32, k: u32| f16::from_bits((x >> (16 * k)) as u16).to_f64();
        let half = |k: u32| {
            // Exact enough in f64 (valu/mod.rs `fma16`).
            let x = h(a[l], k) * h(b[l], k) + h(d[l], k);
            u32::from(super::round_once::f16_of(x)) << (16 * k)
        };
        r[l] = half(0) | half(1);
    }
    v.put(&r);
    Ok(())
}

/// V_FMAC_DX9_ZERO_F32: D = S0 * S1 + D, where a zero factor gives D
/// whatever the other factor is (DX9 rules: 0 * inf = 0).
fn fmac_dx9(v: &mut V) -> R<()> {
    let (a, b) = (v.f(0)?, v.f(1)?);
    let c = v.w.vgpr[v.i.dst as usize].map(f32::from_bits);
    let mut r = [0f32; LANES];
    for l in 0..LANES {
        r[l] = if a[l] == 0.0 || b[l] == 0.0 {
            c[l]
        } else {
            nan3_32(a[l], b[l], c[l], a[l].mul_add(b[l], c[l]))
        };
    }
    v.putf(&r);
    Ok(())
}
