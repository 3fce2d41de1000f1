//! A deliberate GPU memory fault: `kernels/<isa>/oob_write` stores to an
//! address no allocation covers. The queue error must come back naming the
//! kernel and the faulting page (KFD reports the page, as its MEMORY event
//! data does), and the device must recover: the next dispatch on the same
//! queue, and the facade's next submission, run and return right results.

use aqueduct::hsa::{HsaError, QueueErrorReason};

use super::dispatch::{self, DispatchFailure, KernelArg, Launch};
use super::side::object_for;
use super::{Check, CheckError, Group, Observation, Side};

/// oob_write for each ISA the repository ships it for.
const OOB_WRITE: &[(&str, &[u8])] = &[
    (
        "gfx1100",
        include_bytes!("../../../../kernels/gfx1100/oob_write.co"),
    ),
    (
        "gfx942",
        include_bytes!("../../../../kernels/gfx942/oob_write.co"),
    ),
    (
        "gfx90a",
        include_bytes!("../../../../kernels/gfx90a/oob_write.co"),
    ),
];

/// An address in the first pages of the VA space, which nothing maps.
const FAULT_ADDRESS: u64 = 0x1040;
const PAGE: u64 = 4096;

pub fn checks() -> Vec<Check> {
    let g = Group::Fault;
    vec![
        Check::new(g, "memory_violation", memory_violation),
        Check::new(g, "recovery", recovery),
    ]
}

fn oob_write(side: &Side, target: u64, value: u32) -> Result<Vec<Vec<u8>>, DispatchFailure> {
    let code = object_for(side, "oob_write", OOB_WRITE)
        .map_err(|e| DispatchFailure::Setup(Box::new(e)))?;
    let exe = side
        .runtime
        .load_executable(&side.agent, code)
        .map_err(|e| DispatchFailure::Setup(Box::new(CheckError::hsa("loading oob_write")(e))))?;
    let (args, buffers) = if target == 0 {
        (
            vec![KernelArg::Buffer(0), KernelArg::u32(value)],
            vec![vec![0; 16]],
        )
    } else {
        (
            vec![KernelArg::Address(target), KernelArg::u32(value)],
            vec![],
        )
    };
    dispatch::run(
        side,
        &exe,
        &Launch {
            kernel: "oob_write",
            grid: [64, 1, 1],
            workgroup: [64, 1, 1],
            buffers: &buffers,
            args: &args,
        },
    )
}

/// Dispatches the faulting store and returns the queue error's reason.
fn fault(side: &Side) -> Result<(QueueErrorReason, u32), CheckError> {
    match oob_write(side, FAULT_ADDRESS, 7) {
        Err(DispatchFailure::Wait(error)) => match *error {
            HsaError::QueueError {
                queue_id, reason, ..
            } => Ok((reason, queue_id)),
            other => Err(CheckError::unexpected(
                "the faulting dispatch",
                "a queue error",
                other,
            )),
        },
        Err(DispatchFailure::Setup(e)) => Err(*e),
        Ok(_) => Err(CheckError::unexpected(
            "the faulting dispatch",
            "a queue error",
            "completion",
        )),
    }
}

fn memory_violation(side: &Side) -> Result<Observation, CheckError> {
    let (reason, queue_id) = fault(side)?;
    let (kind, address) = match reason {
        QueueErrorReason::MemoryViolation { address } => (1u32, address.unwrap_or(0)),
        QueueErrorReason::IllegalInstruction => (2, 0),
        QueueErrorReason::Trap => (3, 0),
        QueueErrorReason::PacketInvalid => (4, 0),
        QueueErrorReason::Other(_) => (5, 0),
    };
    Ok(Observation::of("reason", kind.to_le_bytes().to_vec())
        .with("page", address.to_le_bytes().to_vec())
        .noted(format!(
            "queue {queue_id}: oob_write: {reason} (store to {FAULT_ADDRESS:#x}, page {:#x})",
            FAULT_ADDRESS & !(PAGE - 1)
        )))
}

fn recovery(side: &Side) -> Result<Observation, CheckError> {
    fault(side)?;
    // The same queue runs the next dispatch (the runtime recreates it).
    let out = oob_write(side, 0, 0x5eed_0001).map_err(CheckError::from)?;
    let stored = out[0].clone();
    let want = 0x5eed_0001u32.to_le_bytes();
    if stored[..4] != want {
        return Err(CheckError::Reference {
            case: "store after the fault".to_string(),
            message: format!("got {:02x?}, want {want:02x?}", &stored[..4]),
        });
    }
    // The facade's queue is unaffected.
    let facade = super::facade::checks()
        .into_iter()
        .find(|c| c.name == "facade.hello_compute")
        .ok_or_else(|| CheckError::unexpected("facade check", "hello_compute", "missing"))?;
    let after = facade.run(side)?;
    let mut observation = Observation::of("store_after_fault", stored)
        .noted("the queue and the facade ran the next work after the fault");
    observation.parts.extend(after.parts);
    Ok(observation)
}
