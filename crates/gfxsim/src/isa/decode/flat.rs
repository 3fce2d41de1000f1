//! FLAT / SCRATCH / GLOBAL (one encoding, SEG [17:16] = 0/1/2) and the few
//! MUBUF cache-control instructions gfx11 compute code uses.
//! FLAT: offset [12:0] (signed for global/scratch, unsigned for flat),
//! dlc 13, glc 14, slc 15, seg [17:16], op [24:18]; addr [39:32],
//! data [47:40], saddr [54:48], sve 55 (scratch: vaddr used), vdst [63:56].

use super::{DecodeError, DecodeErrorKind, base_inst, lookup, reject, require, truncated};
use crate::isa::inst::{Family, Inst};
use crate::isa::opcodes::{FLAT, GLOBAL, MUBUF, SCRATCH};

pub(super) fn flat(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let (w0, w1) = (words[0], words[1]);
    let opcode = ((w0 >> 18) & 0x7F) as usize;
    let (family, table) = match (w0 >> 16) & 3 {
        0 => (Family::Flat, &FLAT),
        1 => (Family::Scratch, &SCRATCH),
        2 => (Family::Global, &GLOBAL),
        _ => return Err(reject(DecodeErrorKind::UnknownOpcode, words, 2, None)),
    };
    let info = lookup(table, opcode, words, 2)?;
    // FLAT takes no saddr (the field holds `off`) and no sve; GLOBAL no sve.
    let saddr = (w1 >> 16) & 0x7F;
    let sve = (w1 >> 23) & 1 != 0;
    let ok = match family {
        Family::Flat => saddr == 124 && !sve,
        Family::Global => !sve && (saddr == 124 || super::src_code_valid(saddr as u16, 2)),
        _ => true,
    };
    require(ok, DecodeErrorKind::InvalidOperand, words, 2, info)?;
    // VGPR tuples must end at v255: the address (64-bit without saddr),
    // the data, and a returned destination.
    let addr_width: u32 = match family {
        Family::Scratch => u32::from(sve),
        Family::Global if saddr != 124 => 1,
        _ if info.op.name().contains("addtid") => 0,
        _ => 2,
    };
    let returns = !info.op.name().contains("_atomic_") || (w0 >> 14) & 1 != 0;
    let fits = |reg: u32, width: u32| reg + width <= 256;
    let in_range = fits(w1 & 0xFF, addr_width)
        && fits((w1 >> 8) & 0xFF, u32::from(info.widths[2]))
        && (!returns || fits(w1 >> 24, u32::from(info.widths[0])));
    require(in_range, DecodeErrorKind::InvalidOperand, words, 2, info)?;
    let mut i = base_inst(family, info, words, 2);
    i.imm = if family == Family::Flat {
        (w0 & 0x1FFF) as i32
    } else {
        ((w0 & 0x1FFF) << 19) as i32 >> 19
    };
    i.flags = (((w0 >> 14) & 1) as u8)
        | ((((w0 >> 15) & 1) as u8) << 1)
        | ((((w0 >> 13) & 1) as u8) << 2);
    if (w1 >> 23) & 1 != 0 {
        i.flags |= Inst::SVE;
    }
    i.addr = (w1 & 0xFF) as u8;
    i.data = [((w1 >> 8) & 0xFF) as u8, 0];
    i.saddr = ((w1 >> 16) & 0x7F) as u8;
    i.dst = (w1 >> 24) as u16;
    Ok(i)
}

/// MUBUF: offset [11:0], slc 12, dlc 13, glc 14, op [25:18]; vaddr [39:32],
/// vdata [47:40], srsrc [52:48] (in units of 4 SGPRs), tfe 53, offen 54,
/// idxen 55, soffset [63:56] (a scalar source code; 255 takes a literal).
/// The executor reads the raw words; the fields here serve the disassembler:
/// `addr` vaddr, `data[0]` vdata, `saddr` srsrc, `imm` offset, `imm2`
/// soffset code, `flags` glc/slc/dlc, `widths[0]` the vdata width.
pub(super) fn mubuf(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let (w0, w1) = (words[0], words[1]);
    let info = lookup(&MUBUF, ((w0 >> 18) & 0xFF) as usize, words, 2)?;
    let soffset = (w1 >> 24) as u16;
    let name = info.op.name();
    if name.ends_with("_inv") {
        // Cache invalidates: no address, offset or glc/dlc; of w1 only
        // tfe/offen/idxen must be clear.
        let ok = w0 & 0x6000 == 0 && (w1 >> 21) & 7 == 0;
        require(ok, DecodeErrorKind::ReservedField, words, 2, info)?;
        return Ok(base_inst(Family::Mubuf, info, words, 2));
    }
    let lds = name.starts_with("buffer_load_lds");
    let ok = super::src_code_valid((w1 >> 16) as u16 & 0x1F, 1)
        && super::src_code_valid(((w1 >> 16) & 0x1F) as u16 * 4, 4)
        && !((lds || name.starts_with("buffer_atomic")) && (w1 >> 21) & 1 != 0);
    require(ok, DecodeErrorKind::InvalidOperand, words, 2, info)?;
    let (lit, len) = super::take_literal(words, 2, soffset == 255, info)?;
    let mut i = base_inst(Family::Mubuf, info, words, len);
    i.literal = lit;
    i.imm = (w0 & 0xFFF) as i32;
    i.flags = ((((w0 >> 14) & 1) as u8) * Inst::GLC)
        | ((((w0 >> 12) & 1) as u8) * Inst::SLC)
        | ((((w0 >> 13) & 1) as u8) * Inst::DLC);
    i.addr = (w1 & 0xFF) as u8;
    i.data = [((w1 >> 8) & 0xFF) as u8, 0];
    i.saddr = ((w1 >> 16) & 0x1F) as u8;
    i.imm2 = soffset as u32;
    i.widths[0] = mubuf_data_width(info.op.name()) + ((w1 >> 21) & 1) as u8;
    require(
        super::src_code_valid(soffset, 1),
        DecodeErrorKind::InvalidOperand,
        words,
        len,
        info,
    )?;
    Ok(i)
}

/// Dwords of a MUBUF instruction's vdata (without tfe), from its name.
fn mubuf_data_width(name: &str) -> u8 {
    if !name.starts_with("buffer_load")
        && !name.starts_with("buffer_store")
        && !name.starts_with("buffer_atomic")
    {
        return 0;
    }
    let base = if let Some(f) = name.split("format_").nth(1) {
        let n = f.len() as u8;
        if name.contains("_d16_") {
            n.div_ceil(2)
        } else {
            n
        }
    } else if name.ends_with("b128") {
        4
    } else if name.ends_with("b96") {
        3
    } else if name.ends_with("64") || name.ends_with("_x2") {
        2
    } else {
        1
    };
    if name.contains("cmpswap") {
        base * 2
    } else {
        base
    }
}
