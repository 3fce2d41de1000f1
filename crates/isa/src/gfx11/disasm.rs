//! Disassembly of decoded instructions in LLVM's gfx11 syntax (what
//! `llvm-mc-19 -disassemble -mcpu=gfx1100` prints), so decoder tests can
//! compare against LLVM text and error messages read like llvm-objdump.
//! Not covered (printed as a raw `0x...` operand): hwreg()/sendmsg() forms
//! other than MSG_DEALLOC_VGPRS, DPP/SDWA operands.

use std::fmt::Write;

use super::inst::{Dpp, Family, Inst, Operand};
use super::opcodes::Op;

/// Scalar register (operand code 0..=127) of `width` dwords. Tuples are
/// aligned down as LLVM's decoder does (pairs to 2, wider to 4 registers);
/// the decoder has already rejected the special registers that have no
/// tuple of that width.
fn sreg(code: u16, width: u8) -> String {
    let w = width.max(1) as u16;
    let code = match w {
        _ if matches!(code, 106 | 124 | 126) => code,
        1 => code,
        2 => code & !1,
        _ => code & !3,
    };
    match (code, w) {
        (106, 1) => "vcc_lo".into(),
        (107, 1) => "vcc_hi".into(),
        (106, _) => "vcc".into(),
        (124, _) => "null".into(),
        (125, _) => "m0".into(),
        (126, 1) => "exec_lo".into(),
        (127, 1) => "exec_hi".into(),
        (126, _) => "exec".into(),
        (108..=123, 1) => format!("ttmp{}", code - 108),
        (108..=123, _) => format!("ttmp[{}:{}]", code - 108, code - 108 + w - 1),
        (_, 1) => format!("s{code}"),
        _ => format!("s[{}:{}]", code, code + w - 1),
    }
}

fn vreg(n: u16, width: u8) -> String {
    let w = width.max(1) as u16;
    if w == 1 {
        format!("v{n}")
    } else {
        format!("v[{}:{}]", n, n + w - 1)
    }
}

/// Text of an inline float constant (operand codes 240..=248).
pub(crate) fn float_text(code: u16, bits: u8) -> &'static str {
    match code {
        240 => "0.5",
        241 => "-0.5",
        242 => "1.0",
        243 => "-1.0",
        244 => "2.0",
        245 => "-2.0",
        246 => "4.0",
        247 => "-4.0",
        _ if bits == 64 => "0.15915494309189532",
        _ => "0.15915494",
    }
}

/// The inline float constant whose bit pattern (of `bits` width) is `v`.
pub(crate) fn float_code(v: u64, bits: u8) -> Option<u16> {
    (240..=248).find(|&c| super::decode::float_const_bits(c, bits) == v)
}

/// A literal as LLVM prints it for an operand of `bits` (16/32/64) bits
/// (`fp`: a 64-bit float operand, whose literal is the high dword): the
/// value as an inline integer or float when it is one of those, hex otherwise.
pub(crate) fn literal_text(lit: u32, bits: u8, fp: bool) -> String {
    match bits {
        16 => {
            let v = lit & 0xFFFF;
            if (-16..=64).contains(&(v as u16 as i16 as i32)) {
                (v as u16 as i16).to_string()
            } else if let Some(c) = float_code(v as u64, 16) {
                float_text(c, 16).into()
            } else {
                format!("0x{v:x}")
            }
        }
        64 if fp => match float_code((lit as u64) << 32, 64) {
            Some(c) => float_text(c, 64).into(),
            None if lit == 0 => "0".into(),
            None => format!("0x{lit:x}"),
        },
        64 => {
            if lit <= 64 {
                lit.to_string()
            } else {
                format!("0x{lit:x}")
            }
        }
        _ => {
            if (-16..=64).contains(&(lit as i32)) {
                (lit as i32).to_string()
            } else if let Some(c) = float_code(lit as u64, 32) {
                float_text(c, 32).into()
            } else {
                format!("0x{lit:x}")
            }
        }
    }
}

/// A source operand code of the constant space (128..=255: inline
/// integers and floats, the apertures, the status bits, a literal) as LLVM
/// prints it; the same codes on GFX9 and gfx11.
pub(crate) fn constant_src_text(code: u16, lit: Option<u32>, bits: u8, fp64: bool) -> String {
    match code {
        128..=192 => format!("{}", code as i32 - 128),
        193..=208 => format!("{}", 192 - code as i32),
        235 => "src_shared_base".into(),
        236 => "src_shared_limit".into(),
        237 => "src_private_base".into(),
        238 => "src_private_limit".into(),
        239 => "src_pops_exiting_wave_id".into(),
        240..=248 => float_text(code, bits).into(),
        251 => "src_vccz".into(),
        252 => "src_execz".into(),
        253 => "src_scc".into(),
        254 => "src_lds_direct".into(),
        255 => literal_text(lit.unwrap_or(0), bits, fp64),
        _ => format!("src{code}"),
    }
}

/// A source operand (scalar space, constants, literal, VGPRs) of `width`
/// dwords and `bits` bits; `fp64`: a 64-bit float operand.
fn src(op: &Operand, width: u8, lit: Option<u32>, bits: u8, fp64: bool) -> String {
    let code = op.code;
    match code {
        0..=127 => sreg(code, width),
        256..=511 => vreg(code - 256, width),
        _ => constant_src_text(code, lit, bits, fp64),
    }
}

/// A scalar-ALU source: LLVM flags LDS direct as not a scalar operand.
fn salu_src(op: &Operand, width: u8, lit: Option<u32>) -> String {
    let bits = if width >= 2 { 64 } else { 32 };
    let s = src(op, width, lit, bits, false);
    if op.code == 254 {
        let class = if width >= 2 { "SReg_64" } else { "SReg_32" };
        format!("{s}/*Invalid register, operand has '{class}' register class*/")
    } else {
        s
    }
}

/// A VGPR half of a true16 operand: bit 7 selects the high half.
fn true16_vreg(n: u16) -> String {
    let half = if n & 0x80 != 0 { "h" } else { "l" };
    format!("v{}.{half}", n & 0x7F)
}

/// The scalar destination of v_readfirstlane_b32 or a VOP3 compare (an
/// 8-bit field LLVM decodes like a source: codes above the SGPRs are
/// flagged constants).
fn readfirstlane_dst(code: u16) -> String {
    if code < 128 {
        return sreg(code, 1);
    }
    if matches!(code, 235..=239 | 251..=253) {
        let op = Operand {
            code,
            src: super::inst::Src::Unsupported(code),
        };
        return src(&op, 1, None, 32, false);
    }
    let op = Operand {
        code,
        src: super::inst::Src::Unsupported(code),
    };
    format!("{}/*Invalid immediate*/", src(&op, 1, None, 32, false))
}

/// An integer 16-bit constant: inline integers print as numbers, inline
/// floats as their f16 pattern, literals in hex unless the whole dword is an
/// inline integer.
fn int16_const(code: u16, lit: Option<u32>) -> Option<String> {
    match code {
        240..=248 => Some(format!("0x{:x}", super::decode::float_const_bits(code, 16))),
        255 => {
            let l = lit.unwrap_or(0);
            Some(if (-16..=64).contains(&(l as i32)) {
                (l as i32).to_string()
            } else if let Some(c) = float_code(l as u64, 32) {
                float_text(c, 32).into()
            } else {
                format!("0x{:x}", l & 0xFFFF)
            })
        }
        _ => None,
    }
}

/// Source `k` of a VOP1/VOP2/VOPC (or DPP) instruction, with LLVM's
/// register-class comments (see `decode::operand_class`).
fn e32_src(i: &Inst, k: usize, bits: u8, fp64: bool) -> String {
    use super::decode::{src_is_16, src_is_float, src0_vgpr_only};
    let op = &i.src[k];
    let width = i.widths[k + 1];
    let code = op.code;
    let constant = matches!(code, 128..=208 | 240..=248 | 255);
    if i.op == Op::VMovB16 {
        return match code {
            256..=511 => true16_vreg(code - 256),
            _ => {
                int16_const(code, i.literal).unwrap_or_else(|| src(op, width, i.literal, 16, false))
            }
        };
    }
    let sixteen = src_is_16(i.op) && width == 1;
    let bits = match width {
        1 if !sixteen => 32,
        _ => bits,
    };
    let text = match int16_const(code, i.literal) {
        Some(t) if sixteen && !src_is_float(i.op, k) => t,
        _ => src(op, width, i.literal, bits, fp64),
    };
    let class_comment =
        |class: &str| format!("{text}/*Invalid register, operand has '{class}' register class*/");
    if k == 0 && i.op == Op::VReadfirstlaneB32 {
        return match code {
            256..=511 | 254 | 124 | 235..=239 | 251..=253 => text,
            _ if constant => format!("{text}/*Invalid immediate*/"),
            _ => class_comment("VRegOrLds_32"),
        };
    }
    if k == 0 && src0_vgpr_only(i.op) {
        let mut text = text;
        flag_vgpr_only(&mut text, code);
        return text;
    }
    if sixteen && code >= 256 + 128 {
        let e32_src0 = k == 0 && i.dpp.is_none();
        return class_comment(if e32_src0 {
            "VS_32_Lo128"
        } else {
            "VGPR_32_Lo128"
        });
    }
    text
}

/// Flag operand `code` of a VGPR-only operand (LLVM's `VGPR_32`) as LLVM
/// prints it: a constant as an invalid immediate, a scalar register with the
/// class comment; VGPRs, null and the aperture/vccz/execz/scc codes pass
/// unflagged.
fn flag_vgpr_only(text: &mut String, code: u16) {
    match code {
        256..=511 | 124 | 235..=239 | 251..=253 => {}
        128..=208 | 240..=248 | 255 => text.push_str("/*Invalid immediate*/"),
        _ => text.push_str("/*Invalid register, operand has 'VGPR_32' register class*/"),
    }
}

/// Apply the neg/abs modifiers of source `k`: `-x`, `|x|`, `-|x|`; a
/// negated constant without abs is written `neg(c)` as LLVM does.
fn with_mods(s: String, k: usize, abs: u8, neg: u8) -> String {
    let imm = s
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == b'-');
    if (neg >> k) & 1 != 0 && (abs >> k) & 1 == 0 && imm {
        return format!("neg({s})");
    }
    let s = if (abs >> k) & 1 != 0 {
        format!("|{s}|")
    } else {
        s
    };
    if (neg >> k) & 1 != 0 {
        format!("-{s}")
    } else {
        s
    }
}

pub(crate) fn bits_list(bits: u8, n: usize) -> String {
    let v: Vec<String> = (0..n).map(|k| ((bits >> k) & 1).to_string()).collect();
    format!("[{}]", v.join(","))
}

/// The modifiers after a VOP3P instruction's `n` sources, as LLVM prints
/// them (gfx11 and GFX9 alike): op_sel (when `opsel`), and op_sel_hi when
/// not its default (all ones for packed ops, zeros for v_fma_mix*);
/// neg_lo/neg_hi for packed ops (v_fma_mix* print theirs on the sources);
/// clamp.
pub(crate) fn vop3p_modifier_tail(
    tail: &mut String,
    m: &crate::gfx11::inst::Mods,
    n: usize,
    mix: bool,
    opsel: bool,
) {
    let full = (1u8 << n) - 1;
    if opsel {
        if m.opsel & full != 0 {
            tail.push_str(&format!(" op_sel:{}", bits_list(m.opsel & full, n)));
        }
        let default_hi = if mix { 0 } else { full };
        if m.opsel_hi & full != default_hi {
            tail.push_str(&format!(" op_sel_hi:{}", bits_list(m.opsel_hi & full, n)));
        }
    }
    if !mix {
        if m.neg & full != 0 {
            tail.push_str(&format!(" neg_lo:{}", bits_list(m.neg & full, n)));
        }
        if m.abs & full != 0 {
            tail.push_str(&format!(" neg_hi:{}", bits_list(m.abs & full, n)));
        }
    }
    if m.clamp {
        tail.push_str(" clamp");
    }
}

/// LLVM-syntax text of one instruction.
pub fn disassemble(i: &Inst) -> String {
    let mut ops: Vec<String> = Vec::new();
    let mut tail = String::new();
    let w = i.widths;
    let lit = i.literal;
    let bits = |k: usize| super::decode::operand_bits(i.op, w[k + 1]);
    let fp64 = i.op.name().contains("f64");
    match i.family {
        Family::Sop2 | Family::Sop1 | Family::Sopc => {
            if w[0] != 0 {
                ops.push(sreg(i.dst, w[0]));
            }
            if matches!(i.op, Op::SSendmsgRtnB32 | Op::SSendmsgRtnB64) {
                ops.push(sendmsg_rtn_name(i.raw()[0] & 0xFF));
            } else {
                // Ops that name a register (relative moves, return from exception)
                // take no constants: LLVM prints them with a warning comment.
                let regs_only = matches!(
                    i.op,
                    Op::SMovrelsB32 | Op::SMovrelsB64 | Op::SRfeB64 | Op::SSetpcB64
                );
                for k in 0..2 {
                    if w[k + 1] != 0 {
                        let mut s = if regs_only && i.src[k].code == 248 {
                            // LLVM prints 1/(2*pi) in these register-only
                            // operands at 32 bits.
                            float_text(248, 32).to_string()
                        } else {
                            salu_src(&i.src[k], w[k + 1], lit)
                        };
                        let constant = matches!(i.src[k].code, 128..=208 | 240..=248 | 255);
                        if regs_only && constant {
                            s.push_str("/*Invalid immediate*/");
                        }
                        ops.push(s);
                    }
                }
            }
        }
        Family::Sopk => sopk(i, &mut ops),
        Family::Sopp => sopp(i, &mut ops),
        Family::Smem => {
            if matches!(i.op, Op::SDcacheInv | Op::SGl1Inv) {
                return i.mnemonic.to_string();
            }
            if matches!(i.op, Op::SAtcProbe | Op::SAtcProbeBuffer) {
                // The sdata field is a probe mode number, not a register.
                ops.push(if i.dst <= 64 {
                    i.dst.to_string()
                } else {
                    format!("0x{:x}", i.dst)
                });
            } else {
                // LLVM decodes these but flags them: exec/m0 cannot be loaded,
                // vcc/exec are no tuples wider than two registers.
                let class = match (w[0], i.dst) {
                    (1, 125..=127) => Some("SReg_32_XM0_XEXEC".to_string()),
                    (2, 126) => Some("SReg_64_XEXEC".to_string()),
                    (3.., 106 | 126) => Some(format!("SReg_{}", 32 * w[0] as u32)),
                    _ => None,
                };
                let name = match (w[0], i.dst) {
                    (3.., 106) => "vcc".to_string(),
                    (3.., 126) => "exec".to_string(),
                    _ => sreg(i.dst, w[0]),
                };
                ops.push(match class {
                    Some(c) => {
                        format!("{name}/*Invalid register, operand has '{c}' register class*/")
                    }
                    None => name,
                });
            }
            let buffer = i.op.name().starts_with("s_buffer") || i.op == Op::SAtcProbeBuffer;
            // A buffer descriptor is four SGPRs: vcc/exec pairs are no such tuple.
            ops.push(match (buffer, i.addr) {
                (true, 106 | 126) => format!(
                    "{}/*Invalid register, operand has 'SReg_128' register class*/",
                    sreg(i.addr as u16, 2)
                ),
                (true, _) => sreg(i.addr as u16, 4),
                (false, _) => sreg(i.addr as u16, 2),
            });
            let soff = i.imm2 as u16;
            if soff != 124 {
                ops.push(sreg(soff, 1));
                if i.imm < 0 {
                    tail.push_str(&format!(" offset:-0x{:x}", -(i.imm as i64)));
                } else if i.imm != 0 {
                    tail.push_str(&format!(" offset:0x{:x}", i.imm));
                }
            } else if i.imm < 0 {
                ops.push(format!("-0x{:x}", -(i.imm as i64)));
            } else if i.imm != 0 {
                ops.push(format!("0x{:x}", i.imm));
            } else {
                ops.push("null".into());
            }
            cache_bits(i.flags, &mut tail);
        }
        Family::Vop1 | Family::Vop2 | Family::Vopc => {
            if i.family == Family::Vopc {
                if !i.op.name().starts_with("v_cmpx") {
                    ops.push("vcc_lo".into());
                }
            } else if w[0] != 0 {
                ops.push(if i.op == Op::VReadfirstlaneB32 {
                    readfirstlane_dst(i.dst)
                } else if i.op == Op::VMovB16 {
                    true16_vreg(i.dst)
                } else {
                    vreg(i.dst, w[0])
                });
            }
            let carry = matches!(i.op, Op::VAddCoCiU32 | Op::VSubCoCiU32 | Op::VSubrevCoCiU32);
            if carry {
                ops.push("vcc_lo".into());
            }
            if w[1] != 0 {
                ops.push(with_mods(
                    e32_src(i, 0, bits(0), fp64),
                    0,
                    i.mods.abs,
                    i.mods.neg,
                ));
            }
            if i.op == Op::VFmamkF32 || i.op == Op::VFmamkF16 {
                ops.push(format!("0x{:x}", lit.unwrap_or(0)));
            }
            if w[2] != 0 {
                ops.push(with_mods(
                    e32_src(i, 1, bits(1), fp64),
                    1,
                    i.mods.abs,
                    i.mods.neg,
                ));
            }
            if i.op == Op::VFmaakF32 || i.op == Op::VFmaakF16 {
                ops.push(format!("0x{:x}", lit.unwrap_or(0)));
            }
            if carry || i.op == Op::VCndmaskB32 {
                ops.push("vcc_lo".into());
            }
            if let Some(d) = &i.dpp {
                dpp_tail(d, &mut tail);
            }
        }
        Family::Vop3 | Family::Vop3sd => {
            let m = &i.mods;
            let cmp = super::decode::is_vop3_compare(i);
            if cmp {
                if !i.op.name().starts_with("v_cmpx") {
                    // An 8-bit field LLVM decodes like a source operand.
                    ops.push(readfirstlane_dst(i.dst));
                }
            } else if w[0] != 0 {
                let scalar_dst = matches!(i.op, Op::VReadlaneB32 | Op::VReadfirstlaneB32);
                ops.push(if scalar_dst {
                    sreg(i.dst, 1)
                } else {
                    vreg(i.dst, w[0])
                });
            }
            if i.family == Family::Vop3sd {
                ops.push(sreg(i.sdst as u16, 1));
            }
            let opsel_op = super::decode::vop3_has_opsel(i);
            for k in 0..3 {
                if w[k + 1] != 0 {
                    let class_dpp =
                        i.dpp.is_some() && matches!(i.op, Op::VCmpClassF16 | Op::VCmpxClassF16);
                    let int16 = w[k + 1] == 1
                        && !class_dpp
                        && super::decode::src_is_16(i.op)
                        && !super::decode::src_is_float(i.op, k);
                    let code = i.src[k].code;
                    // v_mad_{i32_i16,u32_u16}: a 32-bit addend.
                    let wide_addend = k == 2 && matches!(i.op, Op::VMadI32I16 | Op::VMadU32U16);
                    // The dot2 ops' packed sources are 32-bit operands.
                    let packed_src = k < 2 && matches!(i.op, Op::VDot2F16F16 | Op::VDot2Bf16Bf16);
                    let mut text = match int16_const(code, lit) {
                        Some(t) if int16 && !wide_addend => t,
                        // A literal there prints as its 32-bit value.
                        _ if packed_src && code == 255 => format!("0x{:x}", lit.unwrap_or(0)),
                        _ if wide_addend || packed_src => src(&i.src[k], 1, lit, 32, false),
                        _ => src(&i.src[k], w[k + 1], lit, bits(k), fp64),
                    };
                    let constant = matches!(code, 128..=208 | 240..=248 | 255);
                    let carry_in = k == 2
                        && (matches!(
                            i.op,
                            Op::VAddCoCiU32
                                | Op::VSubCoCiU32
                                | Op::VSubrevCoCiU32
                                | Op::VCndmaskB16
                        ) || i.op == Op::VCndmaskB32);
                    let permlane_sel =
                        k >= 1 && matches!(i.op, Op::VPermlane16B32 | Op::VPermlanex16B32);
                    let permlane_src0 =
                        k == 0 && matches!(i.op, Op::VPermlane16B32 | Op::VPermlanex16B32);
                    if permlane_src0 && constant {
                        text.push_str("/*Invalid immediate*/");
                    } else if permlane_src0 && code < 256 && !matches!(code, 235..=239 | 251..=253)
                    {
                        text.push_str("/*Invalid register, operand has 'VGPR_32' register class*/");
                    } else if k == 0 && super::decode::src0_vgpr_only(i.op) {
                        flag_vgpr_only(&mut text, code);
                    } else if carry_in {
                        if constant {
                            text.push_str("/*Invalid immediate*/");
                        } else if code >= 256 {
                            text.push_str(
                                "/*Invalid register, operand has 'SReg_1_XEXEC' register class*/",
                            );
                        }
                    } else if i.op == Op::VMqsadU32U8 && k == 2 && code < 256 {
                        text.push_str(
                            "/*Invalid register, operand has 'VReg_128' register class*/",
                        );
                    } else if permlane_sel && (code >= 256 || code == 254) {
                        text.push_str("/*Invalid register, operand has 'SReg_32' register class*/");
                    }
                    // VOP3 DPP: neg on an integer source is sign extension.
                    let sext = (i.dpp.is_some() || i.op == Op::VCvtPkU8F32)
                        && (m.neg >> k) & 1 != 0
                        && !super::decode::src_is_float(i.op, k)
                        && !(i.op == Op::VCndmaskB32 && k < 2);
                    if sext {
                        ops.push(with_mods(format!("sext({text})"), k, m.abs, 0));
                    } else {
                        ops.push(with_mods(text, k, m.abs, m.neg));
                    }
                }
            }
            if matches!(i.op, Op::VPermlane16B32 | Op::VPermlanex16B32) {
                if m.opsel & 3 != 0 {
                    tail.push_str(&format!(" op_sel:{}", bits_list(m.opsel & 3, 2)));
                }
            } else if i.op == Op::VFmacF16 {
                if m.opsel != 0 {
                    tail.push_str(&format!(" op_sel:{}", bits_list(m.opsel, 4)));
                }
            } else if m.opsel != 0 && !cmp && opsel_op {
                let n = (0..3).filter(|k| w[k + 1] != 0).count();
                // v_dot2_bf16_bf16 selects halves of src2 and dst only.
                let sel = if i.op == Op::VDot2Bf16Bf16 {
                    m.opsel & 0xC
                } else {
                    m.opsel
                };
                let mut b = sel & ((1 << n) - 1);
                b |= ((sel >> 3) & 1) << n;
                if b != 0 {
                    tail.push_str(&format!(" op_sel:{}", bits_list(b, n + 1)));
                }
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
            if let Some(d) = &i.dpp {
                dpp_tail(d, &mut tail);
            }
        }
        Family::Vop3p => vop3p(i, lit, &mut ops, &mut tail),
        Family::Vopd => {
            let Some(y) = i.dual else {
                return i.mnemonic.to_string();
            };
            let half = |op: Op, dst: u8, s0: &Operand, vs1: u8| -> String {
                // dot2acc's packed f16 source: a literal that fits 16 bits
                // prints as f16, a wider one as f32.
                let v = lit.unwrap_or(0);
                let bits = if op == Op::VDot2accF32F16 && v <= 0xFFFF {
                    16
                } else {
                    32
                };
                let mut o = vec![vreg(dst as u16, 1), src(s0, 1, lit, bits, false)];
                match op {
                    Op::VMovB32 => {}
                    Op::VFmamkF32 => {
                        o.push(format!("0x{:x}", lit.unwrap_or(0)));
                        o.push(vreg(vs1 as u16, 1));
                    }
                    Op::VFmaakF32 => {
                        o.push(vreg(vs1 as u16, 1));
                        o.push(format!("0x{:x}", lit.unwrap_or(0)));
                    }
                    _ => o.push(vreg(vs1 as u16, 1)),
                }
                o.join(", ")
            };
            let Some(vs1x) = (match i.src[1].code {
                c @ 256..=511 => Some((c - 256) as u8),
                _ => None,
            }) else {
                return i.mnemonic.to_string();
            };
            return format!(
                "{} {} :: {} {}",
                i.mnemonic,
                half(i.op, i.dst as u8, &i.src[0], vs1x),
                y.mnemonic,
                half(y.op, y.dst, &y.src0, y.vsrc1)
            );
        }
        Family::Ds => ds(i, &mut ops, &mut tail),
        Family::Flat | Family::Global | Family::Scratch => flat(i, &mut ops, &mut tail),
        Family::Mubuf | Family::Mtbuf => mubuf(i, &mut ops, &mut tail),
        Family::Mimg => mimg(i, &mut ops, &mut tail),
        Family::Ldsdir => {
            ops.push(vreg(i.dst, 1));
            if i.op == Op::LdsParamLoad {
                let chan = ["x", "y", "z", "w"][(i.imm & 3) as usize];
                ops.push(format!("attr{}.{chan}", i.imm >> 2));
            }
            let _ = write!(tail, " wait_vdst:{}", i.imm2);
        }
        Family::Vinterp => vinterp(i, lit, &mut ops, &mut tail),
        Family::Exp => {
            // `exp TARGET src0, ...`: no comma after the target.
            let srcs: Vec<String> = (0..4)
                .map(|k| {
                    if (i.imm2 >> k) & 1 != 0 {
                        vreg(((i.words[1] >> (8 * k)) & 0xFF) as u16, 1)
                    } else {
                        "off".into()
                    }
                })
                .collect();
            let mut s = format!(
                "{} {} {}",
                i.mnemonic,
                super::decode::exp_target(i.imm as u32),
                srcs.join(", ")
            );
            if i.flags & 1 != 0 {
                s.push_str(" done");
            }
            if i.flags & 2 != 0 {
                s.push_str(" row_en");
            }
            return s;
        }
    }
    let mut s = i.mnemonic.to_string();
    if i.dpp.is_some() {
        // LLVM spells DPP forms <base>_dpp, except compares, which keep the bare base name.
        let base = i.mnemonic.trim_end_matches("_e32");
        s = if i.family == Family::Vopc {
            base.to_string()
        } else if matches!(i.family, Family::Vop3 | Family::Vop3sd | Family::Vop3p) {
            format!("{}_e64_dpp", base.trim_end_matches("_e64"))
        } else {
            format!("{base}_dpp")
        };
    }
    if !ops.is_empty() {
        s.push(' ');
        s.push_str(&ops.join(", "));
    }
    s.push_str(&tail);
    s
}

/// How LLVM types a VOP3P source for printing its constants.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PackedKind {
    /// Two f16 halves: a literal that fits 16 bits prints as f16.
    F16x2,
    /// Two bf16 halves: a 16-bit literal prints as a bf16 constant.
    Bf16x2,
    /// Two integer halves, or a 32-bit integer/float: the whole dword is
    /// checked against the inline integers and f32 constants.
    Dword,
    /// A v_fma_mix source read as f16 (its op_sel_hi bit set).
    Half,
    /// A WMMA matrix operand (a VGPR tuple of `width` dwords).
    Matrix,
    /// The WMMA accumulator: literals print as raw hex.
    Accumulator,
}

fn vop3p_kind(i: &Inst, k: usize) -> PackedKind {
    let mix = matches!(i.op, Op::VFmaMixF32 | Op::VFmaMixloF16 | Op::VFmaMixhiF16);
    let name = i.op.name();
    if name.starts_with("v_wmma") {
        return if k < 2 {
            PackedKind::Matrix
        } else {
            PackedKind::Accumulator
        };
    }
    if mix {
        // LLVM types every v_fma_mix source as f16 for printing: a literal
        // shows its low half whatever op_sel_hi says.
        return PackedKind::Half;
    }
    let dot2 = matches!(i.op, Op::VDot2F32F16 | Op::VDot2F32Bf16);
    if dot2 && k == 2 {
        return PackedKind::Dword;
    }
    if name.ends_with("bf16") {
        PackedKind::Bf16x2
    } else if name.ends_with("f16") {
        PackedKind::F16x2
    } else {
        PackedKind::Dword
    }
}

/// A VOP3P literal as LLVM prints it for an operand of `kind`.
fn vop3p_literal(l: u32, kind: PackedKind) -> String {
    const BF16: [(u32, &str); 9] = [
        (0x3F00, "0.5"),
        (0xBF00, "-0.5"),
        (0x3F80, "1.0"),
        (0xBF80, "-1.0"),
        (0x4000, "2.0"),
        (0xC000, "-2.0"),
        (0x4080, "4.0"),
        (0xC080, "-4.0"),
        (0x3E22, "0.15915494"),
    ];
    let inline_int = (-16..=64).contains(&(l as i32));
    match kind {
        PackedKind::Accumulator => format!("0x{l:x}"),
        PackedKind::Half => literal_text(l, 16, false),
        PackedKind::Dword | PackedKind::Matrix => literal_text(l, 32, false),
        _ if inline_int => (l as i32).to_string(),
        PackedKind::F16x2 => match float_code(l as u64, 16) {
            Some(c) if l <= 0xFFFF => float_text(c, 16).into(),
            _ => format!("0x{l:x}"),
        },
        PackedKind::Bf16x2 => match BF16.iter().find(|(v, _)| *v == l) {
            Some((_, t)) => (*t).into(),
            None => format!("0x{l:x}"),
        },
    }
}

/// VOP3P operands and modifiers. Packed ops print neg_lo/neg_hi and
/// op_sel/op_sel_hi as lists (op_sel_hi when not all ones); v_fma_mix*
/// print neg/abs on the sources and op_sel_hi when not all zeros; the WMMA
/// ops flag what is not a VGPR tuple, as LLVM does.
fn vop3p(i: &Inst, lit: Option<u32>, ops: &mut Vec<String>, tail: &mut String) {
    let m = &i.mods;
    let w = i.widths;
    let mix = matches!(i.op, Op::VFmaMixF32 | Op::VFmaMixloF16 | Op::VFmaMixhiF16);
    ops.push(vreg(i.dst, w[0]));
    let n = (0..3).filter(|k| w[k + 1] != 0).count();
    for k in 0..n {
        let op = &i.src[k];
        let kind = vop3p_kind(i, k);
        // The DPP forms of v_fma_mix* take only a VGPR as src1 (LLVM's
        // VGPR_32 class): it types anything else as a dword and flags it.
        let mix_dpp_src1 = mix && k == 1 && i.dpp.is_some();
        let kind = if mix_dpp_src1 {
            PackedKind::Dword
        } else {
            kind
        };
        let mut text = match op.code {
            255 => vop3p_literal(lit.unwrap_or(0), kind),
            _ => src(op, w[k + 1], lit, 32, false),
        };
        if mix_dpp_src1 {
            flag_vgpr_only(&mut text, op.code);
        }
        if matches!(kind, PackedKind::Matrix | PackedKind::Accumulator) {
            let class = format!("VReg_{}", 32 * w[k + 1] as u32);
            let constant = matches!(op.code, 128..=208 | 240..=248 | 255);
            if op.code < 128 && op.code != 124 {
                text.push_str(&format!(
                    "/*Invalid register, operand has '{class}' register class*/"
                ));
            } else if constant && kind == PackedKind::Matrix {
                text.push_str("/*Invalid immediate*/");
            }
        }
        if mix {
            text = with_mods(text, k, m.abs, m.neg);
        }
        ops.push(text);
    }
    vop3p_modifier_tail(tail, m, n, mix, super::decode::vop3p_has_opsel(i.op));
    if let Some(d) = &i.dpp {
        dpp_tail(d, tail);
    }
}

fn cache_bits(flags: u8, tail: &mut String) {
    if flags & Inst::GLC != 0 {
        tail.push_str(" glc");
    }
    if flags & Inst::SLC != 0 {
        tail.push_str(" slc");
    }
    if flags & Inst::DLC != 0 {
        tail.push_str(" dlc");
    }
}

/// VINTERP operands: VGPR sources (LLVM flags other operands with a
/// comment), neg modifiers, op_sel for the f16 forms, clamp, wait_exp.
fn vinterp(i: &Inst, lit: Option<u32>, ops: &mut Vec<String>, tail: &mut String) {
    ops.push(vreg(i.dst, 1));
    for k in 0..3 {
        let mut text = src(&i.src[k], 1, lit, 32, false);
        flag_vgpr_only(&mut text, i.src[k].code);
        ops.push(with_mods(text, k, 0, i.mods.neg));
    }
    if i.mods.clamp {
        tail.push_str(" clamp");
    }
    if i.mods.opsel != 0 && i.mnemonic.contains("f16") {
        let _ = write!(tail, " op_sel:{}", bits_list(i.mods.opsel, 4));
    }
    let _ = write!(tail, " wait_exp:{}", i.imm2);
}

/// `sendmsg(...)` operand of s_sendmsg_rtn: the SSRC0 field is a message id.
fn sendmsg_rtn_name(id: u32) -> String {
    match msg_name(id) {
        Some(name) => format!("sendmsg({name})"),
        None => format!("sendmsg({id}, 0, 0)"),
    }
}

/// gfx11 hardware register names (s_getreg/s_setreg ids LLVM names).
fn hwreg_name(id: u16) -> Option<&'static str> {
    Some(match id {
        1 => "HW_REG_MODE",
        2 => "HW_REG_STATUS",
        3 => "HW_REG_TRAPSTS",
        5 => "HW_REG_GPR_ALLOC",
        6 => "HW_REG_LDS_ALLOC",
        7 => "HW_REG_IB_STS",
        15 => "HW_REG_SH_MEM_BASES",
        18 => "HW_REG_PERF_SNAPSHOT_PC_LO",
        19 => "HW_REG_PERF_SNAPSHOT_PC_HI",
        20 => "HW_REG_FLAT_SCR_LO",
        21 => "HW_REG_FLAT_SCR_HI",
        23 => "HW_REG_HW_ID1",
        24 => "HW_REG_HW_ID2",
        27 => "HW_REG_PERF_SNAPSHOT_DATA",
        29 => "HW_REG_SHADER_CYCLES",
        _ => return None,
    })
}

/// `s_sendmsg`/`s_sendmsghalt` operand: gfx11 message ids without
/// operation fields; other encodings print as a plain number.
fn sendmsg_text(imm: u16) -> String {
    match msg_name((imm & 0xFF) as u32) {
        Some(name) => format!("sendmsg({name})"),
        None if imm <= 0xFF => format!("sendmsg({imm}, 0, 0)"),
        None => imm.to_string(),
    }
}

/// gfx11 message ids LLVM names (the id is the low byte).
fn msg_name(id: u32) -> Option<&'static str> {
    Some(match id {
        1 => "MSG_INTERRUPT",
        2 => "MSG_HS_TESSFACTOR",
        3 => "MSG_DEALLOC_VGPRS",
        5 => "MSG_STALL_WAVE_GEN",
        6 => "MSG_HALT_WAVES",
        9 => "MSG_GS_ALLOC_REQ",
        128 => "MSG_RTN_GET_DOORBELL",
        129 => "MSG_RTN_GET_DDID",
        130 => "MSG_RTN_GET_TMA",
        131 => "MSG_RTN_GET_REALTIME",
        132 => "MSG_RTN_SAVE_WAVE",
        133 => "MSG_RTN_GET_TBA",
        134 => "MSG_RTN_GET_TBA_TO_PC",
        _ => return None,
    })
}

/// `s_waitcnt_depctr` operand: the fields that differ from their
/// "no wait" value, by name; hex when reserved bits are set.
fn depctr_text(imm: u16) -> String {
    // (name, shift, width); "no wait" is the all-ones value of each field.
    const FIELDS: [(&str, u16, u16); 7] = [
        ("depctr_hold_cnt", 7, 1),
        ("depctr_sa_sdst", 0, 1),
        ("depctr_va_vdst", 12, 4),
        ("depctr_va_sdst", 9, 3),
        ("depctr_va_ssrc", 8, 1),
        ("depctr_va_vcc", 1, 1),
        ("depctr_vm_vsrc", 2, 3),
    ];
    if imm & 0x60 != 0 {
        return format!("0x{imm:x}");
    }
    let parts: Vec<String> = FIELDS
        .iter()
        .filter_map(|&(name, shift, width)| {
            let v = (imm >> shift) & ((1 << width) - 1);
            (v != (1 << width) - 1).then(|| format!("{name}({v})"))
        })
        .collect();
    if parts.is_empty() {
        format!("0x{imm:x}")
    } else {
        parts.join(" ")
    }
}

/// A SOPK hardware-register operand (id in bits 5:0, offset 10:6, size-1
/// 15:11) as LLVM's hwreg() macro, with the register's `name` where the
/// target has one; the same layout on GFX9 and gfx11.
pub(crate) fn hwreg_text(imm: u16, name: Option<&str>) -> String {
    let id = imm & 0x3F;
    let off = (imm >> 6) & 31;
    let size = ((imm >> 11) & 31) + 1;
    let h = name.map_or_else(|| id.to_string(), str::to_string);
    if off == 0 && size == 32 {
        format!("hwreg({h})")
    } else {
        format!("hwreg({h}, {off}, {size})")
    }
}

fn sopk(i: &Inst, ops: &mut Vec<String>) {
    let imm = i.imm as u16;
    match i.op {
        Op::SGetregB32 | Op::SSetregB32 | Op::SSetregImm32B32 => {
            let hw = hwreg_text(imm, hwreg_name(imm & 0x3F));
            if i.op == Op::SSetregImm32B32 {
                ops.push(hw);
                ops.push(literal_text(i.literal.unwrap_or(0), 32, false));
            } else if i.op == Op::SGetregB32 {
                ops.push(sreg(i.dst, 1));
                ops.push(hw);
            } else {
                ops.push(hw);
                ops.push(sreg(i.dst, 1));
            }
        }
        Op::SCallB64 => {
            ops.push(sreg(i.dst, 2));
            ops.push(format!("{}", imm));
        }
        Op::SSubvectorLoopBegin | Op::SSubvectorLoopEnd => {
            ops.push(sreg(i.dst, 1));
            ops.push(imm.to_string());
        }
        Op::SVersion => {
            // The version number, then the flag bits OR-ed on as LLVM's
            // expression printer nests them.
            if imm & 0x1F00 != 0 {
                ops.push(format!("0x{imm:x}"));
                return;
            }
            let mut t = (imm & 0xFF).to_string();
            for (bit, name) in [
                (0x2000, "UC_VERSION_W64_BIT"),
                (0x4000, "UC_VERSION_W32_BIT"),
                (0x8000, "UC_VERSION_MDP_BIT"),
            ] {
                if imm & bit != 0 {
                    t = if t.contains('|') {
                        format!("({t})|{name}")
                    } else {
                        format!("{t}|{name}")
                    };
                }
            }
            ops.push(t);
        }
        _ => {
            ops.push(sreg(i.dst, i.widths[0].max(1)));
            ops.push(format!("0x{:x}", imm));
        }
    }
}

fn sopp(i: &Inst, ops: &mut Vec<String>) {
    use Op::*;
    let imm = i.imm as u16;
    match i.op {
        SEndpgm => {
            if imm != 0 {
                ops.push(format!("{imm}"));
            }
        }
        SBarrier | SCodeEnd | SIcacheInv | SWakeup | SEndpgmSaved | SWaitIdle | STtracedata => {}
        SBranch
        | SCbranchScc0
        | SCbranchScc1
        | SCbranchVccz
        | SCbranchVccnz
        | SCbranchExecz
        | SCbranchExecnz
        | SCbranchCdbgsys
        | SCbranchCdbguser
        | SCbranchCdbgsysOrUser
        | SCbranchCdbgsysAndUser => ops.push(format!("{imm}")),
        SClause | SSetInstPrefetchDistance | SRoundMode | STtracedataImm | SWaitEvent => {
            ops.push(format!("0x{imm:x}"))
        }
        SWaitcntDepctr => ops.push(depctr_text(imm)),
        SWaitcnt => {
            let vm = (imm >> 10) & 0x3F;
            let exp = imm & 7;
            let lgkm = (imm >> 4) & 0x3F;
            let mut parts = Vec::new();
            if vm != 0x3F {
                parts.push(format!("vmcnt({vm})"));
            }
            if exp != 7 {
                parts.push(format!("expcnt({exp})"));
            }
            if lgkm != 0x3F {
                parts.push(format!("lgkmcnt({lgkm})"));
            }
            if parts.is_empty() {
                ops.push(format!("vmcnt({vm}) expcnt({exp}) lgkmcnt({lgkm})"));
            } else {
                ops.push(parts.join(" "));
            }
        }
        SDelayAlu => {
            let dep = |v: u16| -> &'static str {
                match v {
                    1 => "VALU_DEP_1",
                    2 => "VALU_DEP_2",
                    3 => "VALU_DEP_3",
                    4 => "VALU_DEP_4",
                    5 => "TRANS32_DEP_1",
                    6 => "TRANS32_DEP_2",
                    7 => "TRANS32_DEP_3",
                    8 => "FMA_ACCUM_CYCLE_1",
                    9 => "SALU_CYCLE_1",
                    10 => "SALU_CYCLE_2",
                    11 => "SALU_CYCLE_3",
                    _ => "/* invalid instid value */",
                }
            };
            let skip = [
                "SAME",
                "NEXT",
                "SKIP_1",
                "SKIP_2",
                "SKIP_3",
                "SKIP_4",
                "/* invalid instskip value */",
                "/* invalid instskip value */",
            ];
            let (id0, sk, id1) = (imm & 0xF, (imm >> 4) & 7, (imm >> 7) & 0xF);
            let mut parts = Vec::new();
            if id0 != 0 {
                parts.push(format!("instid0({})", dep(id0)));
            }
            if sk != 0 {
                parts.push(format!("instskip({})", skip[sk as usize]));
            }
            if id1 != 0 {
                parts.push(format!("instid1({})", dep(id1)));
            }
            ops.push(if parts.is_empty() {
                "0".into()
            } else {
                parts.join(" | ")
            });
        }
        SSendmsg | SSendmsghalt => ops.push(sendmsg_text(imm)),
        _ => ops.push(if imm <= 64 {
            format!("{imm}")
        } else {
            format!("0x{imm:x}")
        }),
    }
}

fn ds(i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let w = i.widths;
    let name = i.op.name();
    if w[0] != 0 {
        ops.push(vreg(i.dst, w[0]));
    }
    if w[1] != 0 {
        ops.push(vreg(i.addr as u16, w[1]));
    }
    if w[2] != 0 {
        ops.push(vreg(i.data[0] as u16, w[2]));
    }
    if w[3] != 0 {
        ops.push(vreg(i.data[1] as u16, w[3]));
    }
    if name.contains("2addr") {
        if i.imm != 0 {
            let _ = write!(tail, " offset0:{}", i.imm);
        }
        if i.imm2 != 0 {
            let _ = write!(tail, " offset1:{}", i.imm2);
        }
    } else {
        let off = i.imm as u32 | i.imm2 << 8;
        if i.op == Op::DsSwizzleB32 && off != 0 {
            let _ = write!(tail, " offset:{}", swizzle_text(off as u16));
        } else if off != 0 {
            let _ = write!(tail, " offset:{off}");
        }
    }
    if i.flags & Inst::GDS != 0 {
        tail.push_str(" gds");
    }
}

/// The ds_swizzle_b32 offset as LLVM's swizzle() macro: QUAD_PERM (bits
/// 15:8 = 0x80), or the bit-mask mode (bit 15 clear; and/or/xor masks in bits
/// 4:0, 9:5, 14:10) named SWAP, REVERSE or BROADCAST where it is one of them.
/// The same on GFX9 and gfx11 (both decoders print it from here).
pub(crate) fn swizzle_text(off: u16) -> String {
    if off & 0xFF00 == 0x8000 {
        let l: Vec<String> = (0..4).map(|k| ((off >> (2 * k)) & 3).to_string()).collect();
        return format!("swizzle(QUAD_PERM,{})", l.join(","));
    }
    if off & 0x8000 != 0 {
        return off.to_string();
    }
    let (and, or, xor) = (off & 0x1F, (off >> 5) & 0x1F, (off >> 10) & 0x1F);
    if and == 0x1F && or == 0 && xor.count_ones() == 1 {
        return format!("swizzle(SWAP,{xor})");
    }
    if and == 0x1F && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
        return format!("swizzle(REVERSE,{})", xor + 1);
    }
    let group = 0x20 - and;
    if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
        return format!("swizzle(BROADCAST,{group},{or})");
    }
    let mask: String = (0..5)
        .rev()
        .map(|b| {
            let (a, o, x) = ((and >> b) & 1, (or >> b) & 1, (xor >> b) & 1);
            // A bit cleared by `and` (or forced by `or`) is a constant.
            match (a & !o, o ^ x) {
                (0, 0) => '0',
                (0, _) => '1',
                _ if x == 0 => 'p',
                _ => 'i',
            }
        })
        .collect();
    format!("swizzle(BITMASK_PERM,\"{mask}\")")
}

/// MIMG: `vdata, vaddr, srsrc[, ssamp]` then the modifiers in LLVM's order.
fn mimg(i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let (w0, w1) = (i.words[0], i.words[1]);
    ops.push(vreg(i.data[0] as u16, i.widths[0]));
    if w0 & 1 != 0 {
        let regs: Vec<String> = super::decode::mimg_nsa_regs(i)
            .into_iter()
            .map(|(r, w)| vreg(r, w))
            .collect();
        ops.push(format!("[{}]", regs.join(", ")));
    } else {
        ops.push(vreg(i.addr as u16, i.widths[1]));
    }
    ops.push(sreg(i.saddr as u16, 8));
    if super::opcodes::MIMG_SHAPES[((w0 >> 18) & 0xFF) as usize].is_some_and(|s| s.sampler) {
        ops.push(sreg(i.imm2 as u16, 4));
    }
    let dmask = (w0 >> 8) & 0xF;
    if dmask != 0 {
        let _ = write!(tail, " dmask:0x{dmask:x}");
    }
    const DIMS: [&str; 8] = [
        "1D",
        "2D",
        "3D",
        "CUBE",
        "1D_ARRAY",
        "2D_ARRAY",
        "2D_MSAA",
        "2D_MSAA_ARRAY",
    ];
    let _ = write!(tail, " dim:SQ_RSRC_IMG_{}", DIMS[((w0 >> 2) & 7) as usize]);
    let bits = [
        (w0 >> 7, "unorm"),
        (w0 >> 14, "glc"),
        (w0 >> 12, "slc"),
        (w0 >> 13, "dlc"),
        (w0 >> 15, "r128"),
        (w0 >> 16, "a16"),
        (w1 >> 21, "tfe"),
        (w1 >> 22, "lwe"),
        (w0 >> 17, "d16"),
    ];
    for (bit, name) in bits {
        if bit & 1 != 0 {
            tail.push(' ');
            tail.push_str(name);
        }
    }
}

fn mubuf(i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    if i.widths[0] == 0 {
        return;
    }
    let w1 = i.words[1];
    let (offen, idxen) = ((w1 >> 22) & 1 != 0, (w1 >> 23) & 1 != 0);
    if !i.mnemonic.starts_with("buffer_load_lds") {
        ops.push(vreg(i.data[0] as u16, i.widths[0]));
    }
    ops.push(match (idxen, offen) {
        (false, false) => "off".into(),
        (true, true) => vreg(i.addr as u16, 2),
        _ => vreg(i.addr as u16, 1),
    });
    ops.push(sreg(i.saddr as u16 * 4, 4));
    let soff = Operand {
        code: i.imm2 as u16,
        src: super::inst::Src::Unsupported(i.imm2 as u16),
    };
    ops.push(salu_src(&soff, 1, i.literal));
    if i.family == Family::Mtbuf {
        // The default format (1, BUF_FMT_8_UNORM) is not printed.
        match super::decode::mtbuf_format(i) {
            1 => {}
            0 => tail.push_str(" format:[BUF_FMT_INVALID]"),
            f => match super::decode::BufferFormat::from_code(f) {
                Some(b) => {
                    let _ = write!(tail, " format:[{}]", b.name());
                }
                None => {
                    let _ = write!(tail, " format:{f}");
                }
            },
        }
    }
    if idxen {
        tail.push_str(" idxen");
    }
    if offen {
        tail.push_str(" offen");
    }
    if i.imm != 0 {
        let _ = write!(tail, " offset:{}", i.imm);
    }
    cache_bits(i.flags, tail);
    if (w1 >> 21) & 1 != 0 {
        tail.push_str(" tfe");
    }
}

fn flat(i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let w = i.widths;
    // Atomics name a destination only when they return the old value (glc).
    let returns = !i.op.name().contains("_atomic_") || i.flags & Inst::GLC != 0;
    if w[0] != 0 && returns {
        ops.push(vreg(i.dst, w[0]));
    }
    match i.family {
        Family::Scratch => {
            ops.push(if i.flags & Inst::SVE != 0 {
                vreg(i.addr as u16, 1)
            } else {
                "off".into()
            });
        }
        // The addtid ops address by lane id: no vaddr.
        Family::Global if i.op.name().contains("addtid") => {}
        Family::Global if i.saddr != 124 => ops.push(vreg(i.addr as u16, 1)),
        _ => ops.push(vreg(i.addr as u16, 2)),
    }
    if w[2] != 0 {
        ops.push(vreg(i.data[0] as u16, w[2]));
    }
    match i.family {
        Family::Scratch => ops.push(match i.saddr {
            124 => "off".into(),
            // LLVM's class for the scratch saddr excludes exec_hi.
            127 => format!(
                "{}/*Invalid register, operand has 'SReg_32_XEXEC_HI' register class*/",
                sreg(127, 1)
            ),
            s => sreg(s as u16, 1),
        }),
        Family::Global => ops.push(if i.saddr == 124 {
            "off".into()
        } else {
            sreg(i.saddr as u16, 2)
        }),
        _ => {}
    }
    if i.imm != 0 {
        let _ = write!(tail, " offset:{}", i.imm);
    }
    cache_bits(i.flags, tail);
}

fn dpp_tail(d: &Dpp, tail: &mut String) {
    if let Some(sel) = d.dpp8 {
        let v: Vec<String> = (0..8).map(|k| ((sel >> (3 * k)) & 7).to_string()).collect();
        let _ = write!(tail, " dpp8:[{}]", v.join(","));
        if d.fi {
            tail.push_str(" fi:1");
        }
        return;
    }
    let c = d.ctrl;
    let _ = match c {
        0x000..=0x0FF => write!(
            tail,
            " quad_perm:[{},{},{},{}]",
            c & 3,
            (c >> 2) & 3,
            (c >> 4) & 3,
            (c >> 6) & 3
        ),
        0x101..=0x10F => write!(tail, " row_shl:{}", c & 0xF),
        0x111..=0x11F => write!(tail, " row_shr:{}", c & 0xF),
        0x121..=0x12F => write!(tail, " row_ror:{}", c & 0xF),
        0x140 => write!(tail, " row_mirror"),
        0x141 => write!(tail, " row_half_mirror"),
        0x150..=0x15F => write!(tail, " row_share:{}", c & 0xF),
        0x160..=0x16F => write!(tail, " row_xmask:{}", c & 0xF),
        0x130 => write!(tail, " /* wave_shl is not supported starting from GFX10 */"),
        0x134 => write!(tail, " /* wave_rol is not supported starting from GFX10 */"),
        0x138 => write!(tail, " /* wave_shr is not supported starting from GFX10 */"),
        0x13C => write!(tail, " /* wave_ror is not supported starting from GFX10 */"),
        0x142 | 0x143 => write!(
            tail,
            " /* row_bcast is not supported starting from GFX10 */"
        ),
        _ => write!(tail, " /* Invalid dpp_ctrl value */"),
    };
    let _ = write!(
        tail,
        " row_mask:0x{:x} bank_mask:0x{:x}",
        d.row_mask, d.bank_mask
    );
    if d.bound_ctrl {
        tail.push_str(" bound_ctrl:1");
    }
    if d.fi {
        tail.push_str(" fi:1");
    }
}
