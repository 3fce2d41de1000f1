//! FLAT, GLOBAL and SCRATCH encodings (AMD CDNA3 ISA guide, "Microcode
//! Formats", FLAT): offset [12:0], lds [13] (gfx942: sve, the scratch
//! address VGPR is used), seg [15:14], glc/sc0 [16], slc/nt [17], op
//! [24:18], scc/sc1 [25]; addr [39:32], data [47:40], saddr [54:48]
//! (0x7F: none), acc [55] (AGPR data/destination), vdst [63:56].

use super::{Cx, base_inst, lookup};
use crate::gfx9::Target;
use crate::gfx11::decode::{DecodeError, DecodeErrorKind, reject};
use crate::gfx11::inst::{Family, Inst};

/// Cache-policy bit of [`Inst::flags`] beside gfx11's: GFX9 scc / gfx942 sc1.
pub(crate) const SCC: u8 = Inst::SC1;
/// [`Inst::flags`]: the word's lds bit (loads into LDS).
pub(crate) const LDS: u8 = 64;

pub(super) fn flat(cx: &Cx) -> Result<Inst, DecodeError> {
    cx.need(2, None)?;
    let (w0, w1) = (cx.w(0), cx.w(1));
    let (table, family) = match (w0 >> 14) & 3 {
        0 => (cx.t.flat, Family::Flat),
        1 => (cx.t.scratch, Family::Scratch),
        2 => (cx.t.global, Family::Global),
        _ => return Err(reject(DecodeErrorKind::UnknownEncoding, cx.words, 2, None)),
    };
    let info = lookup(table, ((w0 >> 18) & 0x7F) as usize, cx.words, 2)?;
    let mut i = base_inst(family, info, cx.words, 2);
    // Signed 13-bit offset (FLAT: unsigned).
    i.imm = if family == Family::Flat {
        (w0 & 0x1FFF) as i32
    } else {
        ((w0 & 0x1FFF) << 19) as i32 >> 19
    };
    i.addr = (w1 & 0xFF) as u8;
    i.data = [((w1 >> 8) & 0xFF) as u8, 0];
    i.saddr = ((w1 >> 16) & 0x7F) as u8;
    i.dst = (w1 >> 24) as u16;
    let bit13 = if cx.target == Target::Gfx942 {
        Inst::SVE
    } else {
        LDS
    };
    let bit = |n: u32, flag: u8| if (w0 >> n) & 1 != 0 { flag } else { 0 };
    i.flags = bit(16, Inst::GLC) | bit(17, Inst::SLC) | bit(25, SCC) | bit(13, bit13);
    if (w1 >> 23) & 1 != 0 {
        i.acc = Inst::ACC_DST | Inst::ACC_DATA;
    }
    // FLAT has no saddr (the field is zero). gfx942 uses bit 13 only as
    // scratch's sve; on gfx90a it loads into LDS, which only the byte,
    // short and dword loads do, into VGPR-less form (no acc).
    let lds = (w0 >> 13) & 1 != 0;
    let name = info.op.name();
    let lds_op = ["load_u8", "load_i8", "load_u16", "load_i16", "load_b32"]
        .iter()
        .any(|n| name.ends_with(n));
    let lds_ok = match cx.target {
        Target::Gfx942 => !lds || family == Family::Scratch,
        Target::Gfx90a => !lds || (lds_op && i.acc == 0 && family != Family::Flat),
    };
    // gfx90a's float atomics take no scc bit.
    let fp_atomic = name.contains("_atomic_")
        && (name.contains("_f32")
            || name.contains("_f64")
            || name.contains("_f16")
            || name.contains("bf16"));
    let scc_ok = cx.target != Target::Gfx90a || !fp_atomic || (w0 >> 25) & 1 == 0;
    // A global saddr is an SGPR pair (or null); the LDS loads write no
    // register, so they have no AGPR form.
    let saddr_ok = family != Family::Global
        || i.saddr == 125
        || i.saddr == 0x7F
        || super::operand::src_code_valid(i.saddr as u16, 2);
    let acc_ok = !(name.contains("load_lds") && i.acc != 0);
    cx.require(
        (family != Family::Flat || i.saddr == 0) && lds_ok && scc_ok && saddr_ok && acc_ok,
        DecodeErrorKind::ReservedField,
        2,
        info,
    )?;
    let w = info.widths;
    let fits = |r: u16, width: u8| width == 0 || r + width as u16 <= 256;
    cx.require(
        fits(i.dst, w[0]) && fits(i.data[0] as u16, w[2]),
        DecodeErrorKind::InvalidOperand,
        2,
        info,
    )?;
    Ok(i)
}
