//! Disassembly of decoded GFX9-family instructions in LLVM 19's syntax
//! (what `llvm-objdump-19 --mcpu=gfx90a` / `gfx942` prints), so the decoder
//! tests compare against LLVM's text. The operand spelling rules (inline
//! constants, literals, register tuples) are LLVM's AMDGPUInstPrinter ones;
//! the register names and the message / hardware-register names are GFX9's.

use super::Target;
use crate::gfx11::decode::{float_const_bits, operand_bits};
use crate::gfx11::inst::{Family, Inst, Operand};
use crate::opcodes::Op;

/// Scalar register (operand code 0..=127) of `width` dwords, tuples aligned
/// down as LLVM's decoder does.
pub(crate) fn sreg(code: u16, width: u8) -> String {
    let w = width.max(1) as u16;
    // Tuples of SGPRs and TTMPs are aligned; the special pairs are not.
    let code = if code <= 101 || (108..=123).contains(&code) {
        super::decode::align_sreg(code, w as u8)
    } else {
        code
    };
    match (code, w) {
        (102, 1) => "flat_scratch_lo".into(),
        (103, 1) => "flat_scratch_hi".into(),
        (102, _) => "flat_scratch".into(),
        (104, 1) => "xnack_mask_lo".into(),
        (105, 1) => "xnack_mask_hi".into(),
        (104, _) => "xnack_mask".into(),
        (106, 1) => "vcc_lo".into(),
        (107, 1) => "vcc_hi".into(),
        (106, _) => "vcc".into(),
        (124, _) => "m0".into(),
        (125, _) => "null".into(),
        (126, 1) => "exec_lo".into(),
        (127, 1) => "exec_hi".into(),
        (126, _) => "exec".into(),
        (108..=123, 1) => format!("ttmp{}", code - 108),
        (108..=123, _) => format!("ttmp[{}:{}]", code - 108, code - 108 + w - 1),
        (_, 1) => format!("s{code}"),
        _ => format!("s[{}:{}]", code, code + w - 1),
    }
}

/// VGPR (or AGPR, `acc`) `n` of `width` dwords.
pub(crate) fn vreg(n: u16, width: u8, acc: bool) -> String {
    let w = width.max(1) as u16;
    let k = if acc { 'a' } else { 'v' };
    if w == 1 { format!("{k}{n}") } else { format!("{k}[{}:{}]", n, n + w - 1) }
}

fn float_text(code: u16, bits: u8) -> &'static str {
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

fn float_code(v: u64, bits: u8) -> Option<u16> {
    (240..=248).find(|&c| float_const_bits(c, bits) == v)
}

/// A literal as LLVM prints it for an operand of `bits` bits (`fp`: a 64-bit
/// float operand, whose literal is the high dword).
fn literal_text(lit: u32, bits: u8, fp: bool) -> String {
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

/// A source operand of `width` dwords and `bits` bits.
fn src(op: &Operand, width: u8, lit: Option<u32>, bits: u8, fp64: bool) -> String {
    let code = op.code;
    match code {
        0..=127 => sreg(code, width),
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
        256..=511 => vreg(code - 256, width, false),
        _ => format!("src{code}"),
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

/// LLVM's text for `i`, decoded for `target`.
pub fn disassemble(target: Target, i: &Inst) -> String {
    let mut ops: Vec<String> = Vec::new();
    let mut tail = String::new();
    let w = i.widths;
    let lit = i.literal;
    match i.family {
        Family::Sop2 | Family::Sop1 | Family::Sopc => {
            if w[0] != 0 {
                ops.push(sreg(i.dst, w[0]));
            }
            let regs_only = matches!(
                i.op,
                Op::SMovrelsB32
                    | Op::SMovrelsB64
                    | Op::SRfeB64
                    | Op::SSetpcB64
                    | Op::SCbranchJoin
            );
            for k in 0..2 {
                if k == 1 && i.op == Op::SSetGprIdxOn {
                    // The ssrc1 field holds the mode bits, not an operand.
                    ops.push(gpr_idx_text(i.src[1].code));
                    continue;
                }
                if w[k + 1] != 0 {
                    let mut s = match lit {
                        // A register-only 64-bit operand's literal prints as
                        // an f64 high dword.
                        Some(l) if regs_only && w[k + 1] == 2 && i.src[k].code == 255 => literal_text(l, 64, true),
                        _ => salu_src(&i.src[k], w[k + 1], lit),
                    };
                    if regs_only && matches!(i.src[k].code, 128..=208 | 240..=248 | 255) {
                        s.push_str("/*Invalid immediate*/");
                    }
                    ops.push(s);
                }
            }
        }
        Family::Sopk => sopk(target, i, &mut ops),
        Family::Sopp => sopp(i, &mut ops),
        Family::Smem => smem(i, &mut ops, &mut tail),
        Family::Vop1 | Family::Vop2 | Family::Vopc => vop_e32(i, &mut ops, &mut tail),
        _ => {}
    }
    let _ = target;
    let mut s = i.mnemonic.to_string();
    if !ops.is_empty() {
        s.push(' ');
        s.push_str(&ops.join(", "));
    }
    s.push_str(&tail);
    s
}

/// GFX9 hardware register names LLVM prints in hwreg() (gfx942 adds the
/// XCC id and the SQ performance snapshot registers).
fn hwreg_name(target: Target, id: u16) -> Option<&'static str> {
    Some(match id {
        20 if target == Target::Gfx942 => "HW_REG_XCC_ID",
        21 if target == Target::Gfx942 => "HW_REG_SQ_PERF_SNAPSHOT_DATA",
        22 if target == Target::Gfx942 => "HW_REG_SQ_PERF_SNAPSHOT_DATA1",
        23 if target == Target::Gfx942 => "HW_REG_SQ_PERF_SNAPSHOT_PC_LO",
        24 if target == Target::Gfx942 => "HW_REG_SQ_PERF_SNAPSHOT_PC_HI",
        1 => "HW_REG_MODE",
        2 => "HW_REG_STATUS",
        3 => "HW_REG_TRAPSTS",
        4 => "HW_REG_HW_ID",
        5 => "HW_REG_GPR_ALLOC",
        6 => "HW_REG_LDS_ALLOC",
        7 => "HW_REG_IB_STS",
        15 => "HW_REG_SH_MEM_BASES",
        16 => "HW_REG_TBA_LO",
        17 => "HW_REG_TBA_HI",
        18 => "HW_REG_TMA_LO",
        19 => "HW_REG_TMA_HI",
        _ => return None,
    })
}

fn sopk(target: Target, i: &Inst, ops: &mut Vec<String>) {
    let imm = i.imm as u16;
    match i.op {
        Op::SGetregB32 | Op::SSetregB32 | Op::SSetregImm32B32 => {
            let id = imm & 0x3F;
            let off = (imm >> 6) & 31;
            let size = ((imm >> 11) & 31) + 1;
            let h = hwreg_name(target, id).map(str::to_string).unwrap_or_else(|| id.to_string());
            let hw = if off == 0 && size == 32 { format!("hwreg({h})") } else { format!("hwreg({h}, {off}, {size})") };
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
            ops.push(imm.to_string());
        }
        Op::SCbranchIFork => {
            ops.push(sreg(i.dst, 2));
            ops.push(imm.to_string());
        }
        _ => {
            ops.push(sreg(i.dst, i.widths[0].max(1)));
            ops.push(format!("0x{imm:x}"));
        }
    }
}

/// `s_sendmsg` operand (LLVM's AMDGPUInstPrinter::printSendMsg rules): id
/// [3:0], op [6:4], stream [9:8]; named when the id has a name and the op
/// and stream are valid for it, else as three numbers when those fields
/// re-encode the whole value, else as a plain number.
fn sendmsg_text(imm: u16) -> String {
    let (id, op, stream) = (imm & 0xF, (imm >> 4) & 7, (imm >> 8) & 3);
    let name = match id {
        1 => "MSG_INTERRUPT",
        2 => "MSG_GS",
        3 => "MSG_GS_DONE",
        4 => "MSG_SAVEWAVE",
        5 => "MSG_STALL_WAVE_GEN",
        6 => "MSG_HALT_WAVES",
        7 => "MSG_ORDERED_PS_DONE",
        8 => "MSG_EARLY_PRIM_DEALLOC",
        9 => "MSG_GS_ALLOC_REQ",
        10 => "MSG_GET_DOORBELL",
        15 => "MSG_SYSMSG",
        _ => "",
    };
    const GS_OPS: [&str; 4] = ["GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"];
    let named = match id {
        2 if (1..=3).contains(&op) => Some(format!("{name}, {}, {stream}", GS_OPS[op as usize])),
        3 if (1..=3).contains(&op) => Some(format!("{name}, {}, {stream}", GS_OPS[op as usize])),
        3 if op == 0 && stream == 0 => Some(format!("{name}, GS_OP_NOP")),
        15 if stream == 0 => match op {
            1 => Some(format!("{name}, SYSMSG_OP_ECC_ERR_INTERRUPT")),
            2 => Some(format!("{name}, SYSMSG_OP_REG_RD")),
            4 => Some(format!("{name}, SYSMSG_OP_TTRACE_PC")),
            _ => None,
        },
        2 | 3 | 15 => None,
        _ if !name.is_empty() && op == 0 && stream == 0 => Some(name.to_string()),
        _ => None,
    };
    match named {
        Some(n) => format!("sendmsg({n})"),
        None if id | op << 4 | stream << 8 == imm => format!("sendmsg({id}, {op}, {stream})"),
        None => imm.to_string(),
    }
}

fn sopp(i: &Inst, ops: &mut Vec<String>) {
    use Op::*;
    let imm = i.imm as u16;
    let num = |v: u16| if v <= 64 { v.to_string() } else { format!("0x{v:x}") };
    match i.op {
        SEndpgm => {
            if imm != 0 {
                ops.push(imm.to_string());
            }
        }
        _ if sopp_bare(i.op) => {}
        SBranch | SCbranchScc0 | SCbranchScc1 | SCbranchVccz | SCbranchVccnz | SCbranchExecz | SCbranchExecnz
        | SCbranchCdbgsys | SCbranchCdbguser | SCbranchCdbgsysOrUser | SCbranchCdbgsysAndUser => {
            ops.push(imm.to_string())
        }
        SWaitcnt => {
            let vm = (imm & 0xF) | ((imm >> 14) & 3) << 4;
            let exp = (imm >> 4) & 7;
            let lgkm = (imm >> 8) & 0xF;
            ops.push(format!("vmcnt({vm}) expcnt({exp}) lgkmcnt({lgkm})"));
        }
        SSendmsg | SSendmsghalt => ops.push(sendmsg_text(imm)),
        SSetGprIdxMode => ops.push(gpr_idx_text(imm)),
        _ => ops.push(num(imm)),
    }
}

/// SOPP instructions without an operand (their simm16 must be zero).
pub(crate) fn sopp_bare(op: Op) -> bool {
    use Op::*;
    matches!(op, SEndpgmSaved | SBarrier | SWakeup | STtracedata | SIcacheInv | SEndpgmOrderedPsDone | SSetGprIdxOff)
}

/// s_set_gpr_idx_mode / s_set_gpr_idx_on's mode bits.
fn gpr_idx_text(imm: u16) -> String {
    if imm > 15 {
        return format!("0x{imm:x}");
    }
    if imm == 0 {
        return "gpr_idx()".into();
    }
    let names = ["SRC0", "SRC1", "SRC2", "DST"];
    let on: Vec<&str> = (0..4).filter(|b| imm & (1 << b) != 0).map(|b| names[b]).collect();
    format!("gpr_idx({})", on.join(","))
}

fn smem(i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let w0 = i.words[0];
    let (soe, imm) = (w0 & (1 << 14) != 0, w0 & (1 << 17) != 0);
    let name = i.op.name();
    let buffer = name.starts_with("s_buffer_");
    if i.widths[0] != 0 {
        ops.push(sreg(i.dst, i.widths[0]));
    }
    if i.widths[0] == 0 && matches!(i.op, Op::SDcacheInv | Op::SDcacheWb | Op::SDcacheInvVol | Op::SDcacheWbVol | Op::SMemtime | Op::SMemrealtime) {
        return;
    }
    ops.push(sreg(i.addr as u16, if buffer { 4 } else { 2 }));
    let off = i.imm;
    let off_text = |v: i32| if v < 0 { format!("-0x{:x}", -(v as i64)) } else { format!("0x{v:x}") };
    match (imm, soe) {
        (true, false) => ops.push(off_text(off)),
        (false, false) => ops.push(sreg((i.words[1] & 0x7F) as u16, 1)),
        (_, true) => {
            ops.push(sreg(i.imm2 as u16, 1));
            if imm && off != 0 {
                tail.push_str(&format!(" offset:{}", off_text(off)));
            }
        }
    }
    if i.flags & Inst::GLC != 0 {
        tail.push_str(" glc");
    }
}

fn vop_e32(i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let w = i.widths;
    let lit = i.literal;
    let bits = |k: usize| operand_bits(i.op, w[k + 1]);
    let fp64 = i.op.name().contains("f64");
    if i.family == Family::Vopc {
        ops.push("vcc".into());
    } else if w[0] != 0 {
        ops.push(if i.op == Op::VReadfirstlaneB32 { sreg(i.dst, 1) } else { vreg(i.dst, w[0], false) });
    }
    let mut srcs = Vec::new();
    for k in 0..2 {
        if w[k + 1] != 0 {
            srcs.push(src(&i.src[k], w[k + 1], lit, bits(k), fp64));
        }
    }
    if let Some(l) = lit.filter(|_| i.family == Family::Vop2 && i.op.name().contains("mk_")) {
        srcs.insert(1, literal_text(l, bits(0), false));
    } else if let Some(l) = lit.filter(|_| i.family == Family::Vop2 && i.op.name().contains("ak_")) {
        srcs.push(literal_text(l, bits(0), false));
    }
    ops.extend(srcs);
    let _ = tail;
}

