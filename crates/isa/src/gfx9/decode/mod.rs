//! GFX9-family instruction decoder: recognises the encoding family from the
//! first dword (AMD CDNA3 ISA guide, "Microcode Formats") and hands the
//! words to that family's decoder, which reads the target's opcode table.
//! Errors are gfx11's typed [`DecodeError`]s (same kinds); no input panics.
//! Decoded: SOP1/SOP2/SOPK/SOPC/SOPP, SMEM, VOP1/VOP2/VOPC with their DPP
//! and SDWA forms, VOP3 (VOP3A/VOP3B), VOP3P with VOP3P-MAI (the MFMA and
//! SMFMAC matrix ops, their controls in `Inst::mai`), DS,
//! FLAT/GLOBAL/SCRATCH, MUBUF and MTBUF. Words of other encodings are an
//! `UnknownEncoding` error.

mod buffer;
mod ds;
mod flat;
mod operand;
mod smem;
mod sop;
mod vop;
mod vop3;

pub(crate) use flat::{LDS, SCC};
pub(crate) use operand::align as align_sreg;
pub(crate) use smem::{no_address, probe};
pub(crate) use vop::{dot_accumulate, slot_is_float};
pub(crate) use vop3::{base_name, is_mai, sext_int_srcs, src_float};

use super::Target;
use super::opcodes::{OpInfo, Tables, tables};
use crate::gfx11::decode::{DecodeError, DecodeErrorKind};
use crate::gfx11::inst::Inst;

pub(crate) use crate::gfx11::decode::{base_inst, lookup, reject, take_literal};

/// Decode one instruction of `target` from `words` (the first is at the PC;
/// pass at least 3 dwords when available: a literal may follow a 64-bit
/// encoding).
pub fn decode(target: Target, words: &[u32]) -> Result<Inst, DecodeError> {
    let Some(&w0) = words.first() else {
        return Err(DecodeError {
            kind: DecodeErrorKind::Truncated,
            words: Vec::new(),
            mnemonic: None,
        });
    };
    let t = tables(target);
    let cx = Cx { target, t, words };
    match w0 >> 23 {
        0x17D => return sop::sop1(&cx),
        0x17E => return sop::sopc(&cx),
        0x17F => return sop::sopp(&cx),
        _ => {}
    }
    if w0 >> 28 == 0xB {
        return sop::sopk(&cx);
    }
    if w0 >> 30 == 0b10 {
        return sop::sop2(&cx);
    }
    match w0 >> 25 {
        0x3F => return vop::vop1(&cx),
        0x3E => return vop::vopc(&cx),
        _ => {}
    }
    if w0 >> 31 == 0 {
        return vop::vop2(&cx);
    }
    // VOP3P ([31:23] = 0x1A7) lies inside VOP3's opcode space.
    if w0 >> 23 == 0x1A7 {
        return vop3::vop3p(&cx);
    }
    match w0 >> 26 {
        0x30 => smem::smem(&cx),
        0x34 => vop3::vop3(&cx),
        0x36 => ds::ds(&cx),
        0x37 => flat::flat(&cx),
        0x38 => buffer::mubuf(&cx),
        0x3A => buffer::mtbuf(&cx),
        _ => Err(reject(DecodeErrorKind::UnknownEncoding, words, 1, None)),
    }
}

/// What every family decoder reads: the target, its tables and the words.
pub(crate) struct Cx<'a> {
    pub target: Target,
    pub t: &'static Tables,
    pub words: &'a [u32],
}

impl Cx<'_> {
    /// Dword `k` (the caller has checked the length).
    fn w(&self, k: usize) -> u32 {
        self.words[k]
    }

    /// Fail with `kind` over the first `n` words unless `ok`.
    fn require(
        &self,
        ok: bool,
        kind: DecodeErrorKind,
        n: usize,
        info: &OpInfo,
    ) -> Result<(), DecodeError> {
        if ok {
            Ok(())
        } else {
            Err(reject(kind, self.words, n, Some(info.mnemonic)))
        }
    }

    /// At least `n` words, else a truncation error.
    fn need(&self, n: usize, info: Option<&OpInfo>) -> Result<(), DecodeError> {
        if self.words.len() >= n {
            Ok(())
        } else {
            Err(crate::gfx11::decode::truncated(
                self.words,
                info.map(|i| i.mnemonic),
            ))
        }
    }
}
