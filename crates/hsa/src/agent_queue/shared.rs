//! The state a soft queue's producers (`AgentQueue`) and its packet
//! processor thread share: the ring, the doorbell signal, the error word
//! and event, the host-function registry, the closures and signals that
//! in-flight packets refer to, and the halt/recover/stop handshake.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};

use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::uapi::exception_code::exception_mask;

use super::registry::HostFunctionRegistry;
use crate::error::{QueueError, QueueFaultDetail};
use crate::memory::Allocation;
use crate::queue::ring::AqlRing;
use crate::signal::Signal;
use crate::signal::event::{EventHub, KfdEvent, QueueErrorSource, decode_error_reason};

/// A one-shot host callback waiting in the queue.
pub type QueuedCallback = Box<dyn FnOnce() + Send>;
/// Called (on the processor thread) when the queue goes into error.
pub type ErrorCallback = dyn Fn(&QueueError) + Send + Sync;

/// What in-flight packets refer to, by dispatch id / token.
#[derive(Default)]
pub(super) struct Pending {
    /// Signals a packet names, kept alive until it completes.
    pub keep_alive: HashMap<u64, Vec<Signal>>,
    /// One-shot callbacks by token (arg 0 of a callback packet).
    pub callbacks: HashMap<u64, QueuedCallback>,
    next_token: u64,
    /// Barrier packets (by dispatch id) that complete when a dependency
    /// fails, leaving the failure in the slot (for the callback after them)
    /// instead of putting the queue into error.
    pub tolerant: HashMap<u64, DependencyFailure>,
}

impl Pending {
    /// A fresh callback token (tokens are never reused, across recoveries
    /// too).
    pub fn take_token(&mut self) -> u64 {
        let t = self.next_token;
        self.next_token += 1;
        t
    }
}

/// Where a tolerant barrier leaves the error of a failed dependency.
pub type DependencyFailure = Arc<Mutex<Option<QueueError>>>;

/// The halt/recover handshake between producers and the processor.
#[derive(Debug, Default)]
pub(super) struct Control {
    /// The processor stopped after an error and waits for a recovery.
    pub halted: bool,
}

pub(super) struct Shared {
    pub id: u32,
    pub device: Arc<dyn KfdDevice>,
    pub hub: Arc<EventHub>,
    pub ring: AqlRing,
    pub doorbell: Signal,
    pub functions: Arc<HostFunctionRegistry>,
    pub error_source: Arc<QueueErrorSource>,
    pub error_event: KfdEvent,
    pub stopping: AtomicBool,
    pub control: Mutex<Control>,
    pub control_changed: Condvar,
    pub pending: Mutex<Pending>,
    /// The error with its detail, set before the error word.
    pub error: Mutex<Option<QueueError>>,
    pub error_callback: Mutex<Option<Arc<ErrorCallback>>>,
    /// Producers hold it shared from reservation to doorbell; a recovery
    /// holds it exclusively.
    pub recovery: RwLock<()>,
    /// Packets completed since creation.
    pub completed: AtomicU64,
    /// The processor thread, so a host function submitting to its own full
    /// queue fails instead of waiting for itself.
    pub processor_thread: std::sync::OnceLock<std::thread::ThreadId>,
    // The ring and the queue page, dropped last.
    pub _ring_mem: Allocation,
    pub queue_page: Allocation,
}

impl Shared {
    pub fn control(&self) -> MutexGuard<'_, Control> {
        self.control.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn pending(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn error_word(&self) -> &AtomicU64 {
        self.error_source.error_word()
    }

    pub fn on_processor_thread(&self) -> bool {
        self.processor_thread.get() == Some(&std::thread::current().id())
    }

    pub fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Acquire)
    }

    /// The current error, if the error word is set.
    pub fn current_error(&self) -> Option<QueueError> {
        let bits = self.error_word().load(Ordering::Acquire);
        if bits == 0 {
            return None;
        }
        let stored = self.error.lock().unwrap_or_else(|p| p.into_inner()).clone();
        Some(stored.unwrap_or(QueueError {
            queue_id: self.id,
            reason: decode_error_reason(bits, None),
            detail: None,
        }))
    }

    /// Put the queue into error with exception `code`: record the detail,
    /// OR the bit into the error word, raise the error event (host waiters
    /// wake and see it), halt, then tell the error callback.
    pub fn fail(&self, code: u32, detail: QueueFaultDetail) {
        let mask = exception_mask(code);
        let error = QueueError {
            queue_id: self.id,
            reason: decode_error_reason(mask, None),
            detail: Some(detail),
        };
        tracing::warn!(queue_id = self.id, error = ?error, "agent queue error");
        *self.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(error.clone());
        self.error_word().fetch_or(mask, Ordering::AcqRel);
        if let Err(e) = self.error_event.set() {
            tracing::warn!("SET_EVENT of an agent queue's error event: {e}");
        }
        self.control().halted = true;
        self.control_changed.notify_all();
        let callback = self
            .error_callback
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some(cb) = callback
            && std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cb(&error))).is_err()
        {
            tracing::warn!(
                queue_id = self.id,
                "an agent queue's error callback panicked"
            );
        }
    }

    /// Wake the processor (its doorbell event) and anyone in the handshake.
    pub fn wake(&self) {
        self.doorbell.add(0, crate::signal::MemoryOrder::Release);
        let _guard = self.control();
        self.control_changed.notify_all();
    }
}
