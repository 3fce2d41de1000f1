//! IR text to code in this process: libLLVM-19 (aqueduct-llvm, opened at
//! run time as the WGSL compiler opens it) compiles a module to an object
//! for this CPU, with every feature it has (`-march=native`), and links it
//! into the process. Objects are kept in an on-disk cache so later
//! processes skip the compile; linking a cached object takes well under a
//! millisecond.
//!
//! The cache directory is `AQUEDUCT_SIM_JIT_CACHE` (`off` disables it),
//! else `$XDG_CACHE_HOME/aqueduct/jit`, else `$HOME/.cache/aqueduct/jit`.
//! An entry is `KEY.o` with `KEY.ll`, the IR it was built from; KEY hashes
//! the IR, the library (its file, size and modification time) and the
//! host target (triple, CPU, features). A hit needs the stored IR to equal
//! the wanted IR, so a hash collision costs a compile, never wrong code.
//! Entries are written under a name unique to the process and renamed
//! into place (the object first), so concurrent processes never see a
//! partial entry. The directory is bounded in size (`cache_bound.rs`).
//! The IR is written (as `KEY.PID.N.ll.tmp`) before the compile starts, so
//! a compile that fails or never ends leaves its module behind.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use aqueduct_llvm::{LinkedObject, Llvm, ObjectTarget};

use super::super::JIT_CACHE_ENV;
use super::LlvmError;
use super::cache_bound;

/// The optimisation level of every module: clang's `-O2`.
const OPT_LEVEL: u8 = 2;

/// The loaded library and what objects for this host depend on.
struct Host {
    llvm: Arc<Llvm>,
    target: ObjectTarget,
    /// The library's file, size and modification time, and the target.
    identity: String,
}

/// The host compiler, once (Err: libLLVM-19 is not usable here).
fn host() -> Result<&'static Host, &'static aqueduct_llvm::LlvmError> {
    static HOST: OnceLock<Result<Host, aqueduct_llvm::LlvmError>> = OnceLock::new();
    HOST.get_or_init(|| {
        let llvm = Llvm::get(None)?;
        let target = llvm.host_target(OPT_LEVEL)?;
        let file = std::fs::metadata(llvm.path())
            .map(|m| format!("{} {:?}", m.len(), m.modified().ok()))
            .unwrap_or_default();
        let identity = format!(
            "{} {file}\n{} {} {}",
            llvm.path().display(),
            target.triple,
            target.cpu,
            target.features
        );
        Ok(Host {
            llvm,
            target,
            identity,
        })
    })
    .as_ref()
}

/// Does libLLVM-19 load and compile for this host?
pub(crate) fn available() -> bool {
    host().is_ok()
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

/// A compiled module linked into the process, and its functions `names`.
pub(crate) type Linked = (LinkedObject, Vec<usize>);

fn link(host: &Host, object: &[u8], names: &[&str]) -> Result<Linked, LlvmError> {
    Ok(host.llvm.link_host_object(object, names)?)
}

fn compile_object(host: &Host, ir: &str) -> Result<Vec<u8>, LlvmError> {
    let t = Instant::now();
    let object = host.llvm.compile_object(ir, "block.ll", &host.target)?;
    tracing::debug!("compiled a block module in {:?}", t.elapsed());
    Ok(object)
}

/// Compile module `ir` and link it into the process, without the disk
/// cache, and find its functions `names`.
pub(crate) fn compile_uncached(ir: &str, names: &[&str]) -> Result<Linked, LlvmError> {
    let host = host().map_err(|e| LlvmError::Llvm(e.clone()))?;
    link(host, &compile_object(host, ir)?, names)
}

/// Compile module `ir`, through the disk cache when there is one, link it
/// into the process and find its functions `names`.
pub(crate) fn compile(ir: &str, names: &[&str]) -> Result<Linked, LlvmError> {
    let host = host().map_err(|e| LlvmError::Llvm(e.clone()))?;
    let key = format!("{:016x}", fnv(&[ir, &host.identity]));
    let Some(dir) = cache_dir() else {
        return compile_uncached(ir, names);
    };
    let (obj, ll) = (dir.join(format!("{key}.o")), dir.join(format!("{key}.ll")));
    if std::fs::read_to_string(&ll).is_ok_and(|stored| stored == ir)
        && let Ok(object) = std::fs::read(&obj)
    {
        match link(host, &object, names) {
            Ok(linked) => {
                cache_bound::touch(&obj);
                return Ok(linked);
            }
            // A damaged entry is replaced below.
            Err(e) => tracing::warn!("a cached translation does not link: {e}"),
        }
    }
    // The IR goes to disk before the compile, so a compile that fails or
    // never ends leaves the module behind to reproduce with `llc-19`.
    let tmp_ll = unique(dir, &key, "ll.tmp");
    let ir_written = std::fs::write(&tmp_ll, ir);
    let object = compile_object(host, ir)?;
    let tmp_obj = unique(dir, &key, "o.tmp");
    let stored = ir_written
        .and_then(|()| std::fs::write(&tmp_obj, &object))
        .and_then(|()| std::fs::rename(&tmp_obj, &obj))
        .and_then(|()| std::fs::rename(&tmp_ll, &ll));
    match stored {
        Ok(()) => {
            static MAX_BYTES: OnceLock<u64> = OnceLock::new();
            let bytes = object.len() as u64 + ir.len() as u64;
            cache_bound::stored(dir, bytes, *MAX_BYTES.get_or_init(cache_bound::max_bytes));
        }
        Err(e) => {
            // Uncached, but the compiled object still runs.
            tracing::warn!("cannot store a translation in {}: {e}", dir.display());
            let _ = std::fs::remove_file(&tmp_obj);
            let _ = std::fs::remove_file(&tmp_ll);
        }
    }
    link(host, &object, names)
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
