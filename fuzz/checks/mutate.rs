//! Deterministic mutations for replaying fuzz checks in `cargo test`.
//!
//! libFuzzer explores for minutes on a developer's machine (fuzz/README.md);
//! the replay tests run every checked-in seed through the same checks and
//! then a fixed number of mutants of them, so each CI run probes inputs no
//! seed covers within a few seconds, and a failure names the seed and
//! mutant index that reproduce it. The operators are the usual byte-level
//! ones: bit flips, interesting values, deleted, duplicated and spliced
//! ranges, truncation.

use aqueduct_test_support::Rng;

/// Values that sit at boundaries of lengths, counts and offsets.
const INTERESTING: [u32; 10] = [
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
];

/// Mutant `index` of `seed` (with `other` as a splice partner): the same
/// arguments always give the same bytes.
pub fn mutant(seed: &[u8], other: &[u8], index: u64) -> Vec<u8> {
    let mut rng = Rng::new(0x6d75_7461_6e74 ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut data = seed.to_vec();
    let steps = 1 + rng.index(4);
    for _ in 0..steps {
        if data.is_empty() {
            let n = 1 + rng.index(16);
            data.extend_from_slice(&rng.bytes(n));
            continue;
        }
        let at = rng.index(data.len());
        match rng.index(7) {
            0 => data[at] ^= 1 << rng.index(8),
            1 => data[at] = INTERESTING[rng.index(INTERESTING.len())] as u8,
            2 => {
                let value = INTERESTING[rng.index(INTERESTING.len())].to_le_bytes();
                let end = (at + 4).min(data.len());
                data[at..end].copy_from_slice(&value[..end - at]);
            }
            3 => {
                let end = (at + 1 + rng.index(64)).min(data.len());
                data.drain(at..end);
            }
            4 => {
                let end = (at + 1 + rng.index(64)).min(data.len());
                let copy = data[at..end].to_vec();
                let to = rng.index(data.len() + 1);
                data.splice(to..to, copy);
            }
            5 => data.truncate(at),
            _ => {
                if !other.is_empty() {
                    let from = rng.index(other.len());
                    let end = (from + 1 + rng.index(256)).min(other.len());
                    let to = rng.index(data.len() + 1);
                    data.splice(to..to, other[from..end].iter().copied());
                }
            }
        }
    }
    data
}

/// Run `check` on every seed, then on `mutants` mutants spread over the
/// seeds; a panic names the input that caused it.
pub fn replay(target: &str, seeds: &[(String, Vec<u8>)], mutants: u64, check: fn(&[u8])) {
    assert!(!seeds.is_empty(), "{target}: no seeds");
    for (name, bytes) in seeds {
        run_one(target, name, bytes, check);
    }
    for index in 0..mutants {
        let (name, seed) = &seeds[(index as usize) % seeds.len()];
        let other = &seeds[(index as usize * 7 + 3) % seeds.len()].1;
        let bytes = mutant(seed, other, index);
        run_one(target, &format!("mutant {index} of {name}"), &bytes, check);
    }
}

fn run_one(target: &str, input: &str, bytes: &[u8], check: fn(&[u8])) {
    if let Err(panic) = std::panic::catch_unwind(|| check(bytes)) {
        let why = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        panic!(
            "{target}: {input} ({} bytes) fails its checks: {why}",
            bytes.len()
        );
    }
}

/// Every file under `dirs` (relative to the repository root) whose name
/// ends with one of `suffixes`, sorted by path, as (path, bytes).
pub fn files(root: &std::path::Path, dirs: &[&str], suffixes: &[&str]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut pending: Vec<std::path::PathBuf> = dirs.iter().map(|d| root.join(d)).collect();
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Some(name) = path.to_str()
                && suffixes.iter().any(|s| name.ends_with(s))
            {
                let bytes = std::fs::read(&path).expect("a seed file reads");
                let relative = path.strip_prefix(root).unwrap_or(&path);
                out.push((relative.display().to_string(), bytes));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}
