//! Lowering: recorded commands become AQL packets.
//!
//! Each command becomes an `Op`: the work of one packet (a kernel
//! dispatch with its kernarg bytes, the patch dispatch in front of an
//! indirect dispatch, or a timestamp marker) plus the device memory it
//! reads and writes.
//! `plan` runs the hazard tracker over a submission's ops in order and
//! gives every packet its barrier bit and fence scopes; a final barrier-AND
//! packet (barrier bit set, system-scope release) carries the submission's
//! completion signal, so its completion means the whole submission is done
//! and visible to the host. The queue writes the packets (kernarg blocks
//! from the kernarg ring); [`DebugPacket`] is what tests see of a plan.
//!
//! Copies and clears go to the device's SDMA engine when it has one and
//! they are large enough (`BlitKernels::use_sdma`, `src/queue/sdma.rs`);
//! otherwise they are blit dispatches of the WGSL kernels in shaders/
//! (`copy_bytes`, `fill_u32`): one work-item per 128 bytes, their params
//! uniform carried at the end of the kernarg block. An indirect dispatch is two packets: the patch
//! kernel, which reads the x/y/z workgroup counts from the indirect buffer
//! and publishes the following dispatch packet (written with an INVALID
//! header, which holds the command processor at it) with the right grid —
//! or turns it into a no-op when a count is 0 or above the limit. A
//! timestamp is a marker packet: a barrier-AND with the barrier bit and no
//! dependencies whose completion signal is the query's `amd_signal_t`, so
//! the CP of the profiled queue stamps its `end_ts` once every earlier
//! packet completed (`src/query.rs`). A query resolve gathers those
//! `end_ts` words with the `copy_strided_u64` blit.

use std::sync::Arc;

use aqueduct_hsa::code_object::{ArgRef, DispatchShape, KernargBuilder};
use aqueduct_hsa::{Kernel, PacketFence};
use aqueduct_kfd::abi::{FenceScope, packet_type};

use crate::error::LowerError;
use crate::shader::EntryPoint;

use super::arena::{OpArena, Span};
use super::blit::BlitKernels;
use super::hazard::{Access, HazardTracker, fence_scopes};

/// What a packet does, for the debug view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PacketRole {
    /// A compute pass dispatch.
    Dispatch,
    /// copy_buffer_to_buffer (copy_bytes).
    Copy,
    /// clear_buffer or a new buffer's zero fill (fill_u32).
    Clear,
    /// A queue.write_buffer upload or a mapped-at-creation upload
    /// (copy_bytes from staging).
    Upload,
    /// The patch kernel in front of an indirect dispatch.
    IndirectPatch,
    /// The dispatch an indirect patch publishes.
    IndirectDispatch,
    /// A timestamp write (a barrier-AND marker the CP stamps; always has
    /// the barrier bit).
    Timestamp,
    /// resolve_query_set (copy_strided_u64 from the query set's storage).
    ResolveQuery,
    /// The barrier-AND that completes the submission.
    Completion,
}

/// One planned packet as tests see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebugPacket {
    /// What the packet does.
    pub role: PacketRole,
    /// AQL packet type (2 = kernel dispatch, 3 = barrier-AND: a timestamp
    /// or the completion).
    pub packet_type: u16,
    /// Whether the packet waits for all earlier packets to complete (the AQL barrier bit).
    pub barrier: bool,
    /// The acquire fence scope.
    pub acquire: FenceScope,
    /// The release fence scope.
    pub release: FenceScope,
    /// Grid size in work-items (dispatches; placeholder for indirect ones;
    /// 0 for barrier packets).
    pub grid: [u32; 3],
    /// The workgroup size in work-items.
    pub workgroup: [u16; 3],
}

/// A kernel dispatch, ready but for its kernarg address.
#[derive(Clone, Debug)]
pub(crate) struct DispatchWork {
    pub kernel_object: u64,
    /// The kernel's name, for tracing and fault reports (shared, not copied).
    pub kernel_name: Arc<str>,
    pub grid: [u32; 3],
    pub workgroup: [u16; 3],
    pub group_segment: u32,
    pub private_segment: u32,
    /// The kernarg bytes in the arena of the op (`OpArena::kernarg`).
    pub kernarg: Span,
    pub kernarg_align: u64,
    /// Published by the preceding patch packet (written INVALID).
    pub patched: bool,
    /// A uniform binding whose bytes ride at the end of the kernarg block.
    pub uniform_in_kernarg: Option<UniformInKernarg>,
}

/// A uniform carried in the kernarg block: when the block is placed at
/// address `va`, the queue writes `va + data_offset` into the pointer
/// argument at `arg_offset` (the blit kernels' small params structs need no
/// separate allocation that way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UniformInKernarg {
    pub arg_offset: u32,
    pub data_offset: u32,
}

/// The patch kernel's inputs known at record time.
#[derive(Clone, Debug)]
pub(crate) struct PatchWork {
    pub args_va: u64,
    pub block_count_offset: Option<u32>,
    pub workgroup: [u32; 3],
    pub max_groups: u32,
    /// The agent's grid max size (work-items).
    pub max_items: u32,
}

impl DispatchWork {
    /// Whether `other` is the same packet with the same kernarg bytes (a
    /// clone of this dispatch in the same arena): the queue then places one
    /// kernarg block for both, and writes the same packet image.
    pub(crate) fn same_as(&self, other: &DispatchWork) -> bool {
        self.kernarg == other.kernarg && self.same_but_kernarg(other)
    }

    /// Whether `other` lowers to the same packet but for its kernarg
    /// address (a dispatch of the same kernel and grid whose bindings
    /// differ).
    pub(crate) fn same_but_kernarg(&self, other: &DispatchWork) -> bool {
        self.kernel_object == other.kernel_object
            && self.grid == other.grid
            && self.workgroup == other.workgroup
            && self.group_segment == other.group_segment
            && self.private_segment == other.private_segment
            && self.kernarg_align == other.kernarg_align
            && self.patched == other.patched
            && self.uniform_in_kernarg == other.uniform_in_kernarg
    }
}

/// An op's work. A pass that repeats a dispatch with unchanged state
/// records clones of one op, whose kernarg span is the same, and the queue
/// places one kernarg block for consecutive packets sharing it.
#[derive(Clone, Debug)]
pub(crate) enum Work {
    Dispatch(DispatchWork),
    Patch(PatchWork),
    /// A timestamp marker: a barrier-AND without dependencies completing
    /// `signal`, the address of a query's `amd_signal_t`.
    Timestamp {
        signal: u64,
    },
    /// A copy or fill the device's SDMA engine runs (`src/queue/sdma.rs`):
    /// on the compute queue, a barrier-AND that waits for every earlier
    /// packet and completes the SDMA command's gate signal, then a
    /// barrier-AND on the command's done signal that holds every later
    /// packet (so two packets).
    Sdma(SdmaWork),
}

/// What an SDMA op does; addresses are GPU addresses, sizes multiples of 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SdmaWork {
    Copy { src: u64, dst: u64, bytes: u64 },
    Fill { dst: u64, pattern: u32, bytes: u64 },
}

/// Compute-queue packets of an SDMA op.
pub(crate) const SDMA_OP_PACKETS: u32 = 2;

/// The fence of the barrier-AND after an SDMA command: no barrier bit (a
/// barrier-AND holds the packets after it anyway), a system-scope acquire
/// so later dispatches see what the engine wrote.
pub(crate) fn sdma_wait_fence() -> PacketFence {
    PacketFence {
        barrier: false,
        acquire: FenceScope::System,
        release: FenceScope::None,
    }
}

/// The work of `count` identical packets and the memory each touches (its
/// accesses and kernarg bytes live in the op's arena, `arena.rs`). A
/// dispatch repeated with unchanged pass state is recorded once with its
/// count raised, so recording it again is an increment and the queue
/// writes the run from one packet image.
#[derive(Clone, Debug)]
pub(crate) struct Op {
    pub role: PacketRole,
    /// The accesses in the op's arena (`OpArena::accesses`).
    pub accesses: Span,
    pub work: Work,
    /// Packets this op stands for (at least 1; patch ops and the indirect
    /// dispatches they publish are always 1).
    pub count: u32,
}

impl Op {
    /// One packet of `work`.
    pub(crate) fn one(role: PacketRole, accesses: Span, work: Work) -> Op {
        Op {
            role,
            accesses,
            work,
            count: 1,
        }
    }

    /// Packets the op writes to the compute queue.
    pub(crate) fn packets(&self) -> u32 {
        match self.work {
            Work::Sdma(_) => SDMA_OP_PACKETS,
            _ => self.count,
        }
    }
}

/// The fences of an op's packets: the first one's, and those of the
/// repeats after it (which differ at most in the barrier bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RunFence {
    pub first: PacketFence,
    pub rest: PacketFence,
}

/// Barrier bit and scopes of each op's packets (see [`RunFence`]). The
/// repeats of an op need no tracker work: once its first packet is
/// recorded, the next identical packet conflicts with what is outstanding
/// exactly when it conflicts with itself (any earlier access it could
/// conflict with already made the first packet a barrier, which drained
/// it), and after a barrier repeat the outstanding set is the op's own
/// accesses again, so every repeat gets the same answer. `plan_runs_match_
/// the_packet_by_packet_plan` checks this against the tracker.
pub(crate) fn plan_runs(arena: &OpArena) -> Vec<RunFence> {
    let mut fences = Vec::with_capacity(arena.len());
    plan_runs_into(arena, &mut HazardTracker::default(), &mut fences);
    fences
}

/// [`plan_runs`] with a tracker and a fence list of the caller's (the
/// queue reuses them from one submission to the next): `fences` is
/// replaced by the plan.
pub(crate) fn plan_runs_into(
    arena: &OpArena,
    tracker: &mut HazardTracker,
    fences: &mut Vec<RunFence>,
) {
    tracker.reset();
    fences.clear();
    for op in arena.ops() {
        let accesses = arena.accesses(op);
        if matches!(op.work, Work::Sdma(_)) {
            // The gate packet waits for everything before it and makes it
            // visible to the engine; the wait packet after the command
            // holds everything after it.
            tracker.record_barrier(accesses);
            let gate = PacketFence {
                barrier: true,
                acquire: FenceScope::None,
                release: FenceScope::System,
            };
            fences.push(RunFence {
                first: gate,
                rest: gate,
            });
            continue;
        }
        let timestamp = op.role == PacketRole::Timestamp;
        let barrier = if timestamp {
            tracker.record_barrier(accesses);
            true
        } else {
            tracker.record(accesses)
        };
        let (acquire, mut release) = fence_scopes(accesses);
        if matches!(op.work, Work::Patch(_)) {
            // The patch writes a ring packet and kernargs the CP reads.
            release = FenceScope::System;
        }
        let first = PacketFence {
            barrier,
            acquire,
            release,
        };
        let rest_barrier = op.count > 1 && (timestamp || conflicts_with_itself(accesses));
        if rest_barrier {
            tracker.record_barrier(accesses);
        }
        fences.push(RunFence {
            first,
            rest: PacketFence {
                barrier: rest_barrier,
                ..first
            },
        });
    }
}

/// Whether a packet with `accesses` conflicts with a second copy of itself.
fn conflicts_with_itself(accesses: &[Access]) -> bool {
    accesses
        .iter()
        .any(|a| accesses.iter().any(|b| a.conflicts(b)))
}

/// Barrier bit and scopes of each packet (an op's repeats included), then
/// of the completion packet.
pub(crate) fn plan(arena: &OpArena) -> Vec<PacketFence> {
    let runs = plan_runs(arena);
    let ops = arena.ops();
    let mut fences = Vec::with_capacity(ops.iter().map(|o| o.count as usize).sum::<usize>() + 1);
    for (op, run) in ops.iter().zip(&runs) {
        fences.push(run.first);
        if matches!(op.work, Work::Sdma(_)) {
            fences.push(sdma_wait_fence());
        } else {
            fences.extend((1..op.count).map(|_| run.rest));
        }
    }
    fences.push(completion_fence());
    fences
}

pub(crate) fn completion_fence() -> PacketFence {
    PacketFence {
        barrier: true,
        acquire: FenceScope::None,
        release: FenceScope::System,
    }
}

/// The debug view of a plan.
pub(crate) fn debug_packets(arena: &OpArena) -> Vec<DebugPacket> {
    let fences = plan(arena);
    let mut out: Vec<DebugPacket> = arena
        .ops()
        .iter()
        .flat_map(|op| std::iter::repeat_n(op, op.packets() as usize))
        .zip(&fences)
        .map(|(op, f)| {
            let (kind, grid, workgroup) = match &op.work {
                Work::Dispatch(d) => (packet_type::KERNEL_DISPATCH, d.grid, d.workgroup),
                Work::Patch(_) => (packet_type::KERNEL_DISPATCH, [1, 1, 1], [1, 1, 1]),
                Work::Timestamp { .. } | Work::Sdma(_) => {
                    (packet_type::BARRIER_AND, [0; 3], [0; 3])
                }
            };
            DebugPacket {
                role: op.role,
                packet_type: kind,
                barrier: f.barrier,
                acquire: f.acquire,
                release: f.release,
                grid,
                workgroup,
            }
        })
        .collect();
    let f = fences[fences.len() - 1];
    out.push(DebugPacket {
        role: PacketRole::Completion,
        packet_type: packet_type::BARRIER_AND,
        barrier: f.barrier,
        acquire: f.acquire,
        release: f.release,
        grid: [0; 3],
        workgroup: [0; 3],
    });
    out
}

/// The number of dimensions a dispatch of `grid` in groups of `wg` has.
pub(crate) fn dims_of(grid: [u32; 3], wg: [u32; 3]) -> u32 {
    if grid[2] > 1 || wg[2] > 1 {
        3
    } else if grid[1] > 1 || wg[1] > 1 {
        2
    } else {
        1
    }
}

/// A dispatch of `kernel` over `grid` work-items with a filled builder;
/// its kernarg segment is appended to `kernarg` (an arena's, or a list of
/// its own), which its span refers to.
pub(crate) fn dispatch_work(
    kernel: &Kernel,
    builder: &KernargBuilder<'_>,
    grid: [u32; 3],
    wg: [u32; 3],
    dims: u32,
    kernarg: &mut Vec<u8>,
) -> Result<DispatchWork, LowerError> {
    let shape = DispatchShape::new(grid, wg, dims);
    let start = kernarg.len();
    builder.finish_into(&shape, kernarg)?;
    let kernarg = Span {
        start,
        len: kernarg.len() - start,
    };
    Ok(dispatch_work_at(kernel, grid, wg, kernarg))
}

/// A dispatch of `kernel` over `grid` whose kernarg bytes are already at
/// `kernarg` in the arena.
pub(crate) fn dispatch_work_at(
    kernel: &Kernel,
    grid: [u32; 3],
    wg: [u32; 3],
    kernarg: Span,
) -> DispatchWork {
    DispatchWork {
        kernel_object: kernel.kernel_object,
        kernel_name: kernel.name.clone(),
        grid,
        workgroup: [wg[0] as u16, wg[1] as u16, wg[2] as u16],
        group_segment: kernel.info.group_segment_fixed_size,
        private_segment: kernel.info.private_segment_fixed_size,
        kernarg,
        kernarg_align: (kernel.info.kernarg_segment_align as u64).clamp(16, 64),
        patched: false,
        uniform_in_kernarg: None,
    }
}

/// A blit dispatch of `ep` (a WGSL blit kernel of shaders/; its `items`
/// work-items walk the destination's 16-byte groups): `storage` gives (binding,
/// address, byte size) of each storage binding of group 0, `params` the
/// words of the uniform at `params_binding`, which travels at the end of
/// the kernarg block. The kernels see their buffers as arrays of vec4, so
/// each binding's size is rounded up to 16 bytes (its last partial group
/// stays in bounds); they never touch a byte past the range in `params`.
/// The kernarg block goes to the end of `kernarg`.
fn blit_work(
    ep: &EntryPoint,
    storage: &[(u32, u64, u64)],
    params_binding: u32,
    params: &[u32],
    items: u32,
    kernarg: &mut Vec<u8>,
) -> Result<DispatchWork, LowerError> {
    let arg_of = |binding: u32| {
        ep.bindings
            .iter()
            .find(|b| b.group == 0 && b.binding == binding)
            .ok_or_else(|| LowerError::MissingBlitBinding {
                kernel: ep.name.clone(),
                binding,
            })
    };
    let mut b = KernargBuilder::new(&ep.kernel.info);
    for &(binding, address, size) in storage {
        let sb = arg_of(binding)?;
        b.set_ptr(ArgRef::Index(sb.arg_index), address)?;
        if let Some((idx, _)) = sb.size_arg {
            let size = u32::try_from(size.next_multiple_of(16))
                .map_err(|_| LowerError::BlitTooLarge { what: "blit", size })?;
            b.set_u32(ArgRef::Index(idx), size)?;
        }
    }
    let params_arg = arg_of(params_binding)?.arg_index;
    // Placeholder: the queue points it at the params once the block is placed.
    b.set_ptr(ArgRef::Index(params_arg), 0)?;
    let wg = ep.workgroup_size;
    let grid = [items.div_ceil(wg[0]).max(1) * wg[0], wg[1], wg[2]];
    let mut work = dispatch_work(&ep.kernel, &b, grid, wg, 1, kernarg)?;
    let arg_offset = ep
        .kernel
        .info
        .explicit_args()
        .nth(params_arg)
        .map(|a| a.offset)
        .ok_or_else(|| LowerError::MissingParamsArgument {
            kernel: ep.name.clone(),
        })?;
    // The params after the segment, both in whole 16-byte groups.
    let start = work.kernarg.start;
    let data_offset = work.kernarg.len.next_multiple_of(16);
    kernarg.resize(start + data_offset, 0);
    kernarg.extend(params.iter().flat_map(|w| w.to_le_bytes()));
    kernarg.resize(start + (kernarg.len() - start).next_multiple_of(16), 0);
    work.kernarg.len = kernarg.len() - start;
    work.uniform_in_kernarg = Some(UniformInKernarg {
        arg_offset,
        data_offset: data_offset as u32,
    });
    Ok(work)
}

/// 16-byte groups each blit work-item moves: the kernels' setup (about 70
/// wave instructions) is paid once per 128 bytes, and a 1 MiB copy is
/// still 32 workgroups to spread over the worker threads.
const BLIT_GROUPS_PER_ITEM: u64 = 8;

/// The size in bytes and work-items of a blit over `range`.
fn blit_size(range: &std::ops::Range<u64>, what: &'static str) -> Result<(u64, u32), LowerError> {
    let size = range.end - range.start;
    if size > u64::from(!15u32) {
        return Err(LowerError::BlitTooLarge { what, size });
    }
    Ok((size, size.div_ceil(16 * BLIT_GROUPS_PER_ITEM) as u32))
}

/// Bytes one blit packet covers at most: a copy or clear over more is
/// split into packets of this size (their ranges are disjoint, so they may
/// run concurrently). 1 GiB keeps the u32 sizes and work-item counts of the
/// blit kernels far from overflow.
pub(crate) const BLIT_CHUNK: u64 = 1 << 30;

/// `range` cut into consecutive pieces of at most `chunk` bytes.
pub(crate) fn chunks(
    range: std::ops::Range<u64>,
    chunk: u64,
) -> impl Iterator<Item = std::ops::Range<u64>> {
    let chunk = chunk.max(4);
    let mut at = range.start;
    std::iter::from_fn(move || {
        (at < range.end).then(|| {
            let end = range.end.min(at.saturating_add(chunk));
            let piece = at..end;
            at = end;
            piece
        })
    })
}

fn sub_access(a: &Access, range: std::ops::Range<u64>) -> Access {
    Access {
        range,
        write: a.write,
        host_visible: a.host_visible,
        object: a.object,
        group: a.group,
        binding: a.binding,
    }
}

/// Run `lower` on `arena`; on an error, drop what it pushed.
fn all_or_nothing(
    arena: &mut OpArena,
    lower: impl FnOnce(&mut OpArena) -> Result<(), LowerError>,
) -> Result<(), LowerError> {
    let mark = arena.mark();
    lower(arena).inspect_err(|_| arena.truncate(mark))
}

/// [`copy_ops_into`] into an arena of their own (uploads the queue keeps
/// pending until the next submission).
pub(crate) fn copy_ops(
    blit: &BlitKernels,
    role: PacketRole,
    src: Access,
    dst: Access,
) -> Result<OpArena, LowerError> {
    let mut arena = OpArena::default();
    copy_ops_into(blit, role, src, dst, &mut arena)?;
    Ok(arena)
}

/// Copy `size` bytes (a multiple of 4) between device addresses
/// (`copy_bytes`): one packet per [`BLIT_CHUNK`], pushed to `arena` (none
/// on an error).
pub(crate) fn copy_ops_into(
    blit: &BlitKernels,
    role: PacketRole,
    src: Access,
    dst: Access,
    arena: &mut OpArena,
) -> Result<(), LowerError> {
    let bytes = src.range.end - src.range.start;
    if blit.use_sdma(bytes) {
        let work = SdmaWork::Copy {
            src: src.range.start,
            dst: dst.range.start,
            bytes,
        };
        arena.push_one(role, &[src, dst], Work::Sdma(work));
        return Ok(());
    }
    copy_ops_chunked(blit, role, src, dst, BLIT_CHUNK, arena)
}

pub(crate) fn copy_ops_chunked(
    blit: &BlitKernels,
    role: PacketRole,
    src: Access,
    dst: Access,
    chunk: u64,
    arena: &mut OpArena,
) -> Result<(), LowerError> {
    let delta = dst.range.start.wrapping_sub(src.range.start);
    all_or_nothing(arena, |arena| {
        for piece in chunks(src.range.clone(), chunk) {
            let d = piece.start.wrapping_add(delta)..piece.end.wrapping_add(delta);
            copy_op(
                blit,
                role,
                sub_access(&src, piece),
                sub_access(&dst, d),
                arena,
            )?;
        }
        Ok(())
    })
}

/// Copy one blit's worth (at most 4 GiB - 16 bytes) between device addresses.
pub(crate) fn copy_op(
    blit: &BlitKernels,
    role: PacketRole,
    src: Access,
    dst: Access,
    arena: &mut OpArena,
) -> Result<(), LowerError> {
    let (size, items) = blit_size(&src.range, "copy")?;
    all_or_nothing(arena, |arena| {
        let work = blit_work(
            &blit.copy,
            &[(0, src.range.start, size), (1, dst.range.start, size)],
            2,
            &[0, 0, size as u32],
            items,
            arena.kernarg_mut(),
        )?;
        arena.push_one(role, &[src, dst], Work::Dispatch(work));
        Ok(())
    })
}

/// [`fill_ops_into`] into an arena of their own (a new buffer's zero fill,
/// pending until the next submission).
pub(crate) fn fill_ops(blit: &BlitKernels, dst: Access, value: u32) -> Result<OpArena, LowerError> {
    let mut arena = OpArena::default();
    fill_ops_into(blit, dst, value, &mut arena)?;
    Ok(arena)
}

/// Fill the 32-bit words of `dst` with `value` (`fill_u32`): one packet
/// per [`BLIT_CHUNK`], pushed to `arena` (none on an error).
pub(crate) fn fill_ops_into(
    blit: &BlitKernels,
    dst: Access,
    value: u32,
    arena: &mut OpArena,
) -> Result<(), LowerError> {
    let bytes = dst.range.end - dst.range.start;
    if blit.use_sdma(bytes) && dst.range.start.is_multiple_of(4) && bytes.is_multiple_of(4) {
        let work = SdmaWork::Fill {
            dst: dst.range.start,
            pattern: value,
            bytes,
        };
        arena.push_one(PacketRole::Clear, &[dst], Work::Sdma(work));
        return Ok(());
    }
    fill_ops_chunked(blit, dst, value, BLIT_CHUNK, arena)
}

pub(crate) fn fill_ops_chunked(
    blit: &BlitKernels,
    dst: Access,
    value: u32,
    chunk: u64,
    arena: &mut OpArena,
) -> Result<(), LowerError> {
    all_or_nothing(arena, |arena| {
        for piece in chunks(dst.range.clone(), chunk) {
            fill_op(blit, sub_access(&dst, piece), value, arena)?;
        }
        Ok(())
    })
}

/// Fill one blit's worth of `dst` with `value`.
pub(crate) fn fill_op(
    blit: &BlitKernels,
    dst: Access,
    value: u32,
    arena: &mut OpArena,
) -> Result<(), LowerError> {
    let (size, items) = blit_size(&dst.range, "clear")?;
    all_or_nothing(arena, |arena| {
        let work = blit_work(
            &blit.fill,
            &[(0, dst.range.start, size)],
            1,
            &[0, size as u32, value],
            items,
            arena.kernarg_mut(),
        )?;
        arena.push_one(PacketRole::Clear, &[dst], Work::Dispatch(work));
        Ok(())
    })
}

/// The patch kernel's dispatch and kernarg block (the dispatch's span
/// covers all of it), once the target packet's slot and kernarg addresses
/// are known.
pub(crate) fn patch_kernarg(
    blit: &BlitKernels,
    patch: &PatchWork,
    packet_va: u64,
    target_kernarg_va: u64,
    header_dispatch: u32,
    header_nop: u32,
) -> Result<(DispatchWork, Vec<u8>), LowerError> {
    let mut b = KernargBuilder::new(&blit.dispatch_patch.info);
    let set =
        |b: &mut KernargBuilder<'_>| -> Result<(), aqueduct_hsa::code_object::CodeObjectError> {
            b.set_ptr(ArgRef::Index(0), patch.args_va)?
                .set_ptr(ArgRef::Index(1), packet_va)?
                .set_ptr(ArgRef::Index(2), target_kernarg_va)?
                .set_u32(
                    ArgRef::Index(3),
                    patch.block_count_offset.unwrap_or(u32::MAX),
                )?
                .set_u32(ArgRef::Index(4), header_dispatch)?
                .set_u32(ArgRef::Index(5), header_nop)?
                .set_u32(ArgRef::Index(6), patch.workgroup[0])?
                .set_u32(ArgRef::Index(7), patch.workgroup[1])?
                .set_u32(ArgRef::Index(8), patch.workgroup[2])?
                .set_u32(ArgRef::Index(9), patch.max_groups)?
                .set_u32(ArgRef::Index(10), patch.max_items)?;
            Ok(())
        };
    set(&mut b)?;
    let mut kernarg = Vec::new();
    let work = dispatch_work(
        &blit.dispatch_patch,
        &b,
        [1, 1, 1],
        [1, 1, 1],
        1,
        &mut kernarg,
    )?;
    Ok((work, kernarg))
}

/// A timestamp write: a marker packet completing the query's
/// `amd_signal_t` at `slot` (an access of the query set's storage covering
/// that signal, which the CP writes), pushed to `arena`.
pub(crate) fn timestamp_op(slot: Access, arena: &mut OpArena) {
    let signal = slot.range.start;
    arena.push_one(PacketRole::Timestamp, &[slot], Work::Timestamp { signal });
}

/// Work-items of one `copy_strided_u64` workgroup.
const STRIDED_COPY_WORKGROUP: u32 = 256;

/// Copy `count` 8-byte words, the first at `src.range.start` and each
/// next one `src_stride` bytes on, to consecutive words at `dst`
/// (`copy_strided_u64`, one work-item per word): a query resolve, where
/// `src` covers the `end_ts` fields of the resolved queries' signals.
/// Pushed to `arena`.
pub(crate) fn strided_copy_op(
    blit: &BlitKernels,
    role: PacketRole,
    src: Access,
    src_stride: u32,
    dst: Access,
    count: u32,
    arena: &mut OpArena,
) -> Result<(), LowerError> {
    let kernel = &blit.copy_strided;
    let mut b = KernargBuilder::new(&kernel.info);
    b.set_ptr(ArgRef::Index(0), src.range.start)?
        .set_u32(ArgRef::Index(1), src_stride)?
        .set_ptr(ArgRef::Index(2), dst.range.start)?
        .set_u32(ArgRef::Index(3), count)?;
    let wg = count.clamp(1, STRIDED_COPY_WORKGROUP);
    all_or_nothing(arena, |arena| {
        let grid = [count.max(1), 1, 1];
        let work = dispatch_work(kernel, &b, grid, [wg, 1, 1], 1, arena.kernarg_mut())?;
        arena.push_one(role, &[src, dst], Work::Dispatch(work));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device() -> crate::Device {
        let instance = crate::Instance::with_device(crate::DeviceChoice::Sim);
        let adapter =
            crate::block_on(instance.request_adapter(&Default::default())).expect("gfxsim adapter");
        crate::block_on(adapter.request_device(&Default::default()))
            .expect("device")
            .0
    }

    fn access(range: std::ops::Range<u64>, write: bool) -> Access {
        Access {
            range,
            write,
            host_visible: false,
            object: 0,
            group: crate::command::hazard::NOT_BOUND,
            binding: 0,
        }
    }

    /// The explicit argument `index` of a blit's kernarg block, as a u64 pointer.
    fn pointer_arg(ep: &EntryPoint, arena: &OpArena, work: &DispatchWork, index: usize) -> u64 {
        let kernarg = arena.kernarg(work.kernarg);
        let offset = ep
            .kernel
            .info
            .explicit_args()
            .nth(index)
            .map(|a| a.offset as usize)
            .expect("argument");
        u64::from_le_bytes(kernarg[offset..offset + 8].try_into().expect("8 bytes"))
    }

    /// The params uniform words at the end of a blit's kernarg block.
    fn params(arena: &OpArena, work: &DispatchWork) -> [u32; 3] {
        let kernarg = arena.kernarg(work.kernarg);
        let at = work
            .uniform_in_kernarg
            .expect("params in kernarg")
            .data_offset as usize;
        let word = |i: usize| {
            u32::from_le_bytes(kernarg[at + 4 * i..at + 4 * i + 4].try_into().expect("4"))
        };
        [word(0), word(1), word(2)]
    }

    fn dispatch(op: &Op) -> &DispatchWork {
        match &op.work {
            Work::Dispatch(d) => d,
            Work::Patch(_) | Work::Timestamp { .. } | Work::Sdma(_) => {
                panic!("a blit is a dispatch")
            }
        }
    }

    /// A dispatch writing X, an SDMA copy X → Y, a dispatch reading Y: the
    /// copy is a gate packet (barrier bit, system release) and a wait
    /// packet (system acquire), and the dispatch after it still waits for
    /// the copy's write.
    #[test]
    fn an_sdma_op_is_a_gate_and_a_wait_between_its_neighbours() {
        let (x, y) = (0x1_0000..0x2_0000, 0x3_0000..0x4_0000);
        let mut ops = OpArena::default();
        dispatch_op(
            &mut ops,
            PacketRole::Dispatch,
            &[access(x.clone(), true)],
            1,
        );
        ops.push_one(
            PacketRole::Copy,
            &[access(x.clone(), false), access(y.clone(), true)],
            Work::Sdma(SdmaWork::Copy {
                src: x.start,
                dst: y.start,
                bytes: x.end - x.start,
            }),
        );
        dispatch_op(&mut ops, PacketRole::Dispatch, &[access(y, false)], 1);
        let packets: Vec<_> = debug_packets(&ops)
            .iter()
            .map(|p| (p.role, p.packet_type, p.barrier, p.acquire, p.release))
            .collect();
        let (sys, none) = (FenceScope::System, FenceScope::None);
        assert_eq!(
            packets[1],
            (PacketRole::Copy, packet_type::BARRIER_AND, true, none, sys)
        );
        assert_eq!(
            packets[2],
            (PacketRole::Copy, packet_type::BARRIER_AND, false, sys, none)
        );
        assert_eq!(packets[3].0, PacketRole::Dispatch);
        assert!(packets[3].2, "the reader of Y waits for the copy's write");
        assert_eq!(packets.len(), 5, "two dispatches, gate, wait, completion");
        assert_eq!(ops.ops()[1].packets(), SDMA_OP_PACKETS);
    }

    /// Push an op of `count` dispatch packets with `accesses` (no device
    /// needed) to `arena`.
    fn dispatch_op(arena: &mut OpArena, role: PacketRole, accesses: &[Access], count: u32) {
        let start = arena.kernarg_mut().len();
        arena.kernarg_mut().extend_from_slice(&[0; 16]);
        let work = DispatchWork {
            kernel_object: 0x1000,
            kernel_name: Arc::from("k"),
            grid: [64, 1, 1],
            workgroup: [64, 1, 1],
            group_segment: 0,
            private_segment: 0,
            kernarg: Span { start, len: 16 },
            kernarg_align: 16,
            patched: false,
            uniform_in_kernarg: None,
        };
        let accesses = arena.push_accesses(accesses);
        arena.push(Op {
            count,
            ..Op::one(role, accesses, Work::Dispatch(work))
        });
    }

    /// Planning runs gives every packet the fence that planning the same
    /// packets one op each gives (the hazard tracker packet by packet), for
    /// random runs of reads and writes over a small address space, with
    /// self-conflicting runs (a write), independent ones and timestamps.
    #[test]
    fn plan_runs_match_the_packet_by_packet_plan() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let (mut self_conflicting, mut repeats_free) = (0, 0);
        for _ in 0..200 {
            let (mut runs, mut packets) = (OpArena::default(), OpArena::default());
            for _ in 0..1 + next(12) {
                let accesses: Vec<Access> = (0..1 + next(3))
                    .map(|_| {
                        let start = 16 * next(16);
                        let len = 16 * next(4);
                        let host_visible = next(4) == 0;
                        Access {
                            range: start..start + len,
                            write: next(3) == 0,
                            host_visible,
                            object: 0,
                            group: crate::command::hazard::NOT_BOUND,
                            binding: 0,
                        }
                    })
                    .collect();
                let role = if next(16) == 0 {
                    PacketRole::Timestamp
                } else {
                    PacketRole::Dispatch
                };
                let count = if role == PacketRole::Timestamp {
                    1
                } else {
                    1 + next(4) as u32
                };
                dispatch_op(&mut runs, role, &accesses, count);
                for _ in 0..count {
                    dispatch_op(&mut packets, role, &accesses, 1);
                }
            }
            assert_eq!(plan(&runs), plan(&packets), "{runs:?}");
            for (op, f) in runs.ops().iter().zip(plan_runs(&runs)) {
                if op.count > 1 {
                    if f.rest.barrier {
                        self_conflicting += 1;
                    } else {
                        repeats_free += 1;
                    }
                }
            }
        }
        assert!(
            self_conflicting > 50 && repeats_free > 50,
            "{self_conflicting} {repeats_free}"
        );
    }

    #[test]
    fn chunks_cover_a_range_exactly_once() {
        let pieces: Vec<_> = chunks(10..30, 8).collect();
        assert_eq!(pieces, [10..18, 18..26, 26..30]);
        assert_eq!(chunks(0..16, 8).collect::<Vec<_>>(), [0..8, 8..16]);
        assert_eq!(chunks(5..5, 8).count(), 0);
        let top = u64::MAX - 8..u64::MAX;
        assert_eq!(chunks(top.clone(), 1 << 30).collect::<Vec<_>>(), [top]);
    }

    /// A 5 GiB + 12 byte copy (addresses only: nothing is allocated)
    /// becomes six copy_bytes packets over consecutive, disjoint pieces,
    /// with the right pointers and sizes in each kernarg block, and no
    /// barrier between them.
    #[test]
    fn copies_over_4_gib_split_into_disjoint_blits() {
        let dev = device();
        let blit = &dev.shared.blit;
        let (src, dst) = (0x7000_0000_0000u64, 0x7400_0000_0000u64);
        let size = 5 * BLIT_CHUNK + 12;
        // The blit path (copy_ops sends a copy this large to the SDMA
        // engine when the device has one).
        let mut ops = OpArena::default();
        copy_ops_chunked(
            blit,
            PacketRole::Copy,
            access(src..src + size, false),
            access(dst..dst + size, true),
            BLIT_CHUNK,
            &mut ops,
        )
        .expect("split copy");
        assert_eq!(ops.len(), 6);
        let src_arg = blit.copy.bindings[0].arg_index;
        let dst_arg = blit.copy.bindings[1].arg_index;
        for (k, op) in ops.ops().iter().enumerate() {
            let at = k as u64 * BLIT_CHUNK;
            let len = if k == 5 { 12 } else { BLIT_CHUNK };
            let accesses = ops.accesses(op);
            assert_eq!(accesses[0], access(src + at..src + at + len, false));
            assert_eq!(accesses[1], access(dst + at..dst + at + len, true));
            let d = dispatch(op);
            assert_eq!(pointer_arg(&blit.copy, &ops, d, src_arg), src + at);
            assert_eq!(pointer_arg(&blit.copy, &ops, d, dst_arg), dst + at);
            assert_eq!(params(&ops, d), [0, 0, len as u32]);
            let items = len.div_ceil(16 * 8) as u32;
            assert_eq!(d.grid[0], items.div_ceil(256) * 256);
        }
        let fences = plan(&ops);
        assert!(fences[..6].iter().all(|f| !f.barrier), "{fences:?}");
        // One op for a copy that fits.
        let one = copy_ops(
            blit,
            PacketRole::Copy,
            access(src..src + 64, false),
            access(dst..dst + 64, true),
        )
        .expect("copy");
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn clears_over_4_gib_split_and_a_later_reader_waits_for_all() {
        let dev = device();
        let blit = &dev.shared.blit;
        let base = 0x7800_0000_0000u64;
        let size = 4 * BLIT_CHUNK; // exactly 4 GiB: one byte past a single blit's limit
        // The blit path, as above.
        let mut ops = OpArena::default();
        fill_ops_chunked(
            blit,
            access(base..base + size, true),
            0,
            BLIT_CHUNK,
            &mut ops,
        )
        .expect("split clear");
        assert_eq!(ops.len(), 4);
        for (k, op) in ops.ops().iter().enumerate() {
            let at = base + k as u64 * BLIT_CHUNK;
            assert_eq!(ops.accesses(op)[0], access(at..at + BLIT_CHUNK, true));
            let d = dispatch(op);
            let arg = blit.fill.bindings[0].arg_index;
            assert_eq!(pointer_arg(&blit.fill, &ops, d, arg), at);
            assert_eq!(params(&ops, d), [0, BLIT_CHUNK as u32, 0]);
        }
        // A small chunk gives the same cover.
        let mut small = OpArena::default();
        fill_ops_chunked(blit, access(base..base + 40, true), 7, 16, &mut small).expect("fill");
        let ranges: Vec<_> = small
            .ops()
            .iter()
            .map(|o| small.accesses(o)[0].range.clone())
            .collect();
        assert_eq!(
            ranges,
            [base..base + 16, base + 16..base + 32, base + 32..base + 40]
        );
        // A copy reading the last piece must wait: barrier on the reader only.
        copy_ops_into(
            blit,
            PacketRole::Copy,
            access(base + size - 4..base + size, false),
            access(0x7c00_0000_0000..0x7c00_0000_0004, true),
            &mut ops,
        )
        .expect("copy");
        let barriers: Vec<bool> = plan(&ops).iter().map(|f| f.barrier).collect();
        assert_eq!(barriers, [false, false, false, false, true, true]);
    }
}
