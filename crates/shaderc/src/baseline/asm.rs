//! The gfx11 instructions the baseline compiler emits, and their encoding.
//!
//! A small closed set: scalar moves and bit operations for EXEC-mask
//! control flow, `s_load` for kernel arguments, the VOP3 form of every
//! VALU operation (one encoding for VOP1, VOP2, VOPC and VOP3 opcodes, with
//! an optional 32-bit literal), `global_load/store_b32` in SADDR form, and
//! the SOPP branches, waits and `s_endpgm`. Formats and field positions are
//! those of AMD's "RDNA3 Instruction Set Architecture" reference guide
//! (chapter "Microcode Formats": SOP1, SOP2, SOPP, SMEM, VOP3, FLAT/GLOBAL);
//! each opcode number is checked against llvm-mc-19 by the tests below.

use std::fmt;

/// A branch target: an index into the program's label table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Label(pub u32);

/// An instruction operand (the 9-bit VOP3 / 8-bit SALU source field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    Sgpr(u8),
    Vgpr(u8),
    ExecLo,
    /// A 32-bit constant: inline when the ISA has it as one, else the
    /// instruction's literal dword.
    Const(u32),
}

impl Src {
    /// The integer inline constants: 0..=64 (fields 128..=192) and
    /// -1..=-16 (193..=208), RDNA3 ISA "Scalar ALU operands" table.
    fn inline(value: u32) -> Option<u16> {
        let v = value as i32;
        match v {
            0..=64 => Some(128 + v as u16),
            -16..=-1 => Some((192 - v) as u16),
            _ => None,
        }
    }

    /// The source field, and the literal it needs.
    fn field(self) -> (u16, Option<u32>) {
        match self {
            Src::Sgpr(n) => (u16::from(n), None),
            Src::Vgpr(n) => (256 + u16::from(n), None),
            Src::ExecLo => (126, None),
            Src::Const(c) => match Src::inline(c) {
                Some(f) => (f, None),
                None => (255, Some(c)),
            },
        }
    }

    /// Whether the operand reads the constant bus (an SGPR, EXEC or a
    /// literal; inline constants do not).
    pub(crate) fn on_constant_bus(self) -> bool {
        match self {
            Src::Sgpr(_) | Src::ExecLo => true,
            Src::Vgpr(_) => false,
            Src::Const(c) => Src::inline(c).is_none(),
        }
    }

    pub(crate) fn is_literal(self) -> bool {
        matches!(self, Src::Const(c) if Src::inline(c).is_none())
    }
}

/// A scalar destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sdst {
    Sgpr(u8),
    ExecLo,
}

impl Sdst {
    fn field(self) -> u32 {
        match self {
            Sdst::Sgpr(n) => u32::from(n),
            Sdst::ExecLo => 126,
        }
    }
}

/// SOP1 opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sop1 {
    MovB32 = 0x00,
    NotB32 = 0x1e,
}

/// SOP2 opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sop2 {
    AndB32 = 0x16,
    OrB32 = 0x18,
    XorB32 = 0x1a,
    AndNot1B32 = 0x22,
}

/// VALU opcodes in their VOP3 numbering (VOPC 0x000.., VOP2 0x100..,
/// VOP1 0x180.., VOP3-only 0x200..).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vop {
    CmpLtF32 = 0x011,
    CmpEqF32 = 0x012,
    CmpLeF32 = 0x013,
    CmpGtF32 = 0x014,
    CmpGeF32 = 0x016,
    CmpNeqF32 = 0x01d,
    CmpLtI32 = 0x041,
    CmpLeI32 = 0x043,
    CmpGtI32 = 0x044,
    CmpGeI32 = 0x046,
    CmpLtU32 = 0x049,
    CmpEqU32 = 0x04a,
    CmpLeU32 = 0x04b,
    CmpGtU32 = 0x04c,
    CmpNeU32 = 0x04d,
    CmpGeU32 = 0x04e,
    CndmaskB32 = 0x101,
    AddF32 = 0x103,
    SubF32 = 0x104,
    MulF32 = 0x108,
    MinI32 = 0x111,
    MaxI32 = 0x112,
    MinU32 = 0x113,
    MaxU32 = 0x114,
    LshlrevB32 = 0x118,
    LshrrevB32 = 0x119,
    AshrrevI32 = 0x11a,
    AndB32 = 0x11b,
    OrB32 = 0x11c,
    XorB32 = 0x11d,
    AddNcU32 = 0x125,
    SubNcU32 = 0x126,
    MovB32 = 0x181,
    CvtF32I32 = 0x185,
    CvtF32U32 = 0x186,
    CvtU32F32 = 0x187,
    CvtI32F32 = 0x188,
    NotB32 = 0x1b7,
    BfeU32 = 0x210,
    FmaF32 = 0x213,
    MulLoU32 = 0x32c,
}

impl Vop {
    /// How many sources the operation reads.
    pub(crate) fn sources(self) -> usize {
        match self as u16 {
            0x180..=0x1ff => 1,
            0x200..=0x2ff => 3,
            _ if self == Vop::CndmaskB32 => 3,
            _ => 2,
        }
    }

    /// Whether the destination is a lane mask in an SGPR (a compare).
    pub(crate) fn writes_mask(self) -> bool {
        (self as u16) < 0x100
    }
}

/// SOPP branch conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cond {
    Always = 0x20,
    ExecZ = 0x25,
}

/// One instruction of a baseline program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Inst {
    /// `s_load_b32/b64` of `dwords` dwords at `base[0:1] + offset`.
    SLoad {
        dst: u8,
        base: u8,
        offset: u32,
        dwords: u8,
    },
    Sop1 {
        op: Sop1,
        dst: Sdst,
        src: Src,
    },
    Sop2 {
        op: Sop2,
        dst: Sdst,
        a: Src,
        b: Src,
    },
    /// A VOP3-encoded VALU operation; `dst` is a VGPR, or the SGPR a
    /// compare writes its lane mask to.
    Vop {
        op: Vop,
        dst: u8,
        src: [Src; 3],
    },
    /// `global_load_b32 v[dst], v[offset], s[base:base+1]`.
    GlobalLoad {
        dst: u8,
        offset: u8,
        base: u8,
    },
    /// `global_store_b32 v[offset], v[data], s[base:base+1]`.
    GlobalStore {
        data: u8,
        offset: u8,
        base: u8,
    },
    /// `s_waitcnt lgkmcnt(0)`.
    WaitLgkm,
    /// `s_waitcnt vmcnt(0)`.
    WaitVm,
    Branch {
        cond: Cond,
        target: Label,
    },
    /// Marks where a label points; encodes to nothing.
    Bind(Label),
    Endpgm,
}

impl Inst {
    /// Encoded size in dwords.
    pub(crate) fn dwords(&self) -> usize {
        match self {
            Inst::Bind(_) => 0,
            Inst::SLoad { .. } | Inst::GlobalLoad { .. } | Inst::GlobalStore { .. } => 2,
            Inst::Sop1 { src, .. } => 1 + usize::from(src.is_literal()),
            Inst::Sop2 { a, b, .. } => 1 + usize::from(a.is_literal() || b.is_literal()),
            Inst::Vop { op, src, .. } => {
                2 + usize::from(src[..op.sources()].iter().any(|s| s.is_literal()))
            }
            _ => 1,
        }
    }
}

/// Why a program does not encode (a code generator bug, never user input).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EncodeError {
    #[error("branch to label {0} that is never bound")]
    UnboundLabel(u32),
    #[error("branch offset {0} dwords is out of the 16-bit range")]
    BranchRange(i64),
    #[error("instruction {0:?} needs two different literals")]
    TwoLiterals(Inst),
}

fn literal_of(srcs: &[Src], inst: &Inst) -> Result<Option<u32>, EncodeError> {
    let mut lit = None;
    for s in srcs {
        if let (_, Some(c)) = s.field() {
            match lit {
                Some(l) if l != c => return Err(EncodeError::TwoLiterals(inst.clone())),
                _ => lit = Some(c),
            }
        }
    }
    Ok(lit)
}

/// Encode `program` to little-endian machine code.
pub(crate) fn encode(program: &[Inst]) -> Result<Vec<u8>, EncodeError> {
    // Label addresses in dwords.
    let mut labels: Vec<Option<usize>> = Vec::new();
    let mut at = 0usize;
    for inst in program {
        if let Inst::Bind(Label(l)) = inst {
            let l = *l as usize;
            if labels.len() <= l {
                labels.resize(l + 1, None);
            }
            labels[l] = Some(at);
        }
        at += inst.dwords();
    }
    let mut words: Vec<u32> = Vec::with_capacity(at);
    for inst in program {
        match *inst {
            Inst::Bind(_) => {}
            Inst::SLoad {
                dst,
                base,
                offset,
                dwords,
            } => {
                let op: u32 = match dwords {
                    1 => 0,
                    2 => 1,
                    _ => 2,
                };
                words.push(0b111101 << 26 | op << 18 | u32::from(dst) << 6 | u32::from(base >> 1));
                words.push(0x7c << 25 | (offset & 0x1f_ffff));
            }
            Inst::Sop1 { op, dst, src } => {
                let (f, lit) = src.field();
                words.push(
                    0b1_0111_1101 << 23 | dst.field() << 16 | (op as u32) << 8 | u32::from(f),
                );
                words.extend(lit);
            }
            Inst::Sop2 { op, dst, a, b } => {
                let lit = literal_of(&[a, b], inst)?;
                words.push(
                    0b10 << 30
                        | (op as u32) << 23
                        | dst.field() << 16
                        | u32::from(b.field().0) << 8
                        | u32::from(a.field().0),
                );
                words.extend(lit);
            }
            Inst::Vop { op, dst, src } => {
                let n = op.sources();
                let lit = literal_of(&src[..n], inst)?;
                let field = |i: usize| {
                    if i < n {
                        u32::from(src[i].field().0)
                    } else {
                        0
                    }
                };
                words.push(0b110101 << 26 | (op as u32) << 16 | u32::from(dst));
                words.push(field(0) | field(1) << 9 | field(2) << 18);
                words.extend(lit);
            }
            Inst::GlobalLoad { dst, offset, base } => {
                words.push(0b110111 << 26 | 0x14 << 18 | 2 << 16);
                words.push(u32::from(dst) << 24 | u32::from(base) << 16 | u32::from(offset));
            }
            Inst::GlobalStore { data, offset, base } => {
                words.push(0b110111 << 26 | 0x1a << 18 | 2 << 16);
                words.push(u32::from(base) << 16 | u32::from(data) << 8 | u32::from(offset));
            }
            Inst::WaitLgkm => words.push(sopp(0x09, 0xfc07)),
            Inst::WaitVm => words.push(sopp(0x09, 0x03f7)),
            Inst::Branch { cond, target } => {
                let to = labels
                    .get(target.0 as usize)
                    .copied()
                    .flatten()
                    .ok_or(EncodeError::UnboundLabel(target.0))?;
                // SOPP branches: PC = PC + 4 + simm16 * 4.
                let rel = to as i64 - (words.len() as i64 + 1);
                let simm = i16::try_from(rel).map_err(|_| EncodeError::BranchRange(rel))?;
                words.push(sopp(cond as u32, simm as u16));
            }
            Inst::Endpgm => words.push(sopp(0x30, 0)),
        }
    }
    Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

fn sopp(op: u32, simm: u16) -> u32 {
    0b1_0111_1111 << 23 | op << 16 | u32::from(simm)
}

impl fmt::Display for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Src::Sgpr(n) => write!(f, "s{n}"),
            Src::Vgpr(n) => write!(f, "v{n}"),
            Src::ExecLo => f.write_str("exec_lo"),
            Src::Const(c) => match Src::inline(c) {
                Some(_) => write!(f, "{}", c as i32),
                None => write!(f, "{c:#x}"),
            },
        }
    }
}

impl fmt::Display for Sdst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Sdst::Sgpr(n) => write!(f, "s{n}"),
            Sdst::ExecLo => f.write_str("exec_lo"),
        }
    }
}

/// The LLVM assembler's name of each opcode (for listings and the tests).
fn vop_name(op: Vop) -> &'static str {
    use Vop::*;
    match op {
        CmpLtF32 => "v_cmp_lt_f32_e64",
        CmpEqF32 => "v_cmp_eq_f32_e64",
        CmpLeF32 => "v_cmp_le_f32_e64",
        CmpGtF32 => "v_cmp_gt_f32_e64",
        CmpGeF32 => "v_cmp_ge_f32_e64",
        CmpNeqF32 => "v_cmp_neq_f32_e64",
        CmpLtI32 => "v_cmp_lt_i32_e64",
        CmpLeI32 => "v_cmp_le_i32_e64",
        CmpGtI32 => "v_cmp_gt_i32_e64",
        CmpGeI32 => "v_cmp_ge_i32_e64",
        CmpLtU32 => "v_cmp_lt_u32_e64",
        CmpEqU32 => "v_cmp_eq_u32_e64",
        CmpLeU32 => "v_cmp_le_u32_e64",
        CmpGtU32 => "v_cmp_gt_u32_e64",
        CmpNeU32 => "v_cmp_ne_u32_e64",
        CmpGeU32 => "v_cmp_ge_u32_e64",
        CndmaskB32 => "v_cndmask_b32_e64",
        AddF32 => "v_add_f32_e64",
        SubF32 => "v_sub_f32_e64",
        MulF32 => "v_mul_f32_e64",
        MinI32 => "v_min_i32_e64",
        MaxI32 => "v_max_i32_e64",
        MinU32 => "v_min_u32_e64",
        MaxU32 => "v_max_u32_e64",
        LshlrevB32 => "v_lshlrev_b32_e64",
        LshrrevB32 => "v_lshrrev_b32_e64",
        AshrrevI32 => "v_ashrrev_i32_e64",
        AndB32 => "v_and_b32_e64",
        OrB32 => "v_or_b32_e64",
        XorB32 => "v_xor_b32_e64",
        AddNcU32 => "v_add_nc_u32_e64",
        SubNcU32 => "v_sub_nc_u32_e64",
        MovB32 => "v_mov_b32_e64",
        CvtF32I32 => "v_cvt_f32_i32_e64",
        CvtF32U32 => "v_cvt_f32_u32_e64",
        CvtU32F32 => "v_cvt_u32_f32_e64",
        CvtI32F32 => "v_cvt_i32_f32_e64",
        NotB32 => "v_not_b32_e64",
        BfeU32 => "v_bfe_u32",
        FmaF32 => "v_fma_f32",
        MulLoU32 => "v_mul_lo_u32",
    }
}

impl fmt::Display for Inst {
    /// LLVM's assembly syntax; a branch prints its label as `L<n>` and a
    /// bound label as `L<n>:`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Inst::SLoad {
                dst,
                base,
                offset,
                dwords,
            } => {
                let d = match dwords {
                    1 => format!("s{dst}"),
                    n => format!("s[{dst}:{}]", dst + n - 1),
                };
                write!(
                    f,
                    "s_load_b{} {d}, s[{base}:{}], {offset:#x}",
                    u32::from(*dwords) * 32,
                    base + 1
                )
            }
            Inst::Sop1 { op, dst, src } => {
                let name = match op {
                    Sop1::MovB32 => "s_mov_b32",
                    Sop1::NotB32 => "s_not_b32",
                };
                write!(f, "{name} {dst}, {src}")
            }
            Inst::Sop2 { op, dst, a, b } => {
                let name = match op {
                    Sop2::AndB32 => "s_and_b32",
                    Sop2::OrB32 => "s_or_b32",
                    Sop2::XorB32 => "s_xor_b32",
                    Sop2::AndNot1B32 => "s_and_not1_b32",
                };
                write!(f, "{name} {dst}, {a}, {b}")
            }
            Inst::Vop { op, dst, src } => {
                let d = if op.writes_mask() {
                    format!("s{dst}")
                } else {
                    format!("v{dst}")
                };
                write!(f, "{} {d}", vop_name(*op))?;
                for s in &src[..op.sources()] {
                    write!(f, ", {s}")?;
                }
                Ok(())
            }
            Inst::GlobalLoad { dst, offset, base } => {
                write!(
                    f,
                    "global_load_b32 v{dst}, v{offset}, s[{base}:{}]",
                    base + 1
                )
            }
            Inst::GlobalStore { data, offset, base } => {
                write!(
                    f,
                    "global_store_b32 v{offset}, v{data}, s[{base}:{}]",
                    base + 1
                )
            }
            Inst::WaitLgkm => f.write_str("s_waitcnt lgkmcnt(0)"),
            Inst::WaitVm => f.write_str("s_waitcnt vmcnt(0)"),
            Inst::Branch { cond, target } => {
                let name = match cond {
                    Cond::Always => "s_branch",
                    Cond::ExecZ => "s_cbranch_execz",
                };
                write!(f, "{name} L{}", target.0)
            }
            Inst::Bind(l) => write!(f, "L{}:", l.0),
            Inst::Endpgm => f.write_str("s_endpgm"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form, against what llvm-mc-19 assembles from its own text.
    #[test]
    fn encodings_match_llvm_mc() {
        use std::io::Write as _;
        let Ok(mut child) = std::process::Command::new("llvm-mc-19")
            .args(["-arch=amdgcn", "-mcpu=gfx1100", "-filetype=obj", "-o", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
        else {
            eprintln!("llvm-mc-19 not installed: skipped");
            return;
        };
        let vops = [
            Vop::CmpLtF32,
            Vop::CmpEqF32,
            Vop::CmpLeF32,
            Vop::CmpGtF32,
            Vop::CmpGeF32,
            Vop::CmpNeqF32,
            Vop::CmpLtI32,
            Vop::CmpLeI32,
            Vop::CmpGtI32,
            Vop::CmpGeI32,
            Vop::CmpLtU32,
            Vop::CmpEqU32,
            Vop::CmpLeU32,
            Vop::CmpGtU32,
            Vop::CmpNeU32,
            Vop::CmpGeU32,
            Vop::CndmaskB32,
            Vop::AddF32,
            Vop::SubF32,
            Vop::MulF32,
            Vop::MinI32,
            Vop::MaxI32,
            Vop::MinU32,
            Vop::MaxU32,
            Vop::LshlrevB32,
            Vop::LshrrevB32,
            Vop::AshrrevI32,
            Vop::AndB32,
            Vop::OrB32,
            Vop::XorB32,
            Vop::AddNcU32,
            Vop::SubNcU32,
            Vop::MovB32,
            Vop::CvtF32I32,
            Vop::CvtF32U32,
            Vop::CvtU32F32,
            Vop::CvtI32F32,
            Vop::NotB32,
            Vop::BfeU32,
            Vop::FmaF32,
            Vop::MulLoU32,
        ];
        let mut program = vec![
            Inst::Bind(Label(0)),
            Inst::SLoad {
                dst: 6,
                base: 0,
                offset: 0x10,
                dwords: 2,
            },
            Inst::SLoad {
                dst: 9,
                base: 2,
                offset: 0x8,
                dwords: 1,
            },
            Inst::WaitLgkm,
            Inst::WaitVm,
            Inst::Sop1 {
                op: Sop1::MovB32,
                dst: Sdst::Sgpr(16),
                src: Src::ExecLo,
            },
            Inst::Sop1 {
                op: Sop1::NotB32,
                dst: Sdst::ExecLo,
                src: Src::Const(0x1234_5678),
            },
        ];
        for (i, op) in [Sop2::AndB32, Sop2::OrB32, Sop2::XorB32, Sop2::AndNot1B32]
            .into_iter()
            .enumerate()
        {
            program.push(Inst::Sop2 {
                op,
                dst: if i % 2 == 0 {
                    Sdst::ExecLo
                } else {
                    Sdst::Sgpr(20)
                },
                a: Src::Sgpr(3),
                b: if i % 3 == 0 {
                    Src::Const(1000)
                } else {
                    Src::ExecLo
                },
            });
        }
        let sources = [
            [Src::Vgpr(2), Src::Sgpr(3), Src::Vgpr(4)],
            [Src::Const(0x40), Src::Vgpr(7), Src::Const(0xffff_fff0)],
            [Src::Const(0xdead_beef), Src::Vgpr(255), Src::Vgpr(1)],
        ];
        for (i, op) in vops.into_iter().enumerate() {
            let mut src = sources[i % sources.len()];
            if op == Vop::CndmaskB32 {
                src[2] = Src::Sgpr(30);
            }
            program.push(Inst::Vop {
                op,
                dst: if op.writes_mask() { 12 } else { i as u8 + 1 },
                src,
            });
        }
        program.extend([
            Inst::GlobalLoad {
                dst: 1,
                offset: 2,
                base: 6,
            },
            Inst::GlobalStore {
                data: 9,
                offset: 3,
                base: 10,
            },
            Inst::Branch {
                cond: Cond::ExecZ,
                target: Label(1),
            },
            Inst::Bind(Label(1)),
            Inst::Branch {
                cond: Cond::Always,
                target: Label(0),
            },
            Inst::Endpgm,
        ]);
        let text: String = program.iter().map(|i| format!("{i}\n")).collect();
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes())
            .expect("write");
        let out = child.wait_with_output().expect("llvm-mc-19");
        assert!(out.status.success(), "llvm-mc-19 rejected:\n{text}");
        let text_section = elf_text(&out.stdout);
        let ours = encode(&program).expect("encodes");
        if ours != text_section {
            // Find the first instruction that differs.
            let mut at = 0;
            for inst in &program {
                let n = inst.dwords() * 4;
                assert_eq!(
                    ours[at..at + n],
                    text_section[at..at + n],
                    "`{inst}` encodes differently"
                );
                at += n;
            }
            panic!("lengths differ: {} vs {}", ours.len(), text_section.len());
        }
    }

    /// The `.text` section of a relocatable ELF-64 object.
    fn elf_text(elf: &[u8]) -> Vec<u8> {
        let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
        let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
        let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
        let shoff = u64_at(0x28);
        let (shentsize, shnum, shstrndx) = (u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
        let sh = |i: usize| shoff + i * shentsize;
        let strtab = u64_at(sh(shstrndx) + 0x18);
        for i in 0..shnum {
            let name_at = strtab + u32_at(sh(i));
            if elf[name_at..].starts_with(b".text\0") {
                let (off, size) = (u64_at(sh(i) + 0x18), u64_at(sh(i) + 0x20));
                return elf[off..off + size].to_vec();
            }
        }
        panic!("no .text");
    }

    #[test]
    fn a_branch_to_an_unbound_label_is_an_error() {
        let program = [Inst::Branch {
            cond: Cond::Always,
            target: Label(3),
        }];
        assert_eq!(encode(&program), Err(EncodeError::UnboundLabel(3)));
    }

    #[test]
    fn two_literals_in_one_instruction_are_an_error() {
        let inst = Inst::Vop {
            op: Vop::AddNcU32,
            dst: 1,
            src: [Src::Const(1000), Src::Const(2000), Src::Vgpr(0)],
        };
        assert_eq!(
            encode(std::slice::from_ref(&inst)),
            Err(EncodeError::TwoLiterals(inst))
        );
    }
}
