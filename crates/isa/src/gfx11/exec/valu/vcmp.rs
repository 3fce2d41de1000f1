//! Vector compares (VOPC and their VOP3 forms): one result bit per lane to
//! VCC (e32), an SGPR (e64), or EXEC (v_cmpx_*, gfx10+ writes EXEC only).
//! The condition and type are parsed from the mnemonic once per process into
//! a table indexed by `Op`.

use std::sync::OnceLock;

use half::f16;

use crate::gfx11::exec::env::{Env, ExecResult, Flow, illegal};
use crate::gfx11::exec::valu::{src32, src64};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::opcodes::VOPC;
use crate::gfx11::wave::{EXEC, LANES, VCC, Wave, pack_lanes};

#[derive(Clone, Copy, Debug)]
enum Kind {
    Int { signed: bool, bits: u8 },
    Float { bits: u8 },
    Class { bits: u8 },
}

#[derive(Clone, Copy, Debug)]
struct CmpDesc {
    kind: Kind,
    /// Relation mask: 1 less, 2 equal, 4 greater, 8 unordered.
    cond: u8,
    x: bool,
}

fn parse(name: &str) -> Option<CmpDesc> {
    let rest = name.strip_prefix("v_cmp")?;
    let (x, rest) = match rest.strip_prefix('x') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let rest = rest.strip_prefix('_')?;
    let (cond, ty) = rest.split_once('_')?;
    let bits: u8 = ty[1..].parse().ok()?;
    let float = ty.starts_with('f');
    if cond == "class" {
        return Some(CmpDesc {
            kind: Kind::Class { bits },
            cond: 0,
            x,
        });
    }
    let c = match cond {
        "f" => 0,
        "lt" => 1,
        "eq" => 2,
        "le" => 3,
        "gt" => 4,
        "lg" | "ne" => 5,
        "ge" => 6,
        "o" => 7,
        "u" => 8,
        "nge" => 9,
        "nlg" => 10,
        "ngt" => 11,
        "nle" => 12,
        "neq" => 13,
        "nlt" => 14,
        "t" | "tru" => 15,
        _ => return None,
    };
    let kind = if float {
        Kind::Float { bits }
    } else {
        Kind::Int {
            signed: ty.starts_with('i'),
            bits,
        }
    };
    // Integer "t" covers every relation.
    let cond = if !float && c == 15 { 7 } else { c };
    Some(CmpDesc { kind, cond, x })
}

fn table() -> &'static Vec<Option<CmpDesc>> {
    static T: OnceLock<Vec<Option<CmpDesc>>> = OnceLock::new();
    T.get_or_init(|| {
        let mut v: Vec<Option<CmpDesc>> = Vec::new();
        for info in VOPC.iter().flatten() {
            let idx = info.op as usize;
            if v.len() <= idx {
                v.resize(idx + 1, None);
            }
            v[idx] = parse(info.op.name());
        }
        v
    })
}

/// A float compare as this file reads its opcode, for the pre-resolved
/// forms (fast_vcmp.rs): whether it is v_cmp_class, the width in bits, the
/// relation mask (1 less, 2 equal, 4 greater, 8 unordered; 0 for class) and
/// whether it is a v_cmpx. None for integer compares and other opcodes.
pub(crate) fn float_compare(op: crate::gfx11::opcodes::Op) -> Option<(bool, u8, u8, bool)> {
    let d = table().get(op as usize).copied().flatten()?;
    match d.kind {
        Kind::Float { bits } => Some((false, bits, d.cond, d.x)),
        Kind::Class { bits } => Some((true, bits, d.cond, d.x)),
        Kind::Int { .. } => None,
    }
}

/// Lane mask of an integer compare (values widened to i64 by `ext`).
#[inline(always)]
fn int_mask<T: PartialOrd + Copy>(
    a: &[u32; LANES],
    b: &[u32; LANES],
    cond: u8,
    ext: impl Fn(u32) -> T,
) -> u32 {
    let (lt, eq, gt) = (cond & 1 != 0, cond & 2 != 0, cond & 4 != 0);
    // Non-short-circuit and 32-bit wide, so the loop vectorises.
    let mut r = [0u32; LANES];
    for l in 0..LANES {
        let (x, y) = (ext(a[l]), ext(b[l]));
        r[l] = ((lt & (x < y)) | (eq & (x == y)) | (gt & (x > y))) as u32;
    }
    pack_lanes(&r)
}

fn rel<T: PartialOrd>(a: T, b: T) -> u8 {
    match a.partial_cmp(&b) {
        Some(std::cmp::Ordering::Less) => 1,
        Some(std::cmp::Ordering::Equal) => 2,
        Some(std::cmp::Ordering::Greater) => 4,
        None => 8,
    }
}

/// v_cmp_class: S1 bit mask 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denorm, 5 -0, 6 +0, 7 +denorm, 8 +normal, 9 +inf.
fn class_of(x: f64, is_snan: bool) -> u32 {
    let neg = x.is_sign_negative();
    let bit = if x.is_nan() {
        if is_snan { 0 } else { 1 }
    } else if x.is_infinite() {
        if neg { 2 } else { 9 }
    } else if x == 0.0 {
        if neg { 5 } else { 6 }
    } else if x.is_subnormal() {
        if neg { 4 } else { 7 }
    } else if neg {
        3
    } else {
        8
    };
    1 << bit
}

pub(crate) fn vopc(w: &mut Wave, env: &Env, i: &Inst) -> ExecResult {
    let Some(Some(d)) = table().get(i.op as usize).copied() else {
        return Err(illegal(i));
    };
    let (abs, neg) = (i.mods.abs, i.mods.neg);
    let fmod64 = |k: usize, mut b: u64, bits: u8| -> u64 {
        let sign = 1u64 << (bits - 1);
        if (abs >> k) & 1 != 0 {
            b &= !sign;
        }
        if (neg >> k) & 1 != 0 {
            b ^= sign;
        }
        b
    };
    let mut m = 0u32;
    match d.kind {
        Kind::Int { signed, bits: 64 } => {
            let (a, b) = (src64(w, env, i, 0)?, src64(w, env, i, 1)?);
            for l in 0..LANES {
                let r = if signed {
                    rel(a[l] as i64, b[l] as i64)
                } else {
                    rel(a[l], b[l])
                };
                m |= ((r & d.cond != 0) as u32) << l;
            }
        }
        Kind::Int { signed, bits } => {
            let (a, b) = (src32(w, env, i, 0)?, src32(w, env, i, 1)?);
            let sel = |k: usize, v: &[u32; LANES]| -> [u32; LANES] {
                if bits == 16 && (i.mods.opsel >> k) & 1 != 0 {
                    v.map(|x| x >> 16)
                } else {
                    *v
                }
            };
            let (x, y) = (sel(0, &a), sel(1, &b));
            m = match (signed, bits) {
                (true, 16) => int_mask(&x, &y, d.cond, |v| v as i16 as i32),
                (false, 16) => int_mask(&x, &y, d.cond, |v| v as u16 as i32),
                (true, _) => int_mask(&x, &y, d.cond, |v| v as i32),
                _ => int_mask(&x, &y, d.cond, |v| v),
            };
        }
        Kind::Float { bits: 64 } => {
            let (a, b) = (src64(w, env, i, 0)?, src64(w, env, i, 1)?);
            for l in 0..LANES {
                let r = rel(
                    f64::from_bits(fmod64(0, a[l], 64)),
                    f64::from_bits(fmod64(1, b[l], 64)),
                );
                m |= ((r & d.cond != 0) as u32) << l;
            }
        }
        Kind::Float { bits: 32 } if abs | neg == 0 => {
            let (a, b) = (src32(w, env, i, 0)?, src32(w, env, i, 1)?);
            let c = d.cond as u32;
            let mut hit = [0u32; LANES];
            for l in 0..LANES {
                let (x, y) = (f32::from_bits(a[l]), f32::from_bits(b[l]));
                let r = ((x < y) as u32)
                    | ((x == y) as u32) << 1
                    | ((x > y) as u32) << 2
                    | ((x.is_nan() | y.is_nan()) as u32) << 3;
                hit[l] = (r & c != 0) as u32;
            }
            m = pack_lanes(&hit);
        }
        Kind::Float { bits } => {
            let (a, b) = (src32(w, env, i, 0)?, src32(w, env, i, 1)?);
            for l in 0..LANES {
                let r = if bits == 16 {
                    let h = |k: usize, v: u32| {
                        let v = if (i.mods.opsel >> k) & 1 != 0 {
                            v >> 16
                        } else {
                            v & 0xFFFF
                        };
                        f16::from_bits(fmod64(k, v as u64, 16) as u16).to_f32()
                    };
                    rel(h(0, a[l]), h(1, b[l]))
                } else {
                    rel(
                        f32::from_bits(fmod64(0, a[l] as u64, 32) as u32),
                        f32::from_bits(fmod64(1, b[l] as u64, 32) as u32),
                    )
                };
                m |= ((r & d.cond != 0) as u32) << l;
            }
        }
        Kind::Class { bits } => {
            let mask = src32(w, env, i, 1)?;
            let vals: [(f64, bool); LANES] = match bits {
                64 => {
                    let a = src64(w, env, i, 0)?;
                    a.map(|b| {
                        let b = fmod64(0, b, 64);
                        (
                            f64::from_bits(b),
                            f64::from_bits(b).is_nan() && (b >> 51) & 1 == 0,
                        )
                    })
                }
                16 => {
                    let a = src32(w, env, i, 0)?;
                    a.map(|b| {
                        let b = fmod64(0, b as u64 & 0xFFFF, 16) as u16;
                        (
                            f16::from_bits(b).to_f64(),
                            f16::from_bits(b).is_nan() && (b >> 9) & 1 == 0,
                        )
                    })
                }
                _ => {
                    let a = src32(w, env, i, 0)?;
                    a.map(|b| {
                        let b = fmod64(0, b as u64, 32) as u32;
                        let f = f32::from_bits(b);
                        // Keep subnormal classification of f32 (not of the widened f64).
                        let x = if f.is_subnormal() {
                            f as f64 * 0.0
                                + if f < 0.0 {
                                    -f64::MIN_POSITIVE / 2.0
                                } else {
                                    f64::MIN_POSITIVE / 2.0
                                }
                        } else {
                            f as f64
                        };
                        (x, f.is_nan() && (b >> 22) & 1 == 0)
                    })
                }
            };
            for l in 0..LANES {
                m |= (((class_of(vals[l].0, vals[l].1) & mask[l]) != 0) as u32) << l;
            }
        }
    }
    let exec = w.exec();
    m &= exec;
    // Wave64: each half writes its word of the 64-bit mask.
    if d.x {
        w.sgpr[EXEC + w.half] = m;
        if i.flags & Inst::CMPX_WRITES_DST != 0 {
            // GFX9's v_cmpx writes its destination too (gfx9/exec_form.rs).
            if i.family == Family::Vopc {
                w.sgpr[VCC + w.half] = m;
            } else {
                w.set_lane_mask(i.dst as usize, m);
            }
        }
    } else if i.family == Family::Vopc {
        w.sgpr[VCC + w.half] = m;
    } else {
        w.set_lane_mask(i.dst as usize, m);
    }
    Ok(Flow::Next)
}
