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
//! created: from the device's cache or the on-disk cache, else translated
//! (naga parse, validation, limits, IR emission), so WGSL errors surface
//! there as in wgpu, and left waiting (`pending`): a worker thread compiles
//! waiting modules in batches, and the first pipeline that needs a module
//! waits for it and loads every compiled module. A module whose
//! overrides lack defaults stays valid with its entry points pending, and
//! each pipeline resolves the variant for its entry point and constants;
//! pipelines with constants compile their variant alone.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use sha2::{Digest, Sha256};

use crate::device::DeviceShared;
use crate::error::{PrecompileHint, ShaderLoadError, WgslError};
use crate::lock_rank::{LockRank, Mutex, MutexGuard};
use crate::shader::{EntryPoint, LoadedPrecompiled, load_precompiled};

#[cfg(feature = "wgsl")]
mod capabilities;
#[cfg(feature = "wgsl")]
mod pending;
#[cfg(feature = "wgsl")]
pub(crate) use pending::PendingModule;

/// A module waiting for the LLVM step; without a compiler (feature `wgsl`
/// off) nothing waits, so no value of this type exists.
#[cfg(not(feature = "wgsl"))]
#[derive(Debug)]
pub(crate) enum PendingModule {}

#[cfg(not(feature = "wgsl"))]
impl PendingModule {
    pub(crate) fn entry_names(&self) -> Vec<String> {
        match *self {}
    }
}

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
    /// Compilations the baseline compiler did (no LLVM).
    pub baseline_compiles: AtomicU64,
    /// Modules translated at creation, waiting for a batch compile.
    #[cfg(feature = "wgsl")]
    pending: Arc<pending::PendingSet>,
    /// Code objects several modules share, loaded once per device: by
    /// their on-disk key (`DiskKey::of_object`).
    #[cfg(feature = "wgsl")]
    shared_objects: Mutex<HashMap<[u8; 32], std::sync::Weak<aqueduct_hsa::Executable>>>,
}

impl Default for ShaderCache {
    fn default() -> Self {
        ShaderCache {
            variants: Mutex::new(LockRank::ShaderCache, HashMap::new()),
            compiles: AtomicU64::new(0),
            disk_hits: AtomicU64::new(0),
            baseline_compiles: AtomicU64::new(0),
            #[cfg(feature = "wgsl")]
            pending: Arc::default(),
            #[cfg(feature = "wgsl")]
            shared_objects: Mutex::new(LockRank::ShaderCache, HashMap::new()),
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

/// What a new module resolved to: its entry points, or none yet because
/// it waits for a batch compile (`deferred`) or for pipeline constants.
pub(crate) struct ResolvedModule {
    pub entry_points: Vec<EntryPoint>,
    pub deferred: Option<PendingModule>,
}

/// Resolve a new module's default variant (no override constants): from
/// the device's cache or the on-disk cache, else translated (so the
/// shader's errors surface here) and left waiting for a batch compile.
/// No entry points and nothing deferred means the entry points wait for
/// pipeline creation (the shader has overrides without defaults).
pub(crate) fn resolve_module(
    device: &DeviceShared,
    source: &Arc<WgslSource>,
) -> Result<ResolvedModule, ShaderLoadError> {
    let no_constants: &[(&str, f64)] = &[];
    let key = VariantKey::new(&source.hash, &device.agent.name, no_constants);
    let cached = device.shader_cache.entry_points(&key);
    let resolved = if cached.is_empty() {
        load_or_defer(device, source, &key)
    } else {
        tracing::debug!(file = %source.file_name, hash = %source.hash, "WGSL resolved from the shader cache");
        Ok(ResolvedModule {
            entry_points: cached,
            deferred: None,
        })
    };
    match resolved {
        Ok(r) => Ok(r),
        Err(Unresolved::NeedsConstants(why)) => {
            tracing::debug!(file = %source.file_name, %why, "WGSL entry points wait for pipeline constants");
            Ok(ResolvedModule {
                entry_points: Vec::new(),
                deferred: None,
            })
        }
        Err(Unresolved::Failed(e)) => Err(e),
    }
}

/// The on-disk cache's object for a new module, else its translation left
/// waiting in the device's pending set.
#[cfg(feature = "wgsl")]
fn load_or_defer(
    device: &DeviceShared,
    source: &Arc<WgslSource>,
    key: &VariantKey,
) -> Result<ResolvedModule, Unresolved> {
    use crate::shader_disk_cache::DiskCache;
    use std::sync::atomic::Ordering;

    let target = device.agent.name.as_str();
    let no_constants: &[(&str, f64)] = &[];
    let id = device.next_id.fetch_add(1, Ordering::Relaxed);
    let options = aqueduct_shaderc::Options {
        symbol_prefix: format!("m{id}"),
        ..compile_options(device, source, None, no_constants)
    };
    let disk = disk_key(source, None, no_constants, target, &options);
    if let Some(k) = &disk
        && let Some(cache) = DiskCache::from_env()
        && let Some(loaded) = load_from_disk(device, &cache, k, source)
    {
        device
            .shader_cache
            .insert(key.clone(), loaded.entry_points.clone());
        return Ok(ResolvedModule {
            entry_points: loaded.entry_points,
            deferred: None,
        });
    }
    let options = aqueduct_shaderc::Options {
        baseline: baseline_enabled(),
        ..options
    };
    let translated =
        aqueduct_shaderc::translate(aqueduct_shaderc::Source::Wgsl(&source.text), &options)
            .map_err(|e| compile_failure(e, source, target, no_constants))?;
    if let Some(Ok(code)) = &translated.baseline {
        match load_baseline(device, code, &translated.reflection) {
            Ok(entry_points) => {
                device
                    .shader_cache
                    .insert(key.clone(), entry_points.clone());
                return Ok(ResolvedModule {
                    entry_points,
                    deferred: None,
                });
            }
            // Never expected (the object follows the LLVM path's ABI):
            // LLVM compiles the module instead.
            Err(e) => tracing::warn!(file = %source.file_name, "baseline object not loaded: {e}"),
        }
    }
    if let Err(e) = aqueduct_shaderc::Toolchain::find(options.llvm_bin.as_deref()) {
        return Err(compile_failure(e, source, target, no_constants));
    }
    tracing::debug!(file = %source.file_name, "WGSL translated; its compile waits for a pipeline");
    let pending = device.shader_cache.pending.add(
        id,
        source.clone(),
        translated,
        disk,
        batch_options(target),
    );
    Ok(ResolvedModule {
        entry_points: Vec::new(),
        deferred: Some(pending),
    })
}

/// The environment variable that turns the baseline compiler off (`0`,
/// `off` or `false`): every module then goes through LLVM.
pub const SHADER_BASELINE_ENV: &str = "AQUEDUCT_SHADER_BASELINE";

/// Whether new modules try the baseline compiler first (the default).
#[cfg(feature = "wgsl")]
fn baseline_enabled() -> bool {
    !matches!(
        std::env::var(SHADER_BASELINE_ENV).as_deref(),
        Ok("0" | "off" | "false")
    )
}

/// Load a baseline code object: its entry points, counted as a compile.
#[cfg(feature = "wgsl")]
fn load_baseline(
    device: &DeviceShared,
    code: &[u8],
    reflection: &aqueduct_shaderc::Reflection,
) -> Result<Vec<EntryPoint>, ShaderLoadError> {
    use std::sync::atomic::Ordering;
    let json = serde_json::to_string(reflection)
        .map_err(|e| crate::error::ReflectionError::Malformed(Arc::new(e)))?;
    let loaded = load_precompiled(&device.runtime, &device.agent, code, &json)?;
    let cache = &device.shader_cache;
    cache.compiles.fetch_add(1, Ordering::Relaxed);
    cache.baseline_compiles.fetch_add(1, Ordering::Relaxed);
    tracing::debug!(file = %reflection.source, "WGSL compiled by the baseline compiler");
    Ok(loaded.entry_points)
}

#[cfg(not(feature = "wgsl"))]
fn load_or_defer(
    device: &DeviceShared,
    source: &Arc<WgslSource>,
    _key: &VariantKey,
) -> Result<ResolvedModule, Unresolved> {
    let no_constants: &[(&str, f64)] = &[];
    compile(device, source, None, no_constants).map(|loaded| ResolvedModule {
        entry_points: loaded.entry_points,
        deferred: None,
    })
}

/// The entry points of a module waiting for the LLVM step: compiled with
/// every other waiting module in one batch, unless an earlier batch (or
/// another module with the same text) already did. Its error, when the
/// batch could not compile it.
#[cfg(feature = "wgsl")]
pub(crate) fn resolve_deferred(
    device: &DeviceShared,
    source: &WgslSource,
    module: &PendingModule,
) -> Result<Vec<EntryPoint>, ShaderLoadError> {
    let no_constants: &[(&str, f64)] = &[];
    let key = VariantKey::new(&source.hash, &device.agent.name, no_constants);
    let cache = &device.shader_cache;
    cache.pending.exclusive(|| {
        for attempt in 0..2 {
            let eps = cache.entry_points(&key);
            if !eps.is_empty() {
                return Ok(eps);
            }
            if let Some(e) = cache.pending.failure(module.id) {
                return Err(e);
            }
            if attempt == 0 {
                compile_pending(device);
            }
        }
        // Neither compiled nor failed (it left the set): compile it alone.
        resolve_pipeline(device, source, None, no_constants)
    })
}

#[cfg(not(feature = "wgsl"))]
pub(crate) fn resolve_deferred(
    _device: &DeviceShared,
    _source: &WgslSource,
    module: &PendingModule,
) -> Result<Vec<EntryPoint>, ShaderLoadError> {
    match *module {}
}

/// The options of a batch compile for `target`.
#[cfg(feature = "wgsl")]
fn batch_options(target: &str) -> aqueduct_shaderc::Options {
    aqueduct_shaderc::Options {
        targets: vec![target.to_string()],
        llvm_bin: std::env::var_os(LLVM_BIN_ENV).map(std::path::PathBuf::from),
        ..Default::default()
    }
}

/// Load what the worker compiled and compile, in one batch, every module
/// still waiting (the caller holds the batch lock): each module's entry
/// points join the device's cache and the on-disk cache, or its error
/// stays in the pending set. Each batch's object is loaded once.
#[cfg(feature = "wgsl")]
fn compile_pending(device: &DeviceShared) {
    use crate::shader::{load_executable, load_precompiled_in};
    use crate::shader_disk_cache::{CachedObject, DiskCache, DiskKey};
    use aqueduct_shaderc::BatchObject;
    use std::sync::atomic::Ordering;

    let cache = &device.shader_cache;
    let target = device.agent.name.as_str();
    let no_constants: &[(&str, f64)] = &[];
    let (mut ready, waiting) = cache.pending.take();
    if !waiting.is_empty() {
        let started = std::time::Instant::now();
        let compiled = pending::compile(&waiting, &batch_options(target));
        tracing::info!(
            target,
            modules = waiting.len(),
            ms = started.elapsed().as_millis() as u64,
            "compiled a batch of WGSL modules at run time"
        );
        ready.extend(
            waiting
                .into_iter()
                .zip(compiled)
                .map(|(w, compiled)| pending::Ready {
                    id: w.id,
                    source: w.source,
                    disk: w.disk,
                    compiled,
                }),
        );
    }
    if ready.is_empty() {
        return;
    }
    cache
        .compiles
        .fetch_add(ready.len() as u64, Ordering::Relaxed);
    /// A batch's object: how many modules use it, its executable, its
    /// on-disk key once stored.
    struct Object {
        bytes: Arc<BatchObject>,
        users: usize,
        executable: Option<Result<Arc<aqueduct_hsa::Executable>, ShaderLoadError>>,
        disk: Option<DiskKey>,
    }
    let mut objects: Vec<Object> = Vec::new();
    let mut object_of = |bytes: &Arc<BatchObject>| -> usize {
        match objects.iter().position(|o| Arc::ptr_eq(&o.bytes, bytes)) {
            Some(i) => i,
            None => {
                objects.push(Object {
                    bytes: bytes.clone(),
                    users: 0,
                    executable: None,
                    disk: None,
                });
                objects.len() - 1
            }
        }
    };
    let indices: Vec<Option<usize>> = ready
        .iter()
        .map(|r| r.compiled.as_ref().ok().map(|(bytes, _)| object_of(bytes)))
        .collect();
    for index in indices.iter().flatten() {
        objects[*index].users += 1;
    }
    let disk = ready
        .iter()
        .any(|r| r.disk.is_some())
        .then(DiskCache::from_env)
        .flatten();
    for (r, index) in ready.into_iter().zip(indices) {
        let outcome = (|| -> Result<LoadedPrecompiled, ShaderLoadError> {
            let (_, reflection) = r.compiled.map_err(|e| {
                match compile_failure(e, &r.source, target, no_constants) {
                    Unresolved::NeedsConstants(why) => ShaderLoadError::from(why),
                    Unresolved::Failed(e) => e,
                }
            })?;
            let object = &mut objects[index.expect("a compiled module has an object")];
            let code = &object.bytes.code_object;
            let reflection = reflection
                .to_json()
                .map_err(|e| ShaderLoadError::from(WgslError::ReflectionJson(Arc::new(e))))?;
            let exe = object
                .executable
                .get_or_insert_with(|| load_executable(&device.runtime, &device.agent, code))
                .clone()?;
            let loaded = load_precompiled_in(exe, &reflection)?;
            if let (Some(disk), Some(key)) = (&disk, &r.disk) {
                if object.users > 1 {
                    let shared = *object.disk.get_or_insert_with(|| {
                        let shared = DiskKey::of_object(code);
                        disk.store(
                            &shared,
                            &CachedObject {
                                code: code.clone(),
                                reflection: String::new(),
                            },
                        );
                        shared
                    });
                    disk.store(key, &CachedObject::shared(&shared, reflection));
                } else {
                    disk.store(
                        key,
                        &CachedObject {
                            code: code.clone(),
                            reflection,
                        },
                    );
                }
            }
            Ok(loaded)
        })();
        match outcome {
            Ok(loaded) => {
                let key = VariantKey::new(&r.source.hash, target, no_constants);
                cache.insert(key, loaded.entry_points);
                cache.pending.loaded(r.id);
            }
            Err(e) => {
                tracing::debug!(file = %r.source.file_name, "a WGSL module of the batch failed: {e}");
                cache.pending.failed(r.id, e);
            }
        }
    }
    let mut shared_objects = cache.shared_objects.lock_unpoisoned();
    for object in &objects {
        if let (Some(key), Some(Ok(exe))) = (&object.disk, &object.executable) {
            shared_objects.insert(key.bytes(), Arc::downgrade(exe));
        }
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

/// The compiler's options for `source` on `device`: its target, and what
/// its enabled features let the shader use.
#[cfg(feature = "wgsl")]
fn compile_options(
    device: &DeviceShared,
    source: &WgslSource,
    entry: Option<&str>,
    constants: &[(&str, f64)],
) -> aqueduct_shaderc::Options {
    aqueduct_shaderc::Options {
        targets: vec![device.agent.name.clone()],
        capabilities: capabilities::capabilities(device.features),
        entry: entry.map(str::to_string),
        defines: constants.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        file_name: source.file_name.clone(),
        llvm_bin: std::env::var_os(LLVM_BIN_ENV).map(std::path::PathBuf::from),
        ..Default::default()
    }
}

/// A compiler error as the facade reports it.
#[cfg(feature = "wgsl")]
fn compile_failure(
    e: aqueduct_shaderc::CompileError,
    source: &WgslSource,
    target: &str,
    constants: &[(&str, f64)],
) -> Unresolved {
    use aqueduct_shaderc::CompileError;
    match e {
        CompileError::Override { message } => {
            Unresolved::NeedsConstants(WgslError::NeedsConstants { message })
        }
        CompileError::MissingCapabilities { missing, .. } => {
            let missing = capabilities::features_for(missing);
            Unresolved::Failed(
                WgslError::MissingFeatures {
                    missing,
                    source: Arc::new(e),
                }
                .into(),
            )
        }
        e @ CompileError::ToolMissing { .. } => Unresolved::Failed(
            WgslError::NotPrecompiled {
                hint: precompile_hint(source, target, constants),
                source: Arc::new(e),
            }
            .into(),
        ),
        e => Unresolved::Failed(WgslError::Compile(Arc::new(e)).into()),
    }
}

/// The entry under `key` in the on-disk cache, loaded; None (the entry
/// removed when it does not load) for a miss.
#[cfg(feature = "wgsl")]
fn load_from_disk(
    device: &DeviceShared,
    cache: &crate::shader_disk_cache::DiskCache,
    key: &crate::shader_disk_cache::DiskKey,
    source: &WgslSource,
) -> Option<LoadedPrecompiled> {
    use std::sync::atomic::Ordering;

    let started = std::time::Instant::now();
    let cached = cache.load(key)?;
    let loaded = match cached.shared_object() {
        None => load_precompiled(
            &device.runtime,
            &device.agent,
            &cached.code,
            &cached.reflection,
        ),
        Some(object) => match shared_executable(device, cache, &object) {
            Some(exe) => crate::shader::load_precompiled_in(exe, &cached.reflection),
            None => {
                tracing::debug!(file = %source.file_name, "the shared object of a shader cache entry is gone; recompiling");
                cache.remove(key);
                return None;
            }
        },
    };
    match loaded {
        Ok(loaded) => {
            device.shader_cache.compiles.fetch_add(1, Ordering::Relaxed);
            device
                .shader_cache
                .disk_hits
                .fetch_add(1, Ordering::Relaxed);
            tracing::debug!(
                file = %source.file_name,
                target = %device.agent.name,
                us = started.elapsed().as_micros() as u64,
                "WGSL loaded from the shader cache on disk"
            );
            Some(loaded)
        }
        // Sound bytes that do not load: compile again and replace them.
        Err(e) => {
            tracing::warn!(file = %source.file_name, "a shader cache entry does not load ({e}); recompiling");
            cache.remove(key);
            None
        }
    }
}

/// The shared code object stored under `object`, loaded once per device.
#[cfg(feature = "wgsl")]
fn shared_executable(
    device: &DeviceShared,
    cache: &crate::shader_disk_cache::DiskCache,
    object: &crate::shader_disk_cache::DiskKey,
) -> Option<Arc<aqueduct_hsa::Executable>> {
    let known = device
        .shader_cache
        .shared_objects
        .lock_unpoisoned()
        .get(&object.bytes())
        .and_then(std::sync::Weak::upgrade);
    if known.is_some() {
        return known;
    }
    let code = cache.load(object)?.code;
    match crate::shader::load_executable(&device.runtime, &device.agent, &code) {
        Ok(exe) => {
            device
                .shader_cache
                .shared_objects
                .lock_unpoisoned()
                .insert(object.bytes(), Arc::downgrade(&exe));
            Some(exe)
        }
        Err(e) => {
            tracing::warn!("a shared object in the shader cache does not load ({e}); recompiling");
            cache.remove(object);
            None
        }
    }
}

#[cfg(feature = "wgsl")]
fn compile(
    device: &DeviceShared,
    source: &WgslSource,
    entry: Option<&str>,
    constants: &[(&str, f64)],
) -> Result<LoadedPrecompiled, Unresolved> {
    use crate::shader_disk_cache::{CachedObject, DiskCache};
    use std::sync::atomic::Ordering;

    let target = device.agent.name.as_str();
    let options = compile_options(device, source, entry, constants);
    let started = std::time::Instant::now();
    // The key first: without the LLVM tools there is no key, and the
    // cache directory is not even created.
    let disk = disk_key(source, entry, constants, target, &options)
        .and_then(|key| Some((DiskCache::from_env()?, key)));
    if let Some((cache, key)) = &disk
        && let Some(loaded) = load_from_disk(device, cache, key, source)
    {
        return Ok(loaded);
    }
    let compiled =
        aqueduct_shaderc::compile(aqueduct_shaderc::Source::Wgsl(&source.text), &options)
            .map_err(|e| compile_failure(e, source, target, constants))?;
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
    // The capabilities decide whether the shader validates at all.
    let compiler = format!(
        "{} -O{} caps={:x}",
        aqueduct_shaderc::COMPILER_ID,
        options.opt_level,
        options.capabilities.bits()
    );
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
