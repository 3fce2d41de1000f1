//! 64-bit vector ALU encodings of GFX9 (AMD CDNA3 ISA guide, "Microcode
//! Formats", VOP3A/VOP3B/VOP3P/VOP3P-MAI).
//! VOP3A: vdst [7:0], abs [10:8], op_sel [14:11], clamp [15], op [25:16];
//! src0 [40:32], src1 [49:41], src2 [58:50], omod [60:59], neg [63:61].
//! VOP3B (ops with a scalar carry/flag result): sdst [14:8] replaces abs and
//! op_sel. VOP3P: neg_hi [10:8], op_sel [13:11], op_sel_hi[2] [14], clamp
//! [15], op [22:16]; op_sel_hi[1:0] [60:59], neg_lo [63:61]. VOP3P-MAI
//! (op 0x40 and up, and gfx942's xf32 MFMAs): cbsz [10:8], abid [14:11],
//! acc_cd [15]; abid doubles as smfmac's index select, blgp [63:61] as the
//! f64 MFMAs' neg bits; acc [60:59] marks AGPR sources A and B.
//! GFX9 VOP3 words take no literal (LLVM decodes code 255 as invalid).
//!
//! Which modifier fields an op has follows LLVM's VOP profiles
//! (`VOPInstructions.td`, `VOP3Instructions.td`, `VOP3PInstructions.td`: a
//! field the profile lacks is encoded as zero, so a word with it set does
//! not decode); the per-op facts below were checked against
//! llvm-objdump-19's verdicts for every opcode of gfx90a and gfx942.

use super::operand::src_code_valid;
use super::{Cx, base_inst, lookup};
use crate::gfx11::decode::{DecodeError, DecodeErrorKind, decode_src};
use crate::gfx11::inst::{Family, Inst, Mai};
use crate::opcodes::{Op, OpInfo};

fn srcs(w1: u32) -> [u16; 3] {
    [
        (w1 & 0x1FF) as u16,
        ((w1 >> 9) & 0x1FF) as u16,
        ((w1 >> 18) & 0x1FF) as u16,
    ]
}

/// Does a VGPR tuple of `width` starting at `reg` end at or below v255?
fn fits(reg: u16, width: u8) -> bool {
    reg + width.max(1) as u16 <= 256
}

/// Is `code` a valid VOP3 source of `width` dwords? (No literal, no
/// SDWA/DPP marker; VGPR tuples within the file; a wider-than-64-bit
/// scalar operand may name a special pair, vcc, exec, flat_scratch or
/// xnack_mask, which LLVM decodes and flags with its register class.)
fn src_ok(code: u16, width: u8) -> bool {
    match code {
        256..=511 => fits(code - 256, width),
        255 => false,
        102 | 104 | 106 | 126 if width >= 3 => true,
        _ => src_code_valid(code, width),
    }
}

/// The op name of a VOP3 mnemonic (its `_e64` suffix dropped): GFX9's
/// names, which the rules below match (the shared `Op` may carry gfx11's).
pub(crate) fn base_name(mnemonic: &str) -> &str {
    mnemonic.trim_end_matches("_e64")
}

/// The `[fiub]NN` type tokens of an op name (`v_cvt_f32_f16` → f32, f16).
fn type_tokens(name: &str) -> impl Iterator<Item = &str> {
    name.split('_').filter(|t| {
        t.len() >= 2
            && matches!(t.as_bytes()[0], b'f' | b'i' | b'u' | b'b')
            && t[1..].bytes().all(|c| c.is_ascii_digit())
    })
}

/// Is the result a float (the first type token)?
fn dst_float(name: &str) -> bool {
    type_tokens(name).next().is_some_and(|t| t.starts_with('f'))
}

/// Ops with float and integer sources whose integer sources keep a neg
/// bit as sign extension (`sext`) and drop abs (LLVM's VOP3 profiles with
/// integer source modifiers).
pub(crate) fn sext_int_srcs(name: &str) -> bool {
    matches!(
        name,
        "v_cvt_pkaccum_u8_f32"
            | "v_trig_preop_f64"
            | "v_cvt_pk_u8_f32"
            | "v_ldexp_f32"
            | "v_ldexp_f64"
            | "v_ldexp_f16"
    )
}

/// Does source `k` of VOP3 op `name` take float modifiers (neg/abs)? (Its
/// type, the last type token of the name, is a float; the class compares'
/// mask, cndmask's condition, the byte conversions, the stochastic
/// rounding seed and the mixed ops' integer operands take none.)
pub(crate) fn src_float(name: &str, k: usize) -> bool {
    if name.starts_with("v_cndmask") {
        return k < 2;
    }
    // v_cvt_sr_*'s src1 is the rounding seed, an integer.
    let int_src1 = sext_int_srcs(name) || name.contains("class") || name.starts_with("v_cvt_sr_");
    // The fp8/bf8 conversions read packed bytes.
    let bytes = name.contains("ubyte") || name.ends_with("fp8") || name.ends_with("bf8");
    if (k >= 1 && int_src1) || bytes {
        return false;
    }
    type_tokens(name).last().is_some_and(|t| t.starts_with('f'))
}

/// The native 16-bit VOP3 ops of GFX9 that carry op_sel (LLVM's VOP3
/// OpSel profiles: a bit per source and one for the destination).
fn opsel_op(name: &str) -> bool {
    matches!(
        name,
        "v_mad_u16"
            | "v_mad_i16"
            | "v_mad_f16"
            | "v_fma_f16"
            | "v_div_fixup_f16"
            | "v_mad_u32_u16"
            | "v_mad_i32_i16"
            | "v_add_i16"
            | "v_sub_i16"
            | "v_pack_b32_f16"
            | "v_cvt_pknorm_i16_f16"
            | "v_cvt_pknorm_u16_f16"
    ) || (["v_min3_", "v_max3_", "v_med3_"]
        .iter()
        .any(|p| name.starts_with(p))
        && name.ends_with("16"))
}

/// gfx942's packing fp8/bf8 conversions (op_sel selects the result word).
fn pk_fp8(name: &str) -> bool {
    matches!(name, "v_cvt_pk_fp8_f32" | "v_cvt_pk_bf8_f32")
}

/// Ops whose op_sel bits LLVM reads (other ops ignore them).
fn keeps_opsel(name: &str) -> bool {
    opsel_op(name) || name.starts_with("v_cvt_sr_") || pk_fp8(name)
}

/// Ops whose integer-source neg/abs bits LLVM ignores (neither rejected nor
/// printed): the op_sel ops, gfx942's stochastic-rounding fp8 conversions
/// and the VOP3 forms of the dot products.
fn ignores_int_mods(name: &str) -> bool {
    opsel_op(name) || name.starts_with("v_cvt_sr_") || name.starts_with("v_dot")
}

/// Integer ops that take clamp (saturation): the adds/subtracts, the
/// 24-bit multiplies, the multiply-adds and SADs, the op_sel ops, the dot
/// products.
fn int_clamp(name: &str) -> bool {
    let add_sub = matches!(
        name,
        "v_mul_i32_i24"
            | "v_mul_u32_u24"
            | "v_add_u32"
            | "v_sub_u32"
            | "v_subrev_u32"
            | "v_add_u16"
            | "v_sub_u16"
            | "v_subrev_u16"
            | "v_add_co_u32"
            | "v_sub_co_u32"
            | "v_subrev_co_u32"
            | "v_addc_co_u32"
            | "v_subb_co_u32"
            | "v_subbrev_co_u32"
            | "v_add_i32"
            | "v_sub_i32"
    );
    add_sub
        || opsel_op(name)
        || name.contains("mad")
        || name.contains("sad")
        || name.starts_with("v_dot")
}

/// Float-source ops without omod: the packing and rounding conversions,
/// v_frexp_exp_i32_f32 and v_cndmask_b32.
fn no_omod(name: &str) -> bool {
    name.contains("pknorm")
        || name.starts_with("v_cvt_sr_")
        || pk_fp8(name)
        || matches!(
            name,
            "v_cvt_pk_u8_f32"
                | "v_cvt_rpi_i32_f32"
                | "v_cvt_flr_i32_f32"
                | "v_frexp_exp_i32_f32"
                | "v_cvt_pkaccum_u8_f32"
                | "v_pack_b32_f16"
                | "v_cndmask_b32"
        )
}

/// Float-source ops without clamp: the class compares, v_cndmask_b32 and
/// the fp8/bf8 packing conversions.
fn no_clamp(name: &str) -> bool {
    name.starts_with("v_cvt_sr_")
        || name.contains("class")
        || name == "v_cndmask_b32"
        || pk_fp8(name)
}

pub(super) fn vop3(cx: &Cx) -> Result<Inst, DecodeError> {
    cx.need(2, None)?;
    let (w0, w1) = (cx.w(0), cx.w(1));
    let opcode = ((w0 >> 16) & 0x3FF) as usize;
    let info = lookup(cx.t.vop3, opcode, cx.words, 2)?;
    let codes = srcs(w1);
    let compare = opcode < 0x100;
    let sd = info.widths[4] != 0 && !compare;
    let mut i = base_inst(
        if sd { Family::Vop3sd } else { Family::Vop3 },
        info,
        cx.words,
        2,
    );
    i.dst = (w0 & 0xFF) as u16;
    for (k, &code) in codes.iter().enumerate() {
        if info.widths[k + 1] != 0 {
            i.src[k] = decode_src(code, info.op, info.widths[k + 1], None);
        }
    }
    if sd {
        i.sdst = ((w0 >> 8) & 0x7F) as u8;
    } else {
        i.mods.abs = ((w0 >> 8) & 7) as u8;
        i.mods.opsel = ((w0 >> 11) & 0xF) as u8;
    }
    i.mods.clamp = (w0 >> 15) & 1 != 0;
    i.mods.omod = ((w1 >> 27) & 3) as u8;
    i.mods.neg = ((w1 >> 29) & 7) as u8;
    validate_vop3(cx, &i, info, codes, compare)?;
    // Keep only the modifiers LLVM reads: neg/abs of float sources, neg as
    // sext on the mixed ops' integer sources, op_sel of the op_sel ops.
    let name = base_name(info.mnemonic);
    let float_slots = (0..3)
        .filter(|&k| src_float(name, k))
        .fold(0u8, |m, k| m | 1 << k);
    i.mods.abs &= float_slots;
    if !sext_int_srcs(name) {
        i.mods.neg &= float_slots;
    }
    if !keeps_opsel(name) {
        i.mods.opsel = 0;
    }
    Ok(i)
}

/// LLVM's rules for GFX9 VOP3 words (its VOP3a/VOP3b encodings fix a
/// field the op's profile lacks at zero): defined source codes of the
/// right width and no literal; unused source slots zero, without
/// modifiers; neg/abs only on float sources (some ops ignore them on their
/// integer ones); clamp on float ops and the saturating integer ones; omod
/// on float ops but compares and the packing conversions; compares write
/// an SGPR pair (or a flagged constant), VOP3b ops an SGPR pair carry.
fn validate_vop3(
    cx: &Cx,
    i: &Inst,
    info: &OpInfo,
    codes: [u16; 3],
    compare: bool,
) -> Result<(), DecodeError> {
    let bad = DecodeErrorKind::InvalidOperand;
    let reserved = DecodeErrorKind::ReservedField;
    let name = base_name(info.mnemonic);
    let w = info.widths;
    let m = &i.mods;
    let lenient = ignores_int_mods(name) || sext_int_srcs(name);
    // v_cvt_sr_* read their destination as a third operand.
    let n_slots = if name.starts_with("v_cvt_sr_") { 2 } else { 3 };
    for (k, &code) in codes.iter().enumerate() {
        let mods = ((m.abs | m.neg) >> k) & 1;
        if w[k + 1] == 0 {
            let mods = if k < n_slots { mods } else { 0 };
            cx.require(code == 0 && mods == 0, reserved, 2, info)?;
            continue;
        }
        cx.require(src_ok(code, w[k + 1]), bad, 2, info)?;
        let float = src_float(name, k);
        cx.require(float || lenient || mods == 0, reserved, 2, info)?;
    }
    let any_float = (0..3).any(|k| w[k + 1] != 0 && src_float(name, k));
    let fdst = dst_float(name);
    let omod_ok = m.omod == 0 || (!compare && (fdst || any_float) && !no_omod(name));
    cx.require(omod_ok, reserved, 2, info)?;
    let clamp_ok = !m.clamp || ((any_float || fdst || int_clamp(name)) && !no_clamp(name));
    cx.require(clamp_ok, reserved, 2, info)?;
    // The op_sel ops select halves of the sources they have only.
    if opsel_op(name) || pk_fp8(name) {
        let n = (0..3).filter(|&k| w[k + 1] != 0).count();
        cx.require(m.opsel & 7 & !((1u8 << n) - 1) == 0, reserved, 2, info)?;
    }
    // A VGPR destination tuple ends at or below v255.
    let vector_dst = !compare && info.op != Op::VReadlaneB32;
    cx.require(!vector_dst || fits(i.dst, w[0]), bad, 2, info)?;
    if compare {
        let d = i.dst;
        cx.require(d != 124 && d != 255 && src_code_valid(d, 2), bad, 2, info)?;
    }
    if i.family == Family::Vop3sd {
        cx.require(super::operand::sdst_valid(i.sdst as u16, 2), bad, 2, info)?;
    }
    Ok(())
}

/// Is `op` a matrix-core op (VOP3P-MAI: v_mfma_*, v_smfmac_*, and the
/// AGPR moves v_accvgpr_read/write, which share the encoding)?
pub(crate) fn is_mai(op: Op) -> bool {
    let n = op.name();
    n.starts_with("v_mfma_") || n.starts_with("v_smfmac_") || n.starts_with("v_accvgpr_")
}

pub(super) fn vop3p(cx: &Cx) -> Result<Inst, DecodeError> {
    cx.need(2, None)?;
    let (w0, w1) = (cx.w(0), cx.w(1));
    let info = lookup(cx.t.vop3p, ((w0 >> 16) & 0x7F) as usize, cx.words, 2)?;
    let codes = srcs(w1);
    let mut i = base_inst(Family::Vop3p, info, cx.words, 2);
    i.dst = (w0 & 0xFF) as u16;
    for (k, &code) in codes.iter().enumerate() {
        if info.widths[k + 1] != 0 {
            i.src[k] = decode_src(code, info.op, info.widths[k + 1], None);
        }
    }
    if is_mai(info.op) {
        return mai(cx, i, info, codes);
    }
    i.mods.abs = ((w0 >> 8) & 7) as u8; // neg_hi
    i.mods.opsel = ((w0 >> 11) & 7) as u8;
    i.mods.opsel_hi = (((w1 >> 27) & 3) | (((w0 >> 14) & 1) << 2)) as u8;
    i.mods.clamp = (w0 >> 15) & 1 != 0;
    i.mods.neg = ((w1 >> 29) & 7) as u8;
    cx.require(
        fits(i.dst, info.widths[0]),
        DecodeErrorKind::InvalidOperand,
        2,
        info,
    )?;
    // An absent source has code 0 and no neg_lo, neg_hi or op_sel bit.
    for (k, &code) in codes.iter().enumerate() {
        let width = info.widths[k + 1];
        if width != 0 {
            cx.require(
                src_ok(code, width),
                DecodeErrorKind::InvalidOperand,
                2,
                info,
            )?;
        } else {
            let mods = ((i.mods.neg | i.mods.abs | i.mods.opsel) >> k) & 1;
            cx.require(
                code == 0 && mods == 0,
                DecodeErrorKind::ReservedField,
                2,
                info,
            )?;
        }
    }
    Ok(i)
}

/// VOP3P-MAI: the matrix controls go to `Inst::mai`, the AGPR selects to
/// `Inst::acc` (acc_cd: the destination and src2 C; acc [60:59]: A, B).
/// A source VGPR tuple must end at or below v255 (a 1024-bit one is named
/// by its first register when it is scalar).
fn mai(cx: &Cx, mut i: Inst, info: &OpInfo, codes: [u16; 3]) -> Result<Inst, DecodeError> {
    let (w0, w1) = (cx.w(0), cx.w(1));
    let bad = DecodeErrorKind::InvalidOperand;
    let reserved = DecodeErrorKind::ReservedField;
    if matches!(info.op, Op::VAccvgprReadB32 | Op::VAccvgprWriteB32) {
        // The AGPR moves use plain VOP3P fields: no neg_lo/neg_hi/op_sel
        // and no src1/src2; clamp and op_sel_hi are not read (llvm-mc-19
        // -mcpu=gfx90a verdicts).
        cx.require(
            (w0 >> 8) & 0x3F == 0 && w1 >> 29 == 0 && codes[1] == 0 && codes[2] == 0,
            reserved,
            2,
            info,
        )?;
        cx.require(src_ok(codes[0], 1), bad, 2, info)?;
        i.acc = if info.op == Op::VAccvgprReadB32 {
            Inst::ACC_SRC0
        } else {
            Inst::ACC_DST
        };
        return Ok(i);
    }
    let mut acc = 0;
    if (w0 >> 15) & 1 != 0 {
        acc |= Inst::ACC_DST | Inst::ACC_SRC2;
    }
    if (w1 >> 27) & 1 != 0 {
        acc |= Inst::ACC_SRC0;
    }
    if (w1 >> 28) & 1 != 0 {
        acc |= Inst::ACC_SRC1;
    }
    i.acc = acc;
    i.mai = Some(Mai {
        cbsz: ((w0 >> 8) & 7) as u8,
        abid: ((w0 >> 11) & 0xF) as u8,
        blgp: (w1 >> 29) as u8,
    });
    for (k, &code) in codes.iter().enumerate() {
        let width = info.widths[k + 1];
        let ok = match code {
            // No 1024-bit scalar class: LLVM reads one SGPR or TTMP there
            // (or a special pair), never a 32-bit special register.
            0..=101 | 108..=123 if width >= 32 => true,
            103 | 105 | 107 | 124 | 127 if width >= 32 => false,
            _ => src_ok(code, width),
        };
        cx.require(width == 0 || ok, bad, 2, info)?;
    }
    cx.require(fits(i.dst, info.widths[0]), bad, 2, info)?;
    // The sparse ops have no blgp (their abid selects the index set).
    let smfmac = info.mnemonic.starts_with("v_smfmac_");
    cx.require(!smfmac || w1 >> 29 == 0, reserved, 2, info)?;
    Ok(i)
}
