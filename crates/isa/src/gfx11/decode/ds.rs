//! DS (LDS) encoding: offset0 [7:0], offset1 [15:8], gds 17, op [25:18],
//! addr [39:32], data0 [47:40], data1 [55:48], vdst [63:56]. LLVM rejects
//! a word whose unused register fields (no vdst, data0 or data1 for the op)
//! are not zero.

use super::{DecodeError, DecodeErrorKind, base_inst, lookup, require, truncated};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::opcodes::{DS, Op};

pub(super) fn ds(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let (w0, w1) = (words[0], words[1]);
    let info = lookup(&DS, ((w0 >> 18) & 0xFF) as usize, words, 2)?;
    let mut i = base_inst(Family::Ds, info, words, 2);
    i.imm = (w0 & 0xFF) as i32;
    i.imm2 = (w0 >> 8) & 0xFF;
    if (w0 >> 17) & 1 != 0 {
        i.flags |= Inst::GDS;
    }
    i.addr = (w1 & 0xFF) as u8;
    i.data = [((w1 >> 8) & 0xFF) as u8, ((w1 >> 16) & 0xFF) as u8];
    i.dst = (w1 >> 24) as u16;
    let w = info.widths;
    let unused_zero =
        (w[0] != 0 || i.dst == 0) && (w[2] != 0 || i.data[0] == 0) && (w[3] != 0 || i.data[1] == 0);
    require(unused_zero, DecodeErrorKind::ReservedField, words, 2, info)?;
    // No address register: the field is zero (and ds_nop has no offset);
    // the permutes work within a wave, never on GDS.
    let addr_ok = w[1] != 0 || (i.addr == 0 && (info.op != Op::DsNop || w0 & 0xFFFF == 0));
    let gds_ok = i.flags & Inst::GDS == 0
        || !matches!(
            info.op,
            Op::DsPermuteB32 | Op::DsBpermuteB32 | Op::DsBvhStackRtnB32
        );
    require(
        addr_ok && gds_ok,
        DecodeErrorKind::ReservedField,
        words,
        2,
        info,
    )?;
    Ok(i)
}
