//! Lowering: recorded commands become AQL packets.
//!
//! Each command becomes an [`Op`]: the work of one packet (a kernel
//! dispatch with its kernarg bytes, or the patch dispatch in front of an
//! indirect dispatch) plus the device memory it reads and writes.
//! [`plan`] runs the hazard tracker over a submission's ops in order and
//! gives every packet its barrier bit and fence scopes; a final barrier-AND
//! packet (barrier bit set, system-scope release) carries the submission's
//! completion signal, so its completion means the whole submission is done
//! and visible to the host. The queue writes the packets (kernarg blocks
//! from the kernarg ring); [`DebugPacket`] is what tests see of a plan.
//!
//! Copies and clears are blit dispatches of the WGSL kernels in shaders/
//! (`copy_bytes`, `fill_u32`): one work-item per 32-bit word, their params
//! uniform carried at the end of the kernarg block. An indirect dispatch is two packets: the patch
//! kernel, which reads the x/y/z workgroup counts from the indirect buffer
//! and publishes the following dispatch packet (written with an INVALID
//! header, which holds the command processor at it) with the right grid —
//! or turns it into a no-op when a count is 0 or above the limit. A
//! timestamp is one work-item of `write_timestamp` with the barrier bit, so
//! it reads the clock after every earlier packet of the queue completed.

use aqueduct_hsa::code_object::{ArgRef, DispatchShape, KernargBuilder};
use aqueduct_hsa::{Kernel, PacketFence};
use aqueduct_kfd::abi::{FenceScope, packet_type};

use crate::shader::EntryPoint;

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
    /// A timestamp write (write_timestamp kernel; always has the barrier bit).
    Timestamp,
    /// resolve_query_set (copy_bytes from the query set's storage).
    ResolveQuery,
    /// The barrier-AND that completes the submission.
    Completion,
}

/// One planned packet as tests see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebugPacket {
    pub role: PacketRole,
    /// AQL packet type (2 = kernel dispatch, 3 = barrier-AND).
    pub packet_type: u16,
    pub barrier: bool,
    pub acquire: FenceScope,
    pub release: FenceScope,
    /// Grid size in work-items (dispatches; placeholder for indirect ones).
    pub grid: [u32; 3],
    pub workgroup: [u16; 3],
}

/// A kernel dispatch, ready but for its kernarg address.
#[derive(Clone, Debug)]
pub(crate) struct DispatchWork {
    pub kernel_object: u64,
    pub grid: [u32; 3],
    pub workgroup: [u16; 3],
    pub group_segment: u32,
    pub private_segment: u32,
    pub kernarg: Vec<u8>,
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
}

#[derive(Clone, Debug)]
pub(crate) enum Work {
    Dispatch(DispatchWork),
    Patch(PatchWork),
}

#[derive(Clone, Debug)]
pub(crate) struct Op {
    pub role: PacketRole,
    pub accesses: Vec<Access>,
    pub work: Work,
}

/// Barrier bit and scopes of each op, then of the completion packet.
pub(crate) fn plan(ops: &[Op]) -> Vec<PacketFence> {
    let mut tracker = HazardTracker::default();
    let mut fences = Vec::with_capacity(ops.len() + 1);
    for op in ops {
        let barrier = if op.role == PacketRole::Timestamp {
            tracker.record_barrier(&op.accesses);
            true
        } else {
            tracker.record(&op.accesses)
        };
        let (acquire, mut release) = fence_scopes(&op.accesses);
        if matches!(op.work, Work::Patch(_)) {
            // The patch writes a ring packet and kernargs the CP reads.
            release = FenceScope::System;
        }
        fences.push(PacketFence {
            barrier,
            acquire,
            release,
        });
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
pub(crate) fn debug_packets(ops: &[Op]) -> Vec<DebugPacket> {
    let fences = plan(ops);
    let mut out: Vec<DebugPacket> = ops
        .iter()
        .zip(&fences)
        .map(|(op, f)| {
            let (grid, workgroup) = match &op.work {
                Work::Dispatch(d) => (d.grid, d.workgroup),
                Work::Patch(_) => ([1, 1, 1], [1, 1, 1]),
            };
            DebugPacket {
                role: op.role,
                packet_type: packet_type::KERNEL_DISPATCH,
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

/// A dispatch of `kernel` over `grid` work-items with a filled builder.
pub(crate) fn dispatch_work(
    kernel: &Kernel,
    builder: &KernargBuilder<'_>,
    grid: [u32; 3],
    wg: [u32; 3],
    dims: u32,
) -> Result<DispatchWork, String> {
    let shape = DispatchShape::new(grid, wg, dims);
    let kernarg = builder.finish(&shape).map_err(|e| e.to_string())?;
    Ok(DispatchWork {
        kernel_object: kernel.kernel_object,
        grid,
        workgroup: [wg[0] as u16, wg[1] as u16, wg[2] as u16],
        group_segment: kernel.info.group_segment_fixed_size,
        private_segment: kernel.info.private_segment_fixed_size,
        kernarg,
        kernarg_align: (kernel.info.kernarg_segment_align as u64).clamp(16, 64),
        patched: false,
        uniform_in_kernarg: None,
    })
}

/// A blit dispatch of `ep` (a WGSL blit kernel of shaders/, one work-item
/// per destination word): `storage` gives (binding, address, byte size) of
/// each storage binding of group 0, `params` the words of the uniform at
/// `params_binding`, which travels at the end of the kernarg block.
fn blit_work(
    ep: &EntryPoint,
    storage: &[(u32, u64, u64)],
    params_binding: u32,
    params: &[u32],
    words: u32,
) -> Result<DispatchWork, String> {
    let arg_of = |binding: u32| {
        ep.bindings
            .iter()
            .find(|b| b.group == 0 && b.binding == binding)
            .ok_or_else(|| format!("blit kernel `{}` has no binding {binding}", ep.name))
    };
    let mut b = KernargBuilder::new(&ep.kernel.info);
    for &(binding, address, size) in storage {
        let sb = arg_of(binding)?;
        b.set_ptr(ArgRef::Index(sb.arg_index), address)
            .map_err(|e| e.to_string())?;
        if let Some((idx, _)) = sb.size_arg {
            let size = u32::try_from(size)
                .map_err(|_| format!("a blit of {size} bytes is too large (at most 4 GiB - 4)"))?;
            b.set_u32(ArgRef::Index(idx), size)
                .map_err(|e| e.to_string())?;
        }
    }
    let params_arg = arg_of(params_binding)?.arg_index;
    // Placeholder: the queue points it at the params once the block is placed.
    b.set_ptr(ArgRef::Index(params_arg), 0)
        .map_err(|e| e.to_string())?;
    let wg = ep.workgroup_size;
    let grid = [words.div_ceil(wg[0]).max(1) * wg[0], wg[1], wg[2]];
    let mut work = dispatch_work(&ep.kernel, &b, grid, wg, 1)?;
    let arg_offset = ep
        .kernel
        .info
        .explicit_args()
        .nth(params_arg)
        .map(|a| a.offset)
        .ok_or_else(|| format!("blit kernel `{}` lacks its params argument", ep.name))?;
    let data_offset = work.kernarg.len().next_multiple_of(16);
    work.kernarg.resize(data_offset, 0);
    work.kernarg
        .extend(params.iter().flat_map(|w| w.to_le_bytes()));
    work.kernarg
        .resize(work.kernarg.len().next_multiple_of(16), 0);
    work.uniform_in_kernarg = Some(UniformInKernarg {
        arg_offset,
        data_offset: data_offset as u32,
    });
    Ok(work)
}

/// The size in bytes and 32-bit words of a blit over `range`.
fn blit_size(range: &std::ops::Range<u64>, what: &str) -> Result<(u64, u32), String> {
    let size = range.end - range.start;
    if size > u64::from(u32::MAX) {
        return Err(format!(
            "a {what} of {size} bytes is too large (at most 4 GiB - 4 bytes per command)"
        ));
    }
    Ok((size, size.div_ceil(4) as u32))
}

/// Copy `size` bytes (a multiple of 4) between device addresses
/// (`copy_bytes`).
pub(crate) fn copy_op(
    blit: &BlitKernels,
    role: PacketRole,
    src: Access,
    dst: Access,
) -> Result<Op, String> {
    let (size, words) = blit_size(&src.range, "copy")?;
    let work = blit_work(
        &blit.copy,
        &[(0, src.range.start, size), (1, dst.range.start, size)],
        2,
        &[0, 0, size as u32],
        words,
    )?;
    Ok(Op {
        role,
        accesses: vec![src, dst],
        work: Work::Dispatch(work),
    })
}

/// Fill the 32-bit words of `dst` with `value` (`fill_u32`).
pub(crate) fn fill_op(blit: &BlitKernels, dst: Access, value: u32) -> Result<Op, String> {
    let (size, words) = blit_size(&dst.range, "clear")?;
    let work = blit_work(
        &blit.fill,
        &[(0, dst.range.start, size)],
        1,
        &[0, size as u32, value],
        words,
    )?;
    Ok(Op {
        role: PacketRole::Clear,
        accesses: vec![dst],
        work: Work::Dispatch(work),
    })
}

/// The patch kernel's kernarg block, once the target packet's slot and
/// kernarg addresses are known.
pub(crate) fn patch_kernarg(
    blit: &BlitKernels,
    patch: &PatchWork,
    packet_va: u64,
    target_kernarg_va: u64,
    header_dispatch: u32,
    header_nop: u32,
) -> Result<DispatchWork, String> {
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
                .set_u32(ArgRef::Index(9), patch.max_groups)?;
            Ok(())
        };
    set(&mut b).map_err(|e| e.to_string())?;
    dispatch_work(&blit.dispatch_patch, &b, [1, 1, 1], [1, 1, 1], 1)
}

/// A timestamp write: the realtime counter into the 8-byte query slot
/// `slot` (an access of the query set's storage at `8 * index`).
pub(crate) fn timestamp_op(blit: &BlitKernels, slot: Access, index: u32) -> Result<Op, String> {
    let base = slot.range.start - 8 * u64::from(index);
    let mut b = KernargBuilder::new(&blit.write_timestamp.info);
    b.set_ptr(ArgRef::Index(0), base)
        .and_then(|b| b.set_u32(ArgRef::Index(1), index))
        .map_err(|e| e.to_string())?;
    let work = dispatch_work(&blit.write_timestamp, &b, [1, 1, 1], [1, 1, 1], 1)?;
    Ok(Op {
        role: PacketRole::Timestamp,
        accesses: vec![slot],
        work: Work::Dispatch(work),
    })
}
