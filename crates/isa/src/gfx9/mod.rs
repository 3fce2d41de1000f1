//! GFX9 family (CDNA2 gfx90a, CDNA3 gfx942): decoder and disassembler.
//!
//! Instructions decode into gfx11's [`Inst`](crate::gfx11::inst::Inst) form,
//! with operations from the shared [`Op`](crate::opcodes::Op) enum, so the
//! gfx11 executor's semantics (keyed by `Op`) can serve these targets too;
//! the GFX9-only parts of an instruction (SDWA, MFMA fields, AGPR operands)
//! are its optional fields. `exec_form.rs` turns a decoded instruction into
//! the form the executor runs (gfx11's register numbering).
//!
//! Where each part lives: `opcodes/` (generated per-target tables,
//! `tools/isa-tables`), `decode/` (words to `Inst`, one file per encoding
//! family: `vop3.rs` holds VOP3, VOP3P and the VOP3P-MAI matrix ops),
//! `disasm.rs` (LLVM 19's text for an `Inst`; `disasm/vop3.rs` prints the
//! 64-bit VALU encodings), `exec_form.rs` (the executor's form). Every
//! encoding family agrees with llvm-objdump-19 on the generated vectors
//! (`tests/gfx9_decode.rs`).

pub mod decode;
pub mod disasm;
pub mod exec_form;
pub mod opcodes;

/// A GFX9-family target (LLVM processor name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// MI200 (CDNA2).
    Gfx90a,
    /// MI300 (CDNA3).
    Gfx942,
}

impl Target {
    /// LLVM's processor name.
    pub fn name(self) -> &'static str {
        match self {
            Target::Gfx90a => "gfx90a",
            Target::Gfx942 => "gfx942",
        }
    }
}
