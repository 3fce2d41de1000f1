//! Pre-resolved float compares: `v_cmp[x]_<rel>_f32/f64` (every
//! relation, the unordered ones too, VOPC and VOP3 forms with abs/neg) and
//! v_cmp[x]_class_f32/f64.
//!
//! The slow path (vcmp.rs `vopc`) looks the opcode up in its table, copies
//! each source row, applies the modifiers per lane through a 64-bit helper
//! and orders each pair with `partial_cmp`: ~1,600 host instructions per
//! compare. These forms take the same table entry (relation mask 1 less,
//! 2 equal, 4 greater, 8 unordered), apply the same sign-bit and/xor, and
//! test the relations `partial_cmp` tells apart: <, ==, > and "either is a
//! NaN" (so -0 == +0, and denormals compare as they are, as on the host
//! there). The class forms read the class from the exponent and mantissa
//! fields, which is what `class_of` gives (an f32 denormal is a denormal,
//! a NaN with the quiet bit clear is signalling). As in the slow path the
//! result goes to EXEC for v_cmpx, VCC for VOPC, else the VOP3 SGPR, with
//! inactive lanes 0; f16 compares, op_sel, clamp, omod and DPP take `step`.
//! They run in wave64 through fast/wave64.rs.

use crate::gfx11::exec::operand::sdst;
use crate::gfx11::exec::valu::fast_f64::{S64, s32, s64};
use crate::gfx11::inst::{Family, Inst, Mods};
use crate::gfx11::wave::{EXEC, LANES, NULL, NUM_VGPRS, VCC, Wave, pack_lanes};

/// What a [`Fcmp`] compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FcmpKind {
    F32,
    F64,
    /// Class of an f32 (src0) against a bit mask (src1).
    Class32,
    /// Class of an f64 (src0) against a bit mask (src1, 32 bits).
    Class64,
}

/// One pre-resolved float compare (a [`Fast::Fcmp`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fcmp {
    pub kind: FcmpKind,
    /// Relation mask (vcmp.rs): 1 less, 2 equal, 4 greater, 8 unordered.
    pub cond: u8,
    /// VCC, EXEC (v_cmpx) or the VOP3 destination SGPR code.
    pub dst: u8,
    /// abs bits of the sources in bits 0..1, neg bits in 4..5.
    pub mods: u8,
    /// 32-bit sources hold their constant in `S64::Lo`.
    pub a: S64,
    pub b: S64,
}

impl Fcmp {
    /// Is source `k` a 64-bit one (an SGPR pair where it is an SGPR)?
    pub(crate) fn wide(&self, k: usize) -> bool {
        match self.kind {
            FcmpKind::F64 => true,
            FcmpKind::Class64 => k == 0,
            _ => false,
        }
    }
}

pub(crate) fn compile(i: &Inst) -> Option<Fcmp> {
    if i.dpp.is_some() || i.mods.omod != 0 || i.mods.clamp || i.mods.opsel != 0 {
        return None;
    }
    if i.mods.opsel_hi != Mods::default().opsel_hi {
        return None;
    }
    let vop3 = match i.family {
        Family::Vopc => false,
        Family::Vop3 if crate::gfx11::decode::is_vop3_compare(i) => true,
        _ => return None,
    };
    let (class, bits, cond, x) = crate::gfx11::exec::valu::vcmp::float_compare(i.op)?;
    // GFX9's v_cmpx that writes two masks takes the slow path.
    if x && i.flags & Inst::CMPX_WRITES_DST != 0 {
        return None;
    }
    let kind = match (class, bits) {
        (false, 32) => FcmpKind::F32,
        (false, 64) => FcmpKind::F64,
        (true, 32) => FcmpKind::Class32,
        (true, 64) => FcmpKind::Class64,
        _ => return None,
    };
    let dst = if x {
        EXEC as u8
    } else if vop3 {
        sdst(i.dst)?
    } else {
        VCC as u8
    };
    let (a, b) = match kind {
        FcmpKind::F32 | FcmpKind::Class32 => (s32(i.src[0].src)?, s32(i.src[1].src)?),
        FcmpKind::F64 => (s64(i.src[0].src)?, s64(i.src[1].src)?),
        FcmpKind::Class64 => (s64(i.src[0].src)?, s32(i.src[1].src)?),
    };
    Some(Fcmp {
        kind,
        cond,
        dst,
        mods: (i.mods.abs & 3) | (i.mods.neg & 3) << 4,
        a,
        b,
    })
}

/// Source `k`'s 32 bits per lane, sign bit cleared for abs, then flipped for neg.
#[inline(always)]
fn lanes32(w: &Wave, c: &Fcmp, k: usize) -> [u32; LANES] {
    let and = if c.mods >> k & 1 != 0 {
        0x7FFF_FFFF
    } else {
        u32::MAX
    };
    let xor = (c.mods >> (4 + k) & 1) as u32 * 0x8000_0000;
    let v = match [c.a, c.b][k] {
        S64::Vgpr(r) => {
            let row = &w.vgpr[r as usize];
            let mut out = [0u32; LANES];
            for l in 0..LANES {
                out[l] = (row[l] & and) ^ xor;
            }
            return out;
        }
        S64::Sgpr(r) => w.sgpr[r as usize & 127],
        S64::Lo(v) => v,
        // The low dword of `v << 32` (s32 never makes one).
        S64::Hi(_) => 0,
    };
    [(v & and) ^ xor; LANES]
}

/// Source `k`'s 64 bits per lane (a VGPR pair wraps at v255, an SGPR pair
/// reads 0 past the file: `vgpr64` / `sgpr64`), sign bit modified as above.
#[inline(always)]
fn lanes64(w: &Wave, c: &Fcmp, k: usize) -> [u64; LANES] {
    let and = if c.mods >> k & 1 != 0 {
        !(1u64 << 63)
    } else {
        u64::MAX
    };
    let xor = (c.mods >> (4 + k) & 1) as u64 * (1 << 63);
    let v = match [c.a, c.b][k] {
        S64::Vgpr(r) => {
            let lo = &w.vgpr[r as usize];
            let hi = &w.vgpr[(r as usize + 1) & (NUM_VGPRS - 1)];
            let mut out = [0u64; LANES];
            for l in 0..LANES {
                out[l] = ((lo[l] as u64 | (hi[l] as u64) << 32) & and) ^ xor;
            }
            return out;
        }
        S64::Sgpr(r) => w.sgpr64(r as usize),
        S64::Hi(v) => (v as u64) << 32,
        S64::Lo(v) => v as u64,
    };
    [(v & and) ^ xor; LANES]
}

/// The relation bits of `x` against `y` (1 less, 2 equal, 4 greater,
/// 8 unordered), as `partial_cmp` orders them.
macro_rules! relation {
    ($x:expr, $y:expr) => {{
        let (x, y) = ($x, $y);
        (x < y) as u32
            | ((x == y) as u32) << 1
            | ((x > y) as u32) << 2
            | ((x.is_nan() | y.is_nan()) as u32) << 3
    }};
}

/// The v_cmp_class bit of a float given as sign, "exponent all ones",
/// "exponent zero", "mantissa zero" and "quiet bit set": 0 sNaN, 1 qNaN,
/// 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf.
/// Sums and selects, no branches, so the lane loops vectorise.
#[inline(always)]
fn class_bit(neg: bool, max_exp: bool, zero_exp: bool, zero_mant: bool, quiet: bool) -> u32 {
    // +0 6, +denormal 7, +normal 8, +inf 9; a negative one is 11 minus that.
    let pos = 6 + !(zero_exp & zero_mant) as u32 + !zero_exp as u32 + max_exp as u32;
    let signed = if neg { 11 - pos } else { pos };
    if max_exp & !zero_mant {
        quiet as u32
    } else {
        signed
    }
}

/// Run `c` on 32 lanes under `exec` (wave32, or one pass of wave64).
#[inline(always)]
pub(crate) fn run(w: &mut Wave, c: &Fcmp, exec: u32) {
    let cond = c.cond as u32;
    let mut hit = [0u32; LANES];
    match c.kind {
        FcmpKind::F32 => {
            let (a, b) = (lanes32(w, c, 0), lanes32(w, c, 1));
            for l in 0..LANES {
                let r = relation!(f32::from_bits(a[l]), f32::from_bits(b[l]));
                hit[l] = (r & cond != 0) as u32;
            }
        }
        FcmpKind::F64 => {
            let (a, b) = (lanes64(w, c, 0), lanes64(w, c, 1));
            for l in 0..LANES {
                let r = relation!(f64::from_bits(a[l]), f64::from_bits(b[l]));
                hit[l] = (r & cond != 0) as u32;
            }
        }
        FcmpKind::Class32 => {
            let (a, mask) = (lanes32(w, c, 0), lanes32(w, &Fcmp { mods: 0, ..*c }, 1));
            for l in 0..LANES {
                let (e, m) = (a[l] >> 23 & 0xFF, a[l] & 0x7F_FFFF);
                let bit = class_bit(a[l] >> 31 != 0, e == 0xFF, e == 0, m == 0, m >> 22 != 0);
                hit[l] = mask[l] >> bit & 1;
            }
        }
        FcmpKind::Class64 => {
            let (a, mask) = (lanes64(w, c, 0), lanes32(w, &Fcmp { mods: 0, ..*c }, 1));
            for l in 0..LANES {
                let (e, m) = (a[l] >> 52 & 0x7FF, a[l] & ((1 << 52) - 1));
                let bit = class_bit(a[l] >> 63 != 0, e == 0x7FF, e == 0, m == 0, m >> 51 != 0);
                hit[l] = mask[l] >> bit & 1;
            }
        }
    }
    let m = pack_lanes(&hit) & exec;
    if c.dst != NULL as u8 && c.dst < 128 {
        w.sgpr[c.dst as usize] = m;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfx11::decode::decode;
    use crate::gfx11::exec::fast::Fast;
    use crate::gfx11::exec::fast::tests::compare;
    use crate::gfx11::exec::{Env, NoMemory};
    use crate::gfx11::opcodes::VOPC;

    /// f32 edge values: ±0, denormals, the normal limits, ±1, ±inf, quiet
    /// and signalling NaNs (with payloads, both signs), a plain value.
    const F32S: [u32; 16] = [
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007F_FFFF,
        0x0080_0000,
        0x3F80_0000,
        0xBF80_0000,
        0x7F7F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001,
        0xFFC0_1234,
        0xFF80_0042,
        0x3F80_0001,
    ];

    /// The same edges for f64.
    const F64S: [u64; 16] = [
        0,
        1 << 63,
        1,
        (1 << 63) | 1,
        0x000F_FFFF_FFFF_FFFF,
        0x0010_0000_0000_0000,
        0x3FF0_0000_0000_0000,
        0xBFF0_0000_0000_0000,
        0x7FEF_FFFF_FFFF_FFFF,
        0x7FF0_0000_0000_0000,
        0xFFF0_0000_0000_0000,
        0x7FF8_0000_0000_0000,
        0x7FF0_0000_0000_0001,
        0xFFF8_0000_0000_1234,
        0xFFF0_0000_0000_0042,
        0x3FF0_0000_0000_0001,
    ];

    /// A wave whose lanes hold edge-value pairs `first + lane` of all 256
    /// (f32 in v1/v2, f64 in v[10:11]/v[12:13]) and a class mask in v3 (one
    /// bit, all ten, or none, by lane); s4 and s[6:7] hold edge values too.
    fn wave(first: usize, wave64: bool) -> Wave {
        let mut w = Wave {
            wave64,
            ..Wave::default()
        };
        let pair = |p: usize| (p % 16, (p / 16 + p) % 16);
        for half in 0..1 + wave64 as usize {
            let rows = if half == 0 {
                &mut w.vgpr
            } else {
                &mut w.vgpr_hi
            };
            for l in 0..LANES {
                let (x, y) = pair(first + 32 * half + l);
                rows[1][l] = F32S[x];
                rows[2][l] = F32S[y];
                (rows[10][l], rows[11][l]) = (F64S[x] as u32, (F64S[x] >> 32) as u32);
                (rows[12][l], rows[13][l]) = (F64S[y] as u32, (F64S[y] >> 32) as u32);
                rows[3][l] = match (first / 7 + l) % 12 {
                    10 => 0x3FF,
                    11 => 0,
                    b => 1 << b,
                };
            }
        }
        w.sgpr[4] = F32S[first % 16];
        (w.sgpr[6], w.sgpr[7]) = (F64S[first % 16] as u32, (F64S[first % 16] >> 32) as u32);
        w
    }

    /// Every f32/f64 compare and class opcode, VOPC and VOP3 (abs/neg on
    /// either source, SGPR, VCC and null destinations, SGPR and literal
    /// sources), on every pair of edge values under partial and full EXEC,
    /// wave32 and wave64, against `step`.
    #[test]
    fn float_compares_match_the_slow_path_on_edge_values() {
        let mut forms = 0;
        for (n, info) in VOPC.iter().enumerate() {
            let Some(info) = info else { continue };
            let Some((class, bits, _, _)) = crate::gfx11::exec::valu::vcmp::float_compare(info.op)
            else {
                continue;
            };
            if bits == 16 {
                continue;
            }
            let n = n as u32;
            let (a, b) = match (class, bits) {
                (false, 32) => (256 + 1, 2),
                (false, _) => (256 + 10, 12),
                (true, 32) => (256 + 1, 3),
                _ => (256 + 10, 3),
            };
            let sgpr = if bits == 64 && !class { 6 } else { 4 };
            let mut encodings = vec![
                [0x7C00_0000 | n << 17 | b << 9 | a, 0, 0],
                [0x7C00_0000 | n << 17 | b << 9 | sgpr, 0, 0],
                [0x7C00_0000 | n << 17 | b << 9 | 255, 0x3F80_0000, 0],
            ];
            for (mods, dst) in [(0x00, 20), (0x21, 106), (0x12, 20), (0x33, 124), (0x30, 20)] {
                // Class masks take no modifiers (they do not decode).
                let mods = if class { mods & 0x11 } else { mods };
                let (abs, neg) = (mods & 3, mods >> 4);
                let w0 = 0xD400_0000 | n << 16 | abs << 8 | dst;
                encodings.push([w0, neg << 29 | (256 + b) << 9 | a, 0]);
                encodings.push([w0, neg << 29 | a << 9 | 255, 0xFF80_0000]);
                encodings.push([w0, neg << 29 | (256 + b) << 9 | sgpr, 0]);
            }
            for words in encodings {
                let inst = decode(&words).expect("decodes");
                assert_eq!(inst.op, info.op, "{words:08x?}");
                let fast = crate::gfx11::exec::fast::compile(&inst, 0x1_0000);
                assert!(
                    matches!(fast, Fast::Fcmp(_)),
                    "{} {words:08x?}: {fast:?}",
                    inst.mnemonic
                );
                forms += 1;
                for first in (0..256).step_by(32) {
                    for exec in [0x5A5A_F00F, u32::MAX] {
                        let mut w = wave(first, false);
                        w.sgpr[EXEC] = exec;
                        compare(&inst, &fast, &w, 0x1_0000);
                        let mut w = wave(first, true);
                        (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (exec, !exec);
                        let (mut lds, mut scratch) = ([0u8; 0], [0u8; 0]);
                        let mut env = Env {
                            mem: &NoMemory,
                            lds: &mut lds,
                            scratch: &mut scratch,
                            scratch_va: 0,
                            scratch_wave_bytes: 0,
                            scratch_wave64: false,
                            scratch_per_lane: 0,
                            shared_base: 0,
                            private_base: 0,
                            spans: &mut Default::default(),
                            lds_bank_conflicts: None,
                            observer: None,
                        };
                        assert!(
                            crate::gfx11::exec::fast::run(&mut w.clone(), &mut env, &fast)
                                .is_some(),
                            "{}: runs in wave64",
                            inst.mnemonic
                        );
                        compare(&inst, &fast, &w, 0x1_0000);
                    }
                }
            }
        }
        // 2 widths x 16 relations x compare/cmpx + 2 class x 2, 18 encodings each.
        assert_eq!(forms, (2 * 16 * 2 + 4) * 18);
    }
}
