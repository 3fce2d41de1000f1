//! One kernel dispatch through the HSA runtime on a side's queue: buffers
//! in fine-grained memory filled from the caller's bytes, kernargs built
//! from the kernel's own metadata, one completion signal waited for, the
//! buffers read back. The corpus, the vector_copy example and the fault
//! checks all dispatch this way, so both sides run identical packets.

use std::time::Duration;

use aqueduct::hsa::code_object::{ArgRef, DispatchShape, KernargBuilder};
use aqueduct::hsa::{Allocation, Executable, HsaError, PoolKind, WaitCondition, WaitHint};

use super::{CheckError, Side};

/// How long one dispatch may take before the check fails.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// Scratch per work-item for kernels whose stack size is only known at run
/// time (recursion, indirect calls), on top of their fixed private segment.
pub const DYNAMIC_STACK_BYTES: u32 = 4096;

/// One explicit kernel argument.
#[derive(Clone, Copy, Debug)]
pub enum KernelArg {
    /// The GPU address of buffer `i`.
    Buffer(usize),
    /// A raw address (the fault check's target).
    Address(u64),
    /// Scalar bytes as the kernarg segment holds them.
    Scalar([u8; 8], usize),
}

impl KernelArg {
    pub fn u32(v: u32) -> KernelArg {
        let mut b = [0; 8];
        b[..4].copy_from_slice(&v.to_le_bytes());
        KernelArg::Scalar(b, 4)
    }

    pub fn u64(v: u64) -> KernelArg {
        KernelArg::Scalar(v.to_le_bytes(), 8)
    }
}

/// What to dispatch.
pub struct Launch<'a> {
    pub kernel: &'a str,
    pub grid: [u32; 3],
    pub workgroup: [u16; 3],
    pub buffers: &'a [Vec<u8>],
    pub args: &'a [KernelArg],
}

/// Why a dispatch did not complete: the runtime's error, kept whole so the
/// fault check can read the queue error it carries.
pub enum DispatchFailure {
    Setup(Box<CheckError>),
    Wait(Box<HsaError>),
}

impl From<DispatchFailure> for CheckError {
    fn from(f: DispatchFailure) -> CheckError {
        match f {
            DispatchFailure::Setup(e) => *e,
            DispatchFailure::Wait(source) => CheckError::Hsa {
                step: "waiting for the dispatch",
                source: *source,
            },
        }
    }
}

fn setup(step: &'static str) -> impl FnOnce(HsaError) -> DispatchFailure {
    move |source| DispatchFailure::Setup(Box::new(CheckError::Hsa { step, source }))
}

fn kernarg(
    i: usize,
) -> impl FnOnce(aqueduct::hsa::code_object::CodeObjectError) -> DispatchFailure {
    move |source| {
        DispatchFailure::Setup(Box::new(CheckError::Kernarg {
            step: format!("kernel argument {i}"),
            source,
        }))
    }
}

/// Dispatches `launch` of `exe` on the side's queue, waits, and returns
/// every buffer's bytes afterwards.
pub fn run(
    side: &Side,
    exe: &Executable,
    launch: &Launch,
) -> Result<Vec<Vec<u8>>, DispatchFailure> {
    let k = exe
        .kernel(launch.kernel)
        .map_err(setup("finding the kernel"))?;
    let pool = side
        .runtime
        .pool(&side.agent, PoolKind::FineSystem)
        .map_err(setup("the fine-grained pool"))?;
    let buffers = launch
        .buffers
        .iter()
        .map(|init| {
            let mut a = pool
                .allocate(init.len().max(4) as u64)
                .map_err(setup("allocating a buffer"))?;
            let host = a.as_mut_slice().ok_or_else(|| {
                DispatchFailure::Setup(Box::new(CheckError::unexpected(
                    "fine-grained buffer",
                    "host mapped",
                    "not mapped",
                )))
            })?;
            host[..init.len()].copy_from_slice(init);
            Ok(a)
        })
        .collect::<Result<Vec<Allocation>, DispatchFailure>>()?;
    let [gx, gy, gz] = launch.grid;
    let [wx, wy, wz] = launch.workgroup;
    let dims = if gz > 1 || wz > 1 {
        3
    } else if gy > 1 || wy > 1 {
        2
    } else {
        1
    };
    let shape = DispatchShape::new(launch.grid, launch.workgroup.map(u32::from), dims);
    let mut builder = KernargBuilder::new(&k.info);
    for (i, arg) in launch.args.iter().enumerate() {
        let set = match *arg {
            KernelArg::Buffer(b) => builder.set_ptr(ArgRef::Index(i), buffers[b].gpu_va()),
            KernelArg::Address(a) => builder.set_ptr(ArgRef::Index(i), a),
            KernelArg::Scalar(bytes, len) => builder.set(ArgRef::Index(i), &bytes[..len]),
        };
        set.map_err(kernarg(i))?;
    }
    let bytes = builder.finish(&shape).map_err(kernarg(launch.args.len()))?;
    let mut kernargs = side
        .runtime
        .kernargs(&side.agent)
        .map_err(setup("the kernarg pool"))?
        .allocate(bytes.len().max(16) as u64)
        .map_err(setup("allocating kernargs"))?;
    kernargs.as_mut_slice()[..bytes.len()].copy_from_slice(&bytes);
    let mut dispatch = k.dispatch(kernargs.gpu_va(), [gx, gy, gz], [wx, wy, wz]);
    if k.info.uses_dynamic_stack {
        dispatch.private_segment_size += DYNAMIC_STACK_BYTES;
    }
    let done = side
        .runtime
        .create_signal(1)
        .map_err(setup("creating the completion signal"))?;
    dispatch.completion_signal = done.handle();
    let packet = dispatch.to_packet().map_err(setup("building the packet"))?;
    side.queue
        .submit_dispatch(&packet)
        .map_err(setup("submitting the packet"))?;
    done.wait(WaitCondition::Eq, 0, Some(TIMEOUT), WaitHint::Blocked)
        .map_err(|e| DispatchFailure::Wait(Box::new(e)))?;
    buffers
        .iter()
        .zip(launch.buffers)
        .map(|(a, init)| {
            let bytes = a.as_slice().ok_or_else(|| {
                DispatchFailure::Setup(Box::new(CheckError::unexpected(
                    "fine-grained buffer",
                    "host mapped",
                    "not mapped",
                )))
            })?;
            Ok(bytes[..init.len()].to_vec())
        })
        .collect()
}
