//! SMEM: scalar memory loads (s_load_b32..b512, s_buffer_load_*, cache ops).
//! Fields: sbase [5:0] (SGPR pair / 2), sdata [12:6], glc 14, dlc 13, op [25:18],
//! offset [52:32] (signed 21-bit), soffset [63:57].

use super::{DecodeError, DecodeErrorKind, base_inst, lookup, require, src_code_valid, truncated};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::opcodes::{Op, SMEM};

pub(super) fn smem(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let (w0, w1) = (words[0], words[1]);
    let info = lookup(&SMEM, ((w0 >> 18) & 0xFF) as usize, words, 2)?;
    let sdata = ((w0 >> 6) & 0x7F) as u16;
    let cache_op = matches!(
        info.op,
        Op::SDcacheInv | Op::SGl1Inv | Op::SAtcProbe | Op::SAtcProbeBuffer
    );
    require(
        !cache_op || (w0 >> 13) & 3 == 0,
        DecodeErrorKind::ReservedField,
        words,
        2,
        info,
    )?;
    let probe = matches!(info.op, Op::SAtcProbe | Op::SAtcProbeBuffer);
    require(
        probe
            || info.widths[0] == 0
            || matches!(sdata, 106 | 126)
            || src_code_valid(sdata, info.widths[0]),
        DecodeErrorKind::InvalidOperand,
        words,
        2,
        info,
    )?;
    // A buffer descriptor (four SGPRs) must lie inside the SGPRs or TTMPs
    // (vcc/exec pairs are decoded and flagged by the printer).
    let sbase = ((w0 & 0x3F) << 1) as u16;
    let buffer = info.op.name().starts_with("s_buffer") || info.op == Op::SAtcProbeBuffer;
    require(
        !buffer || matches!(sbase, 106 | 126) || src_code_valid(sbase, 4),
        DecodeErrorKind::InvalidOperand,
        words,
        2,
        info,
    )?;
    let mut i = base_inst(Family::Smem, info, words, 2);
    i.addr = ((w0 & 0x3F) << 1) as u8;
    i.dst = ((w0 >> 6) & 0x7F) as u16;
    i.flags = (((w0 >> 14) & 1) as u8) | ((((w0 >> 13) & 1) as u8) << 2);
    i.imm = ((w1 & 0x1F_FFFF) << 11) as i32 >> 11;
    i.imm2 = w1 >> 25;
    Ok(i)
}
