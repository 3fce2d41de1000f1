//! 64-bit VALU encodings: VOP3 (incl. VOPC/VOP1/VOP2 promoted), VOP3SD (scalar
//! destination in bits [14:8]) and VOP3P (packed 16-bit, fma_mix, dot).
//! VOP3: vdst [7:0], abs [10:8], op_sel [14:11], clamp 15, op [25:16],
//! src0 [40:32], src1 [49:41], src2 [58:50], omod [60:59], neg [63:61].
//! VOP3P: neg_hi [10:8], op_sel [13:11], op_sel_hi[2] 14, op [22:16], op_sel_hi[1:0] [60:59].

use super::operand_class::{
    dst_is_float, ignores_int_mods, int_clamp, no_dpp, src_is_float, vop3_opsel_op,
};
use super::{
    DecodeError, DecodeErrorKind, base_inst, decode_src, is_vop3_compare, lookup, require,
    src_code_valid, take_literal, truncated,
};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::opcodes::Op;
use crate::gfx11::opcodes::{VOP3, VOP3P};

fn srcs(w1: u32) -> [u16; 3] {
    [
        (w1 & 0x1FF) as u16,
        ((w1 >> 9) & 0x1FF) as u16,
        ((w1 >> 18) & 0x1FF) as u16,
    ]
}

pub(super) fn vop3(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let (w0, w1) = (words[0], words[1]);
    let info = lookup(&VOP3, ((w0 >> 16) & 0x3FF) as usize, words, 2)?;
    let codes = srcs(w1);
    let used = |k: usize| info.widths[k + 1] != 0;
    // A DPP marker in src0 (233/234 DPP8, 250 DPP16): a third dword holds
    // the permuted src0 VGPR and the controls (VOP3 DPP, `_e64_dpp`).
    let dpp = if used(0) && matches!(codes[0], 233 | 234 | 250) {
        let Some(&d) = words.get(2) else {
            return Err(truncated(words, Some(info.mnemonic)));
        };
        Some(super::vop::dpp_controls(codes[0], d))
    } else {
        None
    };
    let fixed = if dpp.is_some() { 3 } else { 2 };
    let needs = (0..3).any(|k| used(k) && codes[k] == 255);
    let (lit, len) = take_literal(words, fixed, needs, info)?;
    let sd = info.widths[4] != 0;
    let mut i = base_inst(
        if sd { Family::Vop3sd } else { Family::Vop3 },
        info,
        words,
        len,
    );
    i.literal = lit;
    i.dst = (w0 & 0xFF) as u16;
    for k in 0..3 {
        if used(k) {
            i.src[k] = decode_src(codes[k], info.op, info.widths[k + 1], lit);
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
    if let Some((d, src, _)) = dpp {
        i.dpp = Some(d);
        i.src[0] = src;
    }
    validate_vop3(&i, words, info, codes)?;
    if ignores_int_mods(i.op) {
        let float_slots = (0..3)
            .filter(|&k| src_is_float(i.op, k))
            .fold(0u8, |m, k| m | 1 << k);
        // Under DPP (and always for v_cvt_pk_u8_f32) a neg bit on an
        // integer source is kept: sext().
        if i.dpp.is_none() && i.op != Op::VCvtPkU8F32 {
            i.mods.neg &= float_slots;
        }
        i.mods.abs &= float_slots;
    }
    Ok(i)
}

/// LLVM's rules for VOP3 words: the fields of source slots the op does not
/// use (code, neg, abs) are zero; source codes are defined ones (src0 of a
/// DPP form is the permuted VGPR); 64-bit sources take no LDS direct;
/// compares take no omod.
fn validate_vop3(
    i: &Inst,
    words: &[u32],
    info: &crate::gfx11::opcodes::OpInfo,
    codes: [u16; 3],
) -> Result<(), DecodeError> {
    let n = i.len as usize;
    let bad = DecodeErrorKind::InvalidOperand;
    let reserved = DecodeErrorKind::ReservedField;
    let sd = i.family == Family::Vop3sd;
    if i.dpp.is_some() {
        // No DPP form for 64-bit operands and the ops LLVM lists without one.
        let ok = !no_dpp(i.op, info.widths)
            && !matches!(
                i.op,
                Op::VFmaDx9ZeroF32
                    | Op::VDivFixupF32
                    | Op::VDivFmasF32
                    | Op::VDivScaleF32
                    | Op::VPermlane16B32
                    | Op::VPermlanex16B32
                    | Op::VDot2F16F16
                    | Op::VMulLoU32
                    | Op::VMulHiU32
                    | Op::VMulHiI32
                    | Op::VReadlaneB32
                    | Op::VWritelaneB32
            );
        require(ok, reserved, words, n, info)?;
    }
    for (k, &code) in codes.iter().enumerate() {
        let width = info.widths[k + 1];
        if width == 0 {
            let abs = if sd { 0 } else { (i.mods.abs >> k) & 1 };
            let mods = abs | ((i.mods.neg >> k) & 1);
            require(code == 0 && mods == 0, reserved, words, n, info)?;
            continue;
        }
        let dpp_src0 = k == 0 && i.dpp.is_some();
        if code < 256 && !dpp_src0 {
            require(src_code_valid(code, width), bad, words, n, info)?;
            require(width < 2 || code != 254, bad, words, n, info)?;
        }
    }
    // The native 16-bit ops select halves of the sources they have only.
    if vop3_opsel_op(i.op) {
        for k in 0..3 {
            let unused = info.widths[k + 1] == 0 && (i.mods.opsel >> k) & 1 != 0;
            require(!unused, reserved, words, n, info)?;
        }
    }
    // Integer sources take no neg/abs (v_cndmask_b32/_b16 take float
    // modifiers on their two data sources, none on the mask).
    let mods = i.mods.neg | if sd { 0 } else { i.mods.abs };
    for k in 0..3 {
        if (mods >> k) & 1 != 0 {
            let ok = if matches!(i.op, Op::VCndmaskB32 | Op::VCndmaskB16) {
                k < 2
            } else {
                src_is_float(i.op, k) || ignores_int_mods(i.op)
            };
            require(ok, reserved, words, n, info)?;
        }
    }
    // Output modifiers: omod for float results of ops without op_sel;
    // clamp for float results and the saturating integer ops.
    let fdst = dst_is_float(i.op) && i.op != Op::VCndmaskB32;
    let no_omod = i.op.name().contains("dot");
    // Promoted VOP1 conversions from float take omod too (LLVM's verdicts;
    // not cvt_nearest/cvt_floor/frexp_exp of f32).
    let vop1_op = (0x180..0x200).contains(&((words[0] >> 16) & 0x3FF));
    let fsrc = vop1_op
        && src_is_float(i.op, 0)
        && !matches!(
            i.op,
            Op::VCvtNearestI32F32 | Op::VCvtFloorI32F32 | Op::VFrexpExpI32F32
        );
    let omod_ok = i.mods.omod == 0 || ((fdst || fsrc) && !no_omod);
    require(omod_ok, reserved, words, n, info)?;
    if !is_vop3_compare(i) {
        let clamp_ok = !i.mods.clamp
            || ((fdst || int_clamp(i.op) || src_is_float(i.op, 0))
                && !matches!(i.op, Op::VDot2Bf16Bf16 | Op::VDot2F16F16));
        require(clamp_ok, reserved, words, n, info)?;
    }
    if is_vop3_compare(i) {
        require(i.mods.omod == 0, reserved, words, n, info)?;
        // No clamp on integer compares.
        require(
            !i.mods.clamp || src_is_float(i.op, 0),
            reserved,
            words,
            n,
            info,
        )?;
        // The sdst field holds an SGPR, an aperture or (flagged) a constant.
        // (v_cmpx has no sdst: the field is not read.)
        let sdst_ok =
            matches!(i.dst, 0..=208 | 235..=239 | 240..=248) || i.op.name().starts_with("v_cmpx");
        require(sdst_ok, bad, words, n, info)?;
    }
    Ok(())
}

pub(super) fn vop3p(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let (w0, w1) = (words[0], words[1]);
    let info = lookup(&VOP3P, ((w0 >> 16) & 0x7F) as usize, words, 2)?;
    let codes = srcs(w1);
    let used = |k: usize| info.widths[k + 1] != 0;
    // A DPP marker in src0 (233/234 DPP8, 250 DPP16): a third dword holds
    // the permuted src0 VGPR and the controls (VOP3P DPP, `_e64_dpp`; only
    // v_dot2_f32_f16 and the v_fma_mix ops have that form).
    let dpp = if matches!(codes[0], 233 | 234 | 250) {
        let has_dpp = matches!(
            info.op,
            Op::VDot2F32F16 | Op::VFmaMixF32 | Op::VFmaMixloF16 | Op::VFmaMixhiF16
        );
        require(has_dpp, DecodeErrorKind::ReservedField, words, 2, info)?;
        let Some(&d) = words.get(2) else {
            return Err(truncated(words, Some(info.mnemonic)));
        };
        Some(super::vop::dpp_controls(codes[0], d))
    } else {
        None
    };
    // Reserved source codes and scalar tuples that do not fit (src0 of a
    // DPP form is the permuted VGPR). A WMMA matrix operand also decodes vcc
    // and exec as 8-dword tuples, which LLVM prints with an invalid-register
    // comment.
    let bad = (0..3).any(|k| {
        let (code, width) = (codes[k], info.widths[k + 1]);
        let dpp_src0 = k == 0 && dpp.is_some();
        used(k)
            && code < 256
            && !dpp_src0
            && !src_code_valid(code, width)
            && !(width >= 3 && matches!(code, 106 | 126))
    });
    require(!bad, DecodeErrorKind::InvalidOperand, words, 2, info)?;
    let fixed = if dpp.is_some() { 3 } else { 2 };
    let needs = (0..3).any(|k| used(k) && codes[k] == 255);
    let (lit, len) = take_literal(words, fixed, needs, info)?;
    let mut i = base_inst(Family::Vop3p, info, words, len);
    i.literal = lit;
    i.dst = (w0 & 0xFF) as u16;
    for k in 0..3 {
        if used(k) {
            i.src[k] = decode_src(codes[k], info.op, info.widths[k + 1], lit);
        }
    }
    i.mods.abs = ((w0 >> 8) & 7) as u8; // neg_hi
    i.mods.opsel = ((w0 >> 11) & 7) as u8;
    i.mods.opsel_hi = (((w1 >> 27) & 3) | (((w0 >> 14) & 1) << 2)) as u8;
    i.mods.clamp = (w0 >> 15) & 1 != 0;
    i.mods.neg = ((w1 >> 29) & 7) as u8;
    if let Some((d, src, _)) = dpp {
        i.dpp = Some(d);
        i.src[0] = src;
    }
    validate_vop3p(&i, words, info, codes)?;
    Ok(i)
}

/// LLVM's VOP3P encoding rules (its `VOP3Pe` class: a field the op's profile
/// lacks must be zero): an absent source has code 0 and no neg_lo, neg_hi or
/// op_sel bit; the WMMA ops with f32 or i32 results have no op_sel (their
/// op_sel_hi bits are ignored); clamp exists on every op but the float WMMAs.
fn validate_vop3p(
    i: &Inst,
    words: &[u32],
    info: &crate::gfx11::opcodes::OpInfo,
    codes: [u16; 3],
) -> Result<(), DecodeError> {
    let n = i.len as usize;
    let reserved = DecodeErrorKind::ReservedField;
    let m = &i.mods;
    for (k, &code) in codes.iter().enumerate() {
        if info.widths[k + 1] == 0 {
            let mods = (m.neg | m.abs | m.opsel) >> k & 1;
            require(code == 0 && mods == 0, reserved, words, n, info)?;
        }
    }
    require(
        m.opsel == 0 || vop3p_has_opsel(i.op),
        reserved,
        words,
        n,
        info,
    )?;
    let float_wmma = matches!(
        i.op,
        Op::VWmmaF3216x16x16F16
            | Op::VWmmaF3216x16x16Bf16
            | Op::VWmmaF1616x16x16F16
            | Op::VWmmaBf1616x16x16Bf16
    );
    require(!(m.clamp && float_wmma), reserved, words, n, info)?;
    Ok(())
}

/// Does this VOP3P op take op_sel/op_sel_hi (all but the WMMA ops whose
/// result is f32 or i32: their sources are whole 16-element vectors)?
pub(crate) fn vop3p_has_opsel(op: Op) -> bool {
    !matches!(
        op,
        Op::VWmmaF3216x16x16F16
            | Op::VWmmaF3216x16x16Bf16
            | Op::VWmmaI3216x16x16Iu8
            | Op::VWmmaI3216x16x16Iu4
    )
}

/// Does this VOP3 op carry op_sel (the native 16-bit VOP3 ops, the
/// permlanes' fi/bound_ctrl, and v_fmac_f16)? Other ops ignore those bits.
pub(crate) fn vop3_has_opsel(i: &Inst) -> bool {
    i.op == Op::VFmacF16
        || vop3_opsel_op(i.op)
        || matches!(i.op, Op::VPermlane16B32 | Op::VPermlanex16B32)
}
