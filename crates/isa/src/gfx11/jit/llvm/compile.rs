//! IR text to code in this process: libLLVM-19 (aqueduct-llvm, opened at
//! run time as the WGSL compiler opens it) compiles a module to an object
//! for this CPU, with every feature it has (`-march=native`), or for the
//! generic CPU of a lower x86-64 level (`../target.rs`), and links it
//! into the process. Objects are kept in an on-disk cache so later
//! processes skip the compile; linking a cached object takes well under a
//! millisecond.
//!
//! The compile runs in a child process (aqueduct-llvm `isolated.rs`) that
//! is killed past [`compile_limit`]: libLLVM-19's x86 code generator
//! loops for ever on some modules and aborts on others, and a block it
//! cannot compile must stay interpreted, not stop the simulator. Such a
//! module is kept as `KEY.failed.ll`; a later process finds it there and
//! leaves the block interpreted without trying again.
//!
//! The cache directory is `AQUEDUCT_SIM_JIT_CACHE` (`off` disables it),
//! else `$XDG_CACHE_HOME/aqueduct/jit`, else `$HOME/.cache/aqueduct/jit`.
//! An entry is one file, `KEY.o`; KEY is the SHA-256 (FIPS 180-4) of the
//! IR, the library (its file, size and modification time) and the host
//! target (triple, CPU, features), in hex. A strong hash of everything the
//! object depends on stands for the IR itself: two modules with one key
//! would be a SHA-256 collision. (Storing the IR beside each object to
//! compare would take five to ten times the object's bytes.) Entries are
//! written under a name unique to the process and renamed into place, so
//! concurrent processes never see a partial entry. The directory is
//! bounded in size (`cache_bound.rs`). The IR is written (as
//! `KEY.PID.N.ll.tmp`) before the compile starts, so a compile that fails
//! leaves its module behind, and one that LLVM loops or aborts on becomes
//! `KEY.failed.ll`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use aqueduct_llvm::{IsolatedError, LinkedObject, Llvm, ObjectTarget};

use super::super::JIT_CACHE_ENV;
use super::LlvmError;
use super::cache_bound;
use crate::gfx11::jit::target::JitTarget;

/// The optimisation level of every module: clang's `-O2`.
const OPT_LEVEL: u8 = 2;

/// How long the compile of an `ir_bytes` module may run: 2 s and 20 ms per
/// KiB. Modules compile in about 2 ms per KiB on a quiet host (12 KiB in
/// 20 ms, 44 KiB in 80 ms, 670 KiB in 1.4 s), so this is ten times that
/// and more; the modules libLLVM-19 loops on (56 to 290 KiB) are stopped
/// within 3 to 8 s.
fn compile_limit(ir_bytes: usize) -> Duration {
    Duration::from_secs(2) + Duration::from_millis(20) * (ir_bytes / 1024) as u32
}

/// The loaded library and what objects for this host depend on.
struct Host {
    llvm: Arc<Llvm>,
    target: ObjectTarget,
    /// The library's file, size and modification time, and the target.
    identity: String,
}

/// The compiler for `cpu`'s code, once per target (Err: libLLVM-19 is
/// not usable here).
fn host(cpu: JitTarget) -> Result<&'static Host, &'static aqueduct_llvm::LlvmError> {
    type Made = OnceLock<Result<Host, aqueduct_llvm::LlvmError>>;
    static HOSTS: [Made; JitTarget::ALL.len()] = [const { OnceLock::new() }; JitTarget::ALL.len()];
    HOSTS[cpu.slot()]
        .get_or_init(|| {
            let llvm = Llvm::get(None)?;
            let mut target = llvm.host_target(OPT_LEVEL)?;
            // A generic CPU brings its own features (the psABI level's).
            if let Some(generic) = cpu.cpu() {
                target.cpu = generic.to_owned();
                target.features = String::new();
            }
            if cpu.has_gathers() {
                target.features = with_fast_gathers(&target.features);
            }
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

/// `features` with LLVM's `fast-gather` tuning: where a CPU's tuning
/// lacks it (AMD's cores before Zen 4, Intel's before Skylake, the
/// generic x86-64-v3) LLVM expands each `llvm.masked.gather` lane by lane,
/// a test, a branch and an insert per lane (ScalarizeMaskedMemIntrin),
/// which the translations' DS and global accesses at scattered addresses
/// are made of: on an AVX-512 Xeon the compute benchmark's tiled matrix
/// product ran 2.7 times as long compiled for x86-64-v3 as for the host's
/// own CPU, and 1.5 times with the flag. AVX2's `vpgatherdd` does the
/// same work in one instruction per 8 lanes.
fn with_fast_gathers(features: &str) -> String {
    if features.is_empty() {
        "+fast-gather".to_owned()
    } else {
        format!("{features},+fast-gather")
    }
}

/// Does libLLVM-19 load and compile for this host?
pub(crate) fn available() -> bool {
    host(JitTarget::Host).is_ok()
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

/// The cache key of `parts`: the hex SHA-256 of each part followed by a
/// 0xFF byte (which no UTF-8 text holds, so the parts cannot run into each
/// other).
fn key_of(parts: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0xFF]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
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

/// [`link`], with the functions named `labels` in the perf map when it is
/// on (perf_map.rs).
fn link_named(
    host: &Host,
    object: &[u8],
    names: &[&str],
    labels: &[String],
) -> Result<Linked, LlvmError> {
    let linked = link(host, object, names)?;
    super::perf_map::record(object, names, &linked.1, labels);
    Ok(linked)
}

/// Compile `ir` in a child process, within `limit`; in this process where
/// the system makes no child (a sandbox without `fork`, say, or strict
/// overcommit refusing the copy).
fn compile_object(host: &Host, ir: &str, limit: Duration) -> Result<Vec<u8>, IsolatedError> {
    let t = Instant::now();
    let object = match host
        .llvm
        .compile_object_isolated(ir, "block.ll", &host.target, limit)
    {
        Err(IsolatedError::Os { call, errno }) => {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                tracing::warn!(
                    "translated blocks compile in this process, without a time limit: \
                     {call} failed (OS error {errno})"
                )
            });
            host.llvm.compile_object(ir, "block.ll", &host.target)?
        }
        result => result?,
    };
    tracing::debug!("compiled a block module in {:?}", t.elapsed());
    Ok(object)
}

/// Compile module `ir` in this process (no child, no time limit, no disk
/// cache), link it and find its functions `names`: for modules known to
/// compile (warm_up.rs).
pub(crate) fn compile_in_process(ir: &str, names: &[&str]) -> Result<Linked, LlvmError> {
    let host = host(JitTarget::Host).map_err(|e| LlvmError::Llvm(e.clone()))?;
    let object = host.llvm.compile_object(ir, "block.ll", &host.target)?;
    link(host, &object, names)
}

/// Compile module `ir` for this host's triple and processor `cpu` (its
/// own features) in a child, within the limit a module of its size gets:
/// for tests that code for other x86 hosts compiles.
#[cfg(test)]
pub(crate) fn compile_for_cpu(ir: &str, cpu: &str) -> Result<Vec<u8>, LlvmError> {
    let host = host(JitTarget::Host).map_err(|e| LlvmError::Llvm(e.clone()))?;
    let target = ObjectTarget {
        cpu: cpu.to_owned(),
        features: String::new(),
        ..host.target.clone()
    };
    Ok(host
        .llvm
        .compile_object_isolated(ir, "block.ll", &target, compile_limit(ir.len()))?)
}

/// Did libLLVM fail on the module itself (it loops or aborts on it), so
/// that compiling it again would fail again?
fn fails_for_good(e: &IsolatedError) -> bool {
    matches!(
        e,
        IsolatedError::TimedOut { .. } | IsolatedError::Crashed { .. }
    )
}

/// Compile module `ir` for `target`'s CPU, through the disk cache when
/// there is one, link it into the process and find its functions `names`
/// (called `labels` in the perf map: perf_map.rs).
pub(crate) fn compile(
    ir: &str,
    names: &[&str],
    labels: &[String],
    target: JitTarget,
) -> Result<Linked, LlvmError> {
    compile_in(
        cache_dir(),
        compile_limit(ir.len()),
        ir,
        names,
        labels,
        target,
    )
}

/// [`compile`] with the cache directory `dir` and the time limit `limit`.
fn compile_in(
    dir: Option<&Path>,
    limit: Duration,
    ir: &str,
    names: &[&str],
    labels: &[String],
    target: JitTarget,
) -> Result<Linked, LlvmError> {
    let host = host(target).map_err(|e| LlvmError::Llvm(e.clone()))?;
    let key = key_of(&[ir, &host.identity]);
    let Some(dir) = dir else {
        return link_named(host, &compile_object(host, ir, limit)?, names, labels);
    };
    let obj = dir.join(format!("{key}.o"));
    if let Ok(object) = std::fs::read(&obj) {
        match link_named(host, &object, names, labels) {
            Ok(linked) => {
                cache_bound::touch(&obj);
                return Ok(linked);
            }
            // A damaged entry is replaced below.
            Err(e) => tracing::warn!("a cached translation does not link: {e}"),
        }
    }
    let failed = dir.join(format!("{key}.failed.ll"));
    if failed.exists() {
        return Err(LlvmError::FailedBefore { module: failed });
    }
    // The IR goes to disk before the compile, so a compile that fails
    // leaves the module behind to reproduce with `llc-19`.
    let tmp_ll = unique(dir, &key, "ll.tmp");
    let ir_written = std::fs::write(&tmp_ll, ir);
    let object = match compile_object(host, ir, limit) {
        Ok(object) => object,
        Err(e) => {
            if fails_for_good(&e) && ir_written.is_ok() {
                // Kept for reproduction, and so no later process tries.
                let _ = std::fs::rename(&tmp_ll, &failed);
                tracing::warn!(
                    "libLLVM-19 fails on a translated block, kept as {}: {e}",
                    failed.display()
                );
            }
            return Err(e.into());
        }
    };
    let _ = std::fs::remove_file(&tmp_ll);
    let tmp_obj = unique(dir, &key, "o.tmp");
    let stored = std::fs::write(&tmp_obj, &object).and_then(|()| std::fs::rename(&tmp_obj, &obj));
    match stored {
        Ok(()) => {
            static MAX_BYTES: OnceLock<u64> = OnceLock::new();
            let bytes = object.len() as u64;
            cache_bound::stored(dir, bytes, *MAX_BYTES.get_or_init(cache_bound::max_bytes));
        }
        Err(e) => {
            // Uncached, but the compiled object still runs.
            tracing::warn!("cannot store a translation in {}: {e}", dir.display());
            let _ = std::fs::remove_file(&tmp_obj);
        }
    }
    link_named(host, &object, names, labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module libLLVM-19 ends its process on: an AMDGPU intrinsic has
    /// no x86 instruction ("Cannot select", `report_fatal_error`).
    const ABORTS: &str = "declare i32 @llvm.amdgcn.workitem.id.x()
define i32 @b0() {
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  ret i32 %x
}
";

    #[test]
    fn a_module_llvm_aborts_on_is_kept_and_not_compiled_again() {
        if !available() {
            eprintln!("skipped: libLLVM-19 does not load here");
            return;
        }
        let dir = std::env::temp_dir().join(format!("aqueduct-jit-failed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let limit = Duration::from_secs(60);
        let first = compile_in(Some(&dir), limit, ABORTS, &["b0"], &[], JitTarget::Host).err();
        assert!(
            matches!(
                &first,
                Some(LlvmError::Isolated(IsolatedError::Crashed { fatal: Some(f), .. }))
                    if f.contains("Cannot select")
            ),
            "{first:?}"
        );
        let kept: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            kept.len() == 1 && kept[0].ends_with(".failed.ll"),
            "{kept:?}"
        );
        assert_eq!(std::fs::read_to_string(dir.join(&kept[0])).unwrap(), ABORTS);
        // The second time, no compile: the kept module answers.
        let second = compile_in(Some(&dir), limit, ABORTS, &["b0"], &[], JitTarget::Host).err();
        assert!(
            matches!(&second, Some(LlvmError::FailedBefore { module }) if module.ends_with(&kept[0])),
            "{second:?}"
        );
        // A module that compiles still does, in the same directory, and is
        // kept as its object alone, named by the SHA-256 of the IR and host.
        let good = "define i32 @b0() {\n  ret i32 7\n}\n";
        let run = || {
            let (object, addresses) =
                compile_in(Some(&dir), limit, good, &["b0"], &[], JitTarget::Host).unwrap();
            // SAFETY: `b0` is `i32 ()` in the C convention; `object` keeps it.
            let b0 = unsafe { std::mem::transmute::<usize, extern "C" fn() -> i32>(addresses[0]) };
            (object, b0())
        };
        assert_eq!(run().1, 7);
        let key = key_of(&[good, &host(JitTarget::Host).unwrap().identity]);
        assert_eq!(key.len(), 64);
        let entry = dir.join(format!("{key}.o"));
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let mut want = vec![kept[0].clone(), format!("{key}.o")];
        want.sort();
        assert_eq!(names, want, "the failed module and the object, no IR");
        // A hit links the stored object; a damaged one is compiled again
        // and replaced.
        assert_eq!(run().1, 7);
        std::fs::write(&entry, b"not an object").unwrap();
        assert_eq!(run().1, 7);
        assert!(std::fs::read(&entry).unwrap().starts_with(b"\x7fELF"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn targets_with_avx2_compile_with_fast_gathers() {
        assert_eq!(with_fast_gathers(""), "+fast-gather");
        assert_eq!(with_fast_gathers("+avx2,+fma"), "+avx2,+fma,+fast-gather");
        use crate::WaveLoop;
        assert!(!JitTarget::Level(WaveLoop::Baseline).has_gathers());
        assert!(JitTarget::Level(WaveLoop::Avx2).has_gathers());
        if !available() {
            return;
        }
        for target in JitTarget::all_here() {
            let features = &host(target).unwrap().target.features;
            assert_eq!(
                features.contains("+fast-gather"),
                target.has_gathers(),
                "{target:?}: {features}"
            );
        }
    }

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
