//! The persistent on-disk cache of WGSL compiled at run time: code objects
//! and their reflection JSON, content-addressed, shared by every process
//! of the user.
//!
//! # Location
//! `AQUEDUCT_SHADER_CACHE` names the directory (`0` or `off` disables the
//! cache); unset or empty, it is `$XDG_CACHE_HOME/aqueduct/shaders`, else
//! `$HOME/.cache/aqueduct/shaders`. When no directory can be made the
//! compile runs uncached and one warning is logged: the cache never fails a
//! compile, its errors ([`DiskCacheError`]) are only logged.
//!
//! # Key
//! SHA-256 over, each length-prefixed: the entry format version, the WGSL
//! text, the entry point compiled (or none: all of them), the override
//! constants (sorted by name, values bit-exact), the gfx target,
//! `aqueduct_shaderc::COMPILER_ID` (crate version and source digest) and
//! the LLVM tools' identity (`Toolchain::identity`: path, size, mtime; with
//! libLLVM-19's when it compiles in process, whose files differ from
//! ld.lld's outside the loaded segments).
//! The file is `<dir>/<hex key>.shader`.
//!
//! # Entry format
//! A 92-byte header: magic `AQDSHC\r\n`, format version (u32 LE), the key
//! (32 bytes), the code object's and the reflection's lengths (u64 LE
//! each) and the SHA-256 of code then reflection; then the code object and
//! the reflection (UTF-8). A file whose magic, version, key, lengths or
//! checksum disagree is deleted and the shader recompiled.
//!
//! # Shared objects
//! Modules compiled together (`crate::wgsl`'s batches) share one code
//! object. It is stored once, as an entry with an empty reflection under
//! `DiskKey::of_object` (SHA-256 of its bytes); each module's entry then
//! holds, in place of a code object, the 8-byte marker `AQDSHREF` and that
//! key (a code object starts with `\x7fELF` or an offload bundle's magic,
//! never with the marker), and its own reflection. A module entry whose
//! shared object is gone is a miss.
//!
//! # Concurrency
//! An entry is written to a temporary file in the same directory and
//! renamed into place (atomic on POSIX): readers see a whole entry or none,
//! and processes compiling the same key at once each write a complete file,
//! the last rename winning (the compiler's output is deterministic, so the
//! entries are the same).
//!
//! # Size bound
//! `AQUEDUCT_SHADER_CACHE_MAX_MB` (default 256) bounds the directory. A
//! process sweeps it on its first store and again each time it has written
//! an eighth of the bound: past the bound, the least recently used entries
//! (by modification time, which a hit refreshes) are deleted down to three
//! quarters of it. Temporary files an hour old (left by a process that
//! died mid-write) go too.

use std::ffi::OsString;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

/// The environment variable naming the shader cache directory (`0` or
/// `off`: no cache).
pub const SHADER_CACHE_ENV: &str = "AQUEDUCT_SHADER_CACHE";

/// The environment variable bounding the shader cache directory, in MiB.
pub const SHADER_CACHE_MAX_MB_ENV: &str = "AQUEDUCT_SHADER_CACHE_MAX_MB";

/// The bound when `AQUEDUCT_SHADER_CACHE_MAX_MB` is unset.
pub const DEFAULT_MAX_MB: u64 = 256;

/// Bumped whenever the key derivation or the entry layout changes.
const FORMAT_VERSION: u32 = 1;
const MAGIC: &[u8; 8] = b"AQDSHC\r\n";
const HEADER_LEN: usize = 8 + 4 + 32 + 8 + 8 + 32;
const ENTRY_EXTENSION: &str = "shader";
const TEMP_PREFIX: &str = ".tmp-";
/// Temporary files older than this belong to a process that died.
const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);

/// Why the cache could not do something: logged, never a compile's error.
#[derive(Clone, Debug, thiserror::Error)]
pub enum DiskCacheError {
    /// Neither the variable nor XDG_CACHE_HOME nor HOME names a directory.
    #[error(
        "no shader cache location: set {SHADER_CACHE_ENV}, XDG_CACHE_HOME or HOME (or {SHADER_CACHE_ENV}=off)"
    )]
    NoLocation,
    /// The directory cannot be created.
    #[error("cannot create the shader cache directory {}: {source}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: Arc<std::io::Error>,
    },
    /// An entry exists but cannot be read.
    #[error("cannot read the shader cache entry {}: {source}", path.display())]
    Read {
        /// The entry file.
        path: PathBuf,
        /// Why.
        source: Arc<std::io::Error>,
    },
    /// An entry cannot be written or renamed into place.
    #[error("cannot write the shader cache entry {}: {source}", path.display())]
    Write {
        /// The entry file.
        path: PathBuf,
        /// Why.
        source: Arc<std::io::Error>,
    },
    /// An entry does not decode (it is deleted).
    #[error("the shader cache entry {} is damaged ({why}); it is deleted", path.display())]
    Corrupt {
        /// The entry file.
        path: PathBuf,
        /// What is wrong.
        why: CorruptEntry,
    },
}

/// What is wrong with a damaged entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CorruptEntry {
    /// Shorter than the header.
    #[error("{len} bytes, shorter than the {HEADER_LEN}-byte header")]
    ShortHeader {
        /// The file's length.
        len: usize,
    },
    /// Not an entry file.
    #[error("no entry magic")]
    BadMagic,
    /// Written by another entry format.
    #[error("format version {found}, expected {FORMAT_VERSION}")]
    Version {
        /// The file's format version.
        found: u32,
    },
    /// Holds another key than its name says.
    #[error("it holds another key")]
    OtherKey,
    /// Truncated or extended.
    #[error("{len} bytes where the header announces {expected}")]
    Length {
        /// The file's length.
        len: usize,
        /// The length its header announces.
        expected: u64,
    },
    /// The content does not match the header's checksum.
    #[error("checksum mismatch")]
    Checksum,
    /// The reflection is not text.
    #[error("the reflection is not UTF-8")]
    ReflectionNotUtf8,
}

/// A cache entry's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CachedObject {
    pub code: Vec<u8>,
    pub reflection: String,
}

/// What starts the code of an entry whose object is a shared one.
const SHARED_MARKER: &[u8; 8] = b"AQDSHREF";

impl CachedObject {
    /// An entry whose code object is the shared one stored under `object`.
    pub(crate) fn shared(object: &DiskKey, reflection: String) -> Self {
        let mut code = SHARED_MARKER.to_vec();
        code.extend_from_slice(&object.0);
        CachedObject { code, reflection }
    }

    /// The key of the shared object this entry's code object is, when it
    /// is one.
    pub(crate) fn shared_object(&self) -> Option<DiskKey> {
        let key = self.code.strip_prefix(SHARED_MARKER.as_slice())?;
        Some(DiskKey(key.try_into().ok()?))
    }
}

/// A cache key: SHA-256 of everything the compiled object depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DiskKey([u8; 32]);

/// What a compiled object depends on.
#[derive(Debug)]
pub(crate) struct KeyInputs<'a> {
    pub wgsl: &'a str,
    pub entry: Option<&'a str>,
    /// (name, value bits), sorted by name (`VariantKey::constants`).
    pub constants: &'a [(String, u64)],
    pub target: &'a str,
    /// `aqueduct_shaderc::COMPILER_ID` and the optimisation level.
    pub compiler: &'a str,
    /// `Toolchain::identity`.
    pub toolchain: &'a str,
}

impl DiskKey {
    pub(crate) fn new(inputs: &KeyInputs<'_>) -> Self {
        let mut h = Sha256::new();
        let mut field = |bytes: &[u8]| {
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field(&FORMAT_VERSION.to_le_bytes());
        field(inputs.wgsl.as_bytes());
        match inputs.entry {
            Some(name) => {
                field(b"entry");
                field(name.as_bytes());
            }
            None => field(b"all entry points"),
        }
        field(&(inputs.constants.len() as u64).to_le_bytes());
        for (name, bits) in inputs.constants {
            field(name.as_bytes());
            field(&bits.to_le_bytes());
        }
        field(inputs.target.as_bytes());
        field(inputs.compiler.as_bytes());
        field(inputs.toolchain.as_bytes());
        DiskKey(h.finalize().into())
    }

    /// The key a shared code object is stored under: SHA-256 of the entry
    /// format version and its bytes.
    pub(crate) fn of_object(code: &[u8]) -> Self {
        let mut h = Sha256::new();
        h.update(b"shared object");
        h.update(FORMAT_VERSION.to_le_bytes());
        h.update(code);
        DiskKey(h.finalize().into())
    }

    /// The key's bytes (what tells shared objects apart in memory).
    pub(crate) fn bytes(&self) -> [u8; 32] {
        self.0
    }

    fn hex(&self) -> String {
        use std::fmt::Write;
        let mut hex = String::with_capacity(64);
        for b in self.0 {
            // Writing to a String cannot fail.
            let _ = write!(hex, "{b:02x}");
        }
        hex
    }
}

/// Where the cache lives, from the values of `AQUEDUCT_SHADER_CACHE`,
/// `XDG_CACHE_HOME` and `HOME`: None when disabled.
fn location_from(
    setting: Option<OsString>,
    xdg_cache_home: Option<OsString>,
    home: Option<OsString>,
) -> Result<Option<PathBuf>, DiskCacheError> {
    if let Some(setting) = setting.filter(|s| !s.is_empty()) {
        let off = setting
            .to_str()
            .is_some_and(|s| s == "0" || s.eq_ignore_ascii_case("off"));
        return Ok((!off).then(|| PathBuf::from(setting)));
    }
    // The XDG base directory specification ignores relative paths.
    if let Some(xdg) = xdg_cache_home
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        return Ok(Some(xdg.join("aqueduct/shaders")));
    }
    match home.filter(|h| !h.is_empty()) {
        Some(home) => Ok(Some(PathBuf::from(home).join(".cache/aqueduct/shaders"))),
        None => Err(DiskCacheError::NoLocation),
    }
}

/// The shader cache directory the environment asks for: None when the
/// cache is disabled.
pub fn location() -> Result<Option<PathBuf>, DiskCacheError> {
    location_from(
        std::env::var_os(SHADER_CACHE_ENV),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    )
}

/// Bytes this process has stored since its last sweep; `u64::MAX` until
/// the first one, so the first store sweeps.
static WRITTEN_SINCE_SWEEP: AtomicU64 = AtomicU64::new(u64::MAX);
/// A location failure is logged once per process.
static WARNED_UNAVAILABLE: AtomicBool = AtomicBool::new(false);
/// Names temporary files apart within a process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// An open cache directory.
#[derive(Clone, Debug)]
pub(crate) struct DiskCache {
    dir: PathBuf,
    max_bytes: u64,
}

impl DiskCache {
    /// The cache the environment asks for, its directory created; None when
    /// it is disabled or cannot be made (logged once per process).
    pub(crate) fn from_env() -> Option<DiskCache> {
        let dir = match location() {
            Ok(Some(dir)) => dir,
            Ok(None) => return None,
            Err(e) => {
                warn_unavailable(&e);
                return None;
            }
        };
        let max_mb = match std::env::var(SHADER_CACHE_MAX_MB_ENV) {
            Ok(text) => text.trim().parse().unwrap_or_else(|_| {
                tracing::warn!(
                    "{SHADER_CACHE_MAX_MB_ENV}={text:?} is not a number of MiB; using {DEFAULT_MAX_MB}"
                );
                DEFAULT_MAX_MB
            }),
            Err(_) => DEFAULT_MAX_MB,
        };
        match DiskCache::open(dir, max_mb.saturating_mul(1 << 20)) {
            Ok(cache) => Some(cache),
            Err(e) => {
                warn_unavailable(&e);
                None
            }
        }
    }

    /// The cache in `dir` (created if missing), bounded to `max_bytes`.
    pub(crate) fn open(dir: PathBuf, max_bytes: u64) -> Result<DiskCache, DiskCacheError> {
        std::fs::create_dir_all(&dir).map_err(|e| DiskCacheError::CreateDir {
            path: dir.clone(),
            source: Arc::new(e),
        })?;
        Ok(DiskCache { dir, max_bytes })
    }

    fn path(&self, key: &DiskKey) -> PathBuf {
        self.dir.join(format!("{}.{ENTRY_EXTENSION}", key.hex()))
    }

    /// The entry under `key`, if there is a sound one. A damaged entry is
    /// deleted (and logged); a hit refreshes the entry's modification time,
    /// which eviction goes by.
    pub(crate) fn load(&self, key: &DiskKey) -> Option<CachedObject> {
        let path = self.path(key);
        let mut bytes = Vec::new();
        let opened = std::fs::File::open(&path).and_then(|mut file| {
            file.read_to_end(&mut bytes)?;
            Ok(file)
        });
        let file = match opened {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                let e = DiskCacheError::Read {
                    path,
                    source: Arc::new(e),
                };
                tracing::warn!("{e}");
                return None;
            }
        };
        match decode(&bytes, key) {
            Ok(object) => {
                // Only eviction order depends on it: a failure is harmless.
                let _ = file.set_modified(SystemTime::now());
                Some(object)
            }
            Err(why) => {
                tracing::warn!(
                    "{}",
                    DiskCacheError::Corrupt {
                        path: path.clone(),
                        why
                    }
                );
                self.remove(key);
                None
            }
        }
    }

    /// Delete the entry under `key` (one that decodes but does not load).
    pub(crate) fn remove(&self, key: &DiskKey) {
        // Another process may have deleted or replaced it: either is fine.
        let _ = std::fs::remove_file(self.path(key));
    }

    /// Store an entry under `key`; failures are logged.
    pub(crate) fn store(&self, key: &DiskKey, object: &CachedObject) {
        let bytes = encode(key, object);
        let path = self.path(key);
        let temp = self.dir.join(format!(
            "{TEMP_PREFIX}{}-{}-{}",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed),
            key.hex()
        ));
        let written = std::fs::write(&temp, &bytes).and_then(|()| std::fs::rename(&temp, &path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            let e = DiskCacheError::Write {
                path,
                source: Arc::new(e),
            };
            tracing::warn!("{e}");
            return;
        }
        tracing::debug!(path = %path.display(), bytes = bytes.len(), "shader cache entry stored");
        let len = bytes.len() as u64;
        let before = WRITTEN_SINCE_SWEEP
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| {
                Some(w.saturating_add(len))
            })
            .unwrap_or(0);
        if before.saturating_add(len) >= (self.max_bytes / 8).max(1) {
            WRITTEN_SINCE_SWEEP.store(0, Ordering::Relaxed);
            self.sweep();
        }
    }

    /// Delete stale temporary files and, past the bound, the least
    /// recently used entries down to three quarters of it.
    pub(crate) fn sweep(&self) {
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let now = SystemTime::now();
        let mut entries: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
        for item in dir.flatten() {
            let path = item.path();
            let Ok(meta) = item.metadata() else { continue };
            let modified = meta.modified().unwrap_or(now);
            let name = item.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(TEMP_PREFIX) {
                if now.duration_since(modified).unwrap_or_default() > STALE_TEMP_AGE {
                    let _ = std::fs::remove_file(&path);
                }
            } else if meta.is_file() && path.extension().is_some_and(|e| e == ENTRY_EXTENSION) {
                entries.push((modified, meta.len(), path));
            }
        }
        let mut total: u64 = entries.iter().map(|(_, len, _)| len).sum();
        if total <= self.max_bytes {
            return;
        }
        let goal = self.max_bytes / 4 * 3;
        entries.sort();
        let mut evicted = 0usize;
        for (_, len, path) in &entries {
            if total <= goal {
                break;
            }
            if std::fs::remove_file(path).is_ok() {
                evicted += 1;
            }
            total = total.saturating_sub(*len);
        }
        tracing::info!(
            dir = %self.dir.display(),
            evicted,
            bytes = total,
            "shader cache swept"
        );
    }
}

fn warn_unavailable(e: &dyn std::error::Error) {
    if !WARNED_UNAVAILABLE.swap(true, Ordering::Relaxed) {
        tracing::warn!("{e}; compiling WGSL without the shader cache");
    }
}

fn checksum(code: &[u8], reflection: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(code);
    h.update(reflection);
    h.finalize().into()
}

fn encode(key: &DiskKey, object: &CachedObject) -> Vec<u8> {
    let reflection = object.reflection.as_bytes();
    let mut out = Vec::with_capacity(HEADER_LEN + object.code.len() + reflection.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&key.0);
    out.extend_from_slice(&(object.code.len() as u64).to_le_bytes());
    out.extend_from_slice(&(reflection.len() as u64).to_le_bytes());
    out.extend_from_slice(&checksum(&object.code, reflection));
    out.extend_from_slice(&object.code);
    out.extend_from_slice(reflection);
    out
}

fn decode(bytes: &[u8], key: &DiskKey) -> Result<CachedObject, CorruptEntry> {
    if bytes.len() < HEADER_LEN {
        return Err(CorruptEntry::ShortHeader { len: bytes.len() });
    }
    let (header, body) = bytes.split_at(HEADER_LEN);
    let u64_at = |at: usize| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&header[at..at + 8]);
        u64::from_le_bytes(word)
    };
    if &header[..8] != MAGIC {
        return Err(CorruptEntry::BadMagic);
    }
    let mut version = [0u8; 4];
    version.copy_from_slice(&header[8..12]);
    let version = u32::from_le_bytes(version);
    if version != FORMAT_VERSION {
        return Err(CorruptEntry::Version { found: version });
    }
    if header[12..44] != key.0 {
        return Err(CorruptEntry::OtherKey);
    }
    let (code_len, reflection_len) = (u64_at(44), u64_at(52));
    let expected = code_len.saturating_add(reflection_len);
    if body.len() as u64 != expected {
        return Err(CorruptEntry::Length {
            len: bytes.len(),
            expected: expected.saturating_add(HEADER_LEN as u64),
        });
    }
    // body.len() == code_len + reflection_len, so both fit in usize.
    let (code, reflection) = body.split_at(code_len as usize);
    if header[60..92] != checksum(code, reflection) {
        return Err(CorruptEntry::Checksum);
    }
    let reflection =
        String::from_utf8(reflection.to_vec()).map_err(|_| CorruptEntry::ReflectionNotUtf8)?;
    Ok(CachedObject {
        code: code.to_vec(),
        reflection,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("aqueduct-disk-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn key(text: &str) -> DiskKey {
        DiskKey::new(&KeyInputs {
            wgsl: text,
            entry: None,
            constants: &[],
            target: "gfx1100",
            compiler: "test",
            toolchain: "test",
        })
    }

    fn object(seed: u8, len: usize) -> CachedObject {
        CachedObject {
            code: (0..len).map(|i| (i as u8).wrapping_mul(seed)).collect(),
            reflection: format!("{{\"seed\": {seed}}}"),
        }
    }

    #[test]
    fn location_follows_the_variable_then_xdg_then_home() {
        let s = |v: &str| Some(OsString::from(v));
        let at = |setting, xdg, home| location_from(setting, xdg, home).unwrap();
        assert_eq!(at(s("/c"), s("/x"), s("/h")), Some(PathBuf::from("/c")));
        for off in ["0", "off", "OFF"] {
            assert_eq!(at(s(off), s("/x"), s("/h")), None);
        }
        assert_eq!(
            at(s(""), s("/x"), s("/h")),
            Some(PathBuf::from("/x/aqueduct/shaders"))
        );
        assert_eq!(
            at(None, s("relative"), s("/h")),
            Some(PathBuf::from("/h/.cache/aqueduct/shaders"))
        );
        assert!(matches!(
            location_from(None, None, None),
            Err(DiskCacheError::NoLocation)
        ));
    }

    #[test]
    fn keys_cover_every_input() {
        let constants = [("A".to_string(), 1f64.to_bits())];
        let base = KeyInputs {
            wgsl: "w",
            entry: Some("main"),
            constants: &constants,
            target: "gfx1100",
            compiler: "c",
            toolchain: "t",
        };
        let other_constants = [("A".to_string(), (-1f64).to_bits())];
        let variants = [
            KeyInputs { wgsl: "w2", ..base },
            KeyInputs {
                entry: None,
                ..base
            },
            KeyInputs {
                entry: Some("other"),
                ..base
            },
            KeyInputs {
                constants: &[],
                ..base
            },
            KeyInputs {
                constants: &other_constants,
                ..base
            },
            KeyInputs {
                target: "gfx942",
                ..base
            },
            KeyInputs {
                compiler: "c2",
                ..base
            },
            KeyInputs {
                toolchain: "t2",
                ..base
            },
        ];
        let k = DiskKey::new(&base);
        assert_eq!(k, DiskKey::new(&KeyInputs { ..base }));
        for v in &variants {
            assert_ne!(k, DiskKey::new(v), "{v:?}");
        }
    }

    #[test]
    fn shared_object_references_round_trip() {
        let cache = DiskCache::open(temp_dir("shared"), 1 << 30).unwrap();
        let shared = object(5, 3000);
        let shared_key = DiskKey::of_object(&shared.code);
        assert_ne!(shared_key, DiskKey::of_object(&object(6, 3000).code));
        cache.store(&shared_key, &shared);
        let module = CachedObject::shared(&shared_key, "{\"m\": 1}".into());
        cache.store(&key("module"), &module);
        let loaded = cache.load(&key("module")).unwrap();
        assert_eq!(loaded.shared_object(), Some(shared_key));
        assert_eq!(loaded.reflection, "{\"m\": 1}");
        assert_eq!(cache.load(&shared_key), Some(shared.clone()));
        assert_eq!(
            shared.shared_object(),
            None,
            "a code object is not a reference"
        );
        let _ = std::fs::remove_dir_all(&cache.dir);
    }

    #[test]
    fn entries_round_trip_and_damage_is_detected_and_deleted() {
        let cache = DiskCache::open(temp_dir("damage"), 1 << 30).unwrap();
        let k = key("damage");
        let o = object(3, 1000);
        assert_eq!(cache.load(&k), None);
        cache.store(&k, &o);
        assert_eq!(cache.load(&k), Some(o.clone()));
        let good = std::fs::read(cache.path(&k)).unwrap();

        let mut flipped = good.clone();
        flipped[HEADER_LEN + 500] ^= 1;
        let mut other_key = good.clone();
        other_key[20] ^= 1;
        let mut bad_magic = good.clone();
        bad_magic[0] = b'X';
        let damaged: [(&[u8], CorruptEntry); 5] = [
            (&good[..40], CorruptEntry::ShortHeader { len: 40 }),
            (
                &good[..good.len() - 1],
                CorruptEntry::Length {
                    len: good.len() - 1,
                    expected: good.len() as u64,
                },
            ),
            (&flipped, CorruptEntry::Checksum),
            (&other_key, CorruptEntry::OtherKey),
            (&bad_magic, CorruptEntry::BadMagic),
        ];
        for (bytes, why) in damaged {
            assert_eq!(decode(bytes, &k), Err(why));
            std::fs::write(cache.path(&k), bytes).unwrap();
            assert_eq!(cache.load(&k), None, "{why}");
            assert!(!cache.path(&k).exists(), "{why}: not deleted");
        }
        let _ = std::fs::remove_dir_all(&cache.dir);
    }

    #[test]
    fn threads_storing_one_key_never_expose_a_partial_entry() {
        let cache = DiskCache::open(temp_dir("threads"), 1 << 30).unwrap();
        let k = key("threads");
        let o = object(7, 256 << 10);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..20 {
                        cache.store(&k, &o);
                        // Whole or absent, never damaged (a damaged one
                        // would be deleted and logged).
                        let seen = cache.load(&k);
                        assert!(seen.is_none() || seen.as_ref() == Some(&o));
                    }
                });
            }
        });
        assert_eq!(cache.load(&k), Some(o));
        let names: Vec<_> = std::fs::read_dir(&cache.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "temporary files left: {names:?}");
        let _ = std::fs::remove_dir_all(&cache.dir);
    }

    #[test]
    fn sweeping_evicts_least_recently_used_past_the_bound() {
        let cache = DiskCache::open(temp_dir("sweep"), 10_000).unwrap();
        let keys: Vec<DiskKey> = (0..6).map(|i| key(&format!("sweep {i}"))).collect();
        let base = SystemTime::now() - Duration::from_secs(600);
        for (i, k) in keys.iter().enumerate() {
            std::fs::write(cache.path(k), encode(k, &object(i as u8, 3000))).unwrap();
            let file = std::fs::File::options()
                .write(true)
                .open(cache.path(k))
                .unwrap();
            file.set_modified(base + Duration::from_secs(i as u64))
                .unwrap();
        }
        // A hit makes the oldest the most recently used.
        assert!(cache.load(&keys[0]).is_some());
        let stale = cache.dir.join(format!("{TEMP_PREFIX}1-2-x"));
        std::fs::write(&stale, b"partial").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(base - STALE_TEMP_AGE)
            .unwrap();

        cache.sweep();
        // 6 entries of ~3.1 kB against 10 kB: down to 7.5 kB, two survive.
        let kept: Vec<bool> = keys.iter().map(|k| cache.path(k).exists()).collect();
        assert_eq!(kept, [true, false, false, false, false, true]);
        assert!(!stale.exists());
        let _ = std::fs::remove_dir_all(&cache.dir);
    }
}
