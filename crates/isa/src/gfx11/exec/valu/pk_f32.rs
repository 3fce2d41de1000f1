//! GFX9 packed f32 math on 64-bit register pairs (gfx90a, gfx942):
//! v_pk_fma_f32, v_pk_mul_f32, v_pk_add_f32 (AMD CDNA3 ISA guide, "VOP3P"
//! opcodes). Each source is a pair of f32 dwords; the low result takes
//! from source k the dword op_sel[k] selects and negates it by neg_lo[k],
//! the high result takes dword op_sel_hi[k] and neg_hi[k]; clamp clamps
//! both results to [0, 1]. The f32 operations are the executor's scalar
//! ones (IEEE round-to-nearest-even, denormals kept, its NaN rule), an FMA
//! rounding once.
//!
//! A constant source arrives as the decode step left it (gfx9/exec_form.rs):
//! its 32-bit value in the low dword, the high dword selected only from 0.

use super::{F32s, LANES, R, V, add32, mul32, nan3_32};
use crate::gfx11::opcodes::Op;

/// One of the three ops over the current lanes.
pub(super) fn exec(v: &mut V) -> R<()> {
    let i = v.i;
    let n = if i.op == Op::VPkFmaF32 { 3 } else { 2 };
    // x[k][h]: source k's dword for result half h, negated as asked.
    let mut x = [[[0f32; LANES]; 2]; 3];
    for k in 0..n {
        let s = v.u64(k)?;
        for h in 0..2 {
            let (sel, neg) = if h == 0 {
                ((i.mods.opsel >> k) & 1, (i.mods.neg >> k) & 1)
            } else {
                ((i.mods.opsel_hi >> k) & 1, (i.mods.abs >> k) & 1)
            };
            for l in 0..LANES {
                let f = f32::from_bits((s[l] >> (32 * sel)) as u32);
                x[k][h][l] = if neg != 0 { -f } else { f };
            }
        }
    }
    let mut out = [0u64; LANES];
    for h in 0..2 {
        let (a, b, c) = (&x[0][h], &x[1][h], &x[2][h]);
        let mut r: F32s = [0.0; LANES];
        for l in 0..LANES {
            r[l] = match i.op {
                Op::VPkAddF32 => add32(a[l], b[l]),
                Op::VPkMulF32 => mul32(a[l], b[l]),
                _ => nan3_32(a[l], b[l], c[l], a[l].mul_add(b[l], c[l])),
            };
            if i.mods.clamp {
                r[l] = if r[l].is_nan() {
                    0.0
                } else {
                    r[l].clamp(0.0, 1.0)
                };
            }
            out[l] |= u64::from(r[l].to_bits()) << (32 * h);
        }
    }
    v.put64(&out);
    Ok(())
}
