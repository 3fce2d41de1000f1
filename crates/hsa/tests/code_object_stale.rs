//! Staleness check for the checked-in test kernels: where clang-19, ld.lld-19,
//! clang-offload-bundler-19 and python3 are installed, rebuild kernels/ with
//! kernels/build.sh into a temporary directory and require every output to be
//! byte-identical to the checked-in file (the build is deterministic). Where
//! the tools are absent the test says it skipped and passes, so `cargo test`
//! never needs LLVM.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const TOOLS: [&str; 4] = [
    "clang-19",
    "ld.lld-19",
    "clang-offload-bundler-19",
    "python3",
];
const OUTPUT_DIRS: [&str; 4] = ["gfx1100", "gfx942", "gfx90a", "bundles"];

fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels")
}

fn tool_present(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Relative path → bytes for every file in the build's output directories.
fn outputs(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for dir in OUTPUT_DIRS {
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

#[test]
fn checked_in_kernels_match_a_fresh_build() {
    if let Some(missing) = TOOLS.iter().find(|tool| !tool_present(tool)) {
        eprintln!("skipped: {missing} not installed");
        return;
    }
    let out = std::env::temp_dir().join(format!("aqueduct-kernels-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    let status = Command::new("bash")
        .arg(kernels_dir().join("build.sh"))
        .arg(&out)
        .status()
        .expect("run kernels/build.sh");
    assert!(status.success(), "kernels/build.sh failed: {status}");

    let fresh = outputs(&out);
    let checked_in = outputs(&kernels_dir());
    let _ = fs::remove_dir_all(&out);

    assert!(
        fresh.len() >= 3 * 12 + 3,
        "build produced only {} files",
        fresh.len()
    );
    let fresh_names: Vec<&String> = fresh.keys().collect();
    let checked_in_names: Vec<&String> = checked_in.keys().collect();
    assert_eq!(
        fresh_names, checked_in_names,
        "kernels/ holds a different set of outputs than build.sh makes; rerun kernels/build.sh"
    );
    let stale: Vec<&String> = fresh
        .iter()
        .filter(|(name, bytes)| checked_in.get(*name) != Some(*bytes))
        .map(|(name, _)| name)
        .collect();
    assert!(
        stale.is_empty(),
        "stale checked-in kernels (rerun kernels/build.sh and commit): {stale:?}"
    );
}
