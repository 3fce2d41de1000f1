//! Where a kernel failed, as a person reads it: the program counter as
//! kernel+offset with the absolute address in brackets, and the source line
//! when the code object carries DWARF (`reverse_blocks+0x2c [0x7f3a00001a2c]
//! at k.hip:12`; debug_line.rs).
//!
//! The PC comes from gfxsim's account of the failed wave
//! (`SimDevice::wave_error`), whose text names it as `pc 0x...`
//! (`WaveError`'s `Display` in crates/isa/src/lib.rs); real KFD reports no
//! PC, so there only the runtime's error is shown.

use aqueduct::hsa::code_object::KernelInfo;

use crate::debug_line::LineTable;

/// The kernel entries of a loaded executable: (entry address, kernel name),
/// its load base and its source lines, if any.
pub struct Entries(Vec<(u64, String)>, u64, Option<LineTable>);

impl Entries {
    /// `image_base`: the GPU address the executable's image was loaded at.
    pub fn new(image_base: u64, kernels: &[KernelInfo]) -> Self {
        let mut entries: Vec<(u64, String)> = kernels
            .iter()
            .map(|k| (image_base.wrapping_add(k.entry_offset()), k.name.clone()))
            .collect();
        entries.sort();
        Self(entries, image_base, None)
    }

    /// Adds the code object's source lines (none without DWARF).
    pub fn with_lines(mut self, lines: Option<LineTable>) -> Self {
        self.2 = lines;
        self
    }

    /// `pc` as `kernel+0xOFFSET [0xPC]`: the nearest kernel entry at or below
    /// it (code after a kernel's entry belongs to it or to functions it calls,
    /// which the linker places after it); the bare address below every entry.
    pub fn locate(&self, pc: u64) -> String {
        let line = self
            .2
            .as_ref()
            .and_then(|t| t.locate(pc.wrapping_sub(self.1)))
            .map_or(String::new(), |l| format!(" at {l}"));
        match self.0.iter().rev().find(|(entry, _)| *entry <= pc) {
            Some((entry, name)) => format!("{name}+{:#x} [{pc:#x}]{line}", pc - entry),
            None => format!("{pc:#x}{line}"),
        }
    }

    /// `report` with each `pc 0x...` replaced by its location.
    pub fn annotate(&self, report: &str) -> String {
        let mut out = String::with_capacity(report.len() + 32);
        let mut rest = report;
        while let Some(at) = rest.find("pc 0x") {
            let digits_start = at + "pc 0x".len();
            let digits = rest[digits_start..]
                .find(|c: char| !c.is_ascii_hexdigit())
                .map_or(rest.len(), |n| digits_start + n);
            out.push_str(&rest[..at + "pc ".len()]);
            match u64::from_str_radix(&rest[digits_start..digits], 16) {
                Ok(pc) => out.push_str(&self.locate(pc)),
                Err(_) => out.push_str(&rest[at + "pc ".len()..digits]),
            }
            rest = &rest[digits..];
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcs_become_kernel_offsets() {
        let e = Entries(vec![(0x1100, "a".into()), (0x1200, "b".into())], 0, None);
        assert_eq!(e.locate(0x1104), "a+0x4 [0x1104]");
        assert_eq!(e.locate(0x1200), "b+0x0 [0x1200]");
        assert_eq!(e.locate(0x10), "0x10");
        assert_eq!(
            e.annotate("memory violation: Read at address 0x8 (pc 0x1230, workgroup [0, 0, 0])"),
            "memory violation: Read at address 0x8 (pc b+0x30 [0x1230], workgroup [0, 0, 0])"
        );
    }
}
