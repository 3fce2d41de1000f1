//! WGSL modules waiting for the LLVM step, and the batches that compile
//! them.
//!
//! `create_shader_module` translates a WGSL module (naga parse, validation,
//! limit checks, LLVM IR emission: everything that can reject the shader)
//! and, when neither the device's cache nor the on-disk cache holds it,
//! leaves it here. The first pipeline creation that needs a waiting module
//! compiles every waiting module in one batch (`aqueduct_shaderc::
//! compile_translated`: one clang-19 and one ld.lld-19 run), loads the
//! shared code object once, and caches each module's entry points under
//! its own variant key, in memory and on disk. A module the batch could
//! not compile keeps its error here, and each pipeline that needs it gets
//! that error. A module dropped while waiting leaves the set.
//!
//! Each module's symbols carry the prefix `m<module id>` (unique on the
//! device), so modules of a batch never collide; the reflection maps each
//! entry point to its kernel symbol.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use aqueduct_shaderc::Translated;

use super::WgslSource;
use crate::error::ShaderLoadError;
use crate::lock_rank::{LockRank, Mutex};
use crate::shader_disk_cache::DiskKey;

/// A module waiting in the set, or the error its batch gave it.
enum State {
    Waiting {
        translated: Arc<Translated>,
        /// Its on-disk cache key (None when the cache is off).
        disk: Option<DiskKey>,
    },
    Failed(ShaderLoadError),
}

struct Entry {
    source: Arc<WgslSource>,
    state: State,
}

/// A module the next batch compiles.
pub(super) struct Waiting {
    pub id: u64,
    pub source: Arc<WgslSource>,
    pub translated: Arc<Translated>,
    pub disk: Option<DiskKey>,
}

/// The waiting modules of one device.
pub(crate) struct PendingSet {
    modules: Mutex<HashMap<u64, Entry>>,
    /// Held across a batch compile: one batch at a time, and a pipeline
    /// that needs a module another thread is compiling waits for it.
    batch: Mutex<()>,
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
        }
    }
}

impl PendingSet {
    /// Add a translated module; the handle removes it again when dropped.
    pub(super) fn add(
        self: &Arc<Self>,
        id: u64,
        source: Arc<WgslSource>,
        translated: Translated,
        disk: Option<DiskKey>,
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
                state: State::Waiting {
                    translated: Arc::new(translated),
                    disk,
                },
            },
        );
        PendingModule {
            id,
            set: Arc::downgrade(self),
            entry_names,
        }
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

    /// Every module still waiting (call with the batch lock held).
    pub(super) fn waiting(&self) -> Vec<Waiting> {
        let mut out: Vec<Waiting> = self
            .modules
            .lock_unpoisoned()
            .iter()
            .filter_map(|(&id, entry)| match &entry.state {
                State::Waiting { translated, disk } => Some(Waiting {
                    id,
                    source: entry.source.clone(),
                    translated: translated.clone(),
                    disk: *disk,
                }),
                State::Failed(_) => None,
            })
            .collect();
        // Creation order: the batch's IR (and so its object) is the same
        // for the same modules.
        out.sort_by_key(|w| w.id);
        out
    }

    /// Module `id` compiled: it leaves the set.
    pub(super) fn compiled(&self, id: u64) {
        self.modules.lock_unpoisoned().remove(&id);
    }

    /// Module `id` did not compile: pipelines that need it get `error`.
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
