//! WMMA: v_wmma_{f32,f16,bf16,i32}_16x16x16_* (D = A x B + C on 16x16
//! tiles), with the RDNA3 wave32 register layout:
//! - A (16 x K): lane m (0..15) holds row m, K packed in its VGPRs (two f16 /
//!   bf16, four 8-bit or eight 4-bit values per VGPR, low bits first); lanes
//!   16..31 carry a copy that the hardware ignores. B (K x 16): lane n holds
//!   column n in the same packing.
//! - C and D: VGPR r of lane l is element (row 2r + l/16, column l%16); the
//!   f16/bf16 forms keep it in the low half (op_sel[2] = 0) or the high half
//!   (op_sel[2] = 1) and leave the other half unchanged.
//!
//! Modifiers: f16/bf16 forms take neg_lo[0..2] as negation of A, B, C and
//! neg_hi[2] as |C|; the integer forms take neg_lo[0] / neg_lo[1] as "A / B
//! signed" and clamp saturates the i32 sum. The integer forms sum exactly
//! (i32); the float forms sum their exact products in f64 in k order and
//! round once to the output type; hardware's internal rounding may differ in
//! the last bit for float sums that are not exact. Wave64 WMMA is a typed
//! error.

use half::slice::HalfFloatSliceExt;
use half::{bf16, f16};

use crate::WaveErrorKind;
use crate::gfx11::exec::env::{ExecResult, Flow, illegal, unmodelled};
use crate::gfx11::inst::{Inst, Src};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, Wave};

/// Element type of the A/B inputs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum In {
    F16,
    Bf16,
    Iu8,
    Iu4,
}

/// Element type of C/D.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Out {
    F32,
    F16,
    Bf16,
    I32,
}

fn vgpr(i: &Inst, k: usize) -> Result<usize, WaveErrorKind> {
    match i.src[k].src {
        Src::Vgpr(r) => Ok(r as usize),
        _ => Err(illegal(i)),
    }
}

/// The 16 x 16 raw fields of A (row m = lane m) or B (column n = lane n),
/// `[lane][k]`, from the VGPRs starting at `base`: one pass per VGPR of the
/// packing, low bits first.
fn fields(w: &Wave, base: usize, ty: In) -> [[u32; 16]; 16] {
    let (per, bits) = match ty {
        In::F16 | In::Bf16 => (2, 16),
        In::Iu8 => (4, 8),
        In::Iu4 => (8, 4),
    };
    let mask = (1u32 << bits) - 1;
    let mut out = [[0u32; 16]; 16];
    for v in 0..16 / per {
        let row = &w.vgpr[(base + v) & 255];
        for (lane, o) in out.iter_mut().enumerate() {
            let word = row[lane];
            for e in 0..per {
                o[v * per + e] = (word >> (bits * e)) & mask;
            }
        }
    }
    out
}

/// The 8- or 4-bit fields of A or B (`fields`) as integers: sign-extended
/// where `signed`.
fn integers(raw: &[[u32; 16]; 16], ty: In, signed: bool) -> [[i32; 16]; 16] {
    let bits = if ty == In::Iu4 { 4 } else { 8 };
    let shift = 32 - bits;
    raw.map(|lane| {
        lane.map(|x| {
            if signed {
                ((x << shift) as i32) >> shift
            } else {
                x as i32
            }
        })
    })
}

/// The f16 or bf16 fields of A or B (`fields`) as f64 (exact): f16
/// through the host's conversion of the whole tile at once (F16C where the
/// host has it), bf16 as the top half of an f32.
fn floats(raw: &[[u32; 16]; 16], ty: In) -> [[f64; 16]; 16] {
    let mut wide = [0f32; 256];
    if ty == In::F16 {
        let halves: [f16; 256] =
            std::array::from_fn(|i| f16::from_bits(raw[i / 16][i % 16] as u16));
        halves.convert_to_f32_slice(&mut wide);
    } else {
        for (o, &x) in wide.iter_mut().zip(raw.as_flattened()) {
            *o = f32::from_bits(x << 16);
        }
    }
    std::array::from_fn(|lane| std::array::from_fn(|k| f64::from(wide[lane * 16 + k])))
}

/// B's columns `[n][k]` as rows `[k][n]`, so that the 16 dot products of
/// a row of A are computed side by side.
fn transpose<T: Copy>(t: &[[T; 16]; 16]) -> [[T; 16]; 16] {
    std::array::from_fn(|k| std::array::from_fn(|n| t[n][k]))
}

/// Run a WMMA instruction: through a copy for the wave loop's level
/// (wave_loop.rs) where it is AVX2 or above, whose dot products take 4
/// (AVX2) or 8 (AVX-512) lanes of f64 per vector instruction and add each
/// product with a fused multiply-add (`wmma_here`'s `FMA` says why that
/// gives the same bits).
pub(crate) fn wmma(w: &mut Wave, i: &Inst) -> ExecResult {
    #[cfg(all(target_arch = "x86_64", not(test)))]
    {
        use crate::wave_loop::{WaveLoop, wave_loop};
        #[target_feature(enable = "avx2,fma")]
        fn avx2(w: &mut Wave, i: &Inst) -> ExecResult {
            wmma_here::<true>(w, i)
        }
        #[target_feature(enable = "avx512f,avx512bw,avx512cd,avx512dq,avx512vl,fma")]
        fn avx512(w: &mut Wave, i: &Inst) -> ExecResult {
            wmma_here::<true>(w, i)
        }
        match wave_loop() {
            // SAFETY: wave_loop() gives Avx512 only where the CPU has these
            // subsets and FMA (wave_loop.rs checks the same list).
            WaveLoop::Avx512 => return unsafe { avx512(w, i) },
            // SAFETY: wave_loop() gives Avx2 or above only where the CPU has AVX2 and FMA.
            WaveLoop::Avx2 => return unsafe { avx2(w, i) },
            WaveLoop::Baseline => {}
        }
    }
    wmma_here::<false>(w, i)
}

/// A WMMA instruction; `FMA` adds each product of the float forms to its
/// sum with `f64::mul_add` rather than a multiply and an add. Both give the
/// same bits: a product of two f16 (11-bit significands, exponents from
/// -24 to 15) or two bf16 (8-bit significands, f32's exponents) values is
/// exact in f64, so rounding the fused sum is rounding the sum of the
/// rounded product. A copy without the host's FMA instructions takes
/// `FMA = false` (`mul_add` would be a call to the C library's `fma`).
#[inline(always)]
fn wmma_here<const FMA: bool>(w: &mut Wave, i: &Inst) -> ExecResult {
    use Op::*;
    if w.wave64 {
        return Err(unmodelled(i, "wave64 WMMA layout not modelled"));
    }
    let (ty, out) = match i.op {
        VWmmaF3216x16x16F16 => (In::F16, Out::F32),
        VWmmaF3216x16x16Bf16 => (In::Bf16, Out::F32),
        VWmmaF1616x16x16F16 => (In::F16, Out::F16),
        VWmmaBf1616x16x16Bf16 => (In::Bf16, Out::Bf16),
        VWmmaI3216x16x16Iu8 => (In::Iu8, Out::I32),
        VWmmaI3216x16x16Iu4 => (In::Iu4, Out::I32),
        _ => return Err(illegal(i)),
    };
    let (a, b, c, d) = (vgpr(i, 0)?, vgpr(i, 1)?, vgpr(i, 2)?, i.dst as usize);
    let int = out == Out::I32;
    let neg = |bit: u8| !int && (i.mods.neg >> bit) & 1 != 0;
    let (a_signed, b_signed) = (int && i.mods.neg & 1 != 0, int && i.mods.neg & 2 != 0);
    let hi = (i.mods.opsel >> 2) & 1 != 0;
    // The signs neg_lo[0] / neg_lo[1] put on A and B (float forms).
    let (sa, sb) = (
        if neg(0) { -1.0 } else { 1.0 },
        if neg(1) { -1.0 } else { 1.0 },
    );
    // Read everything before writing (D may overlap A, B or C): A's rows
    // am[m][k] and B's columns bt[n][k].
    let (am_raw, bt_raw) = (fields(w, a, ty), fields(w, b, ty));
    let exec = w.exec();
    let c_rows: [[u32; LANES]; 8] = std::array::from_fn(|r| w.vgpr[(c + r) & 255]);
    let d_rows: [[u32; LANES]; 8] = std::array::from_fn(|r| w.vgpr[(d + r) & 255]);
    let (abs_c, neg_c) = (!int && (i.mods.abs >> 2) & 1 != 0, neg(2));
    // dots[m][n]: the dot product of A's row m and B's column n, each
    // row's 16 computed side by side (vectorised over n) from B as [k][n].
    // The integer forms' are exact in i32: at most 16 products of 8-bit
    // values, below 2^21 in magnitude together.
    let mut dots = [[0f64; 16]; 16];
    let mut idots = [[0i32; 16]; 16];
    if int {
        let am = integers(&am_raw, ty, a_signed);
        let bk = transpose(&integers(&bt_raw, ty, b_signed));
        for (dot, a_row) in idots.iter_mut().zip(&am) {
            for (&a, b_row) in a_row.iter().zip(&bk) {
                for n in 0..16 {
                    dot[n] += a * b_row[n];
                }
            }
        }
    } else {
        let am = floats(&am_raw, ty);
        let bk = transpose(&floats(&bt_raw, ty));
        // Each sum in k order from the start value of f64's `Sum`, as
        // `.sum()` over k gives it: the same bits.
        let start: f64 = std::iter::empty::<f64>().sum();
        for (dot, a_row) in dots.iter_mut().zip(&am) {
            *dot = [start; 16];
            for (&a, b_row) in a_row.iter().zip(&bk) {
                let a = sa * a * sb;
                for n in 0..16 {
                    dot[n] = if FMA {
                        a.mul_add(b_row[n], dot[n])
                    } else {
                        dot[n] + a * b_row[n]
                    };
                }
            }
        }
    }
    // Row r of C and D holds rows 2r (lanes 0..15) and 2r + 1 (lanes
    // 16..31) of the tile: 32 consecutive elements of the row-major dots.
    let mut result = [[0u32; LANES]; 8];
    for (r, row) in result.iter_mut().enumerate() {
        let (cur, old_d) = (&c_rows[r], &d_rows[r]);
        if int {
            let dot = &idots.as_flattened()[LANES * r..LANES * (r + 1)];
            for l in 0..LANES {
                // The i32 accumulator plus the exact dot product of the 8/4-bit values.
                let s = i64::from(dot[l]) + i64::from(cur[l] as i32);
                let s = if i.mods.clamp {
                    s.clamp(i32::MIN as i64, i32::MAX as i64)
                } else {
                    s
                };
                row[l] = s as u32;
            }
            continue;
        }
        let dot = &dots.as_flattened()[LANES * r..LANES * (r + 1)];
        // C's value with its modifiers (|C| first, then the negation).
        let c_mod = |cv: f64| {
            let cv = if abs_c { cv.abs() } else { cv };
            if neg_c { -cv } else { cv }
        };
        if out == Out::F32 {
            for l in 0..LANES {
                let cv = c_mod(f64::from(f32::from_bits(cur[l])));
                row[l] = ((dot[l] + cv) as f32).to_bits();
            }
            continue;
        }
        for l in 0..LANES {
            let half = if hi { cur[l] >> 16 } else { cur[l] } as u16;
            let cv = c_mod(match out {
                Out::F16 => f16::from_bits(half).to_f64(),
                _ => bf16::from_bits(half).to_f64(),
            });
            let s = dot[l] + cv;
            let h = match out {
                Out::F16 => super::round_once::f16_of(s),
                _ => super::round_once::bf16_of(s),
            };
            row[l] = if hi {
                (old_d[l] & 0xFFFF) | (h as u32) << 16
            } else {
                (old_d[l] & 0xFFFF_0000) | h as u32
            };
        }
    }
    for (r, row) in result.iter().enumerate() {
        w.write_vgpr(d + r, row, exec);
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfx11::exec::test_inst as inst;

    /// The file comment's layout, element by element: D(m, n) = sum over k of
    /// (±A(m, k)) (±B(k, n)) in f64 (in k order), plus C(m, n) (±, |C|), for
    /// the lanes in EXEC; VGPRs D..D+8 of lanes outside EXEC keep their value.
    fn model(w: &Wave, i: &Inst, ty: In, out: Out) -> [[u32; LANES]; 8] {
        let reg = |k: usize| match i.src[k].src {
            Src::Vgpr(r) => r as usize,
            _ => unreachable!(),
        };
        let (a, b, c, d) = (reg(0), reg(1), reg(2), i.dst as usize);
        let int = out == Out::I32;
        let (per, bits) = match ty {
            In::F16 | In::Bf16 => (2, 16),
            In::Iu8 => (4, 8),
            In::Iu4 => (8, 4),
        };
        let el = |base: usize, lane: usize, k: usize, signed: bool| {
            let word = w.vgpr[base + k / per][lane];
            let raw = (word >> (bits * (k % per))) & ((1u32 << bits) - 1);
            match ty {
                In::F16 => f16::from_bits(raw as u16).to_f64(),
                In::Bf16 => bf16::from_bits(raw as u16).to_f64(),
                _ if signed => ((raw << (32 - bits)) as i32 >> (32 - bits)) as f64,
                _ => raw as f64,
            }
        };
        let bit = |field: u8, b: u8| field >> b & 1 != 0;
        let hi = bit(i.mods.opsel, 2);
        let exec = w.exec();
        let mut d_out = [[0u32; LANES]; 8];
        for r in 0..8 {
            for l in 0..LANES {
                let (m, n) = (2 * r + l / 16, l % 16);
                let old = w.vgpr[d + r][l];
                if exec >> l & 1 == 0 {
                    d_out[r][l] = old;
                    continue;
                }
                let cw = w.vgpr[c + r][l];
                if int {
                    let (sa, sb) = (bit(i.mods.neg, 0), bit(i.mods.neg, 1));
                    let dot: i64 = (0..16)
                        .map(|k| el(a, m, k, sa) as i64 * el(b, n, k, sb) as i64)
                        .sum();
                    let s = dot + cw as i32 as i64;
                    d_out[r][l] = if i.mods.clamp {
                        s.clamp(i32::MIN as i64, i32::MAX as i64) as u32
                    } else {
                        s as u32
                    };
                    continue;
                }
                let sign = |b: u8| if bit(i.mods.neg, b) { -1.0 } else { 1.0 };
                let half = (if hi { cw >> 16 } else { cw }) as u16;
                let mut cv = match out {
                    Out::F32 => f32::from_bits(cw) as f64,
                    Out::F16 => f16::from_bits(half).to_f64(),
                    _ => bf16::from_bits(half).to_f64(),
                };
                if bit(i.mods.abs, 2) {
                    cv = cv.abs();
                }
                cv *= sign(2);
                let dot: f64 = (0..16)
                    .map(|k| sign(0) * el(a, m, k, false) * sign(1) * el(b, n, k, false))
                    .sum();
                let s = dot + cv;
                let place = |h: u16| {
                    if hi {
                        (old & 0xFFFF) | (h as u32) << 16
                    } else {
                        (old & 0xFFFF_0000) | h as u32
                    }
                };
                d_out[r][l] = match out {
                    Out::F32 => (s as f32).to_bits(),
                    Out::F16 => place(crate::gfx11::exec::valu::round_once::f16_of(s)),
                    _ => place(crate::gfx11::exec::valu::round_once::bf16_of(s)),
                };
            }
        }
        d_out
    }

    /// Results equal, or both NaN of the result type (which NaN an f64 sum
    /// of NaN products gives depends on the host's operand order).
    fn same(x: u32, y: u32, out: Out, hi: bool) -> bool {
        let h = |v: u32| (if hi { v >> 16 } else { v }) as u16;
        x == y
            || match out {
                Out::F32 => f32::from_bits(x).is_nan() && f32::from_bits(y).is_nan(),
                Out::F16 => f16::from_bits(h(x)).is_nan() && f16::from_bits(h(y)).is_nan(),
                Out::Bf16 => bf16::from_bits(h(x)).is_nan() && bf16::from_bits(h(y)).is_nan(),
                Out::I32 => false,
            }
    }

    /// Every WMMA form, with negations, |C|, op_sel (high halves), clamp and
    /// a D that overlaps C, on random registers under full and partial EXEC,
    /// against the element-by-element model.
    #[test]
    fn wmma_matches_the_element_model() {
        let forms: [([u8; 8], In, Out); 10] = [
            // v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[24:31]
            (
                [0x00, 0x40, 0x40, 0xcc, 0x08, 0x21, 0x62, 0x1c],
                In::F16,
                Out::F32,
            ),
            // ... neg_lo:[1,0,1] neg_hi:[0,0,1]
            (
                [0x00, 0x44, 0x40, 0xcc, 0x08, 0x21, 0x62, 0xbc],
                In::F16,
                Out::F32,
            ),
            // v_wmma_f32_16x16x16_bf16 ... neg_lo:[0,1,0]
            (
                [0x00, 0x40, 0x41, 0xcc, 0x08, 0x21, 0x62, 0x5c],
                In::Bf16,
                Out::F32,
            ),
            // v_wmma_f16_16x16x16_f16 ... op_sel:[0,0,1]
            (
                [0x00, 0x60, 0x42, 0xcc, 0x08, 0x21, 0x62, 0x1c],
                In::F16,
                Out::F16,
            ),
            // v_wmma_f16_16x16x16_f16
            (
                [0x00, 0x40, 0x42, 0xcc, 0x08, 0x21, 0x62, 0x1c],
                In::F16,
                Out::F16,
            ),
            // v_wmma_bf16_16x16x16_bf16 ... op_sel:[0,0,1] neg_lo:[1,1,0]
            (
                [0x00, 0x60, 0x43, 0xcc, 0x08, 0x21, 0x62, 0x7c],
                In::Bf16,
                Out::Bf16,
            ),
            // v_wmma_i32_16x16x16_iu8 v[0:7], v[8:11], v[16:19], v[24:31] neg_lo:[1,0,0] clamp
            (
                [0x00, 0xc0, 0x44, 0xcc, 0x08, 0x21, 0x62, 0x3c],
                In::Iu8,
                Out::I32,
            ),
            // ... neg_lo:[0,1,0]
            (
                [0x00, 0x40, 0x44, 0xcc, 0x08, 0x21, 0x62, 0x5c],
                In::Iu8,
                Out::I32,
            ),
            // v_wmma_i32_16x16x16_iu4 v[0:7], v[8:9], v[16:17], v[24:31] neg_lo:[1,1,0] clamp
            (
                [0x00, 0xc0, 0x45, 0xcc, 0x08, 0x21, 0x62, 0x7c],
                In::Iu4,
                Out::I32,
            ),
            // v_wmma_i32_16x16x16_iu4 v[0:7], v[8:9], v[16:17], v[0:7] (D = C)
            (
                [0x00, 0x40, 0x45, 0xcc, 0x08, 0x21, 0x02, 0x1c],
                In::Iu4,
                Out::I32,
            ),
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for (bytes, ty, out) in forms {
            let i = inst(bytes);
            let hi = i.mods.opsel >> 2 & 1 != 0;
            for round in 0..6 {
                let mut w = Wave::default();
                for row in w.vgpr.iter_mut().take(32) {
                    for v in row.iter_mut() {
                        let x = next() as u32;
                        // Mostly small floats (exponent near the bias) so that sums
                        // are not all overflow; every 8th value raw bits (inf, NaN).
                        *v = match (ty, next() % 8) {
                            (_, 0) | (In::Iu8 | In::Iu4, _) => x,
                            (In::F16, _) => (x & 0x83FF_83FF) | 0x3800_3800,
                            (In::Bf16, _) => (x & 0x807F_807F) | 0x3F00_3F00,
                        };
                    }
                }
                w.sgpr[crate::gfx11::wave::EXEC] = if round % 2 == 0 {
                    u32::MAX
                } else {
                    next() as u32
                };
                let want = model(&w, &i, ty, out);
                let d = i.dst as usize;
                // Both the copy that multiplies and adds and the one that
                // fuses them (here through the C library's fma).
                let mut fused = w.clone();
                wmma(&mut w, &i).unwrap();
                wmma_here::<true>(&mut fused, &i).unwrap();
                for r in 0..8 {
                    for l in 0..LANES {
                        for (how, got) in [("", w.vgpr[d + r][l]), ("fused ", fused.vgpr[d + r][l])]
                        {
                            assert!(
                                same(got, want[r][l], out, hi),
                                "{bytes:x?} round {round}: {how}D{r} lane {l}: {got:#x}, model {:#x}",
                                want[r][l]
                            );
                        }
                    }
                }
            }
        }
    }
}
