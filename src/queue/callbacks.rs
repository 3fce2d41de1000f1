//! Host callbacks and barriers: the barrier-AND a host callback waits
//! behind, and delivering a mapping's outcome to its callback.

use std::sync::Arc;

use aqueduct_hsa::queue::packet;
use aqueduct_hsa::{HsaError, PacketFence};

use crate::device::DeviceShared;
use crate::error::{BufferAsyncError, QueueWriteError};
use crate::registry::{BufferId, MapState, Owner};

use super::recovery::{recover_before_write, report_queue_fault};

/// A barrier-AND on the GPU queue after everything written so far that
/// decrements `done` once all of it has completed: a host callback's
/// dependency. The caller holds `submit_lock` (packet order). A queue
/// fault no wait has seen yet is handled as `submit` handles it, and then
/// no barrier is written: the fault is returned (the work the callback
/// waits for was dropped).
pub(crate) fn write_host_barrier(
    dev: &Arc<DeviceShared>,
    done: &aqueduct_hsa::Signal,
) -> Result<Option<aqueduct_hsa::QueueError>, QueueWriteError> {
    let barrier = packet::barrier_and(&[], done.handle(), PacketFence::SYSTEM_ORDERED)?;
    let mut state = dev.lock_state();
    // A fault may also show up between the check and the write: then
    // check again (the recreated queue is empty, so once is enough).
    for _ in 0..2 {
        if let Some((e, site)) = recover_before_write(dev, &mut state) {
            drop(state);
            report_queue_fault(dev, HsaError::from(e.clone()), site);
            return Ok(Some(e));
        }
        match dev.hsa_queue.submit_unless_failed(&barrier) {
            Err(HsaError::QueueError { .. }) if dev.hsa_queue.error().is_some() => continue,
            written => return written.map(|_| None).map_err(QueueWriteError::from),
        }
    }
    Err(QueueWriteError::FaultedAgain)
}

/// A mapping's work completed (or, with `fault`, was dropped by a GPU
/// queue fault): the buffer becomes mapped and host-owned (or unmapped).
pub(super) fn complete_map(
    reg: &mut crate::registry::Registry,
    id: BufferId,
    fault: Option<&aqueduct_hsa::QueueError>,
) -> Result<(), BufferAsyncError> {
    let Some(s) = reg.buffers.get_mut(id) else {
        return Err(BufferAsyncError::BufferGone);
    };
    match (std::mem::replace(&mut s.map, MapState::Unmapped), fault) {
        (MapState::Pending { mode, range, .. }, None) => {
            s.map = MapState::Mapped { mode, range };
            s.owner = Owner::Host;
            Ok(())
        }
        (MapState::Pending { .. }, Some(e)) => Err(BufferAsyncError::QueueFault {
            reason: e.reason.clone(),
        }),
        (other, _) => {
            s.map = other;
            Err(BufferAsyncError::Aborted)
        }
    }
}

/// A map callback on the host-callback thread: its work completed, or a
/// GPU fault dropped it. Nothing happens if the mapping was aborted (its
/// callback already ran).
pub(crate) fn finish_host_map(
    dev: &DeviceShared,
    id: BufferId,
    outcome: Result<(), aqueduct_hsa::QueueError>,
) {
    let (callback, result) = {
        let mut state = dev.lock_state();
        let Some(callback) = state.host_maps.remove(&id) else {
            return;
        };
        let mut reg = dev.registry();
        (callback, complete_map(&mut reg, id, outcome.as_ref().err()))
    };
    callback(result)
}
