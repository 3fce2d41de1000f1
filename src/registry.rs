//! The per-device registry of mutable buffer state, keyed by slotmap
//! handles (as wgpu-core keeps its resources): map state, destroyed flag,
//! the last submission that used the buffer, who owns it (host or agent),
//! the live mapped views, and the host staging memory of a device-only
//! buffer mapped at creation. Public `Buffer`s are cheap clones holding the
//! key; the entry goes when the last clone does.

use std::ops::Range;

use std::sync::Arc;

use slotmap::{SlotMap, new_key_type};

new_key_type! {
    /// A buffer's key in its device's registry.
    pub struct BufferId;
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
}
