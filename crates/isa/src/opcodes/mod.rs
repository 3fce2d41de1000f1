//! The operations every target shares: [`Op`] (generated into `op.rs` by
//! `tools/isa-tables/generate.py` from the gfx1100, gfx90a and gfx942
//! disassemblers of llvm-mc-19) and [`OpInfo`], the row of every family's
//! opcode table. A GFX9 mnemonic that names a gfx11 operation differently
//! maps to that operation (`tools/isa-tables/aliases.py`), so semantics keyed
//! by `Op` (gfx11's `exec/`) serve every target.

mod op;

pub use op::Op;

/// One opcode of one encoding family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// The operation (shared by the e32/e64/dual encodings of the same op).
    pub op: Op,
    /// LLVM's mnemonic for this encoding (e.g. `v_add_f32_e32`).
    pub mnemonic: &'static str,
    /// Register widths in dwords: [dst, src0, src1, src2, sdst]; 0 = absent.
    /// For memory families: [vdst, addr, data0, data1, -].
    pub widths: [u8; 5],
}

impl Op {
    /// Base mnemonic (no `_e32`/`_e64` suffix, no `v_dual_` prefix); for an
    /// aliased GFX9 operation, the gfx11 name.
    pub fn name(self) -> &'static str {
        op::OP_NAMES[self as usize]
    }
}

/// Every operation's [`Op::name`], indexed by `op as usize`: for tables
/// built once from the names.
pub(crate) fn names() -> &'static [&'static str] {
    &op::OP_NAMES
}
