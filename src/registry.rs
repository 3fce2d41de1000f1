//! The per-device registry of mutable buffer state, keyed by slotmap
//! handles (as wgpu-core keeps its resources): map state, destroyed flag,
//! the last submission that used the buffer, who owns it (host or agent),
//! the live mapped views, and the host staging memory of a device-only
//! buffer mapped at creation. Public `Buffer`s are cheap clones holding the
//! key; the entry goes when the last clone does. The registry also keeps
//! the memory of dropped buffers whose last submission is still in flight
//! (`deferred`), so a submission holds nothing per buffer it reaches
//! through bind groups: submit marks each such buffer's `last_use`, and
//! the memory outlives that epoch through this list.

use std::ops::Range;

use std::sync::Arc;

use slotmap::{Key, SlotMap, new_key_type};

use crate::placement::BufferMemory;

new_key_type! {
    /// A buffer's key in its device's registry.
    pub struct BufferId;
}

impl BufferId {
    /// The hazard tracker's object key for this buffer's memory
    /// (`hazard::buffer_object` of the registry slot index, which `as_ffi`
    /// puts in its low 32 bits, the version above).
    pub(crate) fn hazard_object(self) -> u64 {
        crate::command::hazard::buffer_object(self.data().as_ffi() as u32)
    }
}

/// Mapping modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapMode {
    /// Map for reading (`BufferUsages::MAP_READ`).
    Read,
    /// Map for writing (`BufferUsages::MAP_WRITE`).
    Write,
}

/// Who may touch a buffer's bytes now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// The host: the buffer is mapped (or mapped at creation).
    Host,
    /// The agent: submissions may use it.
    Agent,
}

#[derive(Debug)]
pub(crate) enum MapState {
    Unmapped,
    /// map_async issued; completes when submission `epoch` has.
    Pending {
        mode: MapMode,
        range: Range<u64>,
    },
    Mapped {
        mode: MapMode,
        range: Range<u64>,
    },
}

#[derive(Debug)]
pub(crate) struct BufferState {
    pub map: MapState,
    pub destroyed: bool,
    /// Epoch of the last submission that used the buffer (0 = none).
    pub last_use: u64,
    pub owner: Owner,
    /// Live views: (range, writable).
    pub views: Vec<(Range<u64>, bool)>,
    /// Host staging behind a mapped-at-creation device-only buffer.
    pub creation_staging: Option<Arc<crate::memory_reuse::ReusableAllocation>>,
}

impl BufferState {
    pub(crate) fn new() -> Self {
        BufferState {
            map: MapState::Unmapped,
            destroyed: false,
            last_use: 0,
            owner: Owner::Agent,
            views: Vec::new(),
            creation_staging: None,
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Registry {
    pub buffers: SlotMap<BufferId, BufferState>,
    /// Memory of dropped buffers, each with the epoch of the last
    /// submission that used it: freed once that epoch completes.
    deferred: Vec<(u64, Arc<BufferMemory>)>,
}

impl Registry {
    /// Remove buffer `id`'s entry; its `memory`, when a submission that is
    /// not complete (`completed` is the last complete epoch) used the
    /// buffer, is kept until that submission completes. Returns the entry
    /// and the memory to free now (to drop with the lock let go).
    pub(crate) fn forget(
        &mut self,
        id: BufferId,
        memory: Option<Arc<BufferMemory>>,
        completed: u64,
    ) -> (Option<BufferState>, Option<Arc<BufferMemory>>) {
        let removed = self.buffers.remove(id);
        let last_use = removed.as_ref().map_or(0, |s| s.last_use);
        match memory {
            Some(m) if last_use > completed => {
                self.deferred.push((last_use, m));
                (removed, None)
            }
            memory => (removed, memory),
        }
    }

    /// Move the deferred memory whose last submission is complete (epoch
    /// `completed` or earlier) into `out`.
    pub(crate) fn take_freed(&mut self, completed: u64, out: &mut Vec<Arc<BufferMemory>>) {
        if self.deferred.is_empty() {
            return;
        }
        let mut i = 0;
        while i < self.deferred.len() {
            if self.deferred[i].0 <= completed {
                out.push(self.deferred.swap_remove(i).1);
            } else {
                i += 1;
            }
        }
    }

    /// All the deferred memory, whatever its epoch (the device is going).
    pub(crate) fn take_deferred(&mut self) -> Vec<Arc<BufferMemory>> {
        self.deferred.drain(..).map(|(_, m)| m).collect()
    }

    /// How many dropped buffers' memory waits for a submission (tests).
    #[cfg(test)]
    pub(crate) fn deferred_len(&self) -> usize {
        self.deferred.len()
    }
}
