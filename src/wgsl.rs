//! Run-time WGSL: how `ShaderSource::Wgsl` becomes loaded kernels.
//!
//! Every resolution is keyed by `VariantKey`: the source's content hash
//! (hex SHA-256 of the text, the `source_hash` aqueduct-shaderc writes into
//! `NAME.reflect.json`), the device's gfx target and the override constants
//! (sorted by name, compared bit-exactly). Resolution tries, in order:
//! 1. the device's `ShaderCache`: objects registered with
//!    `Device::register_precompiled` (and the facade's own blit shaders)
//!    plus everything compiled earlier on this device; an object answers
//!    for the entry points its reflection lists;
//! 2. aqueduct-shaderc (cargo feature `wgsl`, on by default) compiling the
//!    text when clang-19 and ld.lld-19 are found (on PATH, or in the
//!    directory named by `AQUEDUCT_LLVM_BIN`); the result joins the cache.
//!    The persistent on-disk cache (`shader_disk_cache`, moved or disabled
//!    with `AQUEDUCT_SHADER_CACHE`) answers first when it holds the same
//!    compilation, and keeps what is compiled for later processes;
//! 3. otherwise an error that says how to precompile the shader.
//!
//! A module resolves its default variant (no constants) when it is
//! created, so WGSL errors surface there as in wgpu; a module whose
//! overrides lack defaults stays valid with its entry points pending, and
//! each pipeline resolves the variant for its entry point and constants.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use sha2::{Digest, Sha256};

use crate::device::DeviceShared;
use crate::error::{PrecompileHint, ShaderLoadError, WgslError};
use crate::lock_rank::{LockRank, Mutex, MutexGuard};
use crate::shader::{EntryPoint, LoadedPrecompiled, load_precompiled};

/// The environment variable naming the directory that holds clang-19 and
/// ld.lld-19 for run-time WGSL compilation (default: PATH).
pub const LLVM_BIN_ENV: &str = "AQUEDUCT_LLVM_BIN";

/// Hex SHA-256 of a WGSL source: the content hash precompiled objects are
/// matched by (the same value as `aqueduct_shaderc::source_hash`).
pub fn source_hash(source: &str) -> String {
    let digest = Sha256::digest(source.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
        hex.push(char::from_digit(u32::from(byte & 15), 16).unwrap_or('0'));
    }
    hex
}

/// A WGSL module's text and content hash.
#[derive(Debug)]
pub(crate) struct WgslSource {
    /// Read by the compiler (feature `wgsl`).
    #[cfg_attr(not(feature = "wgsl"), allow(dead_code))]
    pub text: String,
    pub hash: String,
    /// File name for diagnostics (the module's label, else `shader.wgsl`).
    pub file_name: String,
}

impl WgslSource {
    pub(crate) fn new(text: &str, label: Option<&str>) -> Self {
        WgslSource {
            text: text.to_string(),
            hash: source_hash(text),
            file_name: label.unwrap_or("shader.wgsl").to_string(),
        }
    }
}

/// What a compiled variant is found by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct VariantKey {
    pub source_hash: String,
    pub target: String,
    /// (name, value bits), sorted by name.
    pub constants: Vec<(String, u64)>,
}

impl VariantKey {
    pub(crate) fn new(
        source_hash: &str,
        target: &str,
        constants: &[(impl AsRef<str>, f64)],
    ) -> Self {
        let mut constants: Vec<(String, u64)> = constants
            .iter()
            .map(|(name, value)| (name.as_ref().to_string(), value.to_bits()))
            .collect();
        constants.sort();
        VariantKey {
            source_hash: source_hash.to_string(),
            target: target.to_string(),
            constants,
        }
    }
}

/// Loaded variants of WGSL sources on one device.
#[derive(Debug)]
pub(crate) struct ShaderCache {
    variants: Mutex<HashMap<VariantKey, Vec<Arc<[EntryPoint]>>>>,
    /// WGSL compilations run for this device (the cache's misses), those
    /// the on-disk cache answered included.
    pub compiles: AtomicU64,
    /// Compilations the on-disk cache answered.
    pub disk_hits: AtomicU64,
}

impl Default for ShaderCache {
    fn default() -> Self {
        ShaderCache {
            variants: Mutex::new(LockRank::ShaderCache, HashMap::new()),
            compiles: AtomicU64::new(0),
            disk_hits: AtomicU64::new(0),
        }
    }
}

impl ShaderCache {
    fn lock(&self) -> MutexGuard<'_, HashMap<VariantKey, Vec<Arc<[EntryPoint]>>>> {
        self.variants.lock_unpoisoned()
    }

    /// Add a loaded object's entry points under `key`.
    pub(crate) fn insert(&self, key: VariantKey, entry_points: Vec<EntryPoint>) {
        tracing::debug!(hash = %key.source_hash, target = %key.target, "shader variant cached");
        self.lock()
            .entry(key)
            .or_default()
            .push(entry_points.into());
    }

    /// Add a loaded object's entry points under its source hash for
    /// `target`; false (nothing added) when its reflection has no hash.
    pub(crate) fn insert_loaded(&self, target: &str, loaded: &LoadedPrecompiled) -> bool {
        let Some(hash) = &loaded.source_hash else {
            return false;
        };
        let key = VariantKey::new(hash, target, &loaded.constants);
        self.insert(key, loaded.entry_points.clone());
        true
    }

    /// Every entry point cached under `key` (first object wins per name).
    pub(crate) fn entry_points(&self, key: &VariantKey) -> Vec<EntryPoint> {
        let map = self.lock();
        let mut out: Vec<EntryPoint> = Vec::new();
        for object in map.get(key).into_iter().flatten() {
            for e in object.iter() {
                if !out.iter().any(|o| o.name == e.name) {
                    out.push(e.clone());
                }
            }
        }
        out
    }
}

/// Register an aqueduct-shaderc object (whose reflection carries its
/// `source_hash`) so WGSL modules with that source use it.
pub(crate) fn register(
    device: &DeviceShared,
    code: &[u8],
    reflection: &str,
) -> Result<(), ShaderLoadError> {
    let loaded = load_precompiled(&device.runtime, &device.agent, code, reflection)?;
    if device
        .shader_cache
        .insert_loaded(&device.agent.name, &loaded)
    {
        Ok(())
    } else {
        Err(ShaderLoadError::NoSourceHash)
    }
}

/// Resolve a new module's default variant (no override constants). An
/// empty list means the entry points wait for pipeline creation (the
/// shader has overrides without defaults).
pub(crate) fn resolve_module(
    device: &DeviceShared,
    source: &WgslSource,
) -> Result<Vec<EntryPoint>, ShaderLoadError> {
    let no_constants: &[(&str, f64)] = &[];
    match resolve(device, source, None, no_constants) {
        Ok(eps) => Ok(eps),
        Err(Unresolved::NeedsConstants(why)) => {
            tracing::debug!(file = %source.file_name, %why, "WGSL entry points wait for pipeline constants");
            Ok(Vec::new())
        }
        Err(Unresolved::Failed(e)) => Err(e),
    }
}

/// Resolve the variant of `entry` (None: every entry point) specialised
/// with `constants`; the entry points of the object found or compiled.
pub(crate) fn resolve_pipeline(
    device: &DeviceShared,
    source: &WgslSource,
    entry: Option<&str>,
    constants: &[(&str, f64)],
) -> Result<Vec<EntryPoint>, ShaderLoadError> {
    resolve(device, source, entry, constants).map_err(|e| match e {
        Unresolved::NeedsConstants(why) => why.into(),
        Unresolved::Failed(e) => e,
    })
}

enum Unresolved {
    /// Override constants without defaults need values (found by the
    /// compiler, feature `wgsl`).
    #[cfg_attr(not(feature = "wgsl"), allow(dead_code))]
    NeedsConstants(WgslError),
    Failed(ShaderLoadError),
}

fn resolve(
    device: &DeviceShared,
    source: &WgslSource,
    entry: Option<&str>,
    constants: &[(&str, f64)],
) -> Result<Vec<EntryPoint>, Unresolved> {
    let target = device.agent.name.as_str();
    let key = VariantKey::new(&source.hash, target, constants);
    let cached = device.shader_cache.entry_points(&key);
    let hit = match entry {
        Some(name) => cached.iter().any(|e| e.name == name),
        None => !cached.is_empty(),
    };
    if hit {
        tracing::debug!(file = %source.file_name, hash = %source.hash, "WGSL resolved from the shader cache");
        return Ok(cached);
    }
    let loaded = compile(device, source, entry, constants)?;
    let eps = loaded.entry_points.clone();
    device.shader_cache.insert(key, loaded.entry_points);
    Ok(eps)
}

/// How to precompile, for the error when nothing else resolves a module.
fn precompile_hint(
    source: &WgslSource,
    target: &str,
    constants: &[(&str, f64)],
) -> Box<PrecompileHint> {
    Box::new(PrecompileHint {
        file: source.file_name.clone(),
        target: target.to_string(),
        constants: constants.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        hash: source.hash.clone(),
    })
}

#[cfg(feature = "wgsl")]
fn compile(
    device: &DeviceShared,
    source: &WgslSource,
    entry: Option<&str>,
    constants: &[(&str, f64)],
) -> Result<LoadedPrecompiled, Unresolved> {
    use crate::shader_disk_cache::{CachedObject, DiskCache};
    use aqueduct_shaderc::CompileError;
    use std::sync::atomic::Ordering;

    let target = device.agent.name.as_str();
    let options = aqueduct_shaderc::Options {
        targets: vec![target.to_string()],
        entry: entry.map(str::to_string),
        defines: constants.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        file_name: source.file_name.clone(),
        llvm_bin: std::env::var_os(LLVM_BIN_ENV).map(std::path::PathBuf::from),
        ..Default::default()
    };
    let started = std::time::Instant::now();
    // The key first: without the LLVM tools there is no key, and the
    // cache directory is not even created.
    let disk = disk_key(source, entry, constants, target, &options)
        .and_then(|key| Some((DiskCache::from_env()?, key)));
    if let Some((cache, key)) = &disk
        && let Some(cached) = cache.load(key)
    {
        match load_precompiled(
            &device.runtime,
            &device.agent,
            &cached.code,
            &cached.reflection,
        ) {
            Ok(loaded) => {
                device.shader_cache.compiles.fetch_add(1, Ordering::Relaxed);
                device
                    .shader_cache
                    .disk_hits
                    .fetch_add(1, Ordering::Relaxed);
                tracing::debug!(
                    file = %source.file_name,
                    target,
                    us = started.elapsed().as_micros() as u64,
                    "WGSL loaded from the shader cache on disk"
                );
                return Ok(loaded);
            }
            // Sound bytes that do not load: compile again and replace them.
            Err(e) => {
                tracing::warn!(file = %source.file_name, "a shader cache entry does not load ({e}); recompiling");
                cache.remove(key);
            }
        }
    }
    let compiled =
        match aqueduct_shaderc::compile(aqueduct_shaderc::Source::Wgsl(&source.text), &options) {
            Ok(c) => c,
            Err(CompileError::Override { message }) => {
                return Err(Unresolved::NeedsConstants(WgslError::NeedsConstants {
                    message,
                }));
            }
            Err(e @ CompileError::ToolMissing { .. }) => {
                return Err(Unresolved::Failed(
                    WgslError::NotPrecompiled {
                        hint: precompile_hint(source, target, constants),
                        source: Arc::new(e),
                    }
                    .into(),
                ));
            }
            Err(e) => return Err(Unresolved::Failed(WgslError::Compile(Arc::new(e)).into())),
        };
    device.shader_cache.compiles.fetch_add(1, Ordering::Relaxed);
    tracing::info!(
        file = %source.file_name,
        target,
        ms = started.elapsed().as_millis() as u64,
        "compiled WGSL at run time"
    );
    let reflection = compiled
        .reflection
        .to_json()
        .map_err(|e| Unresolved::Failed(WgslError::ReflectionJson(Arc::new(e)).into()))?;
    let loaded = load_precompiled(
        &device.runtime,
        &device.agent,
        &compiled.code_object,
        &reflection,
    )
    .map_err(Unresolved::Failed)?;
    if let Some((cache, key)) = &disk {
        cache.store(
            key,
            &CachedObject {
                code: compiled.code_object,
                reflection,
            },
        );
    }
    Ok(loaded)
}

/// The on-disk cache key of a compilation; None when the LLVM tools are
/// missing (the compile then fails and says so).
#[cfg(feature = "wgsl")]
fn disk_key(
    source: &WgslSource,
    entry: Option<&str>,
    constants: &[(&str, f64)],
    target: &str,
    options: &aqueduct_shaderc::Options,
) -> Option<crate::shader_disk_cache::DiskKey> {
    use crate::shader_disk_cache::{DiskKey, KeyInputs};

    let tools = aqueduct_shaderc::Toolchain::find(options.llvm_bin.as_deref()).ok()?;
    let variant = VariantKey::new(&source.hash, target, constants);
    let compiler = format!("{} -O{}", aqueduct_shaderc::COMPILER_ID, options.opt_level);
    Some(DiskKey::new(&KeyInputs {
        wgsl: &source.text,
        entry,
        constants: &variant.constants,
        target,
        compiler: &compiler,
        toolchain: &tools.identity(),
    }))
}

#[cfg(not(feature = "wgsl"))]
fn compile(
    device: &DeviceShared,
    source: &WgslSource,
    _entry: Option<&str>,
    constants: &[(&str, f64)],
) -> Result<LoadedPrecompiled, Unresolved> {
    let target = device.agent.name.as_str();
    Err(Unresolved::Failed(
        WgslError::NoCompiler {
            hint: precompile_hint(source, target, constants),
        }
        .into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_hash_is_hex_sha256() {
        // SHA-256("abc") from FIPS 180-2, appendix B.1.
        assert_eq!(
            source_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn variant_keys_ignore_constant_order_but_not_values() {
        let a = VariantKey::new("h", "gfx1100", &[("b", 2.0), ("a", 1.0)]);
        let b = VariantKey::new("h", "gfx1100", &[("a", 1.0), ("b", 2.0)]);
        let c = VariantKey::new("h", "gfx1100", &[("a", 1.0), ("b", 3.0)]);
        let d = VariantKey::new("h", "gfx942", &[("a", 1.0), ("b", 2.0)]);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }
}
