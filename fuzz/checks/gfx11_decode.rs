//! Fuzz checks: the gfx11 instruction decoder and disassembler.
//!
//! The bytes are little-endian dwords. Every start offset is decoded with the
//! words that follow it (as the simulator does at a PC): `decode` must return
//! an instruction or a typed `DecodeError`, never panic. A decoded
//! instruction's length is at least one dword and within the words given,
//! its first raw word is the one at the offset, and it disassembles to non-empty text; an error
//! names at least the first dword it looked at.
//!
//! The checks live here, apart from libFuzzer, so the fuzz target
//! (`fuzz_targets/gfx11_decode.rs`) and the corpus replay that runs in every
//! `cargo test` use the same code.

use aqueduct_isa::gfx11::decode::decode;
use aqueduct_isa::gfx11::disasm::disassemble;

/// Run the target's invariants on one input (panics on a finding).
pub fn check(bytes: &[u8]) {
    assert!(decode(&[]).is_err(), "no words decode to nothing");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for start in 0..words.len().min(64) {
        let window = &words[start..];
        match decode(window) {
            Ok(inst) => {
                let len = inst.len as usize;
                assert!(len >= 1, "empty instruction");
                assert!(
                    len <= window.len(),
                    "length {len} past {} words",
                    window.len()
                );
                assert_eq!(inst.words[0], window[0], "first raw word");
                assert!(!disassemble(&inst).is_empty());
            }
            Err(error) => {
                assert!(!error.words.is_empty(), "{error}");
                assert_eq!(error.words[0], window[0], "{error}");
                let _ = error.to_string();
            }
        }
    }
}
