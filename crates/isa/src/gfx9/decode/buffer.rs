//! MUBUF buffer encoding (AMD CDNA3 ISA guide, "Microcode Formats", MUBUF):
//! offset [11:0], offen [12], idxen [13], glc/sc0 [14], scc/sc1 [15], lds
//! [16], slc/nt [17], op [24:18]; vaddr [39:32], vdata [47:40], srsrc
//! [52:48] (quads), acc [55] (AGPR data), soffset [63:56] (a scalar source
//! code). offen and idxen stay in the raw word (`Inst::words`).
//!
//! MTBUF, the typed form (same guide, MTBUF): offset [11:0], offen [12],
//! idxen [13], glc/sc0 [14], op [18:15], dfmt [22:19], nfmt [25:23];
//! vaddr [39:32], vdata [47:40], srsrc [52:48], scc/sc1 [53], slc/nt [54],
//! acc [55], soffset [63:56]. dfmt and nfmt stay in the raw word.

use super::{Cx, base_inst, lookup};
use crate::gfx11::decode::{DecodeError, DecodeErrorKind, decode_src};
use crate::gfx11::inst::{Family, Inst};
use crate::opcodes::Op;

pub(super) fn mubuf(cx: &Cx) -> Result<Inst, DecodeError> {
    cx.need(2, None)?;
    let (w0, w1) = (cx.w(0), cx.w(1));
    let info = lookup(cx.t.mubuf, ((w0 >> 18) & 0x7F) as usize, cx.words, 2)?;
    let mut i = base_inst(Family::Mubuf, info, cx.words, 2);
    let bit = |n: u32, flag: u8| if (w0 >> n) & 1 != 0 { flag } else { 0 };
    i.flags = bit(14, Inst::GLC) | bit(17, Inst::SLC) | bit(15, super::SCC) | bit(16, super::LDS);
    i.imm = (w0 & 0xFFF) as i32;
    i.addr = (w1 & 0xFF) as u8;
    i.data = [((w1 >> 8) & 0xFF) as u8, 0];
    i.imm2 = (w1 >> 16) & 0x1F;
    if (w1 >> 23) & 1 != 0 {
        i.acc = Inst::ACC_DATA;
    }
    // The LDS form: only the dword-or-smaller loads, with no AGPR data.
    let name = info.op.name();
    let lds_op = [
        "load_format_x",
        "load_u8",
        "load_i8",
        "load_u16",
        "load_i16",
        "load_b32",
    ]
    .iter()
    .any(|n| name.ends_with(n));
    let lds_ok = (w0 >> 16) & 1 == 0 || (lds_op && i.acc == 0);
    // srsrc is a quad: M0 is not one.
    cx.require(
        lds_ok && i.imm2 != 31,
        DecodeErrorKind::ReservedField,
        2,
        info,
    )?;
    // gfx90a's float atomics take no scc bit.
    let fp_atomic =
        name.contains("_atomic_") && ["_f32", "_f64", "_f16"].iter().any(|t| name.ends_with(t));
    let scc_ok = cx.target != crate::gfx9::Target::Gfx90a || !fp_atomic || (w0 >> 15) & 1 == 0;
    cx.require(scc_ok, DecodeErrorKind::ReservedField, 2, info)?;
    // The cache controls (no data, no address) ignore the operand fields
    // but not offen/idxen or AGPR data.
    let control = info.widths[0] == 0 && info.widths[1] == 0;
    if control {
        // Only gfx942's buffer_wbl2 and buffer_inv take scope bits.
        let scoped = matches!(info.op, Op::BufferWbl2 | Op::BufferInv);
        cx.require(
            w0 & 0x3000 == 0 && i.acc == 0 && (scoped || w0 & 0xC000 == 0),
            DecodeErrorKind::ReservedField,
            2,
            info,
        )?;
        return Ok(i);
    }
    let soffset = (w1 >> 24) as u16;
    cx.require(
        soffset != 255 && super::operand::src_code_valid(soffset, 1),
        DecodeErrorKind::InvalidOperand,
        2,
        info,
    )?;
    i.src[0] = decode_src(soffset, info.op, 1, None);
    Ok(i)
}

pub(super) fn mtbuf(cx: &Cx) -> Result<Inst, DecodeError> {
    cx.need(2, None)?;
    let (w0, w1) = (cx.w(0), cx.w(1));
    let info = lookup(cx.t.mtbuf, ((w0 >> 15) & 0xF) as usize, cx.words, 2)?;
    let mut i = base_inst(Family::Mtbuf, info, cx.words, 2);
    let bit = |w: u32, n: u32, flag: u8| if (w >> n) & 1 != 0 { flag } else { 0 };
    i.flags = bit(w0, 14, Inst::GLC) | bit(w1, 22, Inst::SLC) | bit(w1, 21, super::SCC);
    i.imm = (w0 & 0xFFF) as i32;
    i.addr = (w1 & 0xFF) as u8;
    i.data = [((w1 >> 8) & 0xFF) as u8, 0];
    i.imm2 = (w1 >> 16) & 0x1F;
    if (w1 >> 23) & 1 != 0 {
        i.acc = Inst::ACC_DATA;
    }
    // srsrc is a quad: M0 is not one.
    cx.require(i.imm2 != 31, DecodeErrorKind::ReservedField, 2, info)?;
    // The data and address VGPR tuples end at or below v255 (both
    // idxen and offen: a VGPR pair).
    let vaddr_width = if w0 & 0x3000 == 0x3000 { 2 } else { 1 };
    let fits = |reg: u8, width: u8| reg as u16 + width.max(1) as u16 <= 256;
    cx.require(
        fits(i.data[0], info.widths[0]) && fits(i.addr, vaddr_width),
        DecodeErrorKind::InvalidOperand,
        2,
        info,
    )?;
    let soffset = (w1 >> 24) as u16;
    cx.require(
        soffset != 255 && super::operand::src_code_valid(soffset, 1),
        DecodeErrorKind::InvalidOperand,
        2,
        info,
    )?;
    i.src[0] = decode_src(soffset, info.op, 1, None);
    Ok(i)
}
