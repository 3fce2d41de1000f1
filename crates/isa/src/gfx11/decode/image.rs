//! MIMG (image) encoding: decoded and printed exactly as llvm-objdump-19
//! does; exec/vmem/image.rs executes the load, store and resinfo forms.
//!
//! Fields: nsa 0 (a third dword holds addresses 1..4), dim [4:2], unorm 7,
//! dmask [11:8], slc 12, dlc 13, glc 14, r128 15, a16 16, d16 17, op [25:18];
//! vaddr0 [39:32], vdata [47:40], srsrc [52:48] (units of 4 SGPRs), tfe 53,
//! lwe 54, ssamp [62:58] (units of 4 SGPRs; samplers only, else zero).
//!
//! Register counts: LLVM prints the MIMG variant (opcode, vdata dwords,
//! vaddr dwords) that matches the fields, or the decoder's default variant
//! when TableGen defines none or the widened tuple would pass v255. Which
//! variants exist is the generated [`MIMG_SHAPES`] table.
//!
//! Fields in the [`Inst`]: `data[0]` vdata, `addr` vaddr0, `saddr` srsrc
//! and `imm2` ssamp (SGPR codes), `widths[0]`/`widths[1]` the printed
//! vdata/vaddr dwords, `flags` glc/slc/dlc; the other bits stay in the words
//! ([`mimg_nsa_regs`] lists the printed address registers).

use super::{DecodeError, DecodeErrorKind, base_inst, lookup, require, truncated};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::opcodes::{MIMG, MIMG_SHAPES, MimgShape};

/// Most address registers an NSA word names (vaddr0 + four in dword 2).
const NSA_SLOTS: u8 = 5;

pub(super) fn mimg(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let (w0, w1) = (words[0], words[1]);
    let opcode = ((w0 >> 18) & 0xFF) as usize;
    let info = lookup(&MIMG, opcode, words, 2)?;
    let shape: &MimgShape = MIMG_SHAPES[opcode]
        .as_ref()
        .ok_or_else(|| super::reject(DecodeErrorKind::UnknownOpcode, words, 2, None))?;
    let nsa = w0 & 1 != 0;
    let len = if nsa { 3 } else { 2 };
    if words.len() < len {
        return Err(truncated(words, Some(info.mnemonic)));
    }
    let d16 = (w0 >> 17) & 1 != 0;
    require(
        shape.d16 || !d16,
        DecodeErrorKind::ReservedField,
        words,
        len,
        info,
    )?;
    let srsrc = (((w1 >> 16) & 0x1F) * 4) as u16;
    let ssamp = (((w1 >> 26) & 0x1F) * 4) as u16;
    let regs_ok = super::src_code_valid(srsrc, 8)
        && if shape.sampler {
            super::src_code_valid(ssamp, 4)
        } else {
            ssamp == 0
        };
    require(regs_ok, DecodeErrorKind::InvalidOperand, words, len, info)?;

    let vdata = ((w1 >> 8) & 0xFF) as u16;
    let vaddr0 = (w1 & 0xFF) as u16;
    let form = &shape.forms[nsa as usize];
    let dim = ((w0 >> 2) & 7) as usize;
    let a16 = ((w0 >> 16) & 1) as usize;
    let tfe = ((w1 >> 21) & 1) as u8;
    let dmask = (w0 >> 8) & 0xF;
    let channels = if info.mnemonic.starts_with("image_gather4")
        || info.mnemonic.starts_with("image_msaa_load")
    {
        4
    } else {
        dmask.count_ones().max(1) as u8
    };
    let size = if d16 { channels.div_ceil(2) } else { channels } + tfe;
    let (data_w, addr_w) = (form.data[size as usize], form.addr[a16][dim]);
    let [dflt_data, dflt_addr] = form.default;
    let fits = |first: u16, width: u8| first + width as u16 <= 256;
    let nsa_fits = |n: u8| n <= NSA_SLOTS || fits(nsa_last(words[2]), n - (NSA_SLOTS - 1));
    // LLVM first decodes the default variant: its tuples must exist.
    let default_ok = fits(vdata, dflt_data)
        && if nsa {
            nsa_fits(dflt_addr)
        } else {
            fits(vaddr0, dflt_addr)
        };
    require(
        default_ok,
        DecodeErrorKind::InvalidOperand,
        words,
        len,
        info,
    )?;
    // It then switches to the variant the fields ask for, unless there is
    // none or a widened tuple would run past v255.
    let switch = data_w != 0 && addr_w != 0 && (data_w, addr_w) != (dflt_data, dflt_addr) && {
        let data_ok = data_w == dflt_data || fits(vdata, data_w);
        let addr_ok = if !nsa {
            addr_w == dflt_addr || fits(vaddr0, addr_w)
        } else {
            // NSA: extra slots are dropped; more addresses than the default
            // has widen the last register (partial NSA).
            addr_w <= dflt_addr || nsa_fits(addr_w)
        };
        data_ok && addr_ok
    };
    let (data_w, addr_w) = if switch {
        (data_w, addr_w)
    } else {
        (dflt_data, dflt_addr)
    };

    let mut i = base_inst(Family::Mimg, info, words, len);
    i.data = [vdata as u8, 0];
    i.addr = vaddr0 as u8;
    i.saddr = srsrc as u8;
    i.imm2 = ssamp as u32;
    i.widths = [data_w, addr_w, 0, 0, 0];
    i.flags = super::buffer::cache_flags(w0);
    Ok(i)
}

/// The last NSA address register (byte 3 of the NSA dword).
fn nsa_last(w2: u32) -> u16 {
    (w2 >> 24) as u16
}

/// The address operands LLVM prints for an NSA instruction: (first
/// register, dwords) per slot; the last slot holds the remainder when there
/// are more addresses than slots.
pub(crate) fn mimg_nsa_regs(i: &Inst) -> Vec<(u16, u8)> {
    let n = i.widths[1];
    let reg = |k: u8| -> u16 {
        if k == 0 {
            i.addr as u16
        } else {
            ((i.words[2] >> (8 * (k - 1))) & 0xFF) as u16
        }
    };
    if n <= NSA_SLOTS {
        (0..n).map(|k| (reg(k), 1)).collect()
    } else {
        let mut v: Vec<(u16, u8)> = (0..NSA_SLOTS - 1).map(|k| (reg(k), 1)).collect();
        v.push((reg(NSA_SLOTS - 1), n - (NSA_SLOTS - 1)));
        v
    }
}
