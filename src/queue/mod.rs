//! The queue: submission, write_buffer uploads, completion and callbacks.
//!
//! Every submission is one batch of AQL packets on the device's queue:
//! pending uploads (write_buffer, zero fills of new device buffers,
//! mapped-at-creation uploads) first, then each command buffer's ops, then a
//! barrier-AND carrying the queue's epoch signal. The epoch signal starts at
//! EPOCH_BASE and the packet processor decrements it once per submission, so
//! `EPOCH_BASE - value` is the number of completed submissions and a
//! `SubmissionIndex` is just that count. Kernarg blocks and staging blocks
//! come from rings freed by epoch; the memory and code objects a submission
//! uses are kept alive until its epoch completes. Map and work-done
//! callbacks run from `poll` (and `submit`) in the order they were
//! registered, once their epoch has completed, with no lock held.
//!
//! Diagnostics: each submission runs in a `submit` debug span (its index);
//! each op written is a trace event naming the kernel, grid, workgroup,
//! barrier bit and fence scopes, and for a repeated dispatch its packet
//! count and the repeats' barrier bit. Disabled, they cost a level check and
//! no allocation. A submission in flight keeps its ops and the queue index of
//! its first packet, so a queue fault is reported as one line naming the
//! kernel at the queue's read index (gfxsim and the CP stop at the failing
//! packet), its submission, the fault kind and the GPU address.
//!
//! The files of this module, one concern each: `submit` (validating and
//! writing a submission's packets), `lifetime` (the queue state, epochs and
//! retiring completed work), `staging` (write_buffer uploads and kernarg
//! blocks from their rings), `recovery` (after a GPU queue fault), `sdma`
//! (the SDMA copy engine and its signals to the compute queue),
//! `callbacks` (host barriers and map outcomes) and `wait` (polling and
//! waiting for epochs).

mod callbacks;
mod lifetime;
mod recovery;
pub(crate) mod sdma;
mod staging;
mod submit;
#[cfg(test)]
mod tests;
mod wait;
mod write_texture;

use std::sync::Arc;

use wgpu_types::{BufferUsages, COPY_BUFFER_ALIGNMENT};

use crate::buffer::Buffer;
use crate::command::encoder::CommandBuffer;
use crate::device::DeviceShared;
use crate::error::{BufferRole, DeviceError, Error, InternalError, QueueError, QueueWriteError};
use crate::lock_rank::{LockRank, Mutex};
use crate::registry::MapState;

use self::lifetime::{CallbackKind, PendingCallback};
use self::staging::stage_write;

pub(crate) use callbacks::{finish_host_map, write_host_barrier};
pub(crate) use lifetime::{Callback, EPOCH_BASE, QueueState, all_completed, completed_epoch};
pub(crate) use submit::submit;
pub(crate) use wait::poll;

/// How long `Device::poll` waits: not at all, or until a submission (or all) completes.
pub type PollType = wgpu_types::PollType<SubmissionIndex>;

/// Identifies a submission (its epoch: submissions are numbered from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SubmissionIndex(pub(crate) u64);

impl SubmissionIndex {
    /// The index of submission number `epoch` (submissions count from 1);
    /// `Device::poll` rejects one that was never made.
    pub fn from_epoch(epoch: u64) -> Self {
        SubmissionIndex(epoch)
    }

    /// The submission's number (submissions count from 1).
    pub fn epoch(self) -> u64 {
        self.0
    }
}

/// The submission queue of a device (cheap to clone).
#[derive(Clone, Debug)]
pub struct Queue {
    pub(crate) shared: Arc<DeviceShared>,
}

impl Queue {
    /// Submit command buffers; returns the submission's index. An invalid
    /// command buffer, or one using a destroyed or mapped buffer, makes the
    /// whole submission a validation error and nothing of it runs.
    pub fn submit<I: IntoIterator<Item = CommandBuffer>>(
        &self,
        command_buffers: I,
    ) -> SubmissionIndex {
        submit(&self.shared, command_buffers.into_iter().collect())
    }

    /// Write `data` into `buffer` at `offset` before the next submission's
    /// work (through the staging ring and an upload dispatch).
    pub fn write_buffer(&self, buffer: &Buffer, offset: u64, data: &[u8]) {
        let dev = &self.shared;
        if !self.validate_write_buffer(buffer, offset, data.len() as u64) {
            return;
        }
        if data.is_empty() {
            return;
        }
        match stage_write(dev, buffer, offset, data) {
            Ok(()) => {}
            // An upload blit that cannot be built is the device's failure, not memory's.
            Err(e @ QueueWriteError::Lower(_)) => {
                let e = InternalError::Staging { source: e };
                dev.report(Error::Internal {
                    description: e.to_string(),
                    source: Box::new(e),
                });
            }
            Err(e) => dev.report(Error::OutOfMemory {
                source: Box::new(InternalError::Staging { source: e }),
            }),
        }
    }

    /// The checks `write_buffer` makes before writing `size` bytes at
    /// `offset`: the buffer is valid, not destroyed, not mapped, has
    /// COPY_DST usage, and the range is 4-byte aligned and inside it. A
    /// failure is reported as `write_buffer` reports it (error scope or
    /// uncaptured-error handler) and gives false. For layers that stage the
    /// bytes themselves before writing them (aqueduct-wgpu's
    /// `write_buffer_with`).
    pub fn validate_write_buffer(&self, buffer: &Buffer, offset: u64, size: u64) -> bool {
        let dev = &self.shared;
        if dev.is_lost() {
            dev.report(DeviceError::Destroyed {
                call: "write_buffer",
            });
            return false;
        }
        let check = || -> Result<(), QueueError> {
            buffer
                .check_usable(dev, BufferRole::Buffer)
                .map_err(QueueError::WriteUnusable)?;
            if !buffer.usage().contains(BufferUsages::COPY_DST) {
                return Err(QueueError::WriteMissingCopyDst {
                    buffer: buffer.ident(),
                });
            }
            if !offset.is_multiple_of(COPY_BUFFER_ALIGNMENT)
                || !size.is_multiple_of(COPY_BUFFER_ALIGNMENT)
            {
                return Err(QueueError::WriteUnaligned { offset, size });
            }
            if offset.checked_add(size).is_none_or(|e| e > buffer.size()) {
                return Err(QueueError::WriteOverrun {
                    offset,
                    end: offset as u128 + size as u128,
                    buffer: buffer.ident(),
                });
            }
            let mapped = dev
                .with_buffer(buffer.inner.id, |s| !matches!(s.map, MapState::Unmapped))
                .unwrap_or(false);
            if mapped {
                return Err(QueueError::WriteMapped {
                    buffer: buffer.ident(),
                });
            }
            Ok(())
        };
        match check() {
            Ok(()) => true,
            Err(e) => {
                dev.report(e);
                false
            }
        }
    }

    /// Run `callback` once all work submitted so far (and pending uploads)
    /// has completed, after earlier-registered callbacks.
    pub fn on_submitted_work_done(&self, callback: impl FnOnce() + Send + 'static) {
        let dev = &self.shared;
        if dev.callbacks_on_host_thread() {
            // On the host-callback thread; it also runs after a GPU fault.
            let callback = Arc::new(Mutex::new(LockRank::WorkDoneCallback, Some(callback)));
            let queued = callback.clone();
            let run = move |_: Result<(), aqueduct_hsa::QueueError>| {
                let f = queued.lock_unpoisoned().take();
                if let Some(f) = f {
                    f()
                }
            };
            match crate::host_callback::enqueue(dev, Box::new(run)) {
                Ok(()) => return,
                Err(e) => {
                    tracing::warn!("on_submitted_work_done: host callback queue: {e}; using poll");
                    let Some(f) = callback.lock_unpoisoned().take() else {
                        return;
                    };
                    return self.on_submitted_work_done_polled(f);
                }
            }
        }
        self.on_submitted_work_done_polled(callback)
    }

    /// WebGPU's delivery: run from `poll`/`submit`.
    fn on_submitted_work_done_polled(&self, callback: impl FnOnce() + Send + 'static) {
        let dev = &self.shared;
        let flush = !dev.lock_state().pending.is_empty();
        if flush {
            submit(dev, Vec::new());
        }
        let mut state = dev.lock_state();
        let epoch = state.last_submitted;
        state.callbacks.push_back(PendingCallback {
            epoch,
            kind: CallbackKind::WorkDone(Box::new(callback)),
        });
    }

    /// Nanoseconds per timestamp tick: 10 ns, a tick of the GPU's 100 MHz
    /// timestamp counter, which the CP stamps timestamp queries with.
    pub fn get_timestamp_period(&self) -> f32 {
        crate::query::TIMESTAMP_PERIOD_NS
    }
}
