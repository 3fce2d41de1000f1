//! `aqueduct-run --disasm`: the gfx11 decoder's (`aqueduct_isa`) view of every kernel in a
//! code object, printed in llvm-objdump's layout (instruction text, then
//! `// ADDRESS: WORDS`), so it can be diffed against
//! `llvm-objdump-19 -d --triple=amdgcn-amd-amdhsa --mcpu=gfx1100`.
//!
//! It reads the code the way the device does: from the loaded image, at
//! each function symbol (kernel entries and the functions they call; each
//! kernel descriptor's entry offset where a kernel has no symbol), up to the
//! next function or the end of the executable segment. Words the decoder
//! cannot place are printed as `.long` lines naming the problem, never
//! skipped silently.

use aqueduct::hsa::code_object::{Bundle, CodeObject, IsaName, code_object_for_agent};
use aqueduct_isa::gfx11::decode::decode;
use aqueduct_isa::gfx11::disasm::disassemble;

/// The family the decoder models.
const DECODER_GFX_PREFIX: &str = "gfx11";

/// Why a code object could not be disassembled.
#[derive(Debug, thiserror::Error)]
pub enum DisasmError {
    /// The bundle or ELF is malformed.
    #[error(transparent)]
    CodeObject(#[from] aqueduct::hsa::code_object::CodeObjectError),
    /// The code object is for a GPU family the decoder does not model.
    #[error("the code object is for {gfx}; the decoder covers gfx11 (RDNA3) only")]
    OtherFamily { gfx: String },
    /// A kernel's entry lies outside every executable segment.
    #[error("kernel {name}: entry {entry:#x} is not in an executable segment")]
    EntryOutsideCode { name: String, entry: u64 },
}

pub fn disassemble_code_object(bytes: &[u8]) -> Result<String, DisasmError> {
    let owned;
    let elf: &[u8] = if Bundle::is_bundle(bytes) {
        let gfx1100 = IsaName::parse("amdgcn-amd-amdhsa--gfx1100").expect("a valid ISA name");
        owned = code_object_for_agent(bytes, &gfx1100)?.into_owned();
        &owned
    } else {
        bytes
    };
    let co = CodeObject::parse(elf)?;
    if !co.isa().gfx.starts_with(DECODER_GFX_PREFIX) {
        return Err(DisasmError::OtherFamily {
            gfx: co.isa().gfx.to_string(),
        });
    }
    let mut image = vec![0u8; co.image_size() as usize];
    co.load_image(&mut image, 0)?;
    let code = co.code_ranges();
    let mut kernels: Vec<(u64, &str)> = co
        .functions()
        .iter()
        .map(|(at, name)| (*at, name.as_str()))
        .collect();
    for k in co.kernels() {
        if !kernels.iter().any(|&(at, _)| at == k.entry_offset()) {
            kernels.push((k.entry_offset(), k.name.as_str()));
        }
    }
    kernels.sort();
    kernels.dedup_by_key(|k| k.0);

    let mut out = String::new();
    for (i, &(start, name)) in kernels.iter().enumerate() {
        let segment_end = code
            .iter()
            .find(|r| r.contains(&start))
            .map(|r| r.end)
            .ok_or_else(|| DisasmError::EntryOutsideCode {
                name: name.to_string(),
                entry: start,
            })?;
        let end = kernels
            .get(i + 1)
            .map_or(segment_end, |next| next.0.min(segment_end));
        out.push_str(&format!("\n{start:016x} <{name}>:\n"));
        let mut pc = start;
        while pc + 4 <= end {
            // Zero-filled padding up to the next kernel: llvm-objdump elides it too.
            if image[pc as usize..end as usize].iter().all(|&b| b == 0) {
                break;
            }
            let available = ((end - pc) / 4).min(4) as usize;
            let words: Vec<u32> = (0..available)
                .map(|k| {
                    let at = (pc + 4 * k as u64) as usize;
                    u32::from_le_bytes(image[at..at + 4].try_into().expect("4 bytes"))
                })
                .collect();
            let (text, len) = match decode(&words) {
                Ok(inst) => (disassemble(&inst), inst.len as usize),
                Err(e) => {
                    let why = e.mnemonic.map_or("undecodable".to_string(), |m| {
                        format!("{m}: unsupported form")
                    });
                    (format!(".long {:#010x} ; {why}", words[0]), 1)
                }
            };
            let hex: Vec<String> = words[..len.min(words.len())]
                .iter()
                .map(|w| format!("{w:08X}"))
                .collect();
            out.push_str(&format!("\t{text:<59}// {pc:012X}: {}\n", hex.join(" ")));
            pc += 4 * len as u64;
        }
    }
    Ok(out)
}
