//! gfx11 instruction decoder: recognises the encoding family from the first
//! dword (AMD's RDNA3 ISA guide, "Microcode Formats") and hands the
//! words to that family's decoder. Every decoder returns an [`Inst`] or a
//! [`DecodeError`] carrying the words and, when the opcode is known, the
//! mnemonic — never a panic.

mod buffer;
mod ds;
mod export;
mod flat;
mod image;
mod interp;
mod operand;
mod operand_class;
mod smem;
mod sop;
mod vop;
mod vop3;
mod vopd;

use super::inst::{Family, Inst, Mods, Operand};
use super::opcodes::OpInfo;

pub(crate) use buffer::{BufferFormat, NumFormat, mtbuf_format};
pub(crate) use export::exp_target;
pub(crate) use image::mimg_nsa_regs;
pub use operand::operand_bits;
pub(crate) use operand::{decode_src, float_const_bits, src_code_valid};
pub(crate) use operand_class::{dst_is_float, src_is_16, src_is_float, src0_vgpr_only};
pub(crate) use vop3::{vop3_has_opsel, vop3p_has_opsel};

/// Why a word sequence is not a gfx11 instruction (the same words LLVM's
/// disassembler rejects).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// Fewer dwords than the encoding (or its literal / DPP / NSA dwords) needs.
    Truncated,
    /// The first dword matches no encoding family.
    UnknownEncoding,
    /// The family is known, its opcode field names no instruction.
    UnknownOpcode,
    /// A field the instruction does not use holds a non-zero value, or a
    /// field holds a value reserved in this position.
    ReservedField,
    /// An operand code that is not valid for this operand (reserved source
    /// codes, a VGPR where only scalars may stand, a misaligned tuple...).
    InvalidOperand,
    /// A valid instruction (or form) that gfxsim's executor does not model;
    /// the mnemonic says what (execution-form conversions only).
    Unmodelled,
}

impl std::fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Truncated => "truncated instruction",
            Self::UnknownEncoding => "unknown encoding",
            Self::UnknownOpcode => "unknown opcode",
            Self::ReservedField => "reserved field set",
            Self::InvalidOperand => "invalid operand",
            Self::Unmodelled => "not modelled by the executor",
        })
    }
}

/// Why a word sequence is not an instruction the decoder understands.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}{}: {}", mnemonic.as_deref().map(|m| format!(" ({m})")).unwrap_or_default(), hex_words(words))]
pub struct DecodeError {
    pub kind: DecodeErrorKind,
    /// The words that were looked at (at least the first dword).
    pub words: Vec<u32>,
    /// The mnemonic, when the opcode is known but the form is not valid.
    pub mnemonic: Option<String>,
}

fn hex_words(words: &[u32]) -> String {
    let v: Vec<String> = words.iter().map(|w| format!("{w:08x}")).collect();
    v.join(" ")
}

/// Decode one instruction from `words` (the first is at the PC; pass at
/// least 3 dwords when available, a literal may follow a 64-bit encoding).
pub fn decode(words: &[u32]) -> Result<Inst, DecodeError> {
    let i = decode_family(words)?;
    if vgprs_in_range(&i) {
        Ok(i)
    } else {
        Err(reject(
            DecodeErrorKind::InvalidOperand,
            words,
            i.len as usize,
            Some(i.mnemonic),
        ))
    }
}

/// Does every VGPR tuple of `i` end at or below v255 (LLVM rejects
/// `v[255:256]`)?
fn vgprs_in_range(i: &Inst) -> bool {
    let fits = |first: u16, width: u8| first + width.max(1) as u16 <= 256;
    let w = i.widths;
    match i.family {
        Family::Vop1
        | Family::Vop2
        | Family::Vopc
        | Family::Vop3
        | Family::Vop3sd
        | Family::Vop3p => {
            let scalar_dst = i.family == Family::Vopc
                || is_vop3_compare(i)
                || matches!(
                    i.op,
                    super::opcodes::Op::VReadfirstlaneB32 | super::opcodes::Op::VReadlaneB32
                );
            (scalar_dst || w[0] == 0 || fits(i.dst, w[0]))
                && (0..3).all(|k| {
                    let code = i.src[k].code;
                    code < 256 || w[k + 1] == 0 || fits(code - 256, w[k + 1])
                })
        }
        Family::Ds => {
            (w[0] == 0 || fits(i.dst, w[0]))
                && (w[1] == 0 || fits(i.addr as u16, w[1]))
                && (w[2] == 0 || fits(i.data[0] as u16, w[2]))
                && (w[3] == 0 || fits(i.data[1] as u16, w[3]))
        }
        Family::Mubuf | Family::Mtbuf => {
            let w1 = i.words[1];
            let addr_width = ((w1 >> 22) & 1) + ((w1 >> 23) & 1);
            (w[0] == 0 || fits(i.data[0] as u16, w[0]))
                && (addr_width == 0 || fits(i.addr as u16, addr_width as u8))
        }
        _ => true,
    }
}

fn decode_family(words: &[u32]) -> Result<Inst, DecodeError> {
    let Some(&w0) = words.first() else {
        return Err(DecodeError {
            kind: DecodeErrorKind::Truncated,
            words: Vec::new(),
            mnemonic: None,
        });
    };
    match w0 >> 23 {
        0x17D => return sop::sop1(words),
        0x17E => return sop::sopc(words),
        0x17F => return sop::sopp(words),
        _ => {}
    }
    if w0 >> 28 == 0xB {
        return sop::sopk(words);
    }
    if w0 >> 30 == 0b10 {
        return sop::sop2(words);
    }
    match w0 >> 25 {
        0x3F => return vop::vop1(words),
        0x3E => return vop::vopc(words),
        _ => {}
    }
    if w0 >> 31 == 0 {
        return vop::vop2(words);
    }
    match w0 >> 24 {
        // VOP3P is bits [31:23] = 0x198; 0x199 is no encoding.
        0xCC if w0 & (1 << 23) == 0 => return vop3::vop3p(words),
        0xCC => return Err(reject(DecodeErrorKind::UnknownEncoding, words, 1, None)),
        0xCD => return interp::vinterp(words),
        0xCE => return interp::ldsdir(words),
        _ => {}
    }
    match w0 >> 26 {
        0x3D => smem::smem(words),
        0x35 => vop3::vop3(words),
        0x32 => vopd::vopd(words),
        0x36 => ds::ds(words),
        0x37 => flat::flat(words),
        0x38 => buffer::mubuf(words),
        0x3A => buffer::mtbuf(words),
        0x3C => image::mimg(words),
        0x3E => export::exp(words),
        _ => Err(reject(DecodeErrorKind::UnknownEncoding, words, 1, None)),
    }
}

/// An error of `kind` over the first `n` words.
pub(crate) fn reject(
    kind: DecodeErrorKind,
    words: &[u32],
    n: usize,
    mnemonic: Option<&str>,
) -> DecodeError {
    DecodeError {
        kind,
        words: words[..n.min(words.len())].to_vec(),
        mnemonic: mnemonic.map(str::to_string),
    }
}

/// Too few words for the encoding.
pub(crate) fn truncated(words: &[u32], mnemonic: Option<&str>) -> DecodeError {
    reject(DecodeErrorKind::Truncated, words, words.len(), mnemonic)
}

/// Reject unless `ok`: a reserved field or value in the instruction `info`.
pub(crate) fn require(
    ok: bool,
    kind: DecodeErrorKind,
    words: &[u32],
    n: usize,
    info: &OpInfo,
) -> Result<(), DecodeError> {
    if ok {
        Ok(())
    } else {
        Err(reject(kind, words, n, Some(info.mnemonic)))
    }
}

/// Look up an opcode; unknown → DecodeError.
pub(crate) fn lookup(
    table: &'static [Option<OpInfo>],
    opcode: usize,
    words: &[u32],
    n: usize,
) -> Result<&'static OpInfo, DecodeError> {
    table
        .get(opcode)
        .and_then(|o| o.as_ref())
        .ok_or_else(|| reject(DecodeErrorKind::UnknownOpcode, words, n, None))
}

/// The common skeleton every family decoder fills in.
pub(crate) fn base_inst(family: Family, info: &OpInfo, words: &[u32], len: usize) -> Inst {
    let mut w = [0u32; 4];
    for (d, s) in w.iter_mut().zip(words.iter().take(len)) {
        *d = *s;
    }
    Inst {
        family,
        op: info.op,
        mnemonic: info.mnemonic,
        len: len as u8,
        words: w,
        widths: info.widths,
        dst: 0,
        sdst: 0,
        src: [Operand::NONE; 3],
        literal: None,
        mods: Mods::default(),
        imm: 0,
        imm2: 0,
        addr: 0,
        data: [0; 2],
        saddr: 0,
        flags: 0,
        dual: None,
        dpp: None,
        sdwa: None,
        mai: None,
        acc: 0,
    }
}

/// Resolve the literal for an instruction whose fixed part is `fixed` dwords:
/// returns (literal, total length) or an error when the literal is missing.
pub(crate) fn take_literal(
    words: &[u32],
    fixed: usize,
    needs: bool,
    info: &OpInfo,
) -> Result<(Option<u32>, usize), DecodeError> {
    if !needs {
        return Ok((None, fixed));
    }
    match words.get(fixed) {
        Some(&l) => Ok((Some(l), fixed + 1)),
        None => Err(truncated(words, Some(info.mnemonic))),
    }
}

/// A VOP3-encoded compare (VOP3 opcodes 0..=255 are the VOPC ops).
pub(crate) fn is_vop3_compare(i: &Inst) -> bool {
    i.family == Family::Vop3 && (i.words[0] >> 16) & 0x3FF < 256
}

/// Operand for VGPR `reg`.
pub(crate) fn vgpr_src(reg: u8) -> Operand {
    vop::vgpr_operand(reg)
}
