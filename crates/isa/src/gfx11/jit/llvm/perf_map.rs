//! Names for translated code in `perf` profiles.
//!
//! Translated blocks run from memory no file describes, so `perf report`
//! shows their samples as `[unknown]`. With `AQUEDUCT_SIM_JIT_PERF_MAP=1`
//! each object the translator links adds one line per function to
//! `/tmp/perf-PID.map`, the map file perf reads for code made at run time
//! (Linux `tools/perf/Documentation/jit-interface.txt`: `START SIZE name`,
//! hex without `0x`, one function per line), so the samples are named by
//! what the code translates: `gfxsim wave32 block 0x7f3a00001100`, the
//! region a block heads (`... region 0x... (7 blocks)`) or its two-wave
//! form (`... pair`). The address is the block's GPU virtual address, the
//! one `s_getpc_b64` reads and a fault report gives.
//!
//! A function's size comes from the object: the span from its symbol to
//! the next named function of its section (or the section's end), so
//! lines do not overlap and code between two named functions (an internal
//! function LLVM left out of line; it inlines a block's EXEC forms) counts
//! to the first. The linker keeps a section's
//! layout, so the span holds at the linked address. A translation that is
//! dropped (its device closed) leaves its line behind, and later code may
//! reuse the address: profile one device's run, or read a name where two
//! overlap as one of the two.

use std::io::Write;
use std::sync::{Mutex, OnceLock};

use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};

/// Environment variable that turns the map on (any value but `0` or empty).
pub(crate) const PERF_MAP_ENV: &str = "AQUEDUCT_SIM_JIT_PERF_MAP";

/// One line of the map: `size` bytes of code at `start`, called `name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub start: usize,
    pub size: usize,
    pub name: String,
}

impl Entry {
    /// The line perf reads.
    fn line(&self) -> String {
        format!("{:x} {:x} {}\n", self.start, self.size, self.name)
    }
}

/// The map's entries for `object`, whose functions `names` were linked at
/// `addresses` (in `names`' order) and are called `labels` (the same
/// order). A name the object has no function symbol for gets no entry.
pub(crate) fn entries(
    object: &[u8],
    names: &[&str],
    addresses: &[usize],
    labels: &[String],
) -> Vec<Entry> {
    let Ok(file) = object::File::parse(object) else {
        return Vec::new();
    };
    // Every named function's section and offset, and which of `names` it is.
    let mut found: Vec<(usize, u64, usize)> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.is_definition())
        .filter_map(|s| {
            let k = names.iter().position(|n| s.name() == Ok(n))?;
            Some((s.section_index()?.0, s.address(), k))
        })
        .collect();
    found.sort();
    found
        .iter()
        .enumerate()
        .filter_map(|(i, &(section, offset, k))| {
            let end = match found.get(i + 1) {
                Some(&(next, at, _)) if next == section => at,
                _ => file
                    .section_by_index(object::SectionIndex(section))
                    .ok()?
                    .size(),
            };
            Some(Entry {
                start: *addresses.get(k)?,
                size: usize::try_from(end.checked_sub(offset)?).ok()?,
                name: labels.get(k)?.clone(),
            })
        })
        .filter(|e| e.size > 0)
        .collect()
}

/// Whether `value` (the variable's, if set) turns the map on.
fn enabled_by(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// The open map file, when `AQUEDUCT_SIM_JIT_PERF_MAP` turns it on.
fn map_file() -> Option<&'static Mutex<std::fs::File>> {
    static FILE: OnceLock<Option<Mutex<std::fs::File>>> = OnceLock::new();
    FILE.get_or_init(|| {
        if !enabled_by(std::env::var(PERF_MAP_ENV).ok().as_deref()) {
            return None;
        }
        let path = format!("/tmp/perf-{}.map", std::process::id());
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| tracing::warn!("{PERF_MAP_ENV}: cannot open {path}: {e}"))
            .ok()
            .map(Mutex::new)
    })
    .as_ref()
}

/// Add `object`'s functions to the map when it is on (see [`entries`]).
pub(crate) fn record(object: &[u8], names: &[&str], addresses: &[usize], labels: &[String]) {
    let Some(file) = map_file() else {
        return;
    };
    let text: String = entries(object, names, addresses, labels)
        .iter()
        .map(Entry::line)
        .collect();
    // One write per object: lines of concurrent writers do not interleave.
    let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = file.write_all(text.as_bytes()) {
        tracing::warn!("{PERF_MAP_ENV}: cannot write the map: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::{Entry, enabled_by, entries};
    use crate::gfx11::jit::llvm::compile_for_cpu;

    /// Two exported functions, each calling an internal one LLVM keeps
    /// out of line (a local symbol, which must not end a span).
    const MODULE: &str = "\
define internal i32 @a.body(i32 %x) noinline nounwind {
  %y = mul i32 %x, 7
  %z = add i32 %y, 3
  ret i32 %z
}
define i32 @a(i32 %x) nounwind {
  %r = call i32 @a.body(i32 %x)
  ret i32 %r
}
define internal i32 @b.body(i32 %x) noinline nounwind {
  %y = xor i32 %x, 12345
  %z = mul i32 %y, %x
  ret i32 %z
}
define i32 @b(i32 %x) nounwind {
  %r = call i32 @b.body(i32 %x)
  ret i32 %r
}
";

    #[cfg(unix)]
    #[test]
    fn functions_get_disjoint_spans_that_cover_their_text() {
        if !crate::gfx11::jit::llvm::available() {
            eprintln!("skipped: libLLVM-19 does not load here");
            return;
        }
        let object = compile_for_cpu(MODULE, "x86-64").expect("the module compiles");
        let file = object::File::parse(&*object).unwrap();
        use object::{Object, ObjectSection, ObjectSymbol};
        let offset = |name: &str| file.symbol_by_name(name).unwrap().address() as usize;
        let text = file.section_by_name(".text").unwrap().size() as usize;
        // As if linked at 0x10000 as laid out in the object.
        let base = 0x10000;
        let names = ["b", "a", "missing"];
        let addresses = [base + offset("b"), base + offset("a"), 0];
        let labels = ["block b".to_owned(), "block a".into(), "none".into()];
        let mut got = entries(&object, &names, &addresses, &labels);
        got.sort_by_key(|e| e.start);
        assert_eq!(got.len(), 2, "{got:?}");
        // Each starts at its function and runs to the next one or the end
        // of the text, so together they cover the text after the first.
        let first = offset("a").min(offset("b"));
        assert_eq!(got[0].start, base + first);
        assert_eq!(got[0].start + got[0].size, got[1].start);
        assert_eq!(got[1].start + got[1].size, base + text);
        for e in &got {
            let own = if e.name == "block a" { "a" } else { "b" };
            assert_eq!(e.start, base + offset(own));
        }
        // b.body lies between a and b (module order): a's span holds it.
        let (a, b, b_body) = (offset("a"), offset("b"), offset("b.body"));
        assert!(a < b_body && b_body < b, "{a:#x} {b_body:#x} {b:#x}");
    }

    #[test]
    fn lines_are_perf_map_lines() {
        let e = Entry {
            start: 0x7f3a_0000_1100,
            size: 0x2c0,
            name: "gfxsim wave32 block 0x1100".into(),
        };
        assert_eq!(e.line(), "7f3a00001100 2c0 gfxsim wave32 block 0x1100\n");
    }

    #[test]
    fn the_variable_turns_the_map_on() {
        assert!(!enabled_by(None));
        assert!(!enabled_by(Some("")));
        assert!(!enabled_by(Some("0")));
        assert!(enabled_by(Some("1")));
        assert!(enabled_by(Some("yes")));
    }

    #[test]
    fn an_object_that_does_not_parse_gets_no_entries() {
        let got = entries(b"not an object", &["b0"], &[0x1000], &["x".into()]);
        assert!(got.is_empty());
    }
}
