//! Command encoders and command buffers.
//!
//! Recording validates each command (WebGPU rules) and lowers it at once
//! into packet ops (see `lower`); a failed command makes the encoder
//! invalid, and `finish` reports the first error and returns an invalid
//! command buffer, which `Queue::submit` rejects without running anything.
//! While a compute pass is open the encoder is locked: the pass borrows it
//! mutably, and after `forget_lifetime` any encoder command is an error.

use std::ops::Range;
use std::sync::Arc;

use aqueduct_hsa::Executable;
use wgpu_types::{
    BufferUsages, COPY_BUFFER_ALIGNMENT, Features, QUERY_RESOLVE_BUFFER_ALIGNMENT, QUERY_SIZE,
};

use super::arena::OpArena;
use super::buffer_set::BufferSet;
use super::lower::{self, DebugPacket, PacketRole};
use super::pass::{ComputePass, ComputePassDescriptor, PassScratch};
use crate::binding::BindGroup;
use crate::buffer::Buffer;
use crate::device::DeviceShared;
use crate::error::{
    BufferRole, ClearError, CommandError, CopyError, CopyField, CopySide, EncoderError,
    ResolveQueryError, TimestampError,
};
use crate::lock_rank::{LockRank, Mutex};
use crate::query::{QUERY_SLOT_SIZE, QuerySet};
use crate::registry::BufferId;

/// Describes a command encoder.
pub type CommandEncoderDescriptor<'a> = wgpu_types::CommandEncoderDescriptor<crate::Label<'a>>;
/// Describes the command buffer `CommandEncoder::finish` makes.
pub type CommandBufferDescriptor<'a> = wgpu_types::CommandBufferDescriptor<crate::Label<'a>>;

/// What an encoder or pass has recorded. Its storage is reused across
/// recordings (`pool.rs`): `clear` keeps every list's capacity.
#[derive(Debug, Default)]
pub(crate) struct Recording {
    pub ops: OpArena,
    /// Buffers the commands use directly (copies, fills, queries, indirect
    /// arguments), checked at submit: not destroyed, not mapped.
    pub used: Vec<Buffer>,
    /// Buffers dispatches reach through bind groups (and not already in
    /// `used`), checked at submit like `used`.
    pub bound: Vec<BufferId>,
    /// The bind groups passes bound (`keep_group`): they keep the buffers'
    /// handles (so their ids stay theirs) alive while the recording lives.
    /// A submission keeps none of it: submit marks the `bound` buffers used
    /// by its epoch, and the registry keeps a dropped buffer's memory until
    /// then (`Registry::forget`).
    pub groups: Vec<BindGroup>,
    /// The ids in `used` and `bound` (so adding one is not a scan).
    seen: BufferSet,
    pub executables: Vec<Arc<Executable>>,
    /// The first command that failed.
    pub error: Option<CommandError>,
    /// A pass's lists, kept here between passes (empty while a pass has
    /// them).
    pub pass_scratch: PassScratch,
}

impl Recording {
    pub(crate) fn new() -> Self {
        Recording::default()
    }

    /// Empty the recording, keeping its storage.
    pub(crate) fn clear(&mut self) {
        self.ops.clear();
        for b in &self.used {
            self.seen.remove(b.inner.id);
        }
        for &id in &self.bound {
            self.seen.remove(id);
        }
        self.used.clear();
        self.bound.clear();
        self.groups.clear();
        self.executables.clear();
        self.error = None;
        self.pass_scratch.clear();
    }

    pub(crate) fn fail(&mut self, error: CommandError) {
        if self.error.is_none() {
            self.error = Some(error);
        }
    }

    pub(crate) fn use_buffer(&mut self, b: &Buffer) {
        if self.seen.insert(b.inner.id) {
            self.used.push(b.clone());
        }
    }

    /// Keep `group`, bound by a pass, for the recording's life; returns its
    /// index in `groups` (a group bound again right away is kept once).
    pub(crate) fn keep_group(&mut self, group: &BindGroup) -> usize {
        if let Some(last) = self.groups.last()
            && Arc::ptr_eq(&last.inner, &group.inner)
        {
            return self.groups.len() - 1;
        }
        self.groups.push(group.clone());
        self.groups.len() - 1
    }

    /// Note buffer `id`, bound through a kept group, as used by a
    /// dispatch: the id goes to `bound` the first time.
    #[inline]
    pub(crate) fn use_binding(&mut self, id: BufferId) {
        if self.seen.insert(id) {
            self.bound.push(id);
        }
    }

    /// The bound buffer `id` as error messages name it.
    pub(crate) fn bound_ident(&self, id: BufferId) -> Option<crate::error::BufferIdent> {
        self.groups.iter().find_map(|g| g.inner.ident_of(id))
    }

    /// Add `other`'s commands after these; `other` is left with storage
    /// to reuse (and stale contents: clear it before recording into it).
    pub(crate) fn append(&mut self, other: &mut Recording) {
        if let Some(e) = other.error.take() {
            self.fail(e);
        }
        if self.ops.is_empty() {
            // The common case (one pass): take its storage, no copy; this
            // recording's empty storage goes the other way.
            std::mem::swap(&mut self.ops, &mut other.ops);
        } else {
            self.ops.append(&other.ops);
        }
        if self.used.is_empty() && self.bound.is_empty() {
            // The common case again: take the pass's lists and its id set.
            std::mem::swap(&mut self.used, &mut other.used);
            std::mem::swap(&mut self.bound, &mut other.bound);
            std::mem::swap(&mut self.seen, &mut other.seen);
        } else {
            for b in &other.used {
                self.use_buffer(b);
            }
            for &id in &other.bound {
                if self.seen.insert(id) {
                    self.bound.push(id);
                }
            }
        }
        // Every group `other` kept stays kept (those whose buffers this
        // recording already knew only keep memory alive a little longer).
        if self.groups.is_empty() {
            std::mem::swap(&mut self.groups, &mut other.groups);
        } else {
            self.groups.append(&mut other.groups);
        }
        if self.executables.is_empty() {
            std::mem::swap(&mut self.executables, &mut other.executables);
        } else {
            self.executables.append(&mut other.executables);
        }
    }
}

#[derive(Debug)]
pub(crate) struct EncoderState {
    pub device: Arc<DeviceShared>,
    pub label: Option<String>,
    pub rec: Recording,
    pub pass_open: bool,
}

/// Records commands for one command buffer.
#[derive(Debug)]
pub struct CommandEncoder {
    pub(crate) state: Arc<Mutex<EncoderState>>,
}

/// A finished recording, ready for `Queue::submit`.
#[derive(Debug)]
pub struct CommandBuffer {
    pub(crate) device: Arc<DeviceShared>,
    pub(crate) rec: Recording,
}

impl CommandBuffer {
    /// The packets this command buffer lowers to if submitted alone, with
    /// barrier bits and fence scopes (for lowering tests and diagnostics).
    #[doc(hidden)]
    pub fn debug_packets(&self) -> Vec<DebugPacket> {
        lower::debug_packets(&self.rec.ops)
    }
}

impl CommandEncoder {
    pub(crate) fn new(device: Arc<DeviceShared>, label: Option<String>) -> Self {
        CommandEncoder {
            state: Arc::new(Mutex::new(
                LockRank::CommandEncoder,
                EncoderState {
                    rec: device.recordings.take(),
                    device,
                    label,
                    pass_open: false,
                },
            )),
        }
    }

    fn with_state<R>(&self, f: impl FnOnce(&mut EncoderState) -> R) -> R {
        let mut s = self.state.lock_unpoisoned();
        f(&mut s)
    }

    /// Begin a compute pass; the encoder is locked until the pass is dropped.
    pub fn begin_compute_pass(&mut self, desc: &ComputePassDescriptor<'_>) -> ComputePass<'_> {
        let device = self.with_state(|s| {
            if s.pass_open {
                s.rec.fail(CommandError::PassAlreadyOpen);
            }
            s.pass_open = true;
            s.device.clone()
        });
        ComputePass::new(self.state.clone(), device, desc)
    }

    /// Record command `name` with `f`; its error becomes the encoder's
    /// (through `wrap`) if it is the first.
    pub(super) fn command<E>(
        &mut self,
        name: &'static str,
        wrap: impl FnOnce(E) -> CommandError,
        f: impl FnOnce(&DeviceShared, &mut Recording) -> Result<(), E>,
    ) {
        self.with_state(|s| {
            if s.pass_open {
                s.rec.fail(CommandError::Locked { command: name });
                return;
            }
            let device = s.device.clone();
            if let Err(e) = f(&device, &mut s.rec) {
                s.rec.fail(wrap(e));
            }
        })
    }

    /// Copy `copy_size` bytes (None: the rest of `source`) between buffers.
    pub fn copy_buffer_to_buffer(
        &mut self,
        source: &Buffer,
        source_offset: u64,
        destination: &Buffer,
        destination_offset: u64,
        copy_size: impl Into<Option<u64>>,
    ) {
        let copy_size = copy_size.into();
        self.command(
            "copy_buffer_to_buffer",
            CommandError::Copy,
            |device, rec| {
                source.check_usable(device, BufferRole::Source)?;
                destination.check_usable(device, BufferRole::Destination)?;
                if source.same(destination) {
                    return Err(CopyError::SameBuffer {
                        buffer: source.ident(),
                    });
                }
                if !source.usage().contains(BufferUsages::COPY_SRC) {
                    return Err(CopyError::MissingCopySrc {
                        buffer: source.ident(),
                    });
                }
                if !destination.usage().contains(BufferUsages::COPY_DST) {
                    return Err(CopyError::MissingCopyDst {
                        buffer: destination.ident(),
                    });
                }
                let size = match copy_size {
                    Some(s) => s,
                    None => source.size().checked_sub(source_offset).ok_or_else(|| {
                        CopyError::SourceOffsetPastEnd {
                            offset: source_offset,
                            buffer: source.ident(),
                        }
                    })?,
                };
                for (field, value) in [
                    (CopyField::Size, size),
                    (CopyField::SourceOffset, source_offset),
                    (CopyField::DestinationOffset, destination_offset),
                ] {
                    if value % COPY_BUFFER_ALIGNMENT != 0 {
                        return Err(CopyError::Unaligned { field, value });
                    }
                }
                for (b, offset, side) in [
                    (source, source_offset, CopySide::Source),
                    (destination, destination_offset, CopySide::Destination),
                ] {
                    if offset.checked_add(size).is_none_or(|end| end > b.size()) {
                        return Err(CopyError::Overrun {
                            side,
                            offset,
                            end: offset as u128 + size as u128,
                            buffer: b.ident(),
                        });
                    }
                }
                rec.use_buffer(source);
                rec.use_buffer(destination);
                if size == 0 {
                    return Ok(());
                }
                lower::copy_ops_into(
                    &device.blit,
                    PacketRole::Copy,
                    source.access(source_offset..source_offset + size, false),
                    destination.access(destination_offset..destination_offset + size, true),
                    &mut rec.ops,
                )?;
                Ok(())
            },
        )
    }

    /// Zero `size` bytes (None: to the end) of `buffer` from `offset`.
    pub fn clear_buffer(&mut self, buffer: &Buffer, offset: u64, size: Option<u64>) {
        self.command("clear_buffer", CommandError::Clear, |device, rec| {
            buffer.check_usable(device, BufferRole::Buffer)?;
            if !buffer.usage().contains(BufferUsages::COPY_DST) {
                return Err(ClearError::MissingCopyDst {
                    buffer: buffer.ident(),
                });
            }
            if !offset.is_multiple_of(COPY_BUFFER_ALIGNMENT) {
                return Err(ClearError::UnalignedOffset { offset });
            }
            let size =
                match size {
                    Some(s) => s,
                    None => buffer.size().checked_sub(offset).ok_or_else(|| {
                        ClearError::OffsetPastEnd {
                            offset,
                            buffer: buffer.ident(),
                        }
                    })?,
                };
            if size % COPY_BUFFER_ALIGNMENT != 0 {
                return Err(ClearError::UnalignedSize { size });
            }
            if offset
                .checked_add(size)
                .is_none_or(|end| end > buffer.size())
            {
                return Err(ClearError::Overrun {
                    offset,
                    end: offset as u128 + size as u128,
                    buffer: buffer.ident(),
                });
            }
            rec.use_buffer(buffer);
            if size == 0 {
                return Ok(());
            }
            lower::fill_ops_into(
                &device.blit,
                buffer.access(offset..offset + size, true),
                0,
                &mut rec.ops,
            )?;
            Ok(())
        })
    }

    /// Write a timestamp into `query_set[query_index]` once all earlier
    /// work of the queue has completed (needs
    /// Features::TIMESTAMP_QUERY_INSIDE_ENCODERS).
    pub fn write_timestamp(&mut self, query_set: &QuerySet, query_index: u32) {
        self.command(
            "write_timestamp",
            CommandError::WriteTimestamp,
            |device, rec| {
                if !device
                    .features
                    .contains(Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
                {
                    return Err(TimestampError::MissingInsideEncodersFeature);
                }
                let (storage, slot) = query_set.timestamp_slot(device, query_index)?;
                rec.use_buffer(storage);
                lower::timestamp_op(slot, &mut rec.ops);
                Ok(())
            },
        )
    }

    /// Copy the 64-bit results of `query_range` of `query_set` into
    /// `destination` at `destination_offset` (QUERY_RESOLVE usage, offset a
    /// multiple of QUERY_RESOLVE_BUFFER_ALIGNMENT).
    pub fn resolve_query_set(
        &mut self,
        query_set: &QuerySet,
        query_range: Range<u32>,
        destination: &Buffer,
        destination_offset: u64,
    ) {
        self.command(
            "resolve_query_set",
            CommandError::ResolveQuerySet,
            |device, rec| {
                let storage = query_set.storage(device)?;
                destination.check_usable(device, BufferRole::Destination)?;
                if query_range.start > query_range.end || query_range.end > query_set.count() {
                    return Err(ResolveQueryError::RangeOutOfBounds {
                        start: query_range.start,
                        end: query_range.end,
                        count: query_set.count(),
                        query_set: query_set.label(),
                    });
                }
                if !destination.usage().contains(BufferUsages::QUERY_RESOLVE) {
                    return Err(ResolveQueryError::MissingQueryResolve {
                        buffer: destination.ident(),
                    });
                }
                if !destination_offset.is_multiple_of(QUERY_RESOLVE_BUFFER_ALIGNMENT) {
                    return Err(ResolveQueryError::UnalignedOffset {
                        offset: destination_offset,
                    });
                }
                let count = query_range.end - query_range.start;
                let size = u64::from(count) * u64::from(QUERY_SIZE);
                if destination_offset
                    .checked_add(size)
                    .is_none_or(|end| end > destination.size())
                {
                    return Err(ResolveQueryError::Overrun {
                        size,
                        offset: destination_offset,
                        buffer: destination.ident(),
                    });
                }
                rec.use_buffer(storage);
                rec.use_buffer(destination);
                if size == 0 {
                    return Ok(());
                }
                lower::strided_copy_op(
                    &device.blit,
                    PacketRole::ResolveQuery,
                    query_set.end_ts_access(storage, query_range.clone()),
                    QUERY_SLOT_SIZE,
                    destination.access(destination_offset..destination_offset + size, true),
                    count,
                    &mut rec.ops,
                )?;
                Ok(())
            },
        )
    }

    /// Finish recording. An invalid encoder reports its first error and
    /// yields an invalid command buffer.
    pub fn finish(self) -> CommandBuffer {
        let mut s = self.state.lock_unpoisoned();
        let rec = std::mem::replace(&mut s.rec, Recording::new());
        if s.pass_open {
            let device = s.device.clone();
            drop(s);
            device.report(EncoderError::PassStillOpen);
            let mut rec = rec;
            rec.fail(CommandError::FinishedWithOpenPass);
            return CommandBuffer { device, rec };
        }
        if let Some(e) = &rec.error {
            s.device.report(EncoderError::Invalid {
                label: s.label.clone(),
                source: Box::new(e.clone()),
            });
        }
        CommandBuffer {
            device: s.device.clone(),
            rec,
        }
    }
}
