//! What each memory opcode does (width, sign/d16 handling, atomic kind),
//! parsed from LLVM's mnemonics once per process and looked up by opcode on
//! the hot path, so no instruction execution matches strings.
//!
//! DS and FLAT/GLOBAL/SCRATCH spell their d16 variants differently
//! (`ds_load_u8_d16_hi` vs `global_load_d16_hi_u8`); both parse here.

use std::sync::OnceLock;

use crate::gfx11::exec::vmem::atomics::{Rmw, classify};
use crate::gfx11::opcodes::{self, Op};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemKind {
    /// Bytes, sign-extend, d16 placement (0 none, 1 low half, 2 high half).
    Load(usize, bool, u8),
    /// Bytes, store the high 16 bits of the data.
    Store(usize, bool),
    /// Operation, 64-bit, returns the old value (the DS `_rtn` forms;
    /// FLAT/GLOBAL atomics return by their GLC bit instead).
    Atomic(Rmw, bool, bool),
    Other,
}

pub(crate) fn mem_kind(op: Op) -> MemKind {
    static TABLE: OnceLock<Vec<MemKind>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut v = Vec::new();
        for info in opcodes::DS
            .iter()
            .chain(opcodes::FLAT.iter())
            .chain(opcodes::GLOBAL.iter())
            .chain(opcodes::SCRATCH.iter())
            .chain(opcodes::MUBUF.iter())
            .flatten()
        {
            let idx = info.op as usize;
            if v.len() <= idx {
                v.resize(idx + 1, MemKind::Other);
            }
            v[idx] = parse(info.op);
        }
        v
    });
    table.get(op as usize).copied().unwrap_or(MemKind::Other)
}

/// What a MUBUF opcode's name makes of it beyond its [`MemKind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BufferForm {
    /// A load, store or atomic of raw bytes.
    Raw,
    /// A typed access through a buffer format (`*_format_*`).
    Typed,
    /// A load into LDS (`buffer_load_lds_*`).
    LoadLds,
}

/// The [`BufferForm`] of `op`, looked up by opcode (the names are parsed
/// once per process, not per instruction executed).
pub(crate) fn buffer_form(op: Op) -> BufferForm {
    static TABLE: OnceLock<Vec<BufferForm>> = OnceLock::new();
    // Every target's operations (GFX9's too), not one family table's.
    let table = TABLE.get_or_init(|| {
        crate::opcodes::names()
            .iter()
            .map(|name| {
                if name.starts_with("buffer_load_lds_") {
                    BufferForm::LoadLds
                } else if name.starts_with("buffer_") && name.contains("_format_") {
                    BufferForm::Typed
                } else {
                    BufferForm::Raw
                }
            })
            .collect::<Vec<_>>()
    });
    table.get(op as usize).copied().unwrap_or(BufferForm::Raw)
}

fn parse(op: Op) -> MemKind {
    let name = op.name();
    if let Some((size, signed, d16)) = name.split_once("_load_").and_then(|(_, s)| load_suffix(s)) {
        return MemKind::Load(size, signed, d16);
    }
    if let Some((size, hi)) = name
        .split_once("_store_")
        .and_then(|(_, s)| store_suffix(s))
    {
        return MemKind::Store(size, hi);
    }
    match classify(op) {
        Some((rmw, wide)) => MemKind::Atomic(rmw, wide, name.contains("_rtn")),
        None => MemKind::Other,
    }
}

fn load_suffix(suffix: &str) -> Option<(usize, bool, u8)> {
    Some(match suffix {
        "u8" => (1, false, 0),
        "i8" => (1, true, 0),
        "u16" => (2, false, 0),
        "i16" => (2, true, 0),
        "b32" => (4, false, 0),
        "b64" => (8, false, 0),
        "b96" => (12, false, 0),
        "b128" => (16, false, 0),
        "d16_u8" | "u8_d16" => (1, false, 1),
        "d16_i8" | "i8_d16" => (1, true, 1),
        "d16_b16" | "u16_d16" => (2, false, 1),
        "d16_hi_u8" | "u8_d16_hi" => (1, false, 2),
        "d16_hi_i8" | "i8_d16_hi" => (1, true, 2),
        "d16_hi_b16" | "u16_d16_hi" => (2, false, 2),
        _ => return None,
    })
}

fn store_suffix(suffix: &str) -> Option<(usize, bool)> {
    Some(match suffix {
        "b8" => (1, false),
        "b16" => (2, false),
        "b32" => (4, false),
        "b64" => (8, false),
        "b96" => (12, false),
        "b128" => (16, false),
        "d16_hi_b8" | "b8_d16_hi" => (1, true),
        "d16_hi_b16" | "b16_d16_hi" => (2, true),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcodes::names;

    /// Every MUBUF opcode of every target has the form its name says (the
    /// GFX9-only operations too, which gfx11's tables do not hold).
    #[test]
    fn buffer_forms_follow_the_names() {
        let mut typed = 0;
        use crate::gfx9::{Target, opcodes::tables};
        for (gfx9, table) in [
            (false, &crate::gfx11::opcodes::MUBUF[..]),
            (true, tables(Target::Gfx90a).mubuf),
            (true, tables(Target::Gfx942).mubuf),
        ] {
            for info in table.iter().flatten() {
                let name = info.op.name();
                let want = if name.starts_with("buffer_load_lds_") {
                    BufferForm::LoadLds
                } else if name.contains("_format_") {
                    typed += 1;
                    BufferForm::Typed
                } else {
                    BufferForm::Raw
                };
                assert_eq!(buffer_form(info.op), want, "{name} (GFX9 table: {gfx9})");
            }
        }
        assert!(typed > 20, "{typed} typed forms");
        assert_eq!(
            names()[Op::BufferLoadFormatX as usize],
            "buffer_load_format_x"
        );
    }
}
