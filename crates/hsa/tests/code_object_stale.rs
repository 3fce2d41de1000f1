//! Staleness checks for the checked-in code objects: where the LLVM tools a
//! build script needs are installed, rebuild kernels/ (kernels/build.sh), the
//! facade tests' kernels (tests/kernels/build.sh), the facade's OpenCL blit
//! kernels (src/blit_kernels/build.sh) and the corpus (corpus/build.sh)
//! into temporary directories and require every
//! output to be byte-identical to the checked-in file, and the same set of
//! files (the builds are deterministic). Where a tool is missing the test
//! says it skipped and passes, so `cargo test` never needs LLVM.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(name)
}

fn tool_present(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Relative path → bytes for every file in `root`'s output directories.
fn outputs(root: &Path, dirs: &[&str]) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for dir in dirs {
        let Ok(entries) = fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries {
            let entry = entry.expect("readable directory entry");
            let path = entry.path();
            if path.is_file() {
                let name = format!("{dir}/{}", entry.file_name().to_string_lossy());
                files.insert(name, fs::read(&path).expect("readable output file"));
            }
        }
    }
    files
}

/// Rebuild `<repo>/<name>` with its build.sh into a temporary directory and
/// compare its `dirs` with the checked-in ones; None where a tool is missing.
/// Returns the number of files the fresh build made.
fn check_fresh_build(name: &str, tools: &[&str], dirs: &[&str]) -> Option<usize> {
    if let Some(missing) = tools.iter().find(|tool| !tool_present(tool)) {
        eprintln!("skipped: {missing} not installed");
        return None;
    }
    let src = repo_dir(name);
    let out = std::env::temp_dir().join(format!(
        "aqueduct-{}-{}",
        name.replace('/', "-"),
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&out);
    let status = Command::new("bash")
        .arg(src.join("build.sh"))
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("run {name}/build.sh: {e}"));
    let fresh = outputs(&out, dirs);
    let _ = fs::remove_dir_all(&out);
    assert!(status.success(), "{name}/build.sh failed: {status}");
    let checked_in = outputs(&src, dirs);

    assert_eq!(
        fresh.keys().collect::<Vec<_>>(),
        checked_in.keys().collect::<Vec<_>>(),
        "{name}/ holds a different set of outputs than build.sh makes; rerun {name}/build.sh"
    );
    let stale: Vec<&String> = fresh
        .iter()
        .filter(|(file, bytes)| checked_in.get(*file) != Some(*bytes))
        .map(|(file, _)| file)
        .collect();
    assert!(
        stale.is_empty(),
        "stale checked-in {name} outputs (rerun {name}/build.sh and commit): {stale:?}"
    );
    Some(fresh.len())
}

#[test]
fn checked_in_kernels_match_a_fresh_build() {
    let tools = [
        "clang-19",
        "ld.lld-19",
        "clang-offload-bundler-19",
        "python3",
    ];
    let dirs = ["gfx1100", "gfx942", "gfx90a", "bundles"];
    if let Some(made) = check_fresh_build("kernels", &tools, &dirs) {
        assert!(made >= 3 * 12 + 3, "build produced only {made} files");
    }
}

#[test]
fn checked_in_corpus_matches_a_fresh_build() {
    let tools = ["clang-19", "ld.lld-19", "llvm-mc-19"];
    if let Some(made) = check_fresh_build("corpus", &tools, &["gfx1100", "gfx942", "gfx90a"]) {
        assert!(made >= 60, "build produced only {made} code objects");
    }
}

#[test]
fn checked_in_facade_test_kernels_match_a_fresh_build() {
    let tools = ["clang-19", "ld.lld-19"];
    let dirs = ["gfx1100", "gfx942", "gfx90a"];
    if let Some(made) = check_fresh_build("tests/kernels", &tools, &dirs) {
        assert!(made >= 12, "build produced only {made} code objects");
    }
}

#[test]
fn checked_in_facade_blit_kernels_match_a_fresh_build() {
    let tools = ["clang-19", "ld.lld-19"];
    let dirs = ["gfx1100", "gfx942", "gfx90a"];
    if let Some(made) = check_fresh_build("src/blit_kernels", &tools, &dirs) {
        assert_eq!(made, 3, "one blit.co per target");
    }
}
