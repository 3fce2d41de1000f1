//! Command encoders and command buffers.
//!
//! Recording validates each command (WebGPU rules) and lowers it at once
//! into packet ops (see `lower`); a failed command makes the encoder
//! invalid, and `finish` reports the first error and returns an invalid
//! command buffer, which `Queue::submit` rejects without running anything.
//! While a compute pass is open the encoder is locked: the pass borrows it
//! mutably, and after `forget_lifetime` any encoder command is an error.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use aqueduct_hsa::Executable;
use wgpu_types::{
    BufferUsages, COPY_BUFFER_ALIGNMENT, Features, QUERY_RESOLVE_BUFFER_ALIGNMENT, QUERY_SIZE,
};

use super::lower::{self, DebugPacket, Op, PacketRole};
use super::pass::{ComputePass, ComputePassDescriptor};
use crate::buffer::Buffer;
use crate::device::DeviceShared;
use crate::error::ValidationError;
use crate::query::QuerySet;
use crate::registry::BufferId;

pub type CommandEncoderDescriptor<'a> = wgpu_types::CommandEncoderDescriptor<crate::Label<'a>>;
pub type CommandBufferDescriptor<'a> = wgpu_types::CommandBufferDescriptor<crate::Label<'a>>;

#[derive(Debug)]
pub(crate) struct Recording {
    pub ops: Vec<Op>,
    /// Buffers the commands use (checked at submit: not destroyed, not mapped).
    pub used: Vec<Buffer>,
    /// The ids in `used` (so adding one is not a scan of the list).
    used_ids: HashSet<BufferId>,
    pub executables: Vec<Arc<Executable>>,
    pub error: Option<String>,
}

impl Recording {
    pub(crate) fn new() -> Self {
        Recording {
            ops: Vec::new(),
            used: Vec::new(),
            used_ids: HashSet::new(),
            executables: Vec::new(),
            error: None,
        }
    }

    pub(crate) fn fail(&mut self, msg: String) {
        if self.error.is_none() {
            self.error = Some(msg);
        }
    }

    pub(crate) fn use_buffer(&mut self, b: &Buffer) {
        if self.used_ids.insert(b.inner.id) {
            self.used.push(b.clone());
        }
    }

    pub(crate) fn append(&mut self, other: Recording) {
        if let Some(e) = other.error {
            self.fail(e);
        }
        if self.ops.is_empty() {
            // The common case (one pass): take its storage, no copy.
            self.ops = other.ops;
        } else {
            self.ops.extend(other.ops);
        }
        for b in &other.used {
            self.use_buffer(b);
        }
        self.executables.extend(other.executables);
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
            state: Arc::new(Mutex::new(EncoderState {
                device,
                label,
                rec: Recording::new(),
                pass_open: false,
            })),
        }
    }

    fn with_state<R>(&self, f: impl FnOnce(&mut EncoderState) -> R) -> R {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut s)
    }

    /// Begin a compute pass; the encoder is locked until the pass is dropped.
    pub fn begin_compute_pass(&mut self, desc: &ComputePassDescriptor<'_>) -> ComputePass<'_> {
        let device = self.with_state(|s| {
            if s.pass_open {
                s.rec.fail(
                    "begin_compute_pass: a compute pass is already open on this encoder".into(),
                );
            }
            s.pass_open = true;
            s.device.clone()
        });
        ComputePass::new(self.state.clone(), device, desc)
    }

    fn command(
        &mut self,
        name: &str,
        f: impl FnOnce(&DeviceShared, &mut Recording) -> Result<(), String>,
    ) {
        self.with_state(|s| {
            if s.pass_open {
                s.rec.fail(format!(
                    "{name}: the encoder is locked while a compute pass is open; end (drop) the pass first"
                ));
                return;
            }
            let device = s.device.clone();
            if let Err(msg) = f(&device, &mut s.rec) {
                s.rec.fail(format!("{name}: {msg}"));
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
        self.command("copy_buffer_to_buffer", |device, rec| {
            source.check_usable("the source")?;
            destination.check_usable("the destination")?;
            if source.same(destination) {
                return Err(format!(
                    "source and destination are the same buffer ({}); copy through a second buffer",
                    source.describe()
                ));
            }
            if !source.usage().contains(BufferUsages::COPY_SRC) {
                return Err(format!("{} lacks COPY_SRC usage", source.describe()));
            }
            if !destination.usage().contains(BufferUsages::COPY_DST) {
                return Err(format!("{} lacks COPY_DST usage", destination.describe()));
            }
            let size = match copy_size {
                Some(s) => s,
                None => source.size().checked_sub(source_offset).ok_or_else(|| {
                    format!("source offset {source_offset} is past the end of {}", source.describe())
                })?,
            };
            for (what, v) in [
                ("copy size", size),
                ("source offset", source_offset),
                ("destination offset", destination_offset),
            ] {
                if v % COPY_BUFFER_ALIGNMENT != 0 {
                    return Err(format!(
                        "{what} {v} is not a multiple of COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})"
                    ));
                }
            }
            for (b, off, what) in [
                (source, source_offset, "source"),
                (destination, destination_offset, "destination"),
            ] {
                if off.checked_add(size).is_none_or(|end| end > b.size()) {
                    return Err(format!(
                        "the {what} range {off}..{} overruns {} ({} bytes)",
                        off as u128 + size as u128,
                        b.describe(),
                        b.size()
                    ));
                }
            }
            rec.use_buffer(source);
            rec.use_buffer(destination);
            if size == 0 {
                return Ok(());
            }
            let ops = lower::copy_ops(
                &device.blit,
                PacketRole::Copy,
                source.access(source_offset..source_offset + size, false),
                destination.access(destination_offset..destination_offset + size, true),
            )?;
            rec.ops.extend(ops);
            Ok(())
        })
    }

    /// Zero `size` bytes (None: to the end) of `buffer` from `offset`.
    pub fn clear_buffer(&mut self, buffer: &Buffer, offset: u64, size: Option<u64>) {
        self.command("clear_buffer", |device, rec| {
            buffer.check_usable("the buffer")?;
            if !buffer.usage().contains(BufferUsages::COPY_DST) {
                return Err(format!("{} lacks COPY_DST usage", buffer.describe()));
            }
            if !offset.is_multiple_of(COPY_BUFFER_ALIGNMENT) {
                return Err(format!(
                    "offset {offset} is not a multiple of COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})"
                ));
            }
            let size = match size {
                Some(s) => s,
                None => buffer.size().checked_sub(offset).ok_or_else(|| {
                    format!("offset {offset} is past the end of {}", buffer.describe())
                })?,
            };
            if size % COPY_BUFFER_ALIGNMENT != 0 {
                return Err(format!(
                    "size {size} is not a multiple of COPY_BUFFER_ALIGNMENT ({COPY_BUFFER_ALIGNMENT})"
                ));
            }
            if offset.checked_add(size).is_none_or(|end| end > buffer.size()) {
                return Err(format!(
                    "the range {offset}..{} overruns {} ({} bytes)",
                    offset as u128 + size as u128,
                    buffer.describe(),
                    buffer.size()
                ));
            }
            rec.use_buffer(buffer);
            if size == 0 {
                return Ok(());
            }
            rec.ops.extend(lower::fill_ops(
                &device.blit,
                buffer.access(offset..offset + size, true),
                0,
            )?);
            Ok(())
        })
    }

    /// Write a timestamp into `query_set[query_index]` once all earlier
    /// work of the queue has completed (needs
    /// Features::TIMESTAMP_QUERY_INSIDE_ENCODERS).
    pub fn write_timestamp(&mut self, query_set: &QuerySet, query_index: u32) {
        self.command("write_timestamp", |device, rec| {
            if !device
                .features
                .contains(Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
            {
                return Err(
                    "needs Features::TIMESTAMP_QUERY_INSIDE_ENCODERS; request it in the \
                     DeviceDescriptor (or use ComputePassDescriptor::timestamp_writes)"
                        .into(),
                );
            }
            let (storage, slot) = query_set.timestamp_slot(query_index)?;
            rec.use_buffer(storage);
            rec.ops
                .push(lower::timestamp_op(&device.blit, slot, query_index)?);
            Ok(())
        })
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
        self.command("resolve_query_set", |device, rec| {
            let storage = query_set.storage()?;
            destination.check_usable("the destination")?;
            if query_range.start > query_range.end || query_range.end > query_set.count() {
                return Err(format!(
                    "query range {}..{} is not inside 0..{} of {}",
                    query_range.start,
                    query_range.end,
                    query_set.count(),
                    query_set.describe()
                ));
            }
            if !destination.usage().contains(BufferUsages::QUERY_RESOLVE) {
                return Err(format!(
                    "{} lacks QUERY_RESOLVE usage",
                    destination.describe()
                ));
            }
            if !destination_offset.is_multiple_of(QUERY_RESOLVE_BUFFER_ALIGNMENT) {
                return Err(format!(
                    "destination offset {destination_offset} is not a multiple of \
                     QUERY_RESOLVE_BUFFER_ALIGNMENT ({QUERY_RESOLVE_BUFFER_ALIGNMENT})"
                ));
            }
            let q = u64::from(QUERY_SIZE);
            let size = u64::from(query_range.end - query_range.start) * q;
            if destination_offset
                .checked_add(size)
                .is_none_or(|end| end > destination.size())
            {
                return Err(format!(
                    "the {size} bytes of results at {destination_offset} overrun {} ({} bytes)",
                    destination.describe(),
                    destination.size()
                ));
            }
            rec.use_buffer(storage);
            rec.use_buffer(destination);
            if size == 0 {
                return Ok(());
            }
            let src_at = u64::from(query_range.start) * q;
            let op = lower::copy_op(
                &device.blit,
                PacketRole::ResolveQuery,
                storage.access(src_at..src_at + size, false),
                destination.access(destination_offset..destination_offset + size, true),
            )?;
            rec.ops.push(op);
            Ok(())
        })
    }

    /// Finish recording. An invalid encoder reports its first error and
    /// yields an invalid command buffer.
    pub fn finish(self) -> CommandBuffer {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let rec = std::mem::replace(&mut s.rec, Recording::new());
        if s.pass_open {
            let device = s.device.clone();
            drop(s);
            device.report(ValidationError::Encoder(
                "finish: a compute pass is still open; drop it before finishing the encoder".into(),
            ));
            let mut rec = rec;
            rec.fail("the encoder was finished with an open compute pass".into());
            return CommandBuffer { device, rec };
        }
        if let Some(e) = &rec.error {
            s.device.report(ValidationError::Encoder(format!(
                "command encoder{} is invalid: {e}",
                s.label
                    .as_deref()
                    .map(|l| format!(" `{l}`"))
                    .unwrap_or_default()
            )));
        }
        CommandBuffer {
            device: s.device.clone(),
            rec,
        }
    }
}
