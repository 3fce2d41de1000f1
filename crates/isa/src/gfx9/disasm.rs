//! GFX9 disassembler.
