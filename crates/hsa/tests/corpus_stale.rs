//! Staleness check for the checked-in kernel corpus: where clang-19, ld.lld-19 and
//! llvm-mc-19 are installed, rebuild corpus/ with corpus/build.sh into a temporary
//! directory and require every code object to be byte-identical to the checked-in one
//! (the build is deterministic), and the same set of files. Where a tool is missing the
//! test says so and passes, so `cargo test` never needs LLVM.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const TOOLS: [&str; 3] = ["clang-19", "ld.lld-19", "llvm-mc-19"];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

fn tool_present(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// File name -> bytes of every code object in `<root>/gfx1100`.
fn objects(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in fs::read_dir(root.join("gfx1100")).expect("a gfx1100 directory") {
        let path = entry.expect("readable directory entry").path();
        if path.is_file() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            files.insert(name, fs::read(&path).expect("readable code object"));
        }
    }
    files
}

#[test]
fn checked_in_corpus_matches_a_fresh_build() {
    if let Some(missing) = TOOLS.iter().find(|tool| !tool_present(tool)) {
        eprintln!("skipped: {missing} not installed");
        return;
    }
    let out = std::env::temp_dir().join(format!("aqueduct-corpus-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    let status = Command::new("bash")
        .arg(corpus_dir().join("build.sh"))
        .arg(&out)
        .status()
        .expect("run corpus/build.sh");
    let fresh = objects(&out);
    let _ = fs::remove_dir_all(&out);
    assert!(status.success(), "corpus/build.sh failed: {status}");
    let checked_in = objects(&corpus_dir());

    assert!(
        fresh.len() >= 60,
        "build produced only {} code objects",
        fresh.len()
    );
    assert_eq!(
        fresh.keys().collect::<Vec<_>>(),
        checked_in.keys().collect::<Vec<_>>(),
        "corpus/gfx1100 holds a different set of objects than build.sh makes; rerun corpus/build.sh"
    );
    let stale: Vec<&String> = fresh
        .iter()
        .filter(|(name, bytes)| checked_in.get(*name) != Some(*bytes))
        .map(|(name, _)| name)
        .collect();
    assert!(
        stale.is_empty(),
        "stale checked-in corpus objects (rerun corpus/build.sh and commit): {stale:?}"
    );
}
