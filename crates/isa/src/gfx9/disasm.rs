//! Disassembly of decoded GFX9-family instructions in LLVM 19's syntax
//! (what `llvm-objdump-19 --mcpu=gfx90a` / `gfx942` prints), so the decoder
//! tests compare against LLVM's text. The operand spelling rules (inline
//! constants, literals, register tuples) are LLVM's AMDGPUInstPrinter ones;
//! the register names and the message / hardware-register names are GFX9's.

mod vop3;

use super::Target;
use crate::gfx11::decode::{float_const_bits, operand_bits};
use crate::gfx11::disasm::{
    constant_src_text, float_code, float_text, hwreg_text, literal_text, swizzle_text,
};
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
    if w == 1 {
        format!("{k}{n}")
    } else {
        format!("{k}[{}:{}]", n, n + w - 1)
    }
}

/// A source operand of `width` dwords and `bits` bits.
fn src(op: &Operand, width: u8, lit: Option<u32>, bits: u8, fp64: bool) -> String {
    let code = op.code;
    match code {
        0..=127 => sreg(code, width),
        256..=511 => vreg(code - 256, width, false),
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
                Op::SMovrelsB32 | Op::SMovrelsB64 | Op::SRfeB64 | Op::SSetpcB64 | Op::SCbranchJoin
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
                        Some(l) if regs_only && w[k + 1] == 2 && i.src[k].code == 255 => {
                            literal_text(l, 64, true)
                        }
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
        Family::Ds => ds(i, &mut ops, &mut tail),
        Family::Mubuf if mubuf(target, i, &mut ops, &mut tail) => return i.mnemonic.to_string(),
        Family::Mtbuf => mtbuf(target, i, &mut ops, &mut tail),
        Family::Flat | Family::Global | Family::Scratch => flat(target, i, &mut ops, &mut tail),
        Family::Vop1 | Family::Vop2 | Family::Vopc => vop_e32(target, i, &mut ops, &mut tail),
        Family::Vop3 | Family::Vop3sd => vop3::vop3(i, &mut ops, &mut tail),
        Family::Vop3p if super::decode::is_mai(i.op) => vop3::mai(target, i, &mut ops, &mut tail),
        Family::Vop3p => vop3::vop3p(i, &mut ops, &mut tail),
        _ => {}
    }
    let _ = target;
    let mut s = match (i.dpp, i.sdwa) {
        (Some(_), _) => format!("{}_dpp", i.mnemonic.trim_end_matches("_e32")),
        (_, Some(_)) => format!("{}_sdwa", i.mnemonic.trim_end_matches("_e32")),
        _ => i.mnemonic.to_string(),
    };
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
            let hw = hwreg_text(imm, hwreg_name(target, imm & 0x3F));
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
    let num = |v: u16| {
        if v <= 64 {
            v.to_string()
        } else {
            format!("0x{v:x}")
        }
    };
    match i.op {
        SEndpgm => {
            if imm != 0 {
                ops.push(imm.to_string());
            }
        }
        _ if sopp_bare(i.op) => {}
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
        | SCbranchCdbgsysAndUser => ops.push(imm.to_string()),
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
    matches!(
        op,
        SEndpgmSaved
            | SBarrier
            | SWakeup
            | STtracedata
            | SIcacheInv
            | SEndpgmOrderedPsDone
            | SSetGprIdxOff
    )
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
    let on: Vec<&str> = (0..4)
        .filter(|b| imm & (1 << b) != 0)
        .map(|b| names[b])
        .collect();
    format!("gpr_idx({})", on.join(","))
}

/// A scalar-memory register operand of `width` dwords: a special register
/// where LLVM wants a tuple (or a register its class excludes) is printed
/// with LLVM's register-class comment naming `class`.
fn smem_reg(code: u16, width: u8, class: Option<&str>) -> String {
    let special = matches!(code, 102..=107 | 124..=127);
    let text = sreg(code, if special { width.min(2) } else { width });
    match class {
        Some(c) => format!("{text}/*Invalid register, operand has '{c}' register class*/"),
        None => text,
    }
}

fn smem(i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let w0 = i.words[0];
    let (soe, imm) = (w0 & (1 << 14) != 0, w0 & (1 << 17) != 0);
    let name = i.op.name();
    let buffer = name.starts_with("s_buffer_") || i.op == Op::SAtcProbeBuffer;
    let width = i.widths[0];
    if super::decode::probe(i.op) {
        let mode = (w0 >> 6) & 0x7F;
        ops.push(if mode <= 64 {
            mode.to_string()
        } else {
            format!("0x{mode:x}")
        });
    } else if width != 0 {
        let special = matches!(i.dst, 102..=107 | 124..=127);
        let store = name.contains("store");
        let scratch = name.starts_with("s_scratch_");
        let atomic = name.contains("_atomic_");
        let class = match (width, i.dst) {
            (3.., 125) => None,
            (3.., _) if special => Some(format!("SReg_{}", 32 * width as u16)),
            (1, 124 | 126 | 127) if store || scratch || atomic => {
                Some("SReg_32_XM0_XEXEC".to_string())
            }
            (2, 126) if store || scratch || atomic => Some("SReg_64_XEXEC".to_string()),
            _ => None,
        };
        ops.push(smem_reg(i.dst, width, class.as_deref()));
    }
    if super::decode::no_address(i.op) {
        return;
    }
    let base_width = if buffer { 4 } else { 2 };
    let base_class = (buffer && matches!(i.addr, 102..=107 | 124..=127)).then_some("SReg_128");
    ops.push(smem_reg(i.addr as u16, base_width, base_class));
    let off = i.imm;
    let off_text = |v: i32| {
        if v < 0 {
            format!("-0x{:x}", -(v as i64))
        } else {
            format!("0x{v:x}")
        }
    };
    match (imm, soe) {
        (true, false) => ops.push(off_text(off)),
        (false, false) => ops.push(sreg((i.words[1] & 0x7F) as u16, 1)),
        (_, true) => {
            ops.push(sreg(i.imm2 as u16, 1));
            if imm {
                tail.push_str(&format!(" offset:{}", off_text(off)));
            }
        }
    }
    if i.flags & Inst::GLC != 0
        && !super::decode::probe(i.op)
        && !name.starts_with("s_dcache_discard")
    {
        tail.push_str(" glc");
    }
}

fn flat(target: Target, i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let w = i.widths;
    let acc = i.acc & Inst::ACC_DATA != 0;
    let lds = i.flags & super::decode::LDS != 0;
    let name = i.op.name();
    let atomic = name.contains("_atomic_");
    let glc = i.flags & Inst::GLC != 0;
    // Atomics return (and print) their destination only with glc/sc0.
    // A returning atomic's destination is as wide as its data (half of it
    // for cmpswap).
    let dst_width = match (atomic, name.contains("cmpswap")) {
        (true, true) => w[2] / 2,
        (true, false) => w[2],
        _ => w[0],
    };
    if dst_width != 0 && (!atomic || glc) && !lds {
        ops.push(vreg(i.dst, dst_width, acc));
    }
    let saddr = i.saddr != 0x7F;
    match i.family {
        Family::Flat => ops.push(vreg(i.addr as u16, 2, false)),
        Family::Global if i.op.name().contains("addtid") => {}
        Family::Global => ops.push(vreg(i.addr as u16, if saddr { 1 } else { 2 }, false)),
        _ => {
            let vaddr = if target == Target::Gfx942 {
                i.flags & Inst::SVE != 0
            } else {
                !saddr
            };
            ops.push(if vaddr {
                vreg(i.addr as u16, 1, false)
            } else {
                "off".into()
            });
        }
    }
    if w[2] != 0 {
        ops.push(vreg(i.data[0] as u16, w[2], acc));
    }
    if i.family != Family::Flat {
        ops.push(if saddr {
            sreg(
                i.saddr as u16,
                if i.family == Family::Global { 2 } else { 1 },
            )
        } else {
            "off".into()
        });
    }
    if i.imm != 0 {
        tail.push_str(&format!(" offset:{}", i.imm));
    }
    cache_bits(target, i.flags, tail);
    if lds && target == Target::Gfx90a {
        tail.push_str(" lds");
    }
}

/// The cache-policy text of a memory word: glc/slc/scc (gfx90a) or
/// sc0/nt/sc1 (gfx942).
fn cache_bits(target: Target, flags: u8, tail: &mut String) {
    let (glc, slc, scc) = (
        flags & Inst::GLC != 0,
        flags & Inst::SLC != 0,
        flags & super::decode::SCC != 0,
    );
    let bits = match target {
        Target::Gfx90a => [(glc, " glc"), (slc, " slc"), (scc, " scc")],
        Target::Gfx942 => [(glc, " sc0"), (slc, " nt"), (scc, " sc1")],
    };
    for (on, t) in bits {
        if on {
            tail.push_str(t);
        }
    }
}

/// MUBUF: `vdata, vaddr, srsrc, soffset` then idxen/offen, the offset and
/// the cache bits. Returns true for the cache-control ops, which LLVM prints
/// bare whatever their fields hold.
fn mubuf(target: Target, i: &Inst, ops: &mut Vec<String>, tail: &mut String) -> bool {
    let w = i.widths;
    if w[0] == 0 && w[1] == 0 {
        // gfx942's cache controls print their scope bits.
        if target == Target::Gfx942 {
            cache_bits(target, i.flags & (Inst::GLC | super::decode::SCC), tail);
            return false;
        }
        return true;
    }
    let acc = i.acc & Inst::ACC_DATA != 0;
    let (offen, idxen) = (i.words[0] & (1 << 12) != 0, i.words[0] & (1 << 13) != 0);
    // The LDS form writes LDS, not vdata.
    if w[0] != 0 && i.flags & super::decode::LDS == 0 {
        ops.push(vreg(i.data[0] as u16, w[0], acc));
    }
    ops.push(match (idxen, offen) {
        (false, false) => "off".into(),
        (true, true) => vreg(i.addr as u16, 2, false),
        _ => vreg(i.addr as u16, 1, false),
    });
    ops.push(smem_reg(
        (i.imm2 as u16) * 4,
        4,
        matches!(i.imm2 * 4, 102..=107 | 124..=127).then_some("SReg_128"),
    ));
    ops.push(salu_src(&i.src[0], 1, None));
    if idxen {
        tail.push_str(" idxen");
    }
    if offen {
        tail.push_str(" offen");
    }
    if i.imm != 0 {
        tail.push_str(&format!(" offset:{}", i.imm));
    }
    cache_bits(target, i.flags, tail);
    if i.flags & super::decode::LDS != 0 {
        tail.push_str(" lds");
    }
    false
}

/// GFX9 buffer data formats (AMD CDNA3 ISA guide, "Buffer Instructions",
/// DFMT), as LLVM names them.
pub(crate) const DFMT: [&str; 16] = [
    "INVALID",
    "8",
    "16",
    "8_8",
    "32",
    "16_16",
    "10_11_11",
    "11_11_10",
    "10_10_10_2",
    "2_10_10_10",
    "8_8_8_8",
    "32_32",
    "16_16_16_16",
    "32_32_32",
    "32_32_32_32",
    "RESERVED_15",
];
/// GFX9 buffer numeric formats (same section, NFMT).
pub(crate) const NFMT: [&str; 8] = [
    "UNORM",
    "SNORM",
    "USCALED",
    "SSCALED",
    "UINT",
    "SINT",
    "RESERVED_6",
    "FLOAT",
];

/// MTBUF: MUBUF's operands, then `format:[dfmt,nfmt]` leaving out LLVM's
/// defaults (BUF_DATA_FORMAT_8, BUF_NUM_FORMAT_UNORM), then the rest of
/// MUBUF's tail.
fn mtbuf(target: Target, i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let acc = i.acc & Inst::ACC_DATA != 0;
    let w0 = i.words[0];
    let (offen, idxen) = (w0 & (1 << 12) != 0, w0 & (1 << 13) != 0);
    ops.push(vreg(i.data[0] as u16, i.widths[0], acc));
    ops.push(match (idxen, offen) {
        (false, false) => "off".into(),
        (true, true) => vreg(i.addr as u16, 2, false),
        _ => vreg(i.addr as u16, 1, false),
    });
    ops.push(smem_reg(
        (i.imm2 as u16) * 4,
        4,
        matches!(i.imm2 * 4, 102..=107 | 124..=127).then_some("SReg_128"),
    ));
    ops.push(salu_src(&i.src[0], 1, None));
    let (dfmt, nfmt) = ((w0 >> 19) & 0xF, (w0 >> 23) & 7);
    let mut fmt = Vec::new();
    if dfmt != 1 {
        fmt.push(format!("BUF_DATA_FORMAT_{}", DFMT[dfmt as usize]));
    }
    if nfmt != 0 {
        fmt.push(format!("BUF_NUM_FORMAT_{}", NFMT[nfmt as usize]));
    }
    if !fmt.is_empty() {
        tail.push_str(&format!(" format:[{}]", fmt.join(",")));
    }
    if idxen {
        tail.push_str(" idxen");
    }
    if offen {
        tail.push_str(" offen");
    }
    if i.imm != 0 {
        tail.push_str(&format!(" offset:{}", i.imm));
    }
    cache_bits(target, i.flags, tail);
}

fn ds(i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let w = i.widths;
    let acc = i.acc & Inst::ACC_DATA != 0;
    if w[0] != 0 {
        ops.push(vreg(i.dst, w[0], acc));
    }
    if w[1] != 0 {
        ops.push(vreg(i.addr as u16, w[1], false));
    }
    if w[2] != 0 {
        ops.push(vreg(i.data[0] as u16, w[2], acc));
    }
    if w[3] != 0 {
        ops.push(vreg(i.data[1] as u16, w[3], acc));
    }
    let name = i.op.name();
    // The two-address forms (read2/write2/wrxchg2 and their st64 variants,
    // gfx11's 2addr names) take two 8-bit offsets.
    if name.contains("2addr") {
        if i.imm != 0 {
            tail.push_str(&format!(" offset0:{}", i.imm));
        }
        if i.imm2 != 0 {
            tail.push_str(&format!(" offset1:{}", i.imm2));
        }
    } else {
        let off = i.imm as u32 | i.imm2 << 8;
        if i.op == Op::DsSwizzleB32 && off != 0 {
            tail.push_str(&format!(" offset:{}", swizzle_text(off as u16)));
        } else if off != 0 {
            tail.push_str(&format!(" offset:{off}"));
        }
    }
}

/// Ops whose src0 must be a VGPR (LLVM class `VGPR_32`; v_accvgpr_mov_b32:
/// an AGPR).
pub(crate) fn src0_vgpr_only(op: Op) -> bool {
    matches!(op, Op::VSwapB32 | Op::VAccvgprMovB32)
}

/// An integer 16-bit constant: inline floats print as their f16 pattern,
/// literals in hex unless the whole dword is an inline value.
fn int16_const(code: u16, lit: Option<u32>) -> Option<String> {
    match code {
        240..=248 => Some(format!("0x{:x}", float_const_bits(code, 16))),
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

/// Source `k` of a VOP1/VOP2/VOPC instruction (or its DPP/SDWA form), with
/// LLVM's register-class comments.
fn e32_src(i: &Inst, k: usize) -> String {
    use crate::gfx11::decode::{src_is_16, src_is_float};
    let op = &i.src[k];
    let width = i.widths[k + 1];
    let code = op.code;
    let constant = matches!(code, 128..=208 | 240..=248 | 255);
    let sixteen = src_is_16(i.op) && width == 1;
    let bits = if sixteen || i.op == Op::VPkFmacF16 {
        16
    } else {
        operand_bits(i.op, width).max(if width == 1 { 32 } else { 64 })
    };
    let fp64 = i.op.name().contains("f64");
    let acc = i.op == Op::VAccvgprMovB32;
    let text = match int16_const(code, i.literal) {
        Some(t) if sixteen && !src_is_float(i.op, k) && i.sdwa.is_none() => t,
        _ if code >= 256 => vreg(code - 256, width, acc),
        _ => src(op, width, i.literal, bits, fp64),
    };
    let class_comment =
        |class: &str| format!("{text}/*Invalid register, operand has '{class}' register class*/");
    if k == 0 && i.op == Op::VReadfirstlaneB32 {
        return match code {
            256..=511 | 254 | 235..=239 | 251..=253 => text,
            _ if constant => format!("{text}/*Invalid immediate*/"),
            _ => class_comment("VRegOrLds_32"),
        };
    }
    if k == 0 && src0_vgpr_only(i.op) {
        return match code {
            256..=511 | 235..=239 | 251..=253 => text,
            _ if constant => format!("{text}/*Invalid immediate*/"),
            _ => class_comment(if acc { "AGPR_32" } else { "VGPR_32" }),
        };
    }
    text
}

/// The scalar destination of v_readfirstlane_b32 (an 8-bit field LLVM
/// decodes like a source: codes above the SGPRs are flagged constants).
fn readfirstlane_dst(code: u16) -> String {
    if code < 128 {
        return sreg(code, 1);
    }
    let op = Operand {
        code,
        src: crate::gfx11::inst::Src::Unsupported(code),
    };
    let text = src(&op, 1, None, 32, false);
    if matches!(code, 235..=239 | 251..=253) {
        text
    } else {
        format!("{text}/*Invalid immediate*/")
    }
}

/// Apply the neg/abs (and SDWA sext) modifiers of source `k`.
fn with_mods(s: String, k: usize, abs: u8, neg: u8, sext: u8) -> String {
    let imm = s
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == b'-');
    let s = if (sext >> k) & 1 != 0 {
        format!("sext({s})")
    } else {
        s
    };
    if (neg >> k) & 1 != 0 && (abs >> k) & 1 == 0 && imm && (sext >> k) & 1 == 0 {
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

/// VOP2 ops that write a carry to VCC (and, for the carry-in forms, read one).
fn vop2_carry(op: Op) -> (bool, bool) {
    use Op::*;
    match op {
        VAddCoU32 | VSubCoU32 | VSubrevCoU32 => (true, false),
        VAddCoCiU32 | VSubCoCiU32 | VSubrevCoCiU32 => (true, true),
        VCndmaskB32 => (false, true),
        _ => (false, false),
    }
}

fn vop_e32(target: Target, i: &Inst, ops: &mut Vec<String>, tail: &mut String) {
    let w = i.widths;
    let lit = i.literal;
    let (carry_out, carry_in) = if i.family == Family::Vop2 {
        vop2_carry(i.op)
    } else {
        (false, false)
    };
    if i.family == Family::Vopc {
        ops.push(match i.sdwa.and_then(|s| s.sdst) {
            Some(code) => sreg(code as u16, 2),
            None => "vcc".into(),
        });
    } else if w[0] != 0 {
        ops.push(match i.op {
            Op::VReadfirstlaneB32 => readfirstlane_dst(i.dst),
            Op::VAccvgprMovB32 => vreg(i.dst, 1, true),
            _ => vreg(i.dst, w[0], false),
        });
    }
    if carry_out {
        ops.push("vcc".into());
    }
    let (abs, neg, sext) = match (i.dpp, i.sdwa) {
        (None, None) => (0, 0, 0),
        (_, Some(s)) => (i.mods.abs, i.mods.neg, s.sext),
        (Some(_), None) => {
            // DPP: an integer source's neg bit is its sext (the integer dot
            // products ignore theirs).
            if super::decode::dot_accumulate(i.op) && !super::decode::slot_is_float(i.op, 0) {
                (0, 0, 0)
            } else {
                let ints: u8 = (0..2)
                    .filter(|&k| !super::decode::slot_is_float(i.op, k))
                    .map(|k| 1 << k)
                    .sum();
                (i.mods.abs & !ints, i.mods.neg & !ints, i.mods.neg & ints)
            }
        }
    };
    let mut srcs = Vec::new();
    for k in 0..2 {
        if w[k + 1] != 0 {
            srcs.push(with_mods(e32_src(i, k), k, abs, neg, sext));
        }
    }
    if let Some(l) = lit.filter(|_| i.family == Family::Vop2 && i.op.name().contains("mk_")) {
        srcs.insert(1, format!("0x{l:x}"));
    } else if let Some(l) = lit.filter(|_| i.family == Family::Vop2 && i.op.name().contains("ak_"))
    {
        srcs.push(format!("0x{l:x}"));
    }
    ops.extend(srcs);
    if carry_in {
        ops.push("vcc".into());
    }
    if let Some(d) = &i.dpp {
        dpp_tail(target, i, d, tail);
    }
    if let Some(s) = &i.sdwa {
        sdwa_tail(i, s, tail);
    }
}

/// GFX9 DPP controls (AMD CDNA3 ISA guide, "DPP_CTRL Enumeration"), as
/// LLVM prints them.
fn dpp_tail(target: Target, i: &Inst, d: &crate::gfx11::inst::Dpp, tail: &mut String) {
    let c = d.ctrl;
    let wide = i.widths.iter().any(|&w| w >= 2);
    let _ = target;
    let text = match c {
        _ if wide && !(0x150..=0x15F).contains(&c) => {
            "/* DP ALU dpp only supports row_newbcast */".to_string()
        }
        0x000..=0x0FF => format!(
            "quad_perm:[{},{},{},{}]",
            c & 3,
            (c >> 2) & 3,
            (c >> 4) & 3,
            (c >> 6) & 3
        ),
        0x101..=0x10F => format!("row_shl:{}", c & 0xF),
        0x111..=0x11F => format!("row_shr:{}", c & 0xF),
        0x121..=0x12F => format!("row_ror:{}", c & 0xF),
        0x130 => "wave_shl:1".into(),
        0x134 => "wave_rol:1".into(),
        0x138 => "wave_shr:1".into(),
        0x13C => "wave_ror:1".into(),
        0x140 => "row_mirror".into(),
        0x141 => "row_half_mirror".into(),
        0x142 => "row_bcast:15".into(),
        0x143 => "row_bcast:31".into(),
        0x150..=0x15F => format!("row_newbcast:{}", c & 0xF),
        0x160..=0x16F => "/* row_xmask is not supported on ASICs earlier than GFX10 */".into(),
        _ => "/* Invalid dpp_ctrl value */".into(),
    };
    tail.push(' ');
    tail.push_str(&text);
    tail.push_str(&format!(
        " row_mask:0x{:x} bank_mask:0x{:x}",
        d.row_mask, d.bank_mask
    ));
    if d.bound_ctrl {
        tail.push_str(" bound_ctrl:1");
    }
}

const SEL: [&str; 8] = [
    "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD", "7",
];
/// dst_unused 3 is unnamed; LLVM prints it as UNUSED_PAD.
const UNUSED: [&str; 4] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE", "UNUSED_PAD"];

fn sdwa_tail(i: &Inst, s: &crate::gfx11::inst::Sdwa, tail: &mut String) {
    if i.mods.clamp {
        tail.push_str(" clamp");
    }
    match i.mods.omod {
        1 => tail.push_str(" mul:2"),
        2 => tail.push_str(" mul:4"),
        3 => tail.push_str(" div:2"),
        _ => {}
    }
    if i.family != Family::Vopc {
        tail.push_str(&format!(
            " dst_sel:{} dst_unused:{}",
            SEL[s.dst_sel as usize], UNUSED[s.dst_unused as usize]
        ));
    }
    tail.push_str(&format!(" src0_sel:{}", SEL[s.src0_sel as usize]));
    if i.family != Family::Vop1 {
        tail.push_str(&format!(" src1_sel:{}", SEL[s.src1_sel as usize]));
    }
}
