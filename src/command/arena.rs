//! The linear storage of lowered ops.
//!
//! A recording writes its ops into one `OpArena`: the ops themselves, and
//! beside them the variable-length parts each op used to own on the heap
//! (its memory accesses, a dispatch's kernarg bytes) in two flat lists the
//! op refers to by [`Span`]. Recording a dispatch then appends to three
//! `Vec`s and allocates nothing once they have grown (as wgpu-hal's command
//! buffers write into linear storage). Appending one arena to another
//! copies plain data and moves the spans; a submission's arena stays alive
//! while its packets run (to name a faulting kernel) and then goes back,
//! cleared, to the device's pool (`pool.rs`) for the next recording.

use std::ops::Range;
use std::sync::Arc;

use crate::placement::BufferMemory;

use super::hazard::Access;
use super::lower::{Op, PacketRole, Work};

/// A run of entries in one of an arena's flat lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: usize,
    pub len: usize,
}

impl Span {
    pub(crate) fn range(self) -> Range<usize> {
        self.start..self.start + self.len
    }

    /// The same run after its list was appended behind `base` entries.
    fn shifted(self, base: usize) -> Span {
        Span {
            start: self.start + base,
            ..self
        }
    }
}

/// Ops and the storage they refer to (see the module comment).
#[derive(Debug, Default)]
pub(crate) struct OpArena {
    ops: Vec<Op>,
    accesses: Vec<Access>,
    kernarg: Vec<u8>,
    /// The memory of the buffers commands use directly (copies, fills,
    /// queries), held from submission until the ops complete (filled by
    /// the queue; empty while recording). Buffers reached through bind
    /// groups are kept by the registry instead (`Registry::forget`).
    pub(crate) memory: Vec<Arc<BufferMemory>>,
}

/// Where an arena's lists ended, to undo what a failed command added.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mark {
    ops: usize,
    accesses: usize,
    kernarg: usize,
}

impl OpArena {
    pub(crate) fn ops(&self) -> &[Op] {
        &self.ops
    }

    pub(crate) fn len(&self) -> usize {
        self.ops.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The last op, to raise its count.
    pub(crate) fn last_mut(&mut self) -> Option<&mut Op> {
        self.ops.last_mut()
    }

    /// The accesses of `op` (an op of this arena).
    pub(crate) fn accesses(&self, op: &Op) -> &[Access] {
        &self.accesses[op.accesses.range()]
    }

    /// The kernarg bytes at `span` (a dispatch of this arena).
    pub(crate) fn kernarg(&self, span: Span) -> &[u8] {
        &self.kernarg[span.range()]
    }

    /// The kernarg list, for a dispatch's segment to be appended to.
    pub(crate) fn kernarg_mut(&mut self) -> &mut Vec<u8> {
        &mut self.kernarg
    }

    /// Store `accesses` for an op about to be pushed.
    pub(crate) fn push_accesses(&mut self, accesses: &[Access]) -> Span {
        let start = self.accesses.len();
        self.accesses.extend_from_slice(accesses);
        Span {
            start,
            len: accesses.len(),
        }
    }

    /// An op whose spans refer to this arena.
    pub(crate) fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    /// One packet of `work` with `accesses`.
    pub(crate) fn push_one(&mut self, role: PacketRole, accesses: &[Access], work: Work) {
        let accesses = self.push_accesses(accesses);
        self.ops.push(Op::one(role, accesses, work));
    }

    pub(crate) fn mark(&self) -> Mark {
        Mark {
            ops: self.ops.len(),
            accesses: self.accesses.len(),
            kernarg: self.kernarg.len(),
        }
    }

    /// Drop what was pushed since `mark`.
    pub(crate) fn truncate(&mut self, mark: Mark) {
        self.ops.truncate(mark.ops);
        self.accesses.truncate(mark.accesses);
        self.kernarg.truncate(mark.kernarg);
    }

    /// Append `other`'s ops (their spans moved to where their entries land).
    pub(crate) fn append(&mut self, other: &OpArena) {
        let (accesses, kernarg) = (self.accesses.len(), self.kernarg.len());
        self.accesses.extend_from_slice(&other.accesses);
        self.kernarg.extend_from_slice(&other.kernarg);
        self.ops.extend(other.ops.iter().map(|op| {
            let mut op = op.clone();
            op.accesses = op.accesses.shifted(accesses);
            if let Work::Dispatch(d) = &mut op.work {
                d.kernarg = d.kernarg.shifted(kernarg);
            }
            op
        }));
        self.memory.extend(other.memory.iter().cloned());
    }

    /// Bytes of storage the lists hold (their capacity, used or not).
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.ops.capacity() * std::mem::size_of::<Op>()
            + self.accesses.capacity() * std::mem::size_of::<Access>()
            + self.kernarg.capacity()
            + self.memory.capacity() * std::mem::size_of::<Arc<BufferMemory>>()
    }

    /// Empty every list, keeping its storage.
    pub(crate) fn clear(&mut self) {
        self.ops.clear();
        self.accesses.clear();
        self.kernarg.clear();
        self.memory.clear();
    }
}
