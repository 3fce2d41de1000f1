//! Buffer encodings: MUBUF (untyped) and MTBUF (typed: the instruction
//! carries a unified buffer format), which share their second dword.
//!
//! MUBUF: offset [11:0], slc 12, dlc 13, glc 14, op [25:18].
//! MTBUF: offset [11:0], slc 12, dlc 13, glc 14, op [18:15], format [25:19].
//! Both: vaddr [39:32], vdata [47:40], srsrc [52:48] (in units of 4 SGPRs),
//! tfe 53, offen 54, idxen 55, soffset [63:56] (a scalar source code; 255
//! takes a literal).
//!
//! Fields in the [`Inst`]: `addr` vaddr, `data[0]` vdata, `saddr` srsrc,
//! `imm` offset, `imm2` soffset code, `literal` its literal, `flags`
//! glc/slc/dlc, `widths[0]` the vdata width; tfe/offen/idxen and the MTBUF
//! format stay in the raw words ([`mtbuf_format`]).

use super::{DecodeError, DecodeErrorKind, base_inst, lookup, require, truncated};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::opcodes::{MTBUF, MUBUF, OpInfo};

pub(super) fn mubuf(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let (w0, w1) = (words[0], words[1]);
    let info = lookup(&MUBUF, ((w0 >> 18) & 0xFF) as usize, words, 2)?;
    let name = info.op.name();
    if name.ends_with("_inv") {
        // Cache invalidates: no address, offset or glc/dlc; of w1 only
        // tfe/offen/idxen must be clear.
        let ok = w0 & 0x6000 == 0 && (w1 >> 21) & 7 == 0;
        require(ok, DecodeErrorKind::ReservedField, words, 2, info)?;
        return Ok(base_inst(Family::Mubuf, info, words, 2));
    }
    let lds = name.starts_with("buffer_load_lds");
    let tfe_ok = !((lds || name.starts_with("buffer_atomic")) && (w1 >> 21) & 1 != 0);
    require(tfe_ok, DecodeErrorKind::InvalidOperand, words, 2, info)?;
    buffer(words, Family::Mubuf, info)
}

pub(super) fn mtbuf(words: &[u32]) -> Result<Inst, DecodeError> {
    if words.len() < 2 {
        return Err(truncated(words, None));
    }
    let info = lookup(&MTBUF, ((words[0] >> 15) & 0xF) as usize, words, 2)?;
    // LLVM's gfx11 MTBUF forms have no tfe.
    let tfe = (words[1] >> 21) & 1 != 0;
    require(!tfe, DecodeErrorKind::ReservedField, words, 2, info)?;
    buffer(words, Family::Mtbuf, info)
}

/// The fields both encodings share.
fn buffer(words: &[u32], family: Family, info: &'static OpInfo) -> Result<Inst, DecodeError> {
    let (w0, w1) = (words[0], words[1]);
    let soffset = (w1 >> 24) as u16;
    let srsrc = ((w1 >> 16) & 0x1F) as u16;
    let ok = super::src_code_valid(srsrc, 1) && super::src_code_valid(srsrc * 4, 4);
    require(ok, DecodeErrorKind::InvalidOperand, words, 2, info)?;
    let (lit, len) = super::take_literal(words, 2, soffset == 255, info)?;
    let mut i = base_inst(family, info, words, len);
    i.literal = lit;
    i.imm = (w0 & 0xFFF) as i32;
    i.flags = cache_flags(w0);
    i.addr = (w1 & 0xFF) as u8;
    i.data = [((w1 >> 8) & 0xFF) as u8, 0];
    i.saddr = srsrc as u8;
    i.imm2 = soffset as u32;
    i.widths[0] = buffer_data_width(info.op.name()) + ((w1 >> 21) & 1) as u8;
    require(
        super::src_code_valid(soffset, 1),
        DecodeErrorKind::InvalidOperand,
        words,
        len,
        info,
    )?;
    Ok(i)
}

/// The glc/slc/dlc bits of dword 0 (glc 14, slc 12, dlc 13: the same places
/// in MUBUF, MTBUF and MIMG) as [`Inst`] flags.
pub(super) fn cache_flags(w0: u32) -> u8 {
    ((((w0 >> 14) & 1) as u8) * Inst::GLC)
        | ((((w0 >> 12) & 1) as u8) * Inst::SLC)
        | ((((w0 >> 13) & 1) as u8) * Inst::DLC)
}

/// Dwords of a buffer instruction's vdata (without tfe), from its name.
fn buffer_data_width(name: &str) -> u8 {
    let data = ["buffer_load", "buffer_store", "buffer_atomic", "tbuffer_"];
    if !data.iter().any(|p| name.starts_with(p)) {
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

/// The unified format code [25:19] of an MTBUF instruction.
pub(crate) fn mtbuf_format(i: &Inst) -> u8 {
    ((i.words[0] >> 19) & 0x7F) as u8
}

/// How a buffer format packs its components (RDNA3 ISA "Buffer formats").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DataFormat {
    /// `n` components of `bits` each (8, 16 or 32), component 0 first.
    Uniform { n: u8, bits: u8 },
    /// Packed components in one dword, lowest bits first: 10_11_11 is
    /// x:11 y:11 z:10 from bit 0, and so on.
    Packed(&'static [u8]),
}

/// How each component's bits become a 32-bit value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NumFormat {
    Unorm,
    Snorm,
    Uscaled,
    Sscaled,
    Uint,
    Sint,
    Float,
}

/// A gfx11 unified buffer format (the MTBUF `format` field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BufferFormat {
    pub data: DataFormat,
    pub num: NumFormat,
}

impl BufferFormat {
    /// Bytes of one element.
    pub fn bytes(self) -> u32 {
        match self.data {
            DataFormat::Uniform { n, bits } => n as u32 * bits as u32 / 8,
            DataFormat::Packed(_) => 4,
        }
    }

    /// Number of components.
    pub fn components(self) -> usize {
        match self.data {
            DataFormat::Uniform { n, .. } => n as usize,
            DataFormat::Packed(w) => w.len(),
        }
    }

    /// Bit offset and width of component `c`.
    pub fn component_bits(self, c: usize) -> (u32, u32) {
        match self.data {
            DataFormat::Uniform { bits, .. } => (c as u32 * bits as u32, bits as u32),
            DataFormat::Packed(w) => (w[..c].iter().map(|&b| b as u32).sum(), w[c] as u32),
        }
    }

    /// LLVM's `BUF_FMT_...` name.
    pub fn name(self) -> String {
        let data = match self.data {
            DataFormat::Uniform { n, bits } => vec![bits.to_string(); n as usize].join("_"),
            // The name lists the fields from the highest bits down.
            DataFormat::Packed(w) => w
                .iter()
                .rev()
                .map(|b| b.to_string())
                .collect::<Vec<_>>()
                .join("_"),
        };
        let num = match self.num {
            NumFormat::Unorm => "UNORM",
            NumFormat::Snorm => "SNORM",
            NumFormat::Uscaled => "USCALED",
            NumFormat::Sscaled => "SSCALED",
            NumFormat::Uint => "UINT",
            NumFormat::Sint => "SINT",
            NumFormat::Float => "FLOAT",
        };
        format!("BUF_FMT_{data}_{num}")
    }

    /// The format of unified code `code` (1..=63; 0 is BUF_FMT_INVALID,
    /// 64 and above are not defined on gfx11).
    pub fn from_code(code: u8) -> Option<BufferFormat> {
        use NumFormat::*;
        const ALL: [NumFormat; 6] = [Unorm, Snorm, Uscaled, Sscaled, Uint, Sint];
        const ALL_F: [NumFormat; 7] = [Unorm, Snorm, Uscaled, Sscaled, Uint, Sint, Float];
        const INT_F: [NumFormat; 3] = [Uint, Sint, Float];
        const NORM_INT: [NumFormat; 4] = [Unorm, Snorm, Uint, Sint];
        let u = |n: u8, bits: u8| DataFormat::Uniform { n, bits };
        // The gfx11 table, in code order from 1: (data format, its numeric formats).
        let groups: [(DataFormat, &[NumFormat]); 14] = [
            (u(1, 8), &ALL),
            (u(1, 16), &ALL_F),
            (u(2, 8), &ALL),
            (u(1, 32), &INT_F),
            (u(2, 16), &ALL_F),
            (DataFormat::Packed(&[11, 11, 10]), &[Float]),
            (DataFormat::Packed(&[10, 11, 11]), &[Float]),
            (DataFormat::Packed(&[2, 10, 10, 10]), &NORM_INT),
            (DataFormat::Packed(&[10, 10, 10, 2]), &ALL),
            (u(4, 8), &ALL),
            (u(2, 32), &INT_F),
            (u(4, 16), &ALL_F),
            (u(3, 32), &INT_F),
            (u(4, 32), &INT_F),
        ];
        let mut next = 1u8;
        for (data, nums) in groups {
            for &num in nums {
                if next == code {
                    return Some(BufferFormat { data, num });
                }
                next += 1;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_format_codes_match_the_gfx11_table() {
        let name = |c| BufferFormat::from_code(c).map(|f| f.name());
        assert_eq!(name(0), None);
        assert_eq!(name(1).as_deref(), Some("BUF_FMT_8_UNORM"));
        assert_eq!(name(13).as_deref(), Some("BUF_FMT_16_FLOAT"));
        assert_eq!(name(22).as_deref(), Some("BUF_FMT_32_FLOAT"));
        assert_eq!(name(30).as_deref(), Some("BUF_FMT_10_11_11_FLOAT"));
        assert_eq!(name(31).as_deref(), Some("BUF_FMT_11_11_10_FLOAT"));
        assert_eq!(name(32).as_deref(), Some("BUF_FMT_10_10_10_2_UNORM"));
        assert_eq!(name(36).as_deref(), Some("BUF_FMT_2_10_10_10_UNORM"));
        assert_eq!(name(42).as_deref(), Some("BUF_FMT_8_8_8_8_UNORM"));
        assert_eq!(name(63).as_deref(), Some("BUF_FMT_32_32_32_32_FLOAT"));
        assert_eq!(name(64), None);
        let f = BufferFormat::from_code(30).unwrap();
        assert_eq!((f.components(), f.bytes()), (3, 4));
        assert_eq!(f.component_bits(2), (22, 10));
    }
}
