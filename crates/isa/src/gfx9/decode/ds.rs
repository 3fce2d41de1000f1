//! DS (LDS) encoding (AMD CDNA3 ISA guide, "Microcode Formats", DS):
//! offset0 [7:0], offset1 [15:8], gds [16], op [24:17], acc [25]; addr
//! [39:32], data0 [47:40], data1 [55:48], vdst [63:56]. With acc set the
//! data and destination registers are AGPRs. LLVM rejects a word whose
//! unused register fields are not zero.

use super::{Cx, base_inst, lookup};
use crate::gfx11::decode::{DecodeError, DecodeErrorKind};
use crate::gfx11::inst::{Family, Inst};
use crate::opcodes::Op;

pub(super) fn ds(cx: &Cx) -> Result<Inst, DecodeError> {
    cx.need(2, None)?;
    let (w0, w1) = (cx.w(0), cx.w(1));
    let info = lookup(cx.t.ds, ((w0 >> 17) & 0xFF) as usize, cx.words, 2)?;
    let mut i = base_inst(Family::Ds, info, cx.words, 2);
    i.imm = (w0 & 0xFF) as i32;
    i.imm2 = (w0 >> 8) & 0xFF;
    if (w0 >> 16) & 1 != 0 {
        i.flags |= Inst::GDS;
    }
    if (w0 >> 25) & 1 != 0 {
        i.acc = Inst::ACC_DST | Inst::ACC_DATA;
    }
    i.addr = (w1 & 0xFF) as u8;
    i.data = [((w1 >> 8) & 0xFF) as u8, ((w1 >> 16) & 0xFF) as u8];
    i.dst = (w1 >> 24) as u16;
    let w = info.widths;
    let fits = |r: u16, width: u8| width == 0 || r + width as u16 <= 256;
    let ok = (w[0] != 0 || i.dst == 0)
        && (w[1] != 0 || i.addr == 0)
        && (w[2] != 0 || i.data[0] == 0)
        && (w[3] != 0 || i.data[1] == 0);
    cx.require(ok, DecodeErrorKind::ReservedField, 2, info)?;
    let in_range = fits(i.dst, w[0])
        && fits(i.addr as u16, w[1])
        && fits(i.data[0] as u16, w[2])
        && fits(i.data[1] as u16, w[3]);
    cx.require(in_range, DecodeErrorKind::InvalidOperand, 2, info)?;
    // ds_nop has no offset; the permutes work within a wave, never on GDS.
    let permute = matches!(info.op, Op::DsPermuteB32 | Op::DsBpermuteB32);
    let fields_ok = (info.op != Op::DsNop || w0 & 0xFFFF == 0) && !(permute && (w0 >> 16) & 1 != 0);
    cx.require(fields_ok, DecodeErrorKind::ReservedField, 2, info)?;
    Ok(i)
}
