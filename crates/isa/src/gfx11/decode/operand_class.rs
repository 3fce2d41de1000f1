//! Register classes LLVM gives the operands of the 32-bit VALU encodings
//! (VOP1/VOP2/VOPC and their DPP forms) on gfx1100, where the 16-bit
//! instructions are "fake16": their 16-bit VGPR operands are limited to
//! v0..v127 (LLVM's `*_Lo128` classes). LLVM rejects a 16-bit destination
//! above v127, and prints a 16-bit source above v127 with an "Invalid
//! register" comment. Some ops take only VGPRs as src0 (LLVM's `VGPR_32`):
//! a scalar or constant there is printed with a comment too. The facts come
//! from llvm-objdump-19's verdicts (tests/isa_vectors/generated).

use crate::gfx11::opcodes::Op;

/// The `[fiub]NN` type tokens of an op name (`v_cvt_f32_f16` → f32, f16).
fn type_tokens(op: Op) -> impl Iterator<Item = &'static str> {
    op.name().split('_').filter(|t| {
        t.len() >= 2
            && matches!(t.as_bytes()[0], b'f' | b'i' | b'u' | b'b')
            && t[1..].bytes().all(|c| c.is_ascii_digit())
    })
}

/// Packed or dot-product ops: their "16" operands are 32-bit registers.
fn packed(op: Op) -> bool {
    let name = op.name();
    name.contains("_pk_") || name.contains("dot2")
}

/// Is the destination a 16-bit (Lo128) VGPR?
pub(crate) fn dst_is_16(op: Op) -> bool {
    if op == Op::VSatPkU8I16 {
        return true;
    }
    !packed(op) && type_tokens(op).next().is_some_and(|t| t.ends_with("16"))
}

/// Are the sources 16-bit operands (the last type token of the name; the
/// same for every source slot)?
pub(crate) fn src_is_16(op: Op) -> bool {
    !packed(op) && type_tokens(op).last().is_some_and(|t| t.ends_with("16"))
}

/// Does source `slot` take float input modifiers (neg/abs)?
pub(crate) fn src_is_float(op: Op, slot: usize) -> bool {
    let class = matches!(
        op,
        Op::VCmpClassF16
            | Op::VCmpClassF32
            | Op::VCmpClassF64
            | Op::VCmpxClassF16
            | Op::VCmpxClassF32
            | Op::VCmpxClassF64
    );
    if slot == 1 && class {
        return false;
    }
    if op == Op::VDot2Bf16Bf16 {
        return true;
    }
    if matches!(op, Op::VCndmaskB32) || op.name().contains("ubyte") {
        return false;
    }
    // Mixed ops: an integer exponent / byte select / accumulator.
    if slot >= 1 && matches!(op, Op::VLdexpF32 | Op::VCvtPkU8F32) {
        return false;
    }
    type_tokens(op).last().is_some_and(|t| t.starts_with('f'))
}

/// Ops whose integer sources' neg/abs bits LLVM ignores (they are dropped,
/// not rejected): mixed float/integer ops and the native 16-bit VOP3 ops.
pub(crate) fn ignores_int_mods(op: Op) -> bool {
    matches!(
        op,
        Op::VLdexpF32 | Op::VCvtPkU8F32 | Op::VPermlane16B32 | Op::VPermlanex16B32
    ) || vop3_opsel_op(op)
}

/// Native VOP3 16-bit ops that carry op_sel (per source and for the
/// destination); the fake16 VOP3 forms of the other 16-bit ops ignore it.
pub(crate) fn vop3_opsel_op(op: Op) -> bool {
    let name = op.name();
    [
        "v_fma_f16",
        "v_div_fixup_f16",
        "v_mad_u16",
        "v_mad_i16",
        "v_mad_u32_u16",
        "v_mad_i32_i16",
        "v_pack_b32_f16",
        "v_cvt_pk_norm_i16_f16",
        "v_cvt_pk_norm_u16_f16",
        "v_dot2_bf16_bf16",
    ]
    .contains(&name)
        || (["v_add_nc_", "v_sub_nc_"]
            .iter()
            .any(|p| name.starts_with(p))
            && name.ends_with("16"))
        || (["v_min3_", "v_max3_", "v_med3_"]
            .iter()
            .any(|p| name.starts_with(p))
            && name.ends_with("16"))
}

/// Ops whose src0 must be a VGPR (LLVM class `VGPR_32`).
pub(crate) fn src0_vgpr_only(op: Op) -> bool {
    matches!(
        op,
        Op::VMovrelsB32
            | Op::VMovrelsdB32
            | Op::VMovrelsd2B32
            | Op::VSwapB32
            | Op::VSwaprelB32
            | Op::VPermlane64B32
    )
}

/// Ops with no DPP form in the 32-bit encodings.
pub(crate) fn no_dpp(op: Op, widths: [u8; 5]) -> bool {
    widths.iter().any(|&w| w >= 2)
        || matches!(
            op,
            Op::VNop
                | Op::VPipeflush
                | Op::VReadfirstlaneB32
                | Op::VSwapB32
                | Op::VSwaprelB32
                | Op::VPermlane64B32
                | Op::VFmaakF16
                | Op::VFmaakF32
                | Op::VFmamkF16
                | Op::VFmamkF32
                | Op::VFmacDx9ZeroF32
        )
}

/// Is the result a float (the first type token of the name is `fNN`)?
pub(crate) fn dst_is_float(op: Op) -> bool {
    type_tokens(op).next().is_some_and(|t| t.starts_with('f'))
}

/// Integer VOP3 ops that take clamp (saturating adds/subtracts, multiply-adds,
/// SAD ops, the 16-bit min3/max3/med3).
pub(crate) fn int_clamp(op: Op) -> bool {
    let name = op.name();
    ["_nc_", "_co_", "mad_", "sad", "mul_i32_i24"]
        .iter()
        .any(|p| name.contains(p))
        || (["min3_", "max3_", "med3_"].iter().any(|p| name.contains(p)) && name.ends_with("16"))
}
