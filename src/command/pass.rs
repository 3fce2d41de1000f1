//! Compute passes: pipeline, bind group and immediate state, and the
//! dispatches recorded with it.
//!
//! Each dispatch is validated against the WebGPU rules (pipeline set and
//! valid, every group of its layout bound with a compatible bind group,
//! dynamic offsets in bounds, minimum binding sizes, workgroup-count limit,
//! no writable storage range aliased by another binding of the same
//! dispatch) and lowered on the spot: binding addresses (buffer address +
//! entry offset + dynamic offset), binding sizes, immediates and hidden
//! arguments go into the kernarg bytes. The pass holds the encoder until it
//! is dropped; the commands reach the encoder then.

use std::marker::PhantomData;
use std::sync::Arc;

use aqueduct_hsa::code_object::{ArgRef, CodeObjectError, KernargBuilder, KernelInfo};
use wgpu_types::{BufferBindingType, BufferUsages, Features};

use super::arena::Span;
use super::encoder::{EncoderState, Recording};
use super::hazard::{Access, NOT_BOUND};
use super::lower::{self, Op, PacketRole, PatchWork, Work};
use crate::binding::{BindGroup, LOOKAHEAD};
use crate::buffer::Buffer;
use crate::device::DeviceShared;
use crate::error::{
    BufferRole, CommandError, DispatchError, ObjectKind, PassError, TimestampError, same_device,
};
use crate::lock_rank::Mutex;
use crate::pipeline::ComputePipeline;
use crate::query::{ComputePassTimestampWrites, QuerySet};
use crate::shader::EntryPoint;

/// Describes a compute pass.
#[derive(Clone, Debug, Default)]
pub struct ComputePassDescriptor<'a> {
    /// The pass's label, for error messages and debugging.
    pub label: crate::Label<'a>,
    /// Timestamps written at the beginning and end of the pass (needs
    /// Features::TIMESTAMP_QUERY).
    pub timestamp_writes: Option<ComputePassTimestampWrites<'a>>,
}

/// The lists a pass lowers dispatches with, kept with its recording when
/// the pass ends (`Recording::pass_scratch`), so the next pass that takes
/// that recording from the pool starts with their storage.
#[derive(Debug, Default)]
pub(crate) struct PassScratch {
    groups: Vec<Option<BoundGroup>>,
    accesses: Vec<Access>,
    kernarg: Vec<u8>,
    immediate_bytes: Vec<u8>,
}

/// A bind group set at a slot: the group itself is kept by the pass's
/// recording (`Recording::groups`, at index `kept`), so binding a group
/// clones its handle once, for the recording, and dropping it waits for
/// the recording.
#[derive(Clone, Debug)]
struct BoundGroup {
    kept: usize,
    /// The dynamic offsets (the list is reused by the next group set here).
    offsets: Vec<u32>,
}

impl PassScratch {
    /// Forget the bound groups, keeping the storage.
    pub(crate) fn clear(&mut self) {
        self.groups.clear();
        self.accesses.clear();
    }
}

struct PassState {
    pipeline: Option<ComputePipeline>,
    groups: Vec<Option<BoundGroup>>,
    immediates: Vec<u8>,
    /// The 4-byte slots `set_immediates` wrote in this pass (bit n: bytes
    /// 4n..4n + 4): a WGSL entry point's dispatch needs those it reads, as
    /// in wgpu.
    immediate_slots: u64,
    /// Bumped whenever the pipeline, a bind group, its dynamic offsets or
    /// the immediates change (setting the same state again does not).
    generation: u64,
    /// The last direct dispatch, reusable while `generation` is unchanged.
    template: Option<DispatchTemplate>,
    /// Bumped whenever the immediates' bytes change.
    immediates_generation: u64,
    /// The kernarg bytes of the last direct dispatch, which the next one
    /// of the same pipeline, counts and immediates starts from.
    kernarg_template: Option<KernargTemplate>,
    rec: Recording,
    /// The end-of-pass timestamp (query set, index), written at drop.
    end_timestamp: Option<(QuerySet, u32)>,
    /// A dispatch's accesses while it is lowered, kept between dispatches
    /// so a new binding costs no list allocation.
    accesses: Vec<Access>,
    /// The kernarg builder's segment storage, kept between dispatches.
    kernarg: Vec<u8>,
    /// One immediate argument's bytes while they are set.
    immediate_bytes: Vec<u8>,
}

/// A recorded direct dispatch and the state it was lowered from: the same
/// state and workgroup counts lower to the same packet, so repeating it
/// raises the count of its op when that op is still the recording's last
/// (no validation, kernarg building or allocation), else records one clone
/// of it (its spans name the same accesses and kernarg bytes). The op is
/// read from the recording, not kept here: a dispatch that sets a new
/// bind group lowers anew, and copying its op aside would be wasted.
struct DispatchTemplate {
    generation: u64,
    counts: [u32; 3],
    /// Where the op sits in the pass's recording.
    index: usize,
}

/// Where a direct dispatch's kernarg bytes lie in the recording and what
/// they were built from: a dispatch of the same pipeline, workgroup counts
/// and immediates has the same bytes but for its bindings' arguments (the
/// hidden arguments depend on the kernel and grid alone), so it copies
/// them and overwrites those, with no builder walking the kernel's
/// argument list (a pass binding a new group per dispatch does this).
struct KernargTemplate {
    /// The pipeline's address: `set_pipeline` drops the template, so this
    /// is the pipeline the pass holds (a plain number keeps the pass Send).
    pipeline: usize,
    counts: [u32; 3],
    immediates_generation: u64,
    span: Span,
}

/// Where `bind` writes a dispatch's argument bytes: a builder, or a copy
/// of a template's segment (`KernargTemplate`) whose arguments are
/// overwritten in place.
enum ArgSink<'b, 'k> {
    Builder(&'b mut KernargBuilder<'k>),
    Patch {
        kernel: &'k KernelInfo,
        segment: &'b mut [u8],
    },
}

impl ArgSink<'_, '_> {
    fn set(&mut self, index: usize, bytes: &[u8]) -> Result<(), DispatchError> {
        match self {
            ArgSink::Builder(b) => {
                b.set(ArgRef::Index(index), bytes)?;
            }
            ArgSink::Patch { kernel, segment } => {
                // The template's builder set this argument of the same
                // entry point with bytes of this size, so it exists.
                let arg = kernel.explicit_args().nth(index);
                let dst = arg
                    .filter(|a| a.size as usize == bytes.len())
                    .and_then(|a| segment.get_mut(a.offset as usize..)?.get_mut(..bytes.len()));
                let Some(dst) = dst else {
                    return Err(CodeObjectError::ArgIndexOutOfRange {
                        kernel: kernel.name.clone(),
                        index,
                        count: kernel.explicit_args().count(),
                    }
                    .into());
                };
                dst.copy_from_slice(bytes);
            }
        }
        Ok(())
    }
}

/// A compute pass (ends when dropped).
pub struct ComputePass<'e> {
    encoder: Arc<Mutex<EncoderState>>,
    device: Arc<DeviceShared>,
    state: PassState,
    label: Option<String>,
    _encoder: PhantomData<&'e mut ()>,
}

impl PassState {
    /// The bind group set at `slot`, its dynamic offsets and its index in
    /// the recording's kept groups.
    fn bound(&self, slot: usize) -> Option<(&BindGroup, &[u32], usize)> {
        let g = self.groups.get(slot)?.as_ref()?;
        Some((&self.rec.groups[g.kept], &g.offsets, g.kept))
    }
}

impl<'e> ComputePass<'e> {
    pub(crate) fn new(
        encoder: Arc<Mutex<EncoderState>>,
        device: Arc<DeviceShared>,
        desc: &ComputePassDescriptor<'_>,
    ) -> Self {
        let imm = device.limits.max_immediate_size as usize;
        let mut rec = device.recordings.take();
        let PassScratch {
            groups,
            accesses,
            kernarg,
            immediate_bytes,
        } = std::mem::take(&mut rec.pass_scratch);
        let mut pass = ComputePass {
            encoder,
            device,
            state: PassState {
                pipeline: None,
                groups,
                immediates: vec![0; imm],
                immediate_slots: 0,
                generation: 0,
                template: None,
                immediates_generation: 0,
                kernarg_template: None,
                rec,
                end_timestamp: None,
                accesses,
                kernarg,
                immediate_bytes,
            },
            label: desc.label.map(str::to_string),
            _encoder: PhantomData,
        };
        if let Some(tw) = &desc.timestamp_writes
            && let Err(e) = pass.begin_timestamps(tw)
        {
            pass.fail(PassError::TimestampWrites(e));
        }
        pass
    }

    /// Validate the pass's timestamp writes (WebGPU), record the beginning
    /// one and keep the end one for the drop.
    fn begin_timestamps(
        &mut self,
        tw: &ComputePassTimestampWrites<'_>,
    ) -> Result<(), TimestampError> {
        if !self.device.features.contains(Features::TIMESTAMP_QUERY) {
            return Err(TimestampError::MissingTimestampFeature);
        }
        let (begin, end) = (tw.beginning_of_pass_write_index, tw.end_of_pass_write_index);
        if begin.is_none() && end.is_none() {
            return Err(TimestampError::NoWriteIndex);
        }
        if let Some(index) = begin
            && begin == end
        {
            return Err(TimestampError::SameWriteIndices { index });
        }
        for index in [begin, end].into_iter().flatten() {
            tw.query_set.timestamp_slot(&self.device, index)?;
        }
        if let Some(index) = begin {
            self.record_timestamp(tw.query_set, index)?;
        }
        self.state.end_timestamp = end.map(|index| (tw.query_set.clone(), index));
        Ok(())
    }

    fn record_timestamp(&mut self, query_set: &QuerySet, index: u32) -> Result<(), TimestampError> {
        let (storage, slot) = query_set.timestamp_slot(&self.device, index)?;
        self.state.rec.use_buffer(storage);
        lower::timestamp_op(slot, &mut self.state.rec.ops);
        Ok(())
    }

    /// Write a timestamp inside the pass, after the pass's earlier
    /// dispatches (needs Features::TIMESTAMP_QUERY_INSIDE_PASSES).
    pub fn write_timestamp(&mut self, query_set: &QuerySet, query_index: u32) {
        let r = if self
            .device
            .features
            .contains(Features::TIMESTAMP_QUERY_INSIDE_PASSES)
        {
            self.record_timestamp(query_set, query_index)
        } else {
            Err(TimestampError::MissingInsidePassesFeature)
        };
        if let Err(source) = r {
            self.fail(PassError::WriteTimestamp {
                index: query_index,
                source,
            });
        }
    }

    /// Detach the pass from the encoder's borrow (the encoder stays locked
    /// until the pass is dropped).
    pub fn forget_lifetime(self) -> ComputePass<'static> {
        let mut this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again; each field is moved out exactly once.
        unsafe {
            ComputePass {
                encoder: std::ptr::read(&this.encoder),
                device: std::ptr::read(&this.device),
                state: std::ptr::read(&this.state),
                label: std::mem::take(&mut this.label),
                _encoder: PhantomData,
            }
        }
    }

    fn fail(&mut self, source: PassError) {
        self.state.rec.fail(CommandError::Pass {
            label: self.label.clone(),
            source,
        });
    }

    /// Set the pipeline the following dispatches run; a pipeline that is invalid or of another
    /// device makes the encoder invalid.
    pub fn set_pipeline(&mut self, pipeline: &ComputePipeline) {
        if let Some(current) = &self.state.pipeline
            && Arc::ptr_eq(&current.inner, &pipeline.inner)
        {
            return;
        }
        self.state.generation += 1;
        // The template is only ever of the pipeline set since it was made
        // (a dropped pipeline's address may be a new one's).
        self.state.kernarg_template = None;
        if let Err(e) = same_device(
            ObjectKind::ComputePipeline,
            pipeline.inner.label.as_deref(),
            pipeline.inner.device.id,
            self.device.id,
        ) {
            // Not kept: its kernels and layouts are another device's.
            self.state.pipeline = None;
            return self.fail(PassError::WrongDevice(e));
        }
        if !pipeline.valid() {
            self.fail(PassError::InvalidPipeline {
                pipeline: pipeline.label(),
            });
        }
        if let Some(entry) = &pipeline.inner.entry {
            // Kept alive once per command buffer, however often a pass
            // switches back to it.
            let executables = &mut self.state.rec.executables;
            if !executables
                .iter()
                .any(|e| Arc::ptr_eq(e, &entry.executable))
            {
                executables.push(entry.executable.clone());
            }
        }
        self.state.pipeline = Some(pipeline.clone());
    }

    /// Bind `bind_group` (or unbind with `None`) at `index`, with one dynamic offset per dynamic
    /// binding, in binding order.
    pub fn set_bind_group<'a, BG>(&mut self, index: u32, bind_group: BG, offsets: &[u32])
    where
        Option<&'a BindGroup>: From<BG>,
    {
        let bg: Option<&BindGroup> = bind_group.into();
        if let Some(bg) = bg {
            bg.prefetch();
        }
        let limits = &self.device.limits;
        if index >= limits.max_bind_groups {
            return self.fail(PassError::BindGroupIndex {
                index,
                max: limits.max_bind_groups,
            });
        }
        let slot = index as usize;
        if let (Some(bg), Some((current, current_offsets, _))) = (bg, self.state.bound(slot))
            && Arc::ptr_eq(&bg.inner, &current.inner)
            && same_offsets(current_offsets, offsets)
        {
            // The same bind group and offsets: already validated and bound.
            return;
        }
        self.state.generation += 1;
        if self.state.groups.len() <= slot {
            self.state.groups.resize(slot + 1, None);
        }
        let Some(bg) = bg else {
            self.state.groups[slot] = None;
            return;
        };
        // The recording's kept groups are those this pass set, in order.
        let kept = &self.state.rec.groups;
        if let Some(earlier) = kept.len().checked_sub(LOOKAHEAD).map(|i| &kept[i]) {
            earlier.follow(bg);
        }
        bg.prefetch_successor();
        // The ids first: the check's error names the group by its label,
        // which a matching id needs no read of.
        if bg.inner.device != self.device.id
            && let Err(e) = bg.check_device(&self.device)
        {
            self.state.groups[slot] = None;
            return self.fail(PassError::WrongDevice(e));
        }
        if !bg.inner.valid {
            return self.fail(PassError::InvalidBindGroup { index });
        }
        if offsets.len() != bg.dynamic_count() {
            return self.fail(PassError::DynamicOffsetCount {
                index,
                given: offsets.len(),
                expected: bg.dynamic_count(),
            });
        }
        // (With no offsets, the group has no dynamic entries to look at,
        // and its entry list and cold parts stay untouched.)
        let (entries, cold) = if offsets.is_empty() {
            (&[][..], &[][..])
        } else {
            (bg.inner.entries(), &bg.inner.cold[..])
        };
        let dynamic = entries
            .iter()
            .zip(cold)
            .filter(|(e, _)| e.has_dynamic_offset());
        for ((e, cold), &off) in dynamic.zip(offsets) {
            let align = match e.ty {
                BufferBindingType::Uniform => limits.min_uniform_buffer_offset_alignment,
                BufferBindingType::Storage { .. } => limits.min_storage_buffer_offset_alignment,
            };
            if off % align != 0 {
                return self.fail(PassError::UnalignedDynamicOffset {
                    index,
                    binding: e.binding,
                    offset: off,
                    alignment: align,
                });
            }
            if cold.offset + off as u64 + e.size > cold.buffer.size {
                return self.fail(PassError::DynamicOffsetOverrun {
                    index,
                    binding: e.binding,
                    offset: off,
                    start: cold.offset + off as u64,
                    end: cold.offset + off as u64 + e.size,
                    buffer: cold.buffer.clone(),
                });
            }
        }
        // The slot's offset list is reused: setting groups with dynamic
        // offsets allocates nothing once it has grown.
        let mut list = self.state.groups[slot]
            .take()
            .map(|g| g.offsets)
            .unwrap_or_default();
        list.clear();
        list.extend_from_slice(offsets);
        let kept = self.state.rec.keep_group(bg);
        self.state.groups[slot] = Some(BoundGroup {
            kept,
            offsets: list,
        });
    }

    /// Set `data` at byte `offset` of the immediates (multiples of 4).
    pub fn set_immediates(&mut self, offset: u32, data: &[u8]) {
        let end = offset as usize + data.len();
        if !offset.is_multiple_of(4) || !data.len().is_multiple_of(4) {
            return self.fail(PassError::UnalignedImmediates {
                offset,
                size: data.len(),
            });
        }
        if end > self.state.immediates.len() {
            return self.fail(PassError::ImmediatesOverrun {
                offset,
                end,
                max: self.state.immediates.len(),
            });
        }
        for slot in offset as usize / 4..end / 4 {
            if slot < 64 {
                self.state.immediate_slots |= 1 << slot;
            }
        }
        if self.state.immediates[offset as usize..end] != *data {
            self.state.generation += 1;
            self.state.immediates_generation += 1;
            self.state.immediates[offset as usize..end].copy_from_slice(data);
        }
    }

    /// Dispatch `x * y * z` workgroups of the current pipeline.
    pub fn dispatch_workgroups(&mut self, x: u32, y: u32, z: u32) {
        if self.repeat([x, y, z]) {
            return;
        }
        if let Err(source) = self.dispatch(Grid::Direct([x, y, z])) {
            self.fail(PassError::Dispatch {
                counts: [x, y, z],
                source,
            });
        }
    }

    /// Dispatch with the x, y, z workgroup counts read (by the device) from
    /// 12 bytes of `indirect_buffer` at `indirect_offset`.
    pub fn dispatch_workgroups_indirect(&mut self, indirect_buffer: &Buffer, indirect_offset: u64) {
        if let Err(source) = self.dispatch(Grid::Indirect(indirect_buffer.clone(), indirect_offset))
        {
            self.fail(PassError::DispatchIndirect {
                offset: indirect_offset,
                source,
            });
        }
    }

    /// Record the last direct dispatch again if the state and `counts`
    /// are unchanged (the same packet; its buffers are already in the
    /// recording's used list); false if it must be lowered anew.
    #[inline]
    fn repeat(&mut self, counts: [u32; 3]) -> bool {
        let Some(t) = &mut self.state.template else {
            return false;
        };
        if t.generation != self.state.generation || t.counts != counts {
            return false;
        }
        let ops = &mut self.state.rec.ops;
        let last = ops.len().wrapping_sub(1);
        match ops.last_mut() {
            Some(op) if t.index == last && op.count < u32::MAX => op.count += 1,
            _ => {
                let mut op = ops.ops()[t.index].clone();
                op.count = 1;
                t.index = ops.len();
                ops.push(op);
            }
        }
        true
    }

    fn dispatch(&mut self, grid: Grid) -> Result<(), DispatchError> {
        // Lent out of the state for the dispatch (no reference count
        // traffic per dispatch); nothing below sets the pipeline.
        let Some(pipeline) = self.state.pipeline.take() else {
            return Err(DispatchError::NoPipeline);
        };
        let r = self.dispatch_with(&pipeline, grid);
        self.state.pipeline = Some(pipeline);
        r
    }

    fn dispatch_with(
        &mut self,
        pipeline: &ComputePipeline,
        grid: Grid,
    ) -> Result<(), DispatchError> {
        let entry =
            pipeline
                .inner
                .entry
                .as_ref()
                .ok_or_else(|| DispatchError::InvalidPipeline {
                    pipeline: pipeline.label(),
                })?;
        // Every group of the layout must be bound, compatibly.
        for (i, layout) in pipeline.inner.groups.iter().enumerate() {
            let Some(layout) = layout else { continue };
            let (bg, _, _) =
                self.state
                    .bound(i)
                    .ok_or_else(|| DispatchError::MissingBindGroup {
                        index: i as u32,
                        pipeline: pipeline.label(),
                    })?;
            if !bg.inner.layout.compatible(layout) {
                return Err(DispatchError::IncompatibleBindGroup {
                    index: i as u32,
                    bound: bg.inner.layout.ident(),
                    expected: layout.ident(),
                });
            }
        }
        if let Grid::Direct(counts) = grid
            && let Some(t) = &self.state.kernarg_template
            && t.pipeline == Arc::as_ptr(&pipeline.inner).addr()
            && t.counts == counts
            && t.immediates_generation == self.state.immediates_generation
        {
            let span = t.span;
            return self.dispatch_from_template(pipeline, entry, counts, span);
        }
        // The builder writes into the pass's segment storage, which it
        // hands back whatever the outcome.
        let direct = match grid {
            Grid::Direct(counts) => Some(counts),
            Grid::Indirect(..) => None,
        };
        let before = self.state.rec.ops.len();
        let storage = std::mem::take(&mut self.state.kernarg);
        let mut builder = KernargBuilder::reusing(&entry.kernel.info, storage);
        let r = self.lower_dispatch(pipeline, entry, &mut builder, grid);
        self.state.kernarg = builder.into_storage();
        // A direct dispatch that recorded its op (an empty one records
        // none) is the template for the next.
        if r.is_ok()
            && let Some(counts) = direct
            && self.state.rec.ops.len() == before + 1
            && let Some(Op {
                work: Work::Dispatch(d),
                ..
            }) = self.state.rec.ops.ops().last()
            && d.kernarg.len > 0
        {
            self.state.kernarg_template = Some(KernargTemplate {
                pipeline: Arc::as_ptr(&pipeline.inner).addr(),
                counts,
                immediates_generation: self.state.immediates_generation,
                span: d.kernarg,
            });
        }
        r
    }

    /// A direct dispatch whose kernarg bytes start as a copy of `span`, the
    /// segment of the pass's last direct dispatch of the same pipeline,
    /// workgroup counts and immediates (which passed the grid checks).
    fn dispatch_from_template(
        &mut self,
        pipeline: &ComputePipeline,
        entry: &EntryPoint,
        counts: [u32; 3],
        span: Span,
    ) -> Result<(), DispatchError> {
        let mut kernarg = std::mem::take(self.state.rec.ops.kernarg_mut());
        let start = kernarg.len();
        kernarg.extend_from_within(span.range());
        let mut accesses = std::mem::take(&mut self.state.accesses);
        accesses.clear();
        let mut sink = ArgSink::Patch {
            kernel: &entry.kernel.info,
            segment: &mut kernarg[start..],
        };
        let r = self.bind(pipeline, entry, &mut sink, &mut accesses);
        self.state.accesses = accesses;
        if r.is_err() {
            kernarg.truncate(start);
        }
        *self.state.rec.ops.kernarg_mut() = kernarg;
        r?;
        let wg = entry.workgroup_size;
        let mut g = [0u32; 3];
        for d in 0..3 {
            // The template's counts passed the overflow check.
            g[d] = counts[d].wrapping_mul(wg[d]);
        }
        let kernarg = Span {
            start,
            len: span.len,
        };
        let work = lower::dispatch_work_at(&entry.kernel, g, wg, kernarg);
        self.push_dispatch(counts, work);
        Ok(())
    }

    /// Fill `builder` for a dispatch of `entry` with the bound state and
    /// record its ops.
    fn lower_dispatch(
        &mut self,
        pipeline: &ComputePipeline,
        entry: &EntryPoint,
        builder: &mut KernargBuilder<'_>,
        grid: Grid,
    ) -> Result<(), DispatchError> {
        let mut accesses = std::mem::take(&mut self.state.accesses);
        accesses.clear();
        let r = self.bind(
            pipeline,
            entry,
            &mut ArgSink::Builder(builder),
            &mut accesses,
        );
        self.state.accesses = accesses;
        r?;
        self.record_grid(entry, builder, grid)
    }

    /// The bound entry behind access `k` of `entry`'s dispatch: samplers
    /// push no access, so it is the k-th binding that is not a sampler.
    fn cold_of(&self, entry: &EntryPoint, k: usize) -> &crate::binding::BoundCold {
        let b = entry
            .bindings
            .iter()
            .filter(|b| b.sampler.is_none())
            .nth(k)
            .expect("one access per binding that is not a sampler");
        self.state
            .bound(b.group as usize)
            .and_then(|(bg, _, _)| Some(&bg.inner.cold[bg.inner.entry_index(b.binding)?]))
            .expect("binding resolved when its access was pushed")
    }

    /// Set the binding and immediate arguments of `entry` in `builder` and
    /// its accesses in `accesses`, checking WebGPU's rules on them.
    fn bind(
        &mut self,
        pipeline: &ComputePipeline,
        entry: &EntryPoint,
        builder: &mut ArgSink<'_, '_>,
        accesses: &mut Vec<Access>,
    ) -> Result<(), DispatchError> {
        for b in &entry.bindings {
            let (bg, offsets, _) = self.state.bound(b.group as usize).ok_or_else(|| {
                DispatchError::MissingBindGroup {
                    index: b.group,
                    pipeline: pipeline.label(),
                }
            })?;
            if b.sampler.is_some() {
                // The S# goes into its by-value argument; no memory is read.
                let words = bg
                    .inner
                    .sampler(b.binding)
                    .ok_or(DispatchError::MissingBinding {
                        group: b.group,
                        binding: b.binding,
                    })?;
                let mut bytes = [0u8; 16];
                for (chunk, w) in bytes.chunks_exact_mut(4).zip(words) {
                    chunk.copy_from_slice(&w.to_le_bytes());
                }
                builder.set(b.arg_index, &bytes)?;
                continue;
            }
            let index = bg
                .inner
                .entry_index(b.binding)
                .ok_or(DispatchError::MissingBinding {
                    group: b.group,
                    binding: b.binding,
                })?;
            let e = &bg.inner.entries()[index];
            let dynamic = e.dynamic_index().and_then(|i| offsets.get(usize::from(i)));
            let dynamic = dynamic.map_or(0, |&o| u64::from(o));
            if e.size < b.min_binding_size {
                return Err(DispatchError::BindingTooSmall {
                    group: b.group,
                    binding: b.binding,
                    size: e.size,
                    min: b.min_binding_size,
                });
            }
            if !e.has_memory() {
                return Err(DispatchError::InvalidBindingBuffer {
                    group: b.group,
                    binding: b.binding,
                });
            }
            if e.is_texture()
                && let cold = &bg.inner.cold[index]
                && let Some(image) = &cold.texture
            {
                let mut image = *image;
                image.base_address += cold.va;
                let words = image
                    .encode()
                    .map_err(|source| DispatchError::TextureDescriptor {
                        group: b.group,
                        binding: b.binding,
                        source,
                    })?;
                let mut bytes = [0u8; 32];
                for (chunk, w) in bytes.chunks_exact_mut(4).zip(words) {
                    chunk.copy_from_slice(&w.to_le_bytes());
                }
                builder.set(b.arg_index, &bytes)?;
            } else {
                builder.set(b.arg_index, &(e.addr + dynamic).to_le_bytes())?;
            }
            if let Some((idx, size)) = b.size_arg {
                if size == 8 {
                    builder.set(idx, &e.size.to_le_bytes())?;
                } else {
                    let size = e.size.min(u32::MAX as u64) as u32;
                    builder.set(idx, &size.to_le_bytes())?;
                }
            }
            let ty = if b.exact { b.ty } else { e.ty };
            let write = ty == (BufferBindingType::Storage { read_only: false });
            let mut access = e.access(dynamic, write);
            access.group = u8::try_from(b.group).unwrap_or(NOT_BOUND);
            access.binding = b.binding;
            accesses.push(access);
            let id = e.id;
            self.state.rec.use_binding(id);
        }
        // WebGPU usage scope: a writable storage range may not be bound again
        // in the same dispatch; two views of one texture alias only where
        // their subresources meet (a view's range of a chain covers levels
        // it does not see).
        for (i, a) in accesses.iter().enumerate() {
            for (j, o) in accesses.iter().enumerate() {
                if i != j && a.write && a.range.start < o.range.end && o.range.start < a.range.end {
                    let (ci, cj) = (self.cold_of(entry, i), self.cold_of(entry, j));
                    if ci.disjoint_subresources(cj) {
                        continue;
                    }
                    return Err(DispatchError::WritableAlias {
                        buffer: ci.buffer.clone(),
                    });
                }
            }
        }
        let missing = entry.immediate_slots & !self.state.immediate_slots;
        if missing != 0 {
            return Err(DispatchError::MissingImmediateData { missing });
        }
        let bytes = &mut self.state.immediate_bytes;
        for imm in &entry.immediates {
            bytes.clear();
            bytes.resize(imm.size as usize, 0);
            let start = imm.offset as usize;
            let avail = self
                .state
                .immediates
                .len()
                .saturating_sub(start)
                .min(bytes.len());
            bytes[..avail].copy_from_slice(&self.state.immediates[start..start + avail]);
            builder.set(imm.arg_index, bytes)?;
        }
        Ok(())
    }

    /// Record the ops of a dispatch of `entry` over `grid` whose bindings
    /// are in `builder` and `self.state.accesses`.
    fn record_grid(
        &mut self,
        entry: &EntryPoint,
        builder: &KernargBuilder<'_>,
        grid: Grid,
    ) -> Result<(), DispatchError> {
        let kernel = &entry.kernel;
        let wg = entry.workgroup_size;
        let limit = self.device.limits.max_compute_workgroups_per_dimension;
        let ops = &mut self.state.rec.ops;
        match grid {
            Grid::Direct(counts) => {
                if counts.iter().any(|&c| c > limit) {
                    return Err(DispatchError::InvalidGroupCount {
                        current: counts,
                        limit,
                    });
                }
                if counts.contains(&0) {
                    return Ok(()); // An empty dispatch does nothing.
                }
                let mut g = [0u32; 3];
                for d in 0..3 {
                    g[d] = counts[d]
                        .checked_mul(wg[d])
                        .ok_or(DispatchError::GridOverflow {
                            count: counts[d],
                            workgroup: wg[d],
                        })?;
                }
                // The agent's grid max size bounds the whole grid (the
                // command processor refuses a larger packet).
                let work_items: u128 = g.iter().map(|&n| u128::from(n)).product();
                let max = self.device.agent.grid_max_size;
                if work_items > u128::from(max) {
                    return Err(DispatchError::GridTooLarge {
                        counts,
                        workgroup: wg,
                        work_items,
                        max,
                    });
                }
                let dims = lower::dims_of(g, wg);
                let work = lower::dispatch_work(kernel, builder, g, wg, dims, ops.kernarg_mut())?;
                self.push_dispatch(counts, work);
            }
            Grid::Indirect(buffer, offset) => {
                buffer
                    .check_usable(&self.device, BufferRole::Indirect)
                    .map_err(DispatchError::IndirectUnusable)?;
                if !buffer.usage().contains(BufferUsages::INDIRECT) {
                    return Err(DispatchError::MissingIndirectUsage {
                        buffer: buffer.ident(),
                    });
                }
                if offset % 4 != 0 {
                    return Err(DispatchError::UnalignedIndirectOffset { offset });
                }
                if offset.checked_add(12).is_none_or(|end| end > buffer.size()) {
                    return Err(DispatchError::IndirectOverrun {
                        offset,
                        buffer: buffer.ident(),
                    });
                }
                let args = buffer.access(offset..offset + 12, false);
                let mut work = lower::dispatch_work(kernel, builder, wg, wg, 3, ops.kernarg_mut())?;
                work.patched = true;
                let args_va = args.range.start;
                ops.push_one(
                    PacketRole::IndirectPatch,
                    &[args],
                    Work::Patch(PatchWork {
                        args_va,
                        block_count_offset: entry.block_count_offset,
                        workgroup: wg,
                        max_groups: limit,
                        max_items: self.device.agent.grid_max_size,
                    }),
                );
                ops.push_one(
                    PacketRole::IndirectDispatch,
                    &self.state.accesses,
                    Work::Dispatch(work),
                );
                self.state.rec.use_buffer(&buffer);
            }
        }
        Ok(())
    }
}

impl ComputePass<'_> {
    /// Record direct dispatch `work` of `counts` workgroups with the
    /// accesses in `self.state.accesses`, as the template for repeats.
    fn push_dispatch(&mut self, counts: [u32; 3], work: lower::DispatchWork) {
        let ops = &mut self.state.rec.ops;
        let accesses = ops.push_accesses(&self.state.accesses);
        let op = Op::one(PacketRole::Dispatch, accesses, Work::Dispatch(work));
        self.state.template = Some(DispatchTemplate {
            generation: self.state.generation,
            counts,
            index: ops.len(),
        });
        ops.push(op);
    }
}

/// `a == b` without libc's memcmp for the usual empty lists: a profile of
/// repeated `set_bind_group` + dispatch showed memcmp on two empty slices
/// (dangling addresses) as the largest single cost of the pair.
fn same_offsets(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

enum Grid {
    Direct([u32; 3]),
    Indirect(Buffer, u64),
}

impl Drop for ComputePass<'_> {
    fn drop(&mut self) {
        if let Some((query_set, index)) = self.state.end_timestamp.take()
            && let Err(e) = self.record_timestamp(&query_set, index)
        {
            self.fail(PassError::TimestampWrites(e));
        }
        let mut rec = std::mem::replace(&mut self.state.rec, Recording::new());
        let mut enc = self.encoder.lock_unpoisoned();
        enc.rec.append(&mut rec);
        enc.pass_open = false;
        drop(enc);
        let state = &mut self.state;
        rec.pass_scratch = PassScratch {
            groups: std::mem::take(&mut state.groups),
            accesses: std::mem::take(&mut state.accesses),
            kernarg: std::mem::take(&mut state.kernarg),
            immediate_bytes: std::mem::take(&mut state.immediate_bytes),
        };
        self.device.recordings.give(rec);
    }
}
