//! The fast forms of GFX9 instructions against `step`: gfx942 words decoded
//! by the GFX9 decoder and normalised (gfx9/exec_form.rs), as the code
//! cache compiles them, then run as the gfx11 words are (`check_inst`),
//! under random, full, empty, one- and two-lane EXEC masks in wave32 and
//! wave64. GFX9 has forms gfx11 lacks (VOP2 carry ops writing VCC,
//! v_lshl_add_u64, v_mov_b64, v_fmac_f64), which only this covers.

use super::{Coverage, Rng, check_inst};
use crate::gfx9::Target;
use crate::gfx9::decode::decode;
use crate::gfx9::exec_form::normalise;
use crate::gfx9::opcodes::{OpInfo, tables};

/// Opcode numbers of a GFX9 table, with their entries.
fn ops(table: &'static [Option<OpInfo>]) -> impl Iterator<Item = (u32, &'static OpInfo)> {
    table
        .iter()
        .enumerate()
        .filter_map(|(n, info)| info.as_ref().map(|i| (n as u32, i)))
}

/// gfx942 encodings of every SOP1, VOP1, VOP2 and VOPC opcode, of the SOPK
/// moves, compares, adds and multiplies, and of the
/// VOP3 opcodes whose name starts with one of `vop3`, with plain operands
/// of each kind (GFX9 codes: SGPR, VCC, inline integer and float, literal,
/// VGPR; VOP3 takes no literal), the destination also a source now and
/// then. VOP3B words carry their SDST in bits 14:8 (s0 or VCC).
pub(crate) fn encodings(vop3: &[&str]) -> Vec<[u32; 3]> {
    const V: [u32; 3] = [256 + 10, 256 + 21, 256 + 40];
    const S: [u32; 2] = [4, 14];
    const VCC: u32 = 106;
    const INT: u32 = 128 + 7;
    const NEG: u32 = 192 + 5;
    const FLT: u32 = 242;
    const LIT: u32 = 255;
    let lit = 0x4049_0FDB;
    let t = tables(Target::Gfx942);
    let mut out = Vec::new();
    for (n, _) in ops(t.sop1) {
        for a in [S[0], INT, LIT, VCC] {
            for dst in [20, VCC] {
                out.push([0xBE80_0000 | dst << 16 | n << 8 | a, lit, 0]);
            }
        }
    }
    // The SOPK forms of an SGPR and the 16-bit constant (positive,
    // negative, and the sign bit alone for the unsigned compares).
    for (n, info) in ops(t.sopk) {
        if !["s_movk", "s_cmpk", "s_addk", "s_mulk"]
            .iter()
            .any(|p| info.mnemonic.starts_with(p))
        {
            continue;
        }
        for simm in [0x0005, 0xFFF0, 0x8000] {
            for dst in [S[0], VCC] {
                out.push([0xB000_0000 | n << 23 | dst << 16 | simm, 0, 0]);
            }
        }
    }
    let vector = [V[0], S[0], INT, NEG, FLT, LIT, VCC];
    for (n, _) in ops(t.vop1) {
        for a in vector {
            out.push([0x7E00_0000 | 40 << 17 | n << 9 | a, lit, 0]);
        }
    }
    for (n, _) in ops(t.vop2) {
        for a in vector.into_iter().chain([V[2]]) {
            out.push([n << 25 | 40 << 17 | 21 << 9 | a, lit, 0]);
        }
    }
    for (n, _) in ops(t.vopc) {
        for a in vector {
            out.push([0x7C00_0000 | n << 17 | 21 << 9 | a, lit, 0]);
        }
    }
    // One-source ops only decode with src1 and src2 zero.
    let triples = [
        [V[0], 0, 0],
        [S[0], 0, 0],
        [V[0], V[1], V[2]],
        [S[0], V[1], S[1]],
        [V[0], S[1], V[2]],
        [INT, V[1], V[2]],
        [V[2], INT, NEG],
        [VCC, V[1], FLT],
        [S[0], S[1], INT],
    ];
    for (n, info) in ops(t.vop3) {
        if !vop3.iter().any(|p| info.mnemonic.starts_with(p)) {
            continue;
        }
        for [a, b, c] in triples {
            for high in [0, VCC] {
                let w0 = 0xD000_0000 | n << 16 | high << 8 | 40;
                for c in [c, 0] {
                    out.push([w0, c << 18 | b << 9 | a, 0]);
                }
            }
        }
    }
    out
}

/// Every GFX9 instruction the fast path accepts computes what `step`
/// computes: the decoded gfx942 words above (each form covered whatever
/// the seed), with the forms only GFX9 has named as covered.
#[test]
fn gfx9_fast_forms_match_the_slow_path() {
    let mut cov = Coverage::default();
    let mut rng = Rng::new(0x6A09_E667_F3BC_C909);
    let vop3 = [
        "v_add_co_u32",
        "v_sub_co_u32",
        "v_subrev_co_u32",
        "v_addc_co_u32",
        "v_subb_co_u32",
        "v_lshl_add_u64",
        "v_mov_b64",
        "v_fmac_f64",
        "v_fma_f64",
        "v_trunc_f32",
        "v_mad_u64_u32",
        "v_lshlrev_b64",
    ];
    for words in encodings(&vop3) {
        let Ok(inst) = decode(Target::Gfx942, &words) else {
            continue;
        };
        let Ok(inst) = normalise(Target::Gfx942, inst) else {
            continue;
        };
        check_inst(&inst, inst.mnemonic, 2, &mut rng, &mut cov);
    }
    let forms = [
        "v_add_co_u32_e32",
        "v_sub_co_u32_e32",
        "v_subrev_co_u32_e32",
        "v_addc_co_u32_e32",
        "v_subb_co_u32_e32",
        "v_add_co_u32_e64",
        "v_lshl_add_u64",
        "v_mov_b64_e32",
        "v_mov_b64_e64",
        "v_fmac_f64_e32",
        "v_fmac_f64_e64",
        "v_trunc_f32_e32",
        "v_trunc_f32_e64",
        "s_ff1_i32_b64",
    ];
    for name in forms {
        assert!(
            cov.wave32.contains(name),
            "{name} never took the fast path: {:?}",
            cov.wave32
        );
    }
    // In wave64 too, but for the scalar one (the same code in both).
    for name in &forms[..forms.len() - 1] {
        assert!(
            cov.wave64.contains(*name),
            "{name} never took the fast path in wave64: {:?}",
            cov.wave64
        );
    }
}
