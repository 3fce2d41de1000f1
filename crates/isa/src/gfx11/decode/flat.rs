//! FLAT / SCRATCH / GLOBAL (one encoding, SEG [17:16] = 0/1/2).
//! FLAT: offset [12:0] (signed for global/scratch, unsigned for flat),
//! dlc 13, glc 14, slc 15, seg [17:16], op [24:18]; addr [39:32],
//! data [47:40], saddr [54:48], sve 55 (scratch: vaddr used), vdst [63:56].

use super::{DecodeError, DecodeErrorKind, base_inst, lookup, reject, require, truncated};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::opcodes::{FLAT, GLOBAL, SCRATCH};

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
