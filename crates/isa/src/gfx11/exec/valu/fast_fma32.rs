//! Pre-resolved f32 three-source forms: v_fma_f32 with abs/neg
//! (`Fast::FmaF32` takes none) and the f32 division helpers v_div_scale_f32,
//! v_div_fmas_f32 and v_div_fixup_f32. Every f32 division the compilers
//! expand runs these (hip_f64_newton's seed spent a third of its time on
//! them in `step`).
//!
//! The slow path is valu/mod.rs: sources through `f32s` (abs clears, neg flips
//! the sign bit), then `fma_lanes`, `div_scale32`, `ldexp32` and
//! `div_fixup32` per lane. These forms read the rows in place and call the
//! same functions; v_div_scale and v_div_fixup first test, on all 32 lanes
//! at once, for the case nearly every division is in (normal operands of
//! moderate exponent), where the per-lane rule provably gives s0 with the
//! flag clear, or q with the sign of num * den, and take the per-lane rule
//! otherwise. Only instructions without omod, clamp, op_sel or DPP compile.
//! v_div_scale / v_div_fmas write or read a lane mask and run in wave32
//! only; the other two also run in wave64 (fast/wave64.rs).

use crate::gfx11::exec::operand::{Row, VSrc, row, vsrc};
use crate::gfx11::exec::valu::{div_fixup32, div_scale32, exponent32, fma_lanes, ldexp32};
use crate::gfx11::inst::{Family, Inst, Mods};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, Lanes, VCC, Wave};

type F32s = [f32; LANES];
const SIGN: u32 = 0x8000_0000;

/// The operation of an [`Fma32`] form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fma32Op {
    Fma,
    /// Writes the "scaled" lane mask to `sdst` too.
    DivScale,
    DivFmas,
    DivFixup,
}

/// One pre-resolved f32 three-source form (a [`Fast::Fma32`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fma32 {
    pub op: Fma32Op,
    pub dst: u8,
    /// The lane-mask destination of DivScale.
    pub sdst: u8,
    /// abs bits per source in bits 0..2, neg bits in 4..6.
    pub mods: u8,
    pub src: [VSrc; 3],
}

impl Fma32 {
    /// Does it read or write a lane mask (VCC, a scalar destination)? Those
    /// have no wave64 run here.
    pub(crate) fn uses_mask(&self) -> bool {
        matches!(self.op, Fma32Op::DivScale | Fma32Op::DivFmas)
    }
}

pub(crate) fn compile(i: &Inst) -> Option<Fma32> {
    if i.dpp.is_some() || i.mods.omod != 0 || i.mods.clamp || i.mods.opsel != 0 {
        return None;
    }
    if i.mods.opsel_hi != Mods::default().opsel_hi {
        return None;
    }
    let op = match (i.op, i.family) {
        (Op::VFmaF32, Family::Vop3) => Fma32Op::Fma,
        (Op::VDivScaleF32, Family::Vop3sd) => Fma32Op::DivScale,
        (Op::VDivFmasF32, Family::Vop3) => Fma32Op::DivFmas,
        (Op::VDivFixupF32, Family::Vop3) => Fma32Op::DivFixup,
        _ => return None,
    };
    Some(Fma32 {
        op,
        dst: u8::try_from(i.dst).ok()?,
        sdst: i.sdst,
        mods: (i.mods.abs & 7) | (i.mods.neg & 7) << 4,
        src: [
            vsrc(i.src[0].src)?,
            vsrc(i.src[1].src)?,
            vsrc(i.src[2].src)?,
        ],
    })
}

/// Source `k` as the slow path's `f32s` reads it.
#[inline(always)]
fn f32s(x: &Lanes, f: &Fma32, k: usize) -> F32s {
    let and = if f.mods >> k & 1 != 0 {
        !SIGN
    } else {
        u32::MAX
    };
    let xor = if f.mods >> (4 + k) & 1 != 0 { SIGN } else { 0 };
    let mut out = [0f32; LANES];
    for l in 0..LANES {
        out[l] = f32::from_bits((x[l] & and) ^ xor);
    }
    out
}

/// Is every lane in `div_scale32`'s common case, decided from the exponent
/// fields of s1 (`b`) and s2 (`c`) alone? With x1 in 1..=252, x2 in
/// 24..=254 and x2 - x1 in -125..=95 both are normal and non-zero, the
/// exponent gap is below 96, |s2 / s1| > 2^(x2 - x1 - 1) >= 2^-126 (not
/// denormal), s2's exponent is above 23 and |1 / s1| > 2^(126 - x1) >=
/// 2^-126: every test of the rule is false and the result is s0, flag clear.
#[inline(always)]
fn div_scale_plain(b: &F32s, c: &F32s) -> bool {
    let mut bad = [0u32; LANES];
    for l in 0..LANES {
        let (x1, x2) = (
            (b[l].to_bits() >> 23 & 0xFF) as i32,
            (c[l].to_bits() >> 23 & 0xFF) as i32,
        );
        let ok = (((x1 - 1) as u32) < 252)
            & (((x2 - 24) as u32) < 231)
            & (((x2 - x1 + 125) as u32) < 221);
        bad[l] = !ok as u32;
    }
    bad.iter().fold(0, |a, b| a | b) == 0
}

/// `div_fixup32` where num and den are finite and non-zero and q is not a
/// NaN in every lane (its last case: q with the sign of num * den); None
/// where a lane is not.
#[inline(always)]
fn div_fixup_plain(q: &F32s, den: &F32s, num: &F32s) -> Option<Lanes> {
    let (mut r, mut bad) = ([0u32; LANES], [0u32; LANES]);
    for l in 0..LANES {
        let finite = |x: f32| (x != 0.0) & (x.abs() < f32::INFINITY);
        let ok = finite(num[l]) & finite(den[l]) & !q[l].is_nan();
        bad[l] = !ok as u32;
        let sign = (num[l].to_bits() ^ den[l].to_bits()) & SIGN;
        r[l] = (q[l].to_bits() & !SIGN) | sign;
    }
    (bad.iter().fold(0, |a, b| a | b) == 0).then_some(r)
}

/// Run `f` on the 32 lanes of `w.vgpr` under `exec` (wave32, or one pass of
/// a wave64 wave for the forms without a lane mask).
#[inline(always)]
pub(crate) fn run(w: &mut Wave, f: &Fma32, exec: u32) {
    let (mut ba, mut bb, mut bc) = (Row::uninit(), Row::uninit(), Row::uninit());
    let (a, b, c) = {
        let [x, y, z] = f.src;
        (
            f32s(row(w, x, &mut ba), f, 0),
            f32s(row(w, y, &mut bb), f, 1),
            f32s(row(w, z, &mut bc), f, 2),
        )
    };
    let r: Lanes = match f.op {
        Fma32Op::Fma => bytemuck::cast(fma_lanes(&a, &b, &c)),
        Fma32Op::DivFmas => {
            let mut r = fma_lanes(&a, &b, &c);
            // Lanes with VCC set undo the scaling of the quotient.
            let mut v = w.sgpr[VCC];
            while v != 0 {
                let l = v.trailing_zeros() as usize;
                r[l] = ldexp32(r[l], if exponent32(c[l]) > 127 { 64 } else { -64 });
                v &= v - 1;
            }
            bytemuck::cast(r)
        }
        Fma32Op::DivFixup => div_fixup_plain(&a, &b, &c).unwrap_or_else(|| {
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = div_fixup32(a[l], b[l], c[l]).to_bits();
            }
            r
        }),
        Fma32Op::DivScale => {
            let (r, m) = if div_scale_plain(&b, &c) {
                (a, 0)
            } else {
                let (mut r, mut m) = ([0f32; LANES], 0u32);
                for l in 0..LANES {
                    let (d, s) = div_scale32(a[l], b[l], c[l]);
                    r[l] = d;
                    m |= (s as u32) << l;
                }
                (r, m)
            };
            w.write_vgpr(f.dst as usize, &bytemuck::cast(r), exec);
            w.set_lane_mask(f.sdst as usize, m & exec);
            return;
        }
    };
    w.write_vgpr(f.dst as usize, &r, exec);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfx11::decode::decode;
    use crate::gfx11::exec::fast::tests::{Rng, compare, no_env};
    use crate::gfx11::exec::fast::{self, Fast};
    use crate::gfx11::wave::EXEC;

    /// f32 bits: normal values of moderate exponent (the common cases), or,
    /// with `wild`, now and then zeros, infinities, NaNs with payloads,
    /// denormals, the common cases' boundary exponents and raw bits.
    fn value(rng: &mut Rng, wild: bool) -> u32 {
        let sign = rng.below(2) << 31;
        let with_exp = |rng: &mut Rng, x: u32| (rng.next() & 0x807F_FFFF) | x << 23;
        if !wild || rng.below(3) == 0 {
            let x = 127 - 40 + rng.below(80);
            return with_exp(rng, x);
        }
        match rng.below(5) {
            0 => {
                [
                    0,
                    0x7F80_0000,
                    0x7FC0_0000,
                    0x7FC0_1234,
                    0x7F80_0001,
                    0x7FA0_0042,
                ][rng.below(6) as usize]
                    | sign
            }
            1 => (rng.next() & 0x007F_FFFF) | sign,
            2 => {
                let x = [1, 2, 23, 24, 25, 126, 127, 128, 251, 252, 253, 254];
                let x = x[rng.below(x.len() as u32) as usize];
                with_exp(rng, x)
            }
            3 => {
                let x = 1 + rng.below(254);
                with_exp(rng, x)
            }
            _ => rng.next(),
        }
    }

    /// A source code: mostly a VGPR, else an SGPR, an inline constant or a literal.
    fn src(rng: &mut Rng) -> u32 {
        match rng.below(8) {
            0 => rng.below(40),
            1 => 128 + rng.below(65),
            2 => 240 + rng.below(9),
            3 => 255,
            _ => 256 + rng.below(64),
        }
    }

    /// The four ops as VOP3 / VOP3SD encodings with random sources, abs/neg
    /// now and then, destinations that are often a source.
    fn encodings(rng: &mut Rng) -> Vec<[u32; 3]> {
        // VOP3 opcodes: v_fma_f32, v_div_fixup_f32, v_div_scale_f32, v_div_fmas_f32.
        let mut out = Vec::new();
        for n in [0x213, 0x227, 0x2FC, 0x237] {
            for _ in 0..40 {
                let (s0, s1, s2) = (src(rng), src(rng), src(rng));
                let dst = if rng.below(2) == 0 && s0 >= 256 {
                    s0 - 256
                } else {
                    rng.below(64)
                };
                let (abs, neg) = if rng.below(2) == 0 {
                    (rng.below(8), rng.below(8))
                } else {
                    (0, rng.below(8))
                };
                let high = if n == 0x2FC {
                    [106, 20, 124][rng.below(3) as usize]
                } else {
                    abs
                };
                let w0 = 0xD400_0000 | n << 16 | high << 8 | dst;
                let w1 = neg << 29 | s2 << 18 | s1 << 9 | s0;
                out.push([w0, w1, value(rng, true)]);
            }
        }
        out
    }

    /// Each form against `step` on f32 values (all lanes in the common case,
    /// or with special values), random VCC, random / full / empty EXEC, in
    /// wave32 and, for the forms without a lane mask, wave64.
    #[test]
    fn fma32_forms_match_the_slow_path_on_f32_values() {
        let mut rng = Rng(0xF32D_1F00_0BAD_CAFE);
        let mut ops = std::collections::BTreeSet::new();
        let mut checked = 0;
        for round in 0..8 {
            let wild = round % 2 == 1;
            for words in encodings(&mut rng) {
                let inst = decode(&words).expect("decodes");
                let fast = fast::compile(&inst, 0x1000);
                // v_fma_f32 without abs/neg is Fast::FmaF32's.
                match fast {
                    Fast::Fma32(_) => {
                        ops.insert(format!("{:?}", inst.op));
                    }
                    Fast::FmaF32 { .. } if inst.op == Op::VFmaF32 => {}
                    _ => panic!("{} {words:08x?}: {fast:?}", inst.mnemonic),
                }
                let mut w = rng.wave();
                for r in 0..64 {
                    for l in 0..LANES {
                        w.vgpr[r][l] = value(&mut rng, wild);
                    }
                }
                for s in 0..40 {
                    w.sgpr[s] = value(&mut rng, wild);
                }
                for exec in [rng.next(), u32::MAX, 0] {
                    let mut w = w.clone();
                    w.sgpr[EXEC] = exec;
                    w.sgpr[VCC] = if rng.below(2) == 0 { 0 } else { rng.next() };
                    compare(&inst, &fast, &w, 0x1000);
                    checked += 1;
                }
                let mut w64 = rng.wave64(&w);
                for r in 0..64 {
                    w64.vgpr_hi[r] = w.vgpr[(r + 1) % 64];
                }
                (w64.sgpr[EXEC], w64.sgpr[EXEC + 1]) = (rng.next(), rng.next());
                let (mut lds, mut scratch) = ([0u8; 0], [0u8; 0]);
                let mut env = no_env(&mut lds, &mut scratch);
                if fast::run(&mut w64.clone(), &mut env, &fast).is_some() {
                    compare(&inst, &fast, &w64, 0x1000);
                    checked += 1;
                }
            }
        }
        assert_eq!(ops.len(), 4, "{ops:?}");
        assert!(checked > 1000, "only {checked} checks");
    }

    /// Where `div_scale_plain` says the common case, `div_scale32` keeps s0
    /// with the flag clear (one lane at a time, so each boundary is tested);
    /// both answers must occur.
    #[test]
    fn div_scale32_common_case_matches_div_scale32() {
        let mut rng = Rng(0xD1F5_CA1E_0032);
        let (mut plain, mut other) = (0, 0);
        for round in 0..200_000 {
            let wild = round % 2 == 1;
            let s = [0; 3].map(|_| f32::from_bits(value(&mut rng, wild)));
            if div_scale_plain(&[s[1]; LANES], &[s[2]; LANES]) {
                plain += 1;
                let (d, flag) = div_scale32(s[0], s[1], s[2]);
                assert_eq!((d.to_bits(), flag), (s[0].to_bits(), false), "{s:?}");
            } else {
                other += 1;
            }
        }
        assert!(plain > 1000 && other > 1000, "{plain} plain, {other} not");
    }
}
