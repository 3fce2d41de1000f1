//! Typed buffer loads and stores: MTBUF's `tbuffer_{load,store}[_d16]_format_*`
//! and MUBUF's `buffer_{load,store}[_d16[_hi]]_format_*` address memory like
//! MUBUF (V#, index/offset, soffset; see mubuf.rs) and convert every
//! component through a unified format, the instruction's (MTBUF) or the
//! V#'s FORMAT field (MUBUF) (the
//! data/numeric format tables of the RDNA3 ISA guide, "Buffer formats";
//! decode::BufferFormat).
//!
//! Loads: each of the instruction's components that the format has is read
//! from its bits and converted to 32 bits (UNORM/SNORM to [0,1]/[-1,1]
//! floats, SNORM's most negative code clamped to -1.0; USCALED/SSCALED to
//! floats; UINT/SINT zero/sign-extended; FLOAT as f32, or widened from f16
//! and the unsigned 11/10-bit floats). Components the format lacks read as
//! 0, except w, which reads 1 (1.0 for the float-valued formats). The d16
//! forms return 16-bit values (f16, or the integer's low half), two per
//! VGPR, x in the low half.
//! Stores convert the other way (round to nearest even, clamp to the
//! component's range; NaN stores 0 for the integer-valued encodings) and
//! write only the components the instruction supplies and the format has.
//!
//! The V#'s DST_SEL_X/Y/Z/W choose what each loaded component returns
//! (component x..w, 0 or one). Range checking is per element, all or
//! nothing: an out-of-range store is dropped, an out-of-range load reads
//! zero bits (then defaults and dst_sel apply as above). Not modelled (typed
//! errors naming the instruction): formats 0 (BUF_FMT_INVALID) and 64..127,
//! tfe (the decoder already rejects it), swizzled resources.

use half::f16;

use crate::Access;
use crate::WaveErrorKind;
use crate::gfx11::decode::{BufferFormat, NumFormat, mtbuf_format};
use crate::gfx11::exec::env::{Env, ExecResult, Flow, unmodelled};
use crate::gfx11::exec::vmem::mubuf::{BufferLanes, buffer_lanes, in_range};
use crate::gfx11::inst::Inst;
use crate::gfx11::wave::{LANES, Wave};

pub(crate) fn mtbuf(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    if i.flags & Inst::GFX9_BUFFER != 0 {
        return super::gfx9_typed::typed(w, env, i);
    }
    typed(w, env, i, mtbuf_format(i))
}

/// A typed buffer access through the unified format `code`: the
/// instruction's own (MTBUF) or the V#'s FORMAT field (MUBUF
/// `buffer_*_format_*`).
pub(crate) fn typed(w: &mut Wave, env: &mut Env, i: &Inst, code: u8) -> ExecResult {
    let Some(fmt) = BufferFormat::from_code(code) else {
        return Err(unmodelled(i, &format!("buffer format {code}")));
    };
    let store = is_store(i);
    let lanes = buffer_lanes(w, i)?;
    let bytes = fmt.bytes() as u64;
    if env.observer.is_some() {
        let access = if store { Access::Write } else { Access::Read };
        crate::gfx11::exec::observe::buffer(w, env, &lanes, bytes, access, true);
    }
    let BufferLanes {
        res,
        index,
        offset,
        base,
    } = lanes;
    // Out of range (all or nothing): a store is dropped, a load reads zero bits.
    let element = |l: usize| {
        in_range(&res, index[l], offset[l], 0, bytes).then(|| {
            base.wrapping_add(index[l].wrapping_mul(res.stride))
                .wrapping_add(offset[l])
        })
    };
    typed_lanes(w, env, i, fmt, res.dst_sel, element)
}

/// Is `i` a typed store (rather than a load)?
pub(crate) fn is_store(i: &Inst) -> bool {
    let name = i.op.name();
    name.starts_with("tbuffer_store") || name.starts_with("buffer_store")
}

/// The conversions of a typed access in format `fmt` over the current
/// lanes, each active lane's element at `element_at(l)` (None: out of
/// range).
/// `dst_sel` is the V#'s DST_SEL_X/Y/Z/W (dword 3 [11:0]), which picks what
/// a load returns: 0 reads 0, 1 reads one, 4..7 read component x..w. The
/// `d16_hi` forms move one component through the high half of the
/// register, keeping the low half.
pub(crate) fn typed_lanes(
    w: &mut Wave,
    env: &mut Env,
    i: &Inst,
    fmt: BufferFormat,
    dst_sel: u32,
    element_at: impl Fn(usize) -> Option<u64>,
) -> ExecResult {
    let name = i.op.name();
    let store = is_store(i);
    let d16 = name.contains("_d16_");
    let hi = name.contains("_d16_hi_");
    let n = name.rsplit('_').next().map_or(1, str::len);
    let bytes = fmt.bytes() as usize;
    let exec = w.exec();
    let vdata = i.data[0] as usize;
    let access = if store { Access::Write } else { Access::Read };
    let mut rows = [[0u32; LANES]; 4];
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let Some(addr) = element_at(l) else {
            if !store {
                load_lane(fmt, n, d16, dst_sel, 0, &mut rows, l);
            }
            continue;
        };
        let p = env
            .mem
            .translate(addr, bytes as u64, access)
            .map_err(WaveErrorKind::MemoryViolation)?;
        let mut b = [0u8; 16];
        // SAFETY: translate returned a pointer valid for `bytes` (<= 16) bytes.
        unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), bytes) };
        let mut element = u128::from_le_bytes(b);
        if !store {
            load_lane(fmt, n, d16, dst_sel, element, &mut rows, l);
            continue;
        }
        for c in 0..n.min(fmt.components()) {
            let reg = w.vgpr[(vdata + if d16 { c / 2 } else { c }) & 255][l];
            let reg = if hi { reg >> 16 } else { reg };
            let value = if d16 {
                widen_d16(fmt.num, reg >> (16 * (c % 2)))
            } else {
                reg
            };
            let (at, width) = fmt.component_bits(c);
            let mask = (1u128 << width) - 1;
            let field = encode(fmt, width, value) as u128;
            element = (element & !(mask << at)) | (field & mask) << at;
        }
        let b = element.to_le_bytes();
        // SAFETY: translate returned a pointer valid for `bytes` (<= 16) bytes.
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, bytes) };
    }
    if !store && hi {
        let cur = w.vgpr[vdata & 255];
        for l in 0..LANES {
            rows[0][l] = (cur[l] & 0xFFFF) | rows[0][l] << 16;
        }
    }
    if !store {
        let regs = if d16 { n.div_ceil(2) } else { n };
        for (k, row) in rows.iter().enumerate().take(regs) {
            w.write_vgpr(vdata + k, row, exec);
        }
    }
    Ok(Flow::Next)
}

/// Lane `l`'s loaded components from `element`'s bits into `rows`: the
/// format's components converted, a missing w reading one and other missing
/// components 0, then picked through `dst_sel`, and packed two to a
/// register for d16.
fn load_lane(
    fmt: BufferFormat,
    n: usize,
    d16: bool,
    dst_sel: u32,
    element: u128,
    rows: &mut [[u32; LANES]; 4],
    l: usize,
) {
    let comp: [u32; 4] = std::array::from_fn(|c| {
        if c < fmt.components() {
            let (at, width) = fmt.component_bits(c);
            decode(fmt.num, width, (element >> at) as u32 & mask32(width))
        } else if c == 3 {
            one(fmt.num)
        } else {
            0
        }
    });
    for c in 0..n {
        let v = match (dst_sel >> (3 * c)) & 7 {
            1 => one(fmt.num),
            s @ 4..=7 => comp[s as usize - 4],
            _ => 0,
        };
        if d16 {
            rows[c / 2][l] |= narrow_d16(fmt.num, v) << (16 * (c % 2));
        } else {
            rows[c][l] = v;
        }
    }
}

fn mask32(width: u32) -> u32 {
    if width >= 32 {
        u32::MAX
    } else {
        (1 << width) - 1
    }
}

/// Does the numeric format give floats (rather than integers)?
fn float_valued(num: NumFormat) -> bool {
    !matches!(num, NumFormat::Uint | NumFormat::Sint)
}

/// The value of a missing w component.
pub(crate) fn one(num: NumFormat) -> u32 {
    if float_valued(num) {
        1.0f32.to_bits()
    } else {
        1
    }
}

fn sext(raw: u32, width: u32) -> i32 {
    ((raw << (32 - width)) as i32) >> (32 - width)
}

/// An unsigned float of `width` bits (11: 5-bit exponent, 6-bit mantissa;
/// 10: 5-bit exponent, 5-bit mantissa) as f32 bits.
fn small_float_to_f32(raw: u32, width: u32) -> u32 {
    let mbits = width - 5;
    let (e, m) = (raw >> mbits, raw & ((1 << mbits) - 1));
    let v = match e {
        0 => m as f32 * 2f32.powi(-14 - mbits as i32),
        31 if m == 0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + m as f32 / (1 << mbits) as f32) * 2f32.powi(e as i32 - 15),
    };
    v.to_bits()
}

/// f32 value to an unsigned float of `width` bits (round to nearest even;
/// negative values and -0 give 0, overflow gives infinity).
fn f32_to_small_float(v: f32, width: u32) -> u32 {
    let mbits = width - 5;
    if v.is_nan() {
        return (31 << mbits) | 1;
    }
    if v <= 0.0 {
        return 0;
    }
    if v.is_infinite() {
        return 31 << mbits;
    }
    // Scale into [1, 2) and round the mantissa.
    let e = v.log2().floor() as i32;
    let (e, scaled) = if e < -14 {
        // Denormal: units of 2^(-14 - mbits).
        (
            0,
            (v * 2f32.powi(14 + mbits as i32)).round_ties_even() as u32,
        )
    } else {
        let m = (v / 2f32.powi(e) - 1.0) * (1 << mbits) as f32;
        ((e + 15) as u32, m.round_ties_even() as u32)
    };
    // A mantissa that rounded up to 2.0 carries into the exponent.
    let bits = (e << mbits) + scaled;
    bits.min(31 << mbits)
}

/// A component's raw bits to the 32-bit register value.
pub(crate) fn decode(num: NumFormat, width: u32, raw: u32) -> u32 {
    let max = mask32(width) as f32;
    let smax = mask32(width - 1) as f32;
    match num {
        NumFormat::Unorm => (raw as f32 / max).to_bits(),
        NumFormat::Snorm => (sext(raw, width) as f32 / smax).max(-1.0).to_bits(),
        NumFormat::Uscaled => (raw as f32).to_bits(),
        NumFormat::Sscaled => (sext(raw, width) as f32).to_bits(),
        NumFormat::Uint => raw,
        NumFormat::Sint => sext(raw, width) as u32,
        NumFormat::Float => match width {
            32 => raw,
            16 => f16::from_bits(raw as u16).to_f32().to_bits(),
            _ => small_float_to_f32(raw, width),
        },
    }
}

/// A 32-bit register value to a component's bits.
pub(crate) fn encode(fmt: BufferFormat, width: u32, value: u32) -> u32 {
    let f = f32::from_bits(value);
    // Scaled in f64, where the product is exact, so the one rounding is the
    // round to nearest even.
    let d = f as f64;
    let max = mask32(width) as f64;
    let smax = mask32(width - 1) as f64;
    let int = |v: f64, lo: f64, hi: f64| -> u32 {
        if v.is_nan() {
            0
        } else {
            v.round_ties_even().clamp(lo, hi) as i64 as u32
        }
    };
    match fmt.num {
        NumFormat::Unorm => int(d.clamp(0.0, 1.0) * max, 0.0, max),
        NumFormat::Snorm => int(d.clamp(-1.0, 1.0) * smax, -smax, smax),
        NumFormat::Uscaled => int(d, 0.0, max),
        NumFormat::Sscaled => int(d, -smax - 1.0, smax),
        NumFormat::Uint | NumFormat::Sint => value,
        NumFormat::Float => match width {
            32 => value,
            16 => f16::from_f32(f).to_bits() as u32,
            _ => f32_to_small_float(f, width),
        },
    }
}

/// A d16 load's 16-bit result: f16 for the float-valued formats, the low
/// half of the integer otherwise.
fn narrow_d16(num: NumFormat, v: u32) -> u32 {
    if float_valued(num) {
        f16::from_f32(f32::from_bits(v)).to_bits() as u32
    } else {
        v & 0xFFFF
    }
}

/// A d16 store's 16-bit source widened to the 32-bit value `encode` takes.
fn widen_d16(num: NumFormat, half: u32) -> u32 {
    let h = half & 0xFFFF;
    match num {
        NumFormat::Uint => h,
        NumFormat::Sint => h as u16 as i16 as i32 as u32,
        _ => f16::from_bits(h as u16).to_f32().to_bits(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_floats_round_trip_and_saturate() {
        // 1.0 in the 11-bit format: exponent 15, mantissa 0.
        assert_eq!(f32_to_small_float(1.0, 11), 15 << 6);
        assert_eq!(f32::from_bits(small_float_to_f32(15 << 6, 11)), 1.0);
        // 1.5 in the 10-bit format: mantissa 0b10000.
        assert_eq!(f32_to_small_float(1.5, 10), 15 << 5 | 16);
        assert_eq!(f32::from_bits(small_float_to_f32(15 << 5 | 16, 10)), 1.5);
        assert_eq!(f32_to_small_float(-3.0, 11), 0);
        assert_eq!(f32_to_small_float(1.0e9, 11), 31 << 6);
        // The largest 11-bit denormal and back.
        let d = small_float_to_f32(0x3F, 11);
        assert_eq!(f32_to_small_float(f32::from_bits(d), 11), 0x3F);
    }

    #[test]
    fn normalized_conversions_clamp_and_round() {
        let snorm8 = BufferFormat::from_code(2).expect("8 snorm");
        assert_eq!(f32::from_bits(decode(NumFormat::Snorm, 8, 0x80)), -1.0);
        assert_eq!(f32::from_bits(decode(NumFormat::Snorm, 8, 0x81)), -1.0);
        assert_eq!(f32::from_bits(decode(NumFormat::Snorm, 8, 0x7F)), 1.0);
        assert_eq!(encode(snorm8, 8, (-2.0f32).to_bits()) & 0xFF, 0x81);
        assert_eq!(encode(snorm8, 8, 0.5f32.to_bits()), 64);
        let unorm8 = BufferFormat::from_code(1).expect("8 unorm");
        assert_eq!(encode(unorm8, 8, f32::NAN.to_bits()), 0);
        assert_eq!(encode(unorm8, 8, 2.0f32.to_bits()), 255);
    }
}
