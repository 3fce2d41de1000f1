//! Recovery after a GPU queue fault: where it happened (the submission and
//! kernel at the queue's read index), counting the dropped submissions
//! complete, recreating the HSA queue, and the one-line report.

use std::sync::Arc;

use aqueduct_hsa::{HsaError, MemoryOrder};

use crate::command::lower::Work;
use crate::device::DeviceShared;
use crate::error::{Error, InternalError};

use super::lifetime::{EPOCH_BASE, QueueState, completed_epoch};

/// Where a queue fault happened, as far as the host can tell.
pub(super) struct FaultSite {
    pub(super) submission: u64,
    /// The kernel of the packet at the read index (`None`: not a dispatch).
    pub(super) kernel: Option<Arc<str>>,
}

/// A queue fault and where it happened, to report once the queue-state
/// lock is let go.
pub(super) type SeenFault = (aqueduct_hsa::QueueError, Option<FaultSite>);

/// Before a writer (a submission, a host barrier) puts packets on the GPU
/// queue: if the queue faulted and no wait has handled it yet, the faulted
/// queue runs nothing more, so the submissions up to `through` are counted
/// complete and the queue is recreated, all under the queue-state lock.
/// Counting must come before any new packet goes to the recreated queue
/// (their completions would otherwise race with the count), and the queue
/// must not be recreated without it (the dropped submissions would never
/// complete): so writers reserve with `reserve_unless_failed`, and a fault
/// that shows up while they write comes back here or to
/// `drop_faulted_write`. Returns the fault if any submission was dropped.
pub(super) fn recover_before_write(
    dev: &DeviceShared,
    state: &mut QueueState,
) -> Option<SeenFault> {
    let fault = dev.hsa_queue.error()?;
    let dropped = completed_epoch(dev) < state.last_submitted;
    let site = dropped.then(|| locate_fault(dev, state)).flatten();
    if dropped {
        dev.epoch_signal.store(
            EPOCH_BASE - state.last_submitted as i64,
            MemoryOrder::Release,
        );
    }
    match dev.hsa_queue.recover() {
        Ok(()) => {
            note_recreation(dev, state);
        }
        Err(r) => tracing::warn!("recreating the faulted GPU queue: {r}"),
    }
    dropped.then_some((fault, site))
}

/// After a write: writing to a queue that faulted recreated it first, and
/// the recreation marked the signals of the dropped packets failed, the
/// epoch signal among them. The facade already counted those submissions
/// complete (`recover_from_queue_error`, `take_unseen_fault`), and the
/// signal lives on for later submissions, so its failure mark goes.
/// Returns the queue's recreation count.
pub(super) fn note_recreation(dev: &DeviceShared, state: &mut QueueState) -> u64 {
    let recreations = dev.hsa_queue.recreations();
    if recreations != state.queue_recreations {
        state.queue_recreations = recreations;
        dev.runtime
            .event_hub()
            .clear_signal_failure(dev.epoch_signal.handle());
    }
    recreations
}

/// A fault showed up after some of submission `epoch`'s packets went on
/// the queue: they stop with the rest, so everything through `epoch` is
/// counted complete and the queue recreated.
pub(super) fn drop_faulted_write(
    dev: &DeviceShared,
    state: &mut QueueState,
    epoch: u64,
) -> Option<SeenFault> {
    let fault = dev.hsa_queue.error()?;
    let site = locate_fault(dev, state);
    dev.epoch_signal
        .store(EPOCH_BASE - epoch as i64, MemoryOrder::Release);
    match dev.hsa_queue.recover() {
        Ok(()) => {
            note_recreation(dev, state);
        }
        Err(r) => tracing::warn!("recreating the faulted GPU queue: {r}"),
    }
    Some((fault, site))
}

/// A queue fault stopped the packets of outstanding submissions: report it,
/// and count those submissions as completed so nothing waits forever. The
/// HSA queue is recreated at once. All of it happens under the state lock
/// and only while the queue is still in error: another thread (a submit, or
/// a poll whose wait failed on the same fault) may have recovered it since
/// this wait failed, and counting again would mark submissions already
/// running on the new queue complete (their memory freed while the GPU uses
/// it; a later store of the old count would lose their completions).
pub(super) fn recover_from_queue_error(dev: &Arc<DeviceShared>, e: HsaError) {
    let site = {
        let mut state = dev.lock_state();
        if dev.hsa_queue.error().is_none() {
            return;
        }
        let site = locate_fault(dev, &state);
        dev.epoch_signal.store(
            EPOCH_BASE - state.last_submitted as i64,
            MemoryOrder::Release,
        );
        // Recreate the GPU queue now rather than at the next submission:
        // that marks the signals of the packets it dropped failed, so host
        // callbacks waiting behind them run (with the error) without a later
        // submission.
        match dev.hsa_queue.recover() {
            Ok(()) => {
                note_recreation(dev, &mut state);
            }
            Err(r) => tracing::warn!("recreating the faulted GPU queue: {r}"),
        }
        site
    };
    report_queue_fault(dev, e, site);
}

/// The submission and kernel of the packet at the faulted queue's read
/// index (where the packet processor stopped). `None` once the queue was
/// recreated (its indices restart) or when no submission in flight holds
/// that packet.
pub(super) fn locate_fault(dev: &DeviceShared, state: &QueueState) -> Option<FaultSite> {
    let queue = &dev.hsa_queue;
    let generation = queue.recreations();
    let read = queue.read_index();
    state.in_flight.iter().find_map(|f| {
        let (first, made_in) = f.first_packet?;
        let packets: u64 = f.ops.ops().iter().map(|op| u64::from(op.packets())).sum();
        if made_in != generation || read < first || read - first > packets {
            return None;
        }
        // The op whose run of packets holds the read index.
        let mut at = read - first;
        let op = f.ops.ops().iter().find(|op| {
            let inside = at < u64::from(op.packets());
            at = at.saturating_sub(u64::from(op.packets()));
            inside
        });
        let kernel = match op.map(|op| &op.work) {
            Some(Work::Dispatch(d)) => Some(d.kernel_name.clone()),
            Some(Work::Patch(_)) => Some(Arc::from("indirect-dispatch patch")),
            Some(Work::Sdma(_)) => Some(Arc::from("SDMA copy gate")),
            Some(Work::Timestamp { .. }) | None => None,
        };
        Some(FaultSite {
            submission: f.epoch,
            kernel,
        })
    })
}

/// The one-line summary of a queue fault, e.g. `GPU fault in kernel
/// fault_at (submission 3): memory violation at GPU address 0x40`.
pub(super) fn fault_summary(e: &HsaError, site: Option<&FaultSite>) -> String {
    let what = match e {
        HsaError::QueueError { reason, .. } => reason.to_string(),
        other => other.to_string(),
    };
    match site {
        Some(FaultSite {
            submission,
            kernel: Some(k),
        }) => format!("GPU fault in kernel {k} (submission {submission}): {what}"),
        Some(FaultSite {
            submission,
            kernel: None,
        }) => format!("GPU fault in a barrier packet (submission {submission}): {what}"),
        None => format!("GPU fault in an unidentified packet: {what}"),
    }
}

pub(super) fn report_queue_fault(dev: &DeviceShared, e: HsaError, site: Option<FaultSite>) {
    let summary = fault_summary(&e, site.as_ref());
    tracing::error!("{summary}");
    // What KFD reported beyond the exception bits: for a memory violation,
    // the VM fault's GPU, page and access kind (its MEMORY event data).
    let report = match &e {
        HsaError::QueueError {
            detail: Some(detail),
            ..
        } => format!(" (device report: {detail})"),
        _ => String::new(),
    };
    dev.report(Error::Internal {
        description: format!(
            "{summary}; the GPU queue faulted, so the outstanding submissions did not complete \
             and their results are undefined; the device stays usable{report}"
        ),
        source: Box::new(InternalError::QueueFault {
            submission: site.as_ref().map(|s| s.submission),
            kernel: site.and_then(|s| s.kernel),
            source: e,
        }),
    });
}
