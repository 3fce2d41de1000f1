//! The size bound of the translation cache (compile.rs).
//!
//! `AQUEDUCT_SIM_JIT_CACHE_MAX_MB` (default 256) bounds the directory. A
//! process sweeps it on its first store and again each time it has stored
//! an eighth of the bound: past the bound, the least recently used entries
//! (by the modification time of their `.o`, which a hit refreshes) are
//! deleted down to three quarters of it (a `KEY.failed.ll`, a module LLVM
//! failed on, has no `.o` and goes first, as does a `KEY.ll` an earlier
//! version of the cache kept beside its object). Temporary files an hour
//! old, left by a process that died mid-write, go too. An entry deleted
//! while another process reads it costs that process a compile: a hit
//! needs the `.o` to open.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use super::super::JIT_CACHE_MAX_MB_ENV;

/// The bound when `AQUEDUCT_SIM_JIT_CACHE_MAX_MB` is unset.
pub(crate) const DEFAULT_MAX_MB: u64 = 256;

/// Temporary files older than this belong to a process that died.
const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);

/// Bytes this process stored since its last sweep (`u64::MAX`: none yet,
/// so the first store sweeps).
static STORED_SINCE_SWEEP: AtomicU64 = AtomicU64::new(u64::MAX);

/// The bound from the environment, in bytes.
pub(crate) fn max_bytes() -> u64 {
    let mb = match std::env::var(JIT_CACHE_MAX_MB_ENV) {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| {
            tracing::warn!(
                "{JIT_CACHE_MAX_MB_ENV}={text:?} is not a number of MiB; using {DEFAULT_MAX_MB}"
            );
            DEFAULT_MAX_MB
        }),
        Err(_) => DEFAULT_MAX_MB,
    };
    mb.saturating_mul(1 << 20)
}

/// A hit: mark the entry's `.o` as just used.
pub(crate) fn touch(object: &Path) {
    if let Ok(file) = std::fs::File::options().append(true).open(object) {
        let _ = file.set_modified(SystemTime::now());
    }
}

/// `bytes` were just stored in `dir`: sweep when they complete an eighth of
/// `max_bytes` since the last sweep (or this is the first store).
pub(crate) fn stored(dir: &Path, bytes: u64, max_bytes: u64) {
    let step = (max_bytes / 8).max(1);
    let before = STORED_SINCE_SWEEP
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| {
            Some(if w == u64::MAX {
                u64::MAX
            } else {
                w.saturating_add(bytes)
            })
        })
        .unwrap_or(0);
    if before == u64::MAX || before.saturating_add(bytes) >= step {
        STORED_SINCE_SWEEP.store(0, Ordering::Relaxed);
        sweep(dir, max_bytes);
    }
}

/// Delete stale temporary files and, past `max_bytes`, the least recently
/// used entries down to three quarters of it. Returns the entries deleted.
pub(crate) fn sweep(dir: &Path, max_bytes: u64) -> usize {
    let Ok(items) = std::fs::read_dir(dir) else {
        return 0;
    };
    let now = SystemTime::now();
    // Key -> (last use, bytes of both files, the files).
    let mut entries: HashMap<String, (SystemTime, u64, Vec<PathBuf>)> = HashMap::new();
    for item in items.flatten() {
        let path = item.path();
        let Ok(meta) = item.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let modified = meta.modified().unwrap_or(now);
        let name = item.file_name().to_string_lossy().into_owned();
        if name.ends_with(".tmp") {
            if now.duration_since(modified).unwrap_or_default() > STALE_TEMP_AGE {
                let _ = std::fs::remove_file(&path);
            }
            continue;
        }
        let Some((key, ext)) = name.rsplit_once('.') else {
            continue;
        };
        if ext != "o" && ext != "ll" {
            continue;
        }
        let e = entries
            .entry(key.to_string())
            .or_insert((SystemTime::UNIX_EPOCH, 0, Vec::new()));
        if ext == "o" {
            e.0 = modified;
        }
        e.1 += meta.len();
        e.2.push(path);
    }
    let mut total: u64 = entries.values().map(|e| e.1).sum();
    if total <= max_bytes {
        return 0;
    }
    let goal = max_bytes / 4 * 3;
    let mut order: Vec<_> = entries.into_values().collect();
    order.sort_by_key(|e| e.0);
    let mut evicted = 0;
    for (_, len, files) in order {
        if total <= goal {
            break;
        }
        for f in &files {
            let _ = std::fs::remove_file(f);
        }
        evicted += 1;
        total = total.saturating_sub(len);
    }
    tracing::info!(dir = %dir.display(), evicted, bytes = total, "translation cache swept");
    evicted
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory, removed on drop.
    struct Scratch(PathBuf);
    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A file of `bytes` bytes last modified `age_s` seconds ago.
    fn file(path: &Path, bytes: usize, age_s: u64) {
        std::fs::write(path, vec![0u8; bytes]).unwrap();
        let f = std::fs::File::options().append(true).open(path).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(age_s))
            .unwrap();
    }

    #[test]
    fn the_least_recently_used_entries_go_first() {
        let dir = std::env::temp_dir().join(format!("aqueduct-jit-bound-{}", std::process::id()));
        let _scratch = Scratch(dir.clone());
        std::fs::create_dir_all(&dir).unwrap();
        // Four entries of 1000 bytes, oldest first; "b" was used just now.
        // A module LLVM failed on ("z", no object) counts as least recently
        // used, used or not.
        for (i, key) in ["a", "b", "c", "d"].iter().enumerate() {
            file(&dir.join(format!("{key}.o")), 1000, 100 - i as u64 * 10);
        }
        file(&dir.join("z.failed.ll"), 100, 0);
        touch(&dir.join("b.o"));
        let stale = dir.join("e.1.2.o.tmp");
        std::fs::write(&stale, b"x").unwrap();
        std::fs::File::options()
            .append(true)
            .open(&stale)
            .unwrap()
            .set_modified(SystemTime::now() - 2 * STALE_TEMP_AGE)
            .unwrap();
        let fresh_temp = dir.join("f.1.3.o.tmp");
        std::fs::write(&fresh_temp, b"x").unwrap();

        // Under the bound: nothing but the stale temporary goes.
        assert_eq!(sweep(&dir, 4400), 0);
        assert!(!stale.exists() && fresh_temp.exists());
        // 4100 bytes over a bound of 3000: down to 2250, so "z", "a" and
        // "c" (the least recently used) go, "b" and "d" stay.
        assert_eq!(sweep(&dir, 3000), 3);
        let left = |k: &str| dir.join(format!("{k}.o")).exists();
        assert!(!left("a") && !left("c"), "the oldest entries go");
        assert!(!dir.join("z.failed.ll").exists());
        assert!(left("b") && left("d"));
    }
}
