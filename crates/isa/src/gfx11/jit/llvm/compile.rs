//! IR text to a loaded library: `clang-19` (found at run time, as the WGSL
//! compiler uses it) compiles a module to a shared object for the host CPU,
//! kept in an on-disk cache so later processes skip the compile.
//!
//! The cache directory is `AQUEDUCT_SIM_JIT_CACHE` (`off` disables it),
//! else `$XDG_CACHE_HOME/aqueduct/jit`, else `$HOME/.cache/aqueduct/jit`.
//! An entry is `KEY.so` with `KEY.ll`, the IR it was built from; KEY hashes
//! the IR, clang's version and the host CPU (`-march=native` resolves per
//! host). A hit needs the stored IR to equal the wanted IR, so a hash
//! collision costs a compile, never wrong code. Entries are written under
//! a name unique to the process and renamed into place (the .so first), so
//! concurrent processes never see a partial entry. The directory is
//! bounded in size (`cache_bound.rs`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::super::JIT_CACHE_ENV;
use super::LlvmError;
use super::cache_bound;
use super::load::Library;

/// The compiler run for every module.
pub(crate) const CLANG: &str = "clang-19";

/// What a compiled module depends on besides its IR.
struct Toolchain {
    version: String,
    cpu: String,
}

/// clang's version line and the host CPU's description, once (None: clang
/// does not run here).
fn toolchain() -> Option<&'static Toolchain> {
    static TOOLCHAIN: OnceLock<Option<Toolchain>> = OnceLock::new();
    TOOLCHAIN
        .get_or_init(|| {
            let out = Command::new(CLANG).arg("--version").output().ok()?;
            if !out.status.success() {
                return None;
            }
            let version = String::from_utf8_lossy(&out.stdout).into_owned();
            // The model and feature flags of the first CPU (what
            // -march=native reads, through CPUID).
            let cpu = std::fs::read_to_string("/proc/cpuinfo")
                .map(|s| {
                    s.lines()
                        .take_while(|l| !l.is_empty())
                        .filter(|l| l.starts_with("model name") || l.starts_with("flags"))
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_else(|_| "unknown".to_owned());
            Some(Toolchain { version, cpu })
        })
        .as_ref()
}

/// Does clang-19 run on this host?
pub(crate) fn available() -> bool {
    toolchain().is_some()
}

/// The cache directory from the values of `AQUEDUCT_SIM_JIT_CACHE`,
/// `XDG_CACHE_HOME` and `HOME` (None: no cache).
fn cache_dir_from(
    var: Option<String>,
    xdg: Option<String>,
    home: Option<String>,
) -> Option<PathBuf> {
    match var.as_deref().map(str::trim) {
        Some("off" | "0") => return None,
        Some(v) if !v.is_empty() => return Some(PathBuf::from(v)),
        _ => {}
    }
    // The XDG base directory specification ignores relative paths.
    if let Some(x) = xdg.filter(|x| Path::new(x).is_absolute()) {
        return Some(PathBuf::from(x).join("aqueduct/jit"));
    }
    home.filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".cache/aqueduct/jit"))
}

fn cache_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = cache_dir_from(
            std::env::var(JIT_CACHE_ENV).ok(),
            std::env::var("XDG_CACHE_HOME").ok(),
            std::env::var("HOME").ok(),
        )?;
        match std::fs::create_dir_all(&dir) {
            Ok(()) => Some(dir),
            Err(e) => {
                tracing::warn!("no translation cache at {}: {e}", dir.display());
                None
            }
        }
    })
    .as_deref()
}

/// FNV-1a, 64 bits, over `parts`.
fn fnv(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0xFF]) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01B3);
        }
    }
    h
}

/// A name no other compile of this process or another uses.
fn unique(dir: &Path, key: &str, ext: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("{key}.{}.{n}.{ext}", std::process::id()))
}

/// Run clang on `ir`, writing the shared object to `out`.
fn run_clang(ir: &str, out: &Path) -> Result<(), LlvmError> {
    let mut child = Command::new(CLANG)
        // IEEE arithmetic as written: no contraction into FMA (the default
        // for IR input too, made explicit), no fast-math, denormals kept.
        .args([
            "-x",
            "ir",
            "-",
            "-O2",
            "-march=native",
            "-ffp-contract=off",
            "-fPIC",
            "-shared",
            "-nostdlib",
            "-Wno-override-module",
            "-o",
        ])
        .arg(out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| LlvmError::Spawn(e.to_string()))?;
    let fed = child
        .stdin
        .take()
        .map(|mut s| s.write_all(ir.as_bytes()))
        .unwrap_or(Ok(()));
    let done = child
        .wait_with_output()
        .map_err(|e| LlvmError::Spawn(e.to_string()))?;
    if !done.status.success() {
        return Err(LlvmError::Compile(
            String::from_utf8_lossy(&done.stderr).into_owned(),
        ));
    }
    fed.map_err(|e| LlvmError::Spawn(e.to_string()))
}

/// Compile and load module `ir`, through the disk cache when there is one.
pub(crate) fn compile(ir: &str) -> Result<Library, LlvmError> {
    let tc = toolchain().ok_or(LlvmError::NoClang)?;
    let key = format!("{:016x}", fnv(&[ir, &tc.version, &tc.cpu]));
    let Some(dir) = cache_dir() else {
        let so = unique(&std::env::temp_dir(), &format!("aqueduct-jit-{key}"), "so");
        let t = Instant::now();
        let r = run_clang(ir, &so).and_then(|()| Library::open(&so));
        tracing::debug!("compiled a block module in {:?}", t.elapsed());
        // The loader keeps the mapping; the file is not needed any more.
        let _ = std::fs::remove_file(&so);
        return r;
    };
    let (so, ll) = (dir.join(format!("{key}.so")), dir.join(format!("{key}.ll")));
    if std::fs::read_to_string(&ll).is_ok_and(|stored| stored == ir)
        && let Ok(lib) = Library::open(&so)
    {
        cache_bound::touch(&so);
        return Ok(lib);
    }
    let t = Instant::now();
    let tmp_so = unique(dir, &key, "so.tmp");
    let built = run_clang(ir, &tmp_so);
    tracing::debug!("compiled a block module in {:?}", t.elapsed());
    if let Err(e) = built {
        let _ = std::fs::remove_file(&tmp_so);
        return Err(e);
    }
    let tmp_ll = unique(dir, &key, "ll.tmp");
    let stored = std::fs::write(&tmp_ll, ir)
        .and_then(|()| std::fs::rename(&tmp_so, &so))
        .and_then(|()| std::fs::rename(&tmp_ll, &ll));
    match stored {
        Ok(()) => {
            static MAX_BYTES: OnceLock<u64> = OnceLock::new();
            let bytes = std::fs::metadata(&so).map_or(0, |m| m.len()) + ir.len() as u64;
            cache_bound::stored(dir, bytes, *MAX_BYTES.get_or_init(cache_bound::max_bytes));
            Library::open(&so)
        }
        Err(e) => {
            // Uncached, but the compiled object still runs.
            tracing::warn!("cannot store a translation in {}: {e}", dir.display());
            let _ = std::fs::remove_file(&tmp_ll);
            let r = Library::open(&tmp_so);
            let _ = std::fs::remove_file(&tmp_so);
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::cache_dir_from;
    use std::path::PathBuf;

    #[test]
    fn the_cache_directory_follows_the_variables() {
        let s = |v: &str| Some(v.to_owned());
        assert_eq!(cache_dir_from(s("off"), s("/x"), s("/h")), None);
        assert_eq!(
            cache_dir_from(s("/c"), s("/x"), s("/h")),
            Some(PathBuf::from("/c"))
        );
        assert_eq!(
            cache_dir_from(None, s("/x"), s("/h")),
            Some(PathBuf::from("/x/aqueduct/jit"))
        );
        assert_eq!(
            cache_dir_from(s(""), s("rel"), s("/h")),
            Some(PathBuf::from("/h/.cache/aqueduct/jit"))
        );
        assert_eq!(cache_dir_from(None, None, None), None);
    }
}
