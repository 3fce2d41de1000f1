//! Scalar memory (SMEM: AMD CDNA3 ISA guide, "Microcode Formats", SMEM):
//! sbase [5:0] (pairs; quads for buffer forms), sdata [12:6], soe [14],
//! nv [15], glc [16], imm [17], op [25:18]; offset [20:0] and soffset
//! [31:25] in the second dword.

use super::operand::sdst_valid;
use super::{Cx, base_inst, lookup};
use crate::gfx11::decode::{DecodeError, DecodeErrorKind};
use crate::gfx11::inst::{Family, Inst};
use crate::opcodes::Op;

/// SMEM ops with no address operand (time counters, cache controls).
pub(crate) fn no_address(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        SMemtime | SMemrealtime | SDcacheInv | SDcacheWb | SDcacheInvVol | SDcacheWbVol
    )
}

/// The address-translation probes: their sdata field is a probe mode.
pub(crate) fn probe(op: Op) -> bool {
    matches!(op, Op::SAtcProbe | Op::SAtcProbeBuffer)
}

pub(super) fn smem(cx: &Cx) -> Result<Inst, DecodeError> {
    let w = cx.w(0);
    let info = lookup(cx.t.smem, ((w >> 18) & 0xFF) as usize, cx.words, 1)?;
    cx.need(2, Some(info))?;
    let w1 = cx.w(1);
    let sdata = ((w >> 6) & 0x7F) as u16;
    if info.widths[0] != 0 && !probe(info.op) {
        // A special register where a wide tuple belongs is printed with
        // LLVM's register-class comment; other misfits are rejected.
        let wide_special = info.widths[0] > 2 && matches!(sdata, 102 | 104 | 106 | 125 | 126);
        cx.require(
            wide_special || sdst_valid(sdata, info.widths[0]),
            DecodeErrorKind::InvalidOperand,
            2,
            info,
        )?;
    }
    // sbase names a pair; M0 is not one.
    if !no_address(info.op) {
        cx.require(w & 0x3F != 62, DecodeErrorKind::InvalidOperand, 2, info)?;
    }
    // The ops without an address take no immediate offset.
    if no_address(info.op) {
        cx.require(w & (1 << 17) == 0, DecodeErrorKind::ReservedField, 2, info)?;
    }
    let mut i = base_inst(Family::Smem, info, cx.words, 2);
    i.dst = sdata;
    i.addr = ((w & 0x3F) << 1) as u8;
    // Signed 21-bit byte offset.
    i.imm = ((w1 & 0x1F_FFFF) << 11) as i32 >> 11;
    i.imm2 = w1 >> 25;
    i.flags = (((w >> 16) & 1) as u8) * Inst::GLC;
    Ok(i)
}
