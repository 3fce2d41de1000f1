//! WGSL modules waiting for the LLVM step, and the batches that compile
//! them.
//!
//! `create_shader_module` translates a WGSL module (naga parse, validation,
//! limit checks, LLVM IR emission: everything that can reject the shader)
//! and, when neither the device's cache nor the on-disk cache holds it,
//! leaves it here. A worker thread starts compiling at once: every module
//! waiting when it looks, in one batch (`aqueduct_shaderc::
//! compile_translated`: one clang-19 and one ld.lld-19 run), then the
//! modules added meanwhile, until none waits; it only runs the tools, and
//! leaves each module's result here. The first pipeline creation that
//! needs a module waits for the worker's batch (the batch lock), compiles
//! whatever still waits, then loads each batch's code object once and
//! caches every module's entry points under its own variant key, in memory
//! and on disk (`crate::wgsl`). A module the batch could not compile keeps
//! its error here, and each pipeline that needs it gets that error. A
//! module dropped while waiting leaves the set.
//!
//! Each module's symbols carry the prefix `m<module id>` (unique on the
//! device), so modules of a batch never collide; the reflection maps each
//! entry point to its kernel symbol.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use aqueduct_shaderc::{BatchObject, CompileError, Options, Reflection, Translated};

use super::WgslSource;
use crate::error::ShaderLoadError;
use crate::lock_rank::{LockRank, Mutex};
use crate::shader_disk_cache::DiskKey;

/// A module compiled, not yet loaded: its batch's object and its
/// reflection, or the compiler's error.
pub(super) type Compiled = Result<(Arc<BatchObject>, Reflection), CompileError>;

/// Where a module of the set stands.
enum State {
    /// Translated; no batch has taken it yet.
    Waiting { translated: Arc<Translated> },
    /// Compiled by the worker; the next pipeline that needs a module
    /// loads it.
    Compiled(Compiled),
    /// Taken by a pipeline that is loading it.
    Loading,
    /// Its batch failed it: pipelines that need it get this error.
    Failed(ShaderLoadError),
}

struct Entry {
    source: Arc<WgslSource>,
    /// Its on-disk cache key (None without the LLVM tools).
    disk: Option<DiskKey>,
    state: State,
}

/// A module to compile now.
pub(super) struct Waiting {
    pub id: u64,
    pub source: Arc<WgslSource>,
    pub translated: Arc<Translated>,
    pub disk: Option<DiskKey>,
}

/// A module compiled (by the worker or now), for the loader.
pub(super) struct Ready {
    pub id: u64,
    pub source: Arc<WgslSource>,
    pub disk: Option<DiskKey>,
    pub compiled: Compiled,
}

/// The waiting modules of one device.
pub(crate) struct PendingSet {
    modules: Mutex<HashMap<u64, Entry>>,
    /// Held across a batch compile: one batch at a time, and a pipeline
    /// that needs a module the worker is compiling waits for it.
    batch: Mutex<()>,
    /// Whether a worker thread runs (or is about to).
    worker: AtomicBool,
}

impl std::fmt::Debug for PendingSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingSet")
            .field("modules", &self.modules.lock_unpoisoned().len())
            .finish()
    }
}

impl Default for PendingSet {
    fn default() -> Self {
        PendingSet {
            modules: Mutex::new(LockRank::ShaderPending, HashMap::new()),
            batch: Mutex::new(LockRank::ShaderBatch, ()),
            worker: AtomicBool::new(false),
        }
    }
}

/// Compile `waiting` in one batch: each module's result, in order.
pub(super) fn compile(waiting: &[Waiting], options: &Options) -> Vec<Compiled> {
    let translated: Vec<&Translated> = waiting.iter().map(|w| &*w.translated).collect();
    let batch = aqueduct_shaderc::compile_translated(&translated, options);
    let objects: Vec<Arc<BatchObject>> = batch.objects.into_iter().map(Arc::new).collect();
    batch
        .modules
        .into_iter()
        .map(|m| m.map(|m| (objects[m.object].clone(), m.reflection)))
        .collect()
}

impl PendingSet {
    /// Add a translated module and make sure a worker compiles it (with
    /// `options`: the target and the tools); the handle removes the module
    /// again when dropped.
    pub(super) fn add(
        self: &Arc<Self>,
        id: u64,
        source: Arc<WgslSource>,
        translated: Translated,
        disk: Option<DiskKey>,
        options: Options,
    ) -> PendingModule {
        let entry_names = translated
            .reflection
            .entry_points
            .iter()
            .map(|e| e.name.clone())
            .collect();
        self.modules.lock_unpoisoned().insert(
            id,
            Entry {
                source,
                disk,
                state: State::Waiting {
                    translated: Arc::new(translated),
                },
            },
        );
        self.start_worker(options);
        PendingModule {
            id,
            set: Arc::downgrade(self),
            entry_names,
        }
    }

    /// Start the worker unless one runs. It compiles what waits, batch
    /// after batch, and stops when nothing waits; when it cannot start,
    /// pipelines compile what waits themselves.
    fn start_worker(self: &Arc<Self>, options: Options) {
        if self.worker.swap(true, Ordering::AcqRel) {
            return;
        }
        let set = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("aqueduct-wgsl".into())
            .spawn(move || {
                while let Some(set) = set.upgrade() {
                    if !set.exclusive(|| set.compile_one_batch(&options)) {
                        break;
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot start the WGSL compile thread ({e}); pipelines compile instead");
            self.worker.store(false, Ordering::Release);
        }
    }

    /// The worker's step (batch lock held): compile what waits and leave
    /// the results; false, the worker retired, when nothing waits.
    fn compile_one_batch(&self, options: &Options) -> bool {
        let waiting = {
            let modules = self.modules.lock_unpoisoned();
            let waiting = Self::waiting_in(&modules);
            if waiting.is_empty() {
                // Under the set's lock: a module added after this finds
                // no worker and starts one.
                self.worker.store(false, Ordering::Release);
                return false;
            }
            waiting
        };
        let started = std::time::Instant::now();
        let compiled = compile(&waiting, options);
        tracing::debug!(
            modules = waiting.len(),
            ms = started.elapsed().as_millis() as u64,
            "compiled a batch of WGSL modules in the background"
        );
        let mut modules = self.modules.lock_unpoisoned();
        for (w, result) in waiting.iter().zip(compiled) {
            if let Some(entry) = modules.get_mut(&w.id) {
                entry.state = State::Compiled(result);
            }
        }
        true
    }

    /// Run `f` holding the batch lock.
    pub(super) fn exclusive<T>(&self, f: impl FnOnce() -> T) -> T {
        let _batch = self.batch.lock_unpoisoned();
        f()
    }

    /// The error the batch gave module `id`, if it failed.
    pub(super) fn failure(&self, id: u64) -> Option<ShaderLoadError> {
        match self.modules.lock_unpoisoned().get(&id) {
            Some(Entry {
                state: State::Failed(e),
                ..
            }) => Some(e.clone()),
            _ => None,
        }
    }

    fn waiting_in(modules: &HashMap<u64, Entry>) -> Vec<Waiting> {
        let mut out: Vec<Waiting> = modules
            .iter()
            .filter_map(|(&id, entry)| match &entry.state {
                State::Waiting { translated } => Some(Waiting {
                    id,
                    source: entry.source.clone(),
                    translated: translated.clone(),
                    disk: entry.disk,
                }),
                _ => None,
            })
            .collect();
        // Creation order: the batch's IR (and so its object) is the same
        // for the same modules.
        out.sort_by_key(|w| w.id);
        out
    }

    /// Take every module the worker compiled and every module still
    /// waiting (call with the batch lock held); they stay in the set,
    /// loading, until [`PendingSet::loaded`] or [`PendingSet::failed`].
    pub(super) fn take(&self) -> (Vec<Ready>, Vec<Waiting>) {
        let mut modules = self.modules.lock_unpoisoned();
        let waiting = Self::waiting_in(&modules);
        let mut ready = Vec::new();
        for (&id, entry) in modules.iter_mut() {
            match std::mem::replace(&mut entry.state, State::Loading) {
                State::Compiled(compiled) => ready.push(Ready {
                    id,
                    source: entry.source.clone(),
                    disk: entry.disk,
                    compiled,
                }),
                State::Waiting { .. } => {}
                other => entry.state = other,
            }
        }
        ready.sort_by_key(|r| r.id);
        (ready, waiting)
    }

    /// Module `id` is loaded and cached: it leaves the set.
    pub(super) fn loaded(&self, id: u64) {
        self.modules.lock_unpoisoned().remove(&id);
    }

    /// Module `id` did not compile or load: pipelines that need it get
    /// `error`.
    pub(super) fn failed(&self, id: u64, error: ShaderLoadError) {
        if let Some(entry) = self.modules.lock_unpoisoned().get_mut(&id) {
            entry.state = State::Failed(error);
        }
    }
}

/// A shader module's place in the pending set; dropping it (with the
/// module) takes the module out of the set.
#[derive(Debug)]
pub(crate) struct PendingModule {
    pub id: u64,
    set: Weak<PendingSet>,
    entry_names: Vec<String>,
}

impl PendingModule {
    /// The module's entry point names (from its translation).
    pub(crate) fn entry_names(&self) -> Vec<String> {
        self.entry_names.clone()
    }
}

impl Drop for PendingModule {
    fn drop(&mut self) {
        if let Some(set) = self.set.upgrade() {
            set.modules.lock_unpoisoned().remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(set: &Arc<PendingSet>, id: u64, k: u32) -> PendingModule {
        let text = format!(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    out[gid.x] = gid.x * {k}u;
}}"
        );
        let source = Arc::new(WgslSource::new(&text, None));
        let options = Options {
            symbol_prefix: format!("m{id}"),
            ..Options::default()
        };
        let translated =
            aqueduct_shaderc::translate(aqueduct_shaderc::Source::Wgsl(&text), &options).unwrap();
        set.add(id, source, translated, None, Options::default())
    }

    #[test]
    fn the_worker_compiles_waiting_modules_in_the_background() {
        if !aqueduct_shaderc::Toolchain::available() {
            return;
        }
        let set = Arc::new(PendingSet::default());
        let kept: Vec<PendingModule> = (0..3).map(|i| module(&set, i, i as u32 + 2)).collect();
        drop(module(&set, 3, 9));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while set.worker.load(Ordering::Acquire) {
            assert!(
                std::time::Instant::now() < deadline,
                "the worker never retired"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let (ready, waiting) = set.exclusive(|| set.take());
        assert!(waiting.is_empty(), "the worker left modules waiting");
        let ids: Vec<u64> = ready.iter().map(|r| r.id).collect();
        assert_eq!(ids, [0, 1, 2], "the dropped module is gone");
        for r in &ready {
            let (_, reflection) = r.compiled.as_ref().unwrap();
            assert_eq!(reflection.entry_points[0].kernel, format!("m{}.main", r.id));
        }
        for r in ready {
            set.loaded(r.id);
        }
        assert!(set.modules.lock_unpoisoned().is_empty());
        drop(kept);
    }
}
