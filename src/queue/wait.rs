//! Polling and waiting: `Device::poll`, and waiting for a submission's
//! epoch without counting another device's queue fault as completion.

use std::sync::Arc;
use std::time::{Duration, Instant};

use aqueduct_hsa::{HsaError, WaitCondition, WaitHint};
use wgpu_types::{PollError, PollStatus};

use crate::device::DeviceShared;

use super::lifetime::{EPOCH_BASE, completed_epoch, maintain};
use super::recovery::{recover_from_queue_error, report_queue_fault};
use super::{PollType, SubmissionIndex};

/// How long a wait polls the epoch signal before sleeping on its event.
pub(super) const ACTIVE_WAIT: Duration = Duration::from_micros(200);
/// How often a wait re-checks its signal while another queue of the runtime
/// is in error (every wait of the runtime fails at once until it recovers).
pub(super) const FOREIGN_ERROR_POLL: Duration = Duration::from_micros(100);

/// Wait until submission `epoch` completed; returns the completed count.
/// A queue error ends the wait only when it is this device's queue's: HSA
/// fails every wait of a runtime while any of its queues is in error, and
/// another device of the adapter faulting must not count this device's
/// submissions complete (their memory would be freed and reused while its
/// GPU queue still runs them).
pub(super) fn wait_epoch(
    dev: &DeviceShared,
    epoch: u64,
    timeout: Option<Duration>,
) -> Result<u64, HsaError> {
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        match wait_epoch_once(dev, epoch, left) {
            Err(HsaError::QueueError { .. }) if dev.hsa_queue.error().is_none() => {
                // The device's SDMA queue faulted: the compute queue waits
                // for its commands; release them and report it.
                if let Some(fault) = dev
                    .copy_engine
                    .as_ref()
                    .and_then(|c| c.recover_from_fault())
                {
                    report_queue_fault(dev, HsaError::from(fault), None);
                    continue;
                }
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(HsaError::Timeout);
                }
                std::thread::sleep(FOREIGN_ERROR_POLL);
            }
            other => return other,
        }
    }
}

pub(super) fn wait_epoch_once(
    dev: &DeviceShared,
    epoch: u64,
    timeout: Option<Duration>,
) -> Result<u64, HsaError> {
    let done = completed_epoch(dev);
    if done >= epoch {
        return Ok(done);
    }
    // value <= EPOCH_BASE - epoch  <=>  value < EPOCH_BASE - epoch + 1
    let target = EPOCH_BASE - epoch as i64 + 1;
    // Short work completes within microseconds: poll (yielding) for a while
    // before sleeping on the signal's event, whose wake-up alone costs more
    // than such work on a loaded machine.
    let spin = timeout.map_or(ACTIVE_WAIT, |t| t.min(ACTIVE_WAIT));
    match dev
        .epoch_signal
        .wait(WaitCondition::Lt, target, Some(spin), WaitHint::Active)
    {
        Err(HsaError::Timeout) => {
            let rest = timeout.map(|t| t.saturating_sub(spin));
            dev.epoch_signal
                .wait(WaitCondition::Lt, target, rest, WaitHint::Blocked)?;
        }
        other => {
            other?;
        }
    }
    Ok(completed_epoch(dev))
}

pub(super) fn timeout_of(poll_type: &PollType) -> Option<Duration> {
    match poll_type {
        wgpu_types::PollType::Wait { timeout, .. } => *timeout,
        wgpu_types::PollType::Poll => None,
    }
}

/// `Device::poll`.
pub(crate) fn poll(dev: &Arc<DeviceShared>, poll_type: PollType) -> Result<PollStatus, PollError> {
    let timeout = timeout_of(&poll_type);
    let result = match poll_type {
        wgpu_types::PollType::Poll => Ok(PollStatus::Poll),
        wgpu_types::PollType::Wait {
            submission_index,
            timeout,
        } => {
            let last = dev.lock_state().last_submitted;
            let target = match submission_index {
                Some(SubmissionIndex(i)) if i > last => {
                    return Err(PollError::WrongSubmissionIndex(i, last));
                }
                Some(SubmissionIndex(i)) => i,
                None => last,
            };
            let traced_from = crate::trace::host_start();
            let waited = wait_epoch(dev, target, timeout);
            if let Some(start) = traced_from {
                let args = [("submission".to_string(), serde_json::json!(target))];
                crate::trace::host_slice(
                    dev.id.number(),
                    crate::trace::Track::Wait,
                    "poll(Wait)",
                    start,
                    args.into_iter().collect(),
                );
            }
            match waited {
                Ok(_) => Ok(PollStatus::WaitSucceeded),
                Err(HsaError::Timeout) => Err(PollError::Timeout),
                Err(e) => {
                    recover_from_queue_error(dev, e);
                    Ok(PollStatus::WaitSucceeded)
                }
            }
        }
    };
    maintain(dev);
    // Host callbacks submitted before a wait have run when it returns.
    let result = match result {
        Ok(PollStatus::WaitSucceeded) => match crate::host_callback::drain(dev, timeout) {
            Ok(()) => Ok(PollStatus::WaitSucceeded),
            Err(HsaError::Timeout) => Err(PollError::Timeout),
            Err(e) => {
                tracing::warn!("waiting for host callbacks: {e}");
                Ok(PollStatus::WaitSucceeded)
            }
        },
        other => {
            crate::host_callback::raise_callback_panic(dev);
            other
        }
    };
    let state = dev.lock_state();
    let empty = state.last_completed >= state.last_submitted;
    drop(state);
    match result {
        Ok(PollStatus::Poll) if empty => Ok(PollStatus::QueueEmpty),
        Ok(PollStatus::WaitSucceeded) if empty => Ok(PollStatus::QueueEmpty),
        other => other,
    }
}
