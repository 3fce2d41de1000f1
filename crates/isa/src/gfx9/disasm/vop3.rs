//! LLVM 19's text for GFX9 VOP3 (VOP3A/VOP3B) instructions: the e64 forms
//! of VOP1/VOP2/VOPC and the VOP3-only ops, with their neg/abs, op_sel,
//! clamp and omod modifiers.

use super::{int16_const, src, sreg, vreg, with_mods};
use crate::gfx9::decode;
use crate::gfx11::decode::{operand_bits, src_is_16};
use crate::gfx11::disasm::{bits_list, constant_src_text, vop3p_modifier_tail};
use crate::gfx11::inst::{Family, Inst};
use crate::opcodes::Op;

/// `[b0,b1,...]` of the low `n` bits.
/// Is `i` a VOPC op in the VOP3 encoding (opcodes 0..=0xFF)?
pub(crate) fn is_compare(i: &Inst) -> bool {
    i.family == Family::Vop3 && (i.words[0] >> 16) & 0x3FF < 0x100
}

/// An 8-bit scalar destination field LLVM decodes like a source: codes
/// above the SGPRs print as (32-bit) constants flagged invalid.
fn scalar_dst(code: u16, width: u8) -> String {
    if code < 128 {
        return sreg(code, width);
    }
    let text = constant_src_text(code, None, 32, false);
    if matches!(code, 235..=239 | 251..=253) {
        text
    } else {
        format!("{text}/*Invalid immediate*/")
    }
}

pub(super) fn vop3(i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let w = i.widths;
    let m = &i.mods;
    let name = decode::base_name(i.mnemonic);
    if is_compare(i) {
        ops.push(scalar_dst(i.dst, 2));
    } else if i.op == Op::VReadlaneB32 {
        ops.push(scalar_dst(i.dst, 1));
    } else if w[0] != 0 {
        ops.push(vreg(i.dst, w[0], false));
    }
    if i.family == Family::Vop3sd {
        ops.push(sreg(i.sdst as u16, 2));
    }
    let fp64 = name.contains("f64");
    let sext = decode::sext_int_srcs(name);
    for k in 0..3 {
        if w[k + 1] == 0 {
            continue;
        }
        let code = i.src[k].code;
        let float = decode::src_float(name, k);
        // 32-bit operands of 16-bit ops: v_mad_{u32_u16,i32_i16}'s addend,
        // the class mask, v_sad_u16's sources (LLVM types them i32); and
        // v_ldexp_f16's exponent prints its constants as f16 ones.
        let dword = (k == 2 && matches!(name, "v_mad_u32_u16" | "v_mad_i32_i16"))
            || (k == 1 && name.contains("class"))
            || name == "v_sad_u16"
            || sext;
        let int16 = w[k + 1] == 1 && src_is_16(i.op) && !float && !dword;
        // A carry-in / condition mask and v_mqsad_u32_u8's accumulator
        // print their (invalid) constants as 32-bit ones.
        let narrow = k == 2 && (carry_in(name) || name == "v_mqsad_u32_u8");
        let bits = if narrow {
            32
        } else {
            operand_bits(i.op, w[k + 1])
        };
        let text = match int16_const(code, None) {
            Some(t) if int16 => t,
            _ => src(&i.src[k], w[k + 1], None, bits, fp64),
        };
        let text = class_flags(i, name, k, text);
        let sx = if sext && !float { m.neg & (1 << k) } else { 0 };
        ops.push(with_mods(text, k, m.abs, m.neg & !sx, sx));
    }
    if m.opsel != 0 {
        let n = if name.starts_with("v_cvt_sr_") {
            3
        } else {
            (0..3).filter(|k| w[k + 1] != 0).count()
        };
        let b = (m.opsel & ((1 << n) - 1)) | ((m.opsel >> 3) & 1) << n;
        tail.push_str(&format!(" op_sel:{}", bits_list(b, n + 1)));
    }
    if m.clamp {
        tail.push_str(" clamp");
    }
    match m.omod {
        1 => tail.push_str(" mul:2"),
        2 => tail.push_str(" mul:4"),
        3 => tail.push_str(" div:2"),
        _ => {}
    }
}

/// Ops whose src2 is a carry-in or condition mask (an SGPR pair).
fn carry_in(name: &str) -> bool {
    matches!(
        name,
        "v_cndmask_b32" | "v_addc_co_u32" | "v_subb_co_u32" | "v_subbrev_co_u32"
    )
}

/// Source `k`'s text with LLVM's comments on operands outside its
/// register class: the carry-in / condition mask (`SReg_1_XEXEC`: an SGPR
/// pair), the lane reads' and writes' scalar operands (`SReg_32`), the
/// lane read's data (`VRegOrLds_32`) and v_mqsad_u32_u8's accumulator
/// (`VReg_128`).
fn class_flags(i: &Inst, name: &str, k: usize, text: String) -> String {
    let code = i.src[k].code;
    let constant = matches!(code, 128..=208 | 240..=248);
    let carry_in = k == 2 && carry_in(name);
    let lane = (i.op == Op::VReadlaneB32 && k == 1) || i.op == Op::VWritelaneB32;
    let vgpr_class = match (name, k) {
        ("v_readlane_b32", 0) => Some("VRegOrLds_32"),
        ("v_mqsad_u32_u8", 2) => Some("VReg_128"),
        _ => None,
    };
    if carry_in {
        if constant {
            return format!("{text}/*Invalid immediate*/");
        }
        if code >= 256 || code == 126 {
            return class_comment(text, "SReg_1_XEXEC");
        }
    } else if lane {
        if code >= 256 || code == 254 {
            return class_comment(text, "SReg_32");
        }
    } else if let Some(class) = vgpr_class {
        if constant {
            return format!("{text}/*Invalid immediate*/");
        }
        if code < 128 && code != 125 {
            return class_comment(text, class);
        }
    }
    text
}

/// `text` with LLVM's register-class comment naming `class`.
fn class_comment(text: String, class: &str) -> String {
    format!("{text}/*Invalid register, operand has '{class}' register class*/")
}

/// A register-only source slot (LLVM classes AV_*, VReg_*, AReg_*,
/// VGPR_32): VGPR codes print as `v`/`a` registers of `width` dwords;
/// the apertures and status bits print plainly; other constants are
/// flagged invalid immediates (unless `consts_ok`), SGPRs and LDS direct
/// get the class comment.
fn reg_only(code: u16, width: u8, agpr: bool, class: &str, consts_ok: bool) -> String {
    match code {
        256..=511 => vreg(code - 256, width, agpr),
        235..=239 | 251..=253 => constant_src_text(code, None, 32, false),
        125 => "null".into(),
        128..=208 | 240..=248 => {
            let t = constant_src_text(code, None, 32, false);
            if consts_ok {
                t
            } else {
                format!("{t}/*Invalid immediate*/")
            }
        }
        254 => class_comment("src_lds_direct".into(), class),
        // No 1024-bit scalar class: LLVM names one register (or pair).
        102 | 104 | 106 | 126 if width >= 32 => class_comment(sreg(code, 2), class),
        _ if width >= 32 => class_comment(sreg(code, 1), class),
        _ => class_comment(sreg(code, width), class),
    }
}

pub(super) fn mai(target: super::Target, i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let w = i.widths;
    let acc = |bit: u8| i.acc & bit != 0;
    let m = i.mai.unwrap_or_default();
    match i.op {
        Op::VAccvgprReadB32 => {
            ops.push(vreg(i.dst, 1, false));
            ops.push(reg_only(i.src[0].code, 1, true, "AGPR_32", false));
            return;
        }
        Op::VAccvgprWriteB32 => {
            ops.push(vreg(i.dst, 1, true));
            ops.push(src(&i.src[0], 1, None, 32, false));
            return;
        }
        _ => {}
    }
    ops.push(vreg(i.dst, w[0], acc(Inst::ACC_DST)));
    for k in 0..2 {
        let class = format!("AV_{}", 32 * w[k + 1] as u16);
        let bit = if k == 0 {
            Inst::ACC_SRC0
        } else {
            Inst::ACC_SRC1
        };
        ops.push(reg_only(i.src[k].code, w[k + 1], acc(bit), &class, false));
    }
    let c = i.src[2].code;
    if i.op.name().starts_with("v_smfmac_") {
        ops.push(reg_only(c, 1, false, "VGPR_32", false));
    } else {
        let a = acc(Inst::ACC_SRC2);
        let class = format!("{}Reg_{}", if a { 'A' } else { 'V' }, 32 * w[3] as u16);
        ops.push(if c < 128 && c != 125 {
            reg_only(c, w[3], a, &class, true)
        } else {
            match c {
                256..=511 => vreg(c - 256, w[3], a),
                // The f64 MFMAs' C matrix takes 64-bit constants.
                _ if i.op.name().contains("f64") => src(&i.src[2], w[3], None, 64, true),
                _ => src(&i.src[2], w[3], None, 32, false),
            }
        });
    }
    if m.cbsz != 0 {
        tail.push_str(&format!(" cbsz:{}", m.cbsz));
    }
    if m.abid != 0 {
        tail.push_str(&format!(" abid:{}", m.abid));
    }
    let f64_neg = target == super::Target::Gfx942 && i.op.name().starts_with("v_mfma_f64");
    if m.blgp != 0 {
        if f64_neg {
            tail.push_str(&format!(" neg:{}", bits_list(m.blgp, 3)));
        } else {
            tail.push_str(&format!(" blgp:{}", m.blgp));
        }
    }
}

/// VOP3P (packed math, v_fma_mix*, dot products): packed ops print
/// neg_lo/neg_hi and op_sel/op_sel_hi as lists (op_sel_hi when not all
/// ones); v_fma_mix* print neg/abs on the sources and op_sel_hi when not
/// all zeros.
pub(super) fn vop3p(i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let m = &i.mods;
    let w = i.widths;
    let mix = matches!(i.op, Op::VFmaMixF32 | Op::VFmaMixloF16 | Op::VFmaMixhiF16);
    ops.push(vreg(i.dst, w[0], false));
    let n = (0..3).filter(|k| w[k + 1] != 0).count();
    for k in 0..n {
        let text = src(&i.src[k], w[k + 1], None, 32, false);
        ops.push(if mix {
            with_mods(text, k, m.abs, m.neg, 0)
        } else {
            text
        });
    }
    vop3p_modifier_tail(tail, m, n, mix, true);
}
