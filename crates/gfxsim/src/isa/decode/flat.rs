//! FLAT / SCRATCH / GLOBAL (one encoding, SEG [17:16] = 0/1/2) and the few
//! MUBUF cache-control instructions gfx11 compute code uses.
//! FLAT: offset [12:0] (signed 13-bit for global/scratch, 12-bit unsigned for
//! flat), dlc 13, glc 14, slc 15, seg [17:16], op [24:18]; addr [39:32],
//! data [47:40], saddr [54:48], sve 55 (scratch: vaddr used), vdst [63:56].

use super::{DecodeError, DecodeErrorKind, base_inst, lookup, reject, truncated};
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
    let mut i = base_inst(family, info, words, 2);
    i.imm = if family == Family::Flat {
        (w0 & 0xFFF) as i32
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

pub(super) fn mubuf(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let info = lookup(&MUBUF, ((words[0] >> 18) & 0xFF) as usize, words, 2)?;
    Ok(base_inst(Family::Mubuf, info, words, 2))
}
