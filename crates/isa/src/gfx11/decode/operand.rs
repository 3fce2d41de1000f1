//! Source operand codes (RDNA3 ISA "Scalar/Vector operands"): SGPRs, special
//! registers, inline integer and float constants, the literal, and VGPRs.
//! Constants are expanded here to the operand's size and type, once.

use crate::gfx11::inst::{Operand, Src};
use crate::gfx11::opcodes::Op;

/// Operand size in bits for source slot `slot` (0..3) of `op` with register
/// width `width` (dwords): 64 for two-dword operands; 16 when the op's source
/// type (the last type in its name, e.g. `v_cvt_f32_f16` → f16) is 16-bit.
pub fn operand_bits(op: Op, width: u8) -> u8 {
    if width >= 2 {
        return 64;
    }
    let name = op.name();
    let last = name.rsplit('_').find(|t| {
        t.len() >= 2
            && matches!(t.as_bytes()[0], b'f' | b'i' | b'u' | b'b')
            && t[1..].bytes().all(|c| c.is_ascii_digit())
    });
    match last {
        Some(t) if &t[1..] == "16" => 16,
        _ => 32,
    }
}

/// Kind of a 64-bit operand, for the literal's extension.
fn literal64(op: Op, lit: u32) -> u64 {
    let name = op.name();
    if name.contains("f64") {
        (lit as u64) << 32
    } else if name.contains("i64") {
        lit as i32 as i64 as u64
    } else {
        lit as u64
    }
}

/// Bit pattern of inline float constant `code` (240..=248) at `bits` width.
pub(crate) fn float_const_bits(code: u16, bits: u8) -> u64 {
    float_const(code, bits)
}

/// Is `code` a source operand code gfx11 defines in a scalar-or-constant
/// slot of `width` dwords? (209..=232 and 249 are reserved; 233/234/250 are
/// DPP markers, valid only as a VALU src0; 64-bit and wider slots have no
/// vcc_hi/m0/exec_hi halves.)
pub(crate) fn src_code_valid(code: u16, width: u8) -> bool {
    match code {
        209..=234 | 249 | 250 => false,
        107 | 125 | 127 | 254 if width >= 2 => false,
        106 | 126 if width >= 3 => false,
        // A tuple must lie inside the SGPRs (s0..s105) or the TTMPs.
        0..=105 if width >= 2 => align(code, width) + width as u16 <= 106,
        108..=123 if width >= 2 => align(code, width) - 108 + width as u16 <= 16,
        _ => true,
    }
}

/// A scalar tuple's first register as LLVM decodes it (pairs aligned to 2,
/// wider tuples to 4).
fn align(code: u16, width: u8) -> u16 {
    match width {
        0 | 1 => code,
        2 => code & !1,
        _ => code & !3,
    }
}

fn float_const(code: u16, bits: u8) -> u64 {
    const F16: [u64; 9] = [
        0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118,
    ];
    const F32: [u64; 9] = [
        0x3F00_0000,
        0xBF00_0000,
        0x3F80_0000,
        0xBF80_0000,
        0x4000_0000,
        0xC000_0000,
        0x4080_0000,
        0xC080_0000,
        0x3E22_F983,
    ];
    const F64: [u64; 9] = [
        0x3FE0_0000_0000_0000,
        0xBFE0_0000_0000_0000,
        0x3FF0_0000_0000_0000,
        0xBFF0_0000_0000_0000,
        0x4000_0000_0000_0000,
        0xC000_0000_0000_0000,
        0x4010_0000_0000_0000,
        0xC010_0000_0000_0000,
        0x3FC4_5F30_6DC9_C882,
    ];
    let i = (code - 240) as usize;
    match bits {
        16 => F16[i],
        64 => F64[i],
        _ => F32[i],
    }
}

/// Decode a source operand code (9-bit VALU space or 8-bit SALU space).
pub(crate) fn decode_src(code: u16, op: Op, width: u8, literal: Option<u32>) -> Operand {
    let bits = operand_bits(op, width);
    let src = match code {
        0..=127 => Src::Sgpr(code as u8),
        128..=192 => Src::Imm(sext(code as i64 - 128, bits)),
        193..=208 => Src::Imm(sext(192 - code as i64, bits)),
        235..=238 => Src::Aperture(code as u8),
        240..=248 => Src::Imm(float_const(code, bits)),
        251 => Src::Vccz,
        252 => Src::Execz,
        253 => Src::Scc,
        255 => match literal {
            Some(l) => Src::Imm(match bits {
                64 => literal64(op, l),
                _ => l as u64,
            }),
            None => Src::Unsupported(code),
        },
        256..=511 => Src::Vgpr((code - 256) as u8),
        _ => Src::Unsupported(code),
    };
    Operand { code, src }
}

fn sext(v: i64, bits: u8) -> u64 {
    match bits {
        64 => v as u64,
        16 => (v as u64) & 0xFFFF_FFFF,
        _ => (v as u32) as u64,
    }
}
