//! Source lines for fault PCs: the DWARF line table (`.debug_line`, read
//! with gimli from the sections the object crate finds) of a code object
//! built with `-g`, as address ranges mapped
//! to `file:line`. Addresses are the code object's virtual addresses (a
//! shared object linked at 0), so a PC minus the image's load base looks
//! them up. A code object without debug info, or one whose DWARF does not
//! parse, simply has no lines.

use std::borrow::Cow;

use aqueduct::hsa::Agent;
use aqueduct::hsa::code_object::{Bundle, IsaName};
use gimli::{EndianSlice, LittleEndian};
use object::{Object, ObjectSection};

/// One row of the line table: `[start, end)` came from `file:line`.
struct Range {
    start: u64,
    end: u64,
    file: String,
    line: u64,
}

/// The line table of one code object, sorted by address.
pub struct LineTable(Vec<Range>);

impl LineTable {
    /// The line table of what the runtime loaded from `file` for `agent`:
    /// the file itself, or the offload bundle's entry for the agent's ISA
    /// (the same choice `Bundle::select` makes for the loader).
    pub fn of_loaded(file: &[u8], agent: &Agent) -> Option<LineTable> {
        if !Bundle::is_bundle(file) {
            return Self::of(file);
        }
        let bundle = Bundle::parse(file).ok()?;
        let isa = IsaName::parse(agent.isa_name.as_deref()?)?;
        Self::of(bundle.select(&isa).ok()?)
    }

    /// The line table of `elf`, if it has one.
    pub fn of(elf: &[u8]) -> Option<LineTable> {
        let file = object::File::parse(elf).ok()?;
        file.section_by_name(".debug_line")?;
        let dwarf = gimli::Dwarf::load(|id| -> Result<_, gimli::Error> {
            let data = file
                .section_by_name(id.name())
                .and_then(|section| section.data().ok())
                .unwrap_or(&[]);
            Ok(EndianSlice::new(data, LittleEndian))
        })
        .ok()?;
        let mut ranges = Vec::new();
        let mut units = dwarf.units();
        while let Ok(Some(header)) = units.next() {
            let Ok(unit) = dwarf.unit(header) else {
                continue;
            };
            let Some(program) = unit.line_program.clone() else {
                continue;
            };
            let mut rows = program.rows();
            let mut open: Option<(u64, String, u64)> = None;
            while let Ok(Some((header, row))) = rows.next_row() {
                if let Some((start, file, line)) = open.take()
                    && row.address() > start
                {
                    ranges.push(Range {
                        start,
                        end: row.address(),
                        file,
                        line,
                    });
                }
                if row.end_sequence() {
                    continue;
                }
                let file = row
                    .file(header)
                    .and_then(|f| dwarf.attr_string(&unit, f.path_name()).ok())
                    .map_or(Cow::Borrowed("?"), |s| s.to_string_lossy());
                let line = row.line().map_or(0, |l| l.get());
                open = Some((row.address(), file.into_owned(), line));
            }
        }
        ranges.sort_by_key(|r| r.start);
        (!ranges.is_empty()).then_some(LineTable(ranges))
    }

    /// `file:line` of the code object address `addr`.
    pub fn locate(&self, addr: u64) -> Option<String> {
        let after = self.0.partition_point(|r| r.start <= addr);
        let r = self.0.get(after.checked_sub(1)?)?;
        (addr < r.end).then(|| format!("{}:{}", r.file, r.line))
    }
}
