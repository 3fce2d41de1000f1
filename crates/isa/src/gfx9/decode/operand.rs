//! GFX9 source operand codes (AMD CDNA3 ISA guide, "Scalar Operands" and
//! "Vector Operands"): which codes a slot may hold. Values come from gfx11's
//! operand decoding, whose constants (128..=208, 240..=248) and literal
//! rules GFX9 shares; the registers differ (102..=105 are FLAT_SCRATCH and
//! XNACK_MASK, 124 is M0, 125 is LLVM's `null`).

/// Is `code` valid in a scalar-or-constant source slot of `width` dwords?
/// (209..=234 are reserved; 249/250 mark SDWA/DPP, valid only as a
/// VALU src0; wider slots have no odd halves of the special pairs.)
pub(crate) fn src_code_valid(code: u16, width: u8) -> bool {
    match code {
        209..=234 | 249 | 250 => false,
        124 | 254 if width >= 2 => false,
        102..=107 | 126 | 127 if width >= 3 => false,
        103 | 105 | 107 | 127 if width >= 2 => false,
        // LLVM's SGPR tuple classes reach s105 (s[100:103] is a quad).
        0..=101 if width >= 2 => align(code, width) + width as u16 <= 106,
        108..=123 if width >= 2 => align(code, width) - 108 + width as u16 <= 16,
        _ => true,
    }
}

/// Is `code` valid as a scalar destination of `width` dwords?
pub(crate) fn sdst_valid(code: u16, width: u8) -> bool {
    code < 128 && src_code_valid(code, width)
}

/// A scalar tuple's first register as LLVM decodes it (pairs aligned to 2,
/// wider tuples to 4).
pub(crate) fn align(code: u16, width: u8) -> u16 {
    match width {
        0 | 1 => code,
        2 => code & !1,
        _ => code & !3,
    }
}
