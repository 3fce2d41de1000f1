//! KFD events and the runtime's event hub.
//!
//! The hub owns what every blocking wait needs: the device, the event page
//! (so a signal event's mailbox address is `page + slot_index*8`), the
//! exception events (per GPU: a MEMORY event for VM faults and a
//! HW_EXCEPTION event), and the registry of live queues with their error
//! word and error event. A wait blocks in WAIT_EVENTS on its signal's event
//! plus all of those, so a GPU fault wakes it instead of leaving it hanging.
//!
//! Event kinds and reset modes:
//! - signal events (interrupt signals, queue error events): SIGNAL type,
//!   auto-reset, like ROCr's `InterruptSignal::CreateEvent`. Lost wake-ups
//!   between a waiter's value check and its WAIT_EVENTS are excluded by the
//!   KFD 1.14 event age: each wait passes the last age it saw (1 = the age
//!   KFD gives a new event), and KFD returns at once if the event fired
//!   since. A device that ignores ages still cannot hang a waiter for more
//!   than one wait slice ([`MAX_WAIT_SLICE_MS`]).
//! - exception events: MEMORY and HW_EXCEPTION, auto-reset, so a recovered
//!   queue does not keep waking every waiter. Their data (fault address,
//!   failure flags, gpu_id) is recorded per GPU when they fire; it is the
//!   only source of a queue error's detail, as on hardware.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::uapi::{
    CreateEventArgs, DestroyEventArgs, KFD_IOC_WAIT_RESULT_FAIL, KfdEventData, MemoryExceptionData,
    SetEventArgs, WaitEventsArgs, event_type, exception_code,
};

use crate::error::{
    GpuMemoryFault, HsaResult, QueueError, QueueErrorReason, QueueFaultDetail, SignalError,
};
use crate::process::EventPage;

/// Longest single WAIT_EVENTS call; waits loop, re-checking the value.
pub const MAX_WAIT_SLICE_MS: u32 = 100;
/// The age KFD gives a freshly created signal event.
pub const INITIAL_EVENT_AGE: u64 = 1;

/// A KFD event, destroyed on drop.
#[derive(Debug)]
pub struct KfdEvent {
    device: Arc<dyn KfdDevice>,
    pub event_id: u32,
    pub event_type: u32,
    pub slot_index: u32,
    /// Address of the event's slot in the event page (signal events on a
    /// device with an event page), else 0.
    pub mailbox_va: u64,
}

impl KfdEvent {
    pub fn set(&self) -> HsaResult<()> {
        self.device.set_event(&mut SetEventArgs {
            event_id: self.event_id,
            pad: 0,
        })?;
        Ok(())
    }
}

impl Drop for KfdEvent {
    fn drop(&mut self) {
        if let Err(e) = self.device.destroy_event(&mut DestroyEventArgs {
            event_id: self.event_id,
            pad: 0,
        }) {
            tracing::warn!(event_id = self.event_id, "DESTROY_EVENT: {e}");
        }
    }
}

/// What the hub knows about one live queue, for error reporting.
#[derive(Debug)]
pub struct QueueErrorSource {
    /// KFD queue id (changes when the queue is recreated after an error).
    pub queue_id: AtomicU32,
    pub gpu_id: u32,
    /// Address of the u64 KFD ORs exception bits into.
    error_reason_va: u64,
    pub error_event_id: u32,
}

impl QueueErrorSource {
    /// The error source of queue `queue_id` on `gpu_id`.
    ///
    /// # Safety
    /// `error_reason_va` is the host address of an 8-byte-aligned u64 that
    /// stays mapped, and is only accessed atomically, for as long as the
    /// returned value lives.
    pub unsafe fn new(
        queue_id: u32,
        gpu_id: u32,
        error_reason_va: u64,
        error_event_id: u32,
    ) -> Self {
        Self {
            queue_id: AtomicU32::new(queue_id),
            gpu_id,
            error_reason_va,
            error_event_id,
        }
    }

    /// The address of the u64 KFD ORs exception bits into.
    pub fn error_reason_va(&self) -> u64 {
        self.error_reason_va
    }

    /// The exception-bits word, shared with the device.
    pub fn error_word(&self) -> &AtomicU64 {
        // SAFETY: per `new`, error_reason_va is an aligned u64 mapped for as long as self, only accessed atomically.
        unsafe { AtomicU64::from_ptr(self.error_reason_va as *mut u64) }
    }

    pub fn error_bits(&self) -> u64 {
        self.error_word().load(Ordering::Acquire)
    }
}

/// Decode `error_reason` bits into the variant a caller can act on.
pub fn decode_error_reason(bits: u64, fault_address: Option<u64>) -> QueueErrorReason {
    use exception_code::*;
    let has = |code: u32| bits & exception_mask(code) != 0;
    if has(EC_QUEUE_WAVE_MEMORY_VIOLATION)
        || has(EC_QUEUE_WAVE_APERTURE_VIOLATION)
        || has(EC_DEVICE_MEMORY_VIOLATION)
    {
        QueueErrorReason::MemoryViolation {
            address: fault_address,
        }
    } else if has(EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION) {
        QueueErrorReason::IllegalInstruction
    } else if has(EC_QUEUE_WAVE_TRAP) || has(EC_QUEUE_WAVE_ABORT) {
        QueueErrorReason::Trap
    } else if (EC_QUEUE_PACKET_DISPATCH_DIM_INVALID..=EC_QUEUE_PACKET_VENDOR_UNSUPPORTED).any(has) {
        QueueErrorReason::PacketInvalid
    } else {
        QueueErrorReason::Other(bits)
    }
}

/// How long a queue error that is a memory violation waits for the VM
/// fault's data another thread is recording (`EventHub::await_memory_fault`).
/// A violation without a VM fault (an aperture violation) waits this long
/// once, on its error path.
const FAULT_DATA_WAIT: Duration = Duration::from_millis(200);

/// How many recovered errors a hub remembers for waits still in progress.
const RECOVERED_LOG_LEN: usize = 64;

#[derive(Debug, Default)]
struct RecoveredErrors {
    seq: u64,
    log: std::collections::VecDeque<(u64, QueueError)>,
    /// Completion signals of packets a recovery dropped, by handle: a
    /// wait on one fails with the error until the signal is stored again.
    failed_signals: HashMap<u64, QueueError>,
    /// Signals dropped while a queue was in error. A dropped packet that
    /// named one of them referred to the dropped signal, not to whatever
    /// new signal reuses its slot, so recovery must not fail the new one.
    dropped_while_failed: std::collections::HashSet<u64>,
}

/// Bound on `dropped_while_failed` (it only matters until a recovery).
const DROPPED_SET_LIMIT: usize = 4096;

#[derive(Debug)]
pub struct EventHub {
    device: Arc<dyn KfdDevice>,
    /// GPU address of the event page, 0 if the device has none.
    event_page_va: u64,
    /// The process's event page (`process.rs`), handed to KFD by the
    /// first CREATE_EVENT of the process.
    event_page: Option<Arc<EventPage>>,
    exception_events: Mutex<Vec<KfdEvent>>,
    queues: Mutex<Vec<Arc<QueueErrorSource>>>,
    memory_faults: Mutex<HashMap<u32, MemoryExceptionData>>,
    /// Notified when a fault is recorded in `memory_faults`.
    memory_fault_recorded: Condvar,
    /// Queue errors that a recovery already cleared, so that waits begun
    /// before the recovery still see them.
    recovered: Mutex<RecoveredErrors>,
}

impl EventHub {
    /// A hub without an event page: its signal events have no mailbox
    /// (KFD then signals them only through SET_EVENT).
    pub fn new(device: Arc<dyn KfdDevice>) -> Self {
        Self::with_event_page(device, None)
    }

    /// A hub whose signal events have their mailboxes in `event_page`.
    pub(crate) fn with_event_page(
        device: Arc<dyn KfdDevice>,
        event_page: Option<Arc<EventPage>>,
    ) -> Self {
        Self {
            device,
            event_page_va: event_page.as_ref().map_or(0, |p| p.va()),
            event_page,
            recovered: Mutex::new(RecoveredErrors::default()),
            exception_events: Mutex::new(Vec::new()),
            queues: Mutex::new(Vec::new()),
            memory_faults: Mutex::new(HashMap::new()),
            memory_fault_recorded: Condvar::new(),
        }
    }

    pub fn device(&self) -> &Arc<dyn KfdDevice> {
        &self.device
    }

    pub fn event_page_va(&self) -> u64 {
        self.event_page_va
    }

    /// CREATE_EVENT. The process's first call hands KFD the event-page BO.
    pub fn create_event(
        &self,
        event_type: u32,
        auto_reset: bool,
        node_id: u32,
    ) -> HsaResult<KfdEvent> {
        let mut registered = self
            .event_page
            .as_ref()
            .map(|p| p.registered.lock().unwrap_or_else(|p| p.into_inner()));
        let page_offset = match (&self.event_page, registered.as_deref()) {
            (Some(page), Some(false)) => page.handle,
            _ => 0,
        };
        let mut args = CreateEventArgs {
            event_page_offset: page_offset,
            event_type,
            auto_reset: auto_reset as u32,
            node_id,
            ..Default::default()
        };
        self.device.create_event(&mut args)?;
        if let Some(registered) = registered.as_deref_mut() {
            *registered = true;
        }
        let mailbox_va = if event_type == event_type::SIGNAL && self.event_page_va != 0 {
            if args.event_slot_index >= aqueduct_kfd::uapi::KFD_SIGNAL_EVENT_LIMIT {
                return Err(SignalError::EventSlot {
                    slot: args.event_slot_index,
                    limit: aqueduct_kfd::uapi::KFD_SIGNAL_EVENT_LIMIT,
                }
                .into());
            }
            self.event_page_va + args.event_slot_index as u64 * 8
        } else {
            0
        };
        Ok(KfdEvent {
            device: self.device.clone(),
            event_id: args.event_id,
            event_type,
            slot_index: args.event_slot_index,
            mailbox_va,
        })
    }

    pub(crate) fn add_exception_event(&self, event: KfdEvent) {
        self.exception_events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(event);
    }

    pub(crate) fn register_queue(&self, source: Arc<QueueErrorSource>) {
        self.queues
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(source);
    }

    pub(crate) fn unregister_queue(&self, source: &Arc<QueueErrorSource>) {
        self.queues
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|q| !Arc::ptr_eq(q, source));
    }

    /// The last VM fault KFD reported for `gpu_id`.
    pub fn last_memory_fault(&self, gpu_id: u32) -> Option<MemoryExceptionData> {
        self.memory_faults
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&gpu_id)
            .copied()
    }

    /// The VM fault recorded for `gpu_id`, or the one another thread's
    /// wait is recording, if it arrives within [`FAULT_DATA_WAIT`].
    ///
    /// KFD fires the MEMORY events with the fault's data before the queue
    /// error that follows it (Linux `kfd_int_process_v11.c`
    /// `event_interrupt_wq_v11` calls `kfd_signal_vm_fault_event` first), but
    /// the data goes to whichever thread's WAIT_EVENTS returns with the
    /// event: a thread that sees the queue's error bits may look before that
    /// thread has recorded it, and its own poll finds the event consumed.
    fn await_memory_fault(&self, gpu_id: u32) -> Option<MemoryExceptionData> {
        let deadline = Instant::now() + FAULT_DATA_WAIT;
        let mut faults = self.memory_faults.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(data) = faults.get(&gpu_id) {
                return Some(*data);
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            faults = self
                .memory_fault_recorded
                .wait_timeout(faults, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Forget recorded faults of `gpu_id` (after a queue recovered).
    pub(crate) fn clear_memory_fault(&self, gpu_id: u32) {
        self.memory_faults
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&gpu_id);
    }

    /// The error of one queue, if its error word is non-zero.
    pub fn queue_error(&self, source: &QueueErrorSource) -> Option<QueueError> {
        let bits = source.error_bits();
        if bits == 0 {
            return None;
        }
        // Collect fault data the device posted, without blocking.
        if let Err(e) = self.wait_slice(None, 0) {
            tracing::debug!("polling exception events: {e}");
        }
        let queue_id = source.queue_id.load(Ordering::Relaxed);
        // Only a memory violation comes with a VM fault of its own.
        let violation = matches!(
            decode_error_reason(bits, None),
            QueueErrorReason::MemoryViolation { .. }
        );
        let fault = violation
            .then(|| self.await_memory_fault(source.gpu_id))
            .flatten()
            .map(GpuMemoryFault::from);
        let reason = decode_error_reason(bits, fault.map(|f| f.address));
        let detail = fault.map(QueueFaultDetail::MemoryFault);
        Some(QueueError {
            queue_id,
            reason,
            detail,
        })
    }

    /// A counter of recovered queue errors; pass it to
    /// [`EventHub::queue_error_since`] to learn of errors after this point.
    pub fn error_epoch(&self) -> u64 {
        self.recovered.lock().unwrap_or_else(|p| p.into_inner()).seq
    }

    /// Record an error a queue recovery is about to clear.
    pub(crate) fn record_recovered(&self, error: QueueError) {
        let mut r = self.recovered.lock().unwrap_or_else(|p| p.into_inner());
        r.seq += 1;
        let seq = r.seq;
        r.log.push_back((seq, error));
        while r.log.len() > RECOVERED_LOG_LEN {
            r.log.pop_front();
        }
    }

    /// Mark the completion signals of dropped packets as failed.
    pub(crate) fn record_failed_signals(&self, handles: &[u64], error: &QueueError) {
        let mut r = self.recovered.lock().unwrap_or_else(|p| p.into_inner());
        for &h in handles {
            if !r.dropped_while_failed.remove(&h) {
                r.failed_signals.insert(h, error.clone());
            }
        }
    }

    /// A signal is going away: forget its failure, and remember the handle
    /// if a queue is in error (see `dropped_while_failed`).
    pub(crate) fn note_signal_dropped(&self, handle: u64) {
        let failing = self.pending_queue_error().is_some();
        let mut r = self.recovered.lock().unwrap_or_else(|p| p.into_inner());
        r.failed_signals.remove(&handle);
        if failing {
            if r.dropped_while_failed.len() >= DROPPED_SET_LIMIT {
                r.dropped_while_failed.clear();
            }
            r.dropped_while_failed.insert(handle);
        }
    }

    /// The error that dropped the packet signal `handle` was to complete.
    pub fn signal_failure(&self, handle: u64) -> Option<QueueError> {
        let r = self.recovered.lock().unwrap_or_else(|p| p.into_inner());
        if r.failed_signals.is_empty() {
            return None;
        }
        r.failed_signals.get(&handle).cloned()
    }

    /// Forget a signal's failure (the host re-armed it with a store).
    pub fn clear_signal_failure(&self, handle: u64) {
        let mut r = self.recovered.lock().unwrap_or_else(|p| p.into_inner());
        if !r.failed_signals.is_empty() {
            r.failed_signals.remove(&handle);
        }
    }

    /// A queue error that is pending now, or that was recovered after
    /// `epoch` (from [`EventHub::error_epoch`]).
    pub fn queue_error_since(&self, epoch: u64) -> Option<QueueError> {
        if let Some(e) = self.pending_queue_error() {
            return Some(e);
        }
        let r = self.recovered.lock().unwrap_or_else(|p| p.into_inner());
        r.log
            .iter()
            .find(|(seq, _)| *seq > epoch)
            .map(|(_, e)| e.clone())
    }

    /// The first registered queue that is in error.
    pub fn pending_queue_error(&self) -> Option<QueueError> {
        let queues: Vec<Arc<QueueErrorSource>> = self
            .queues
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        queues.iter().find_map(|q| self.queue_error(q))
    }

    /// Whether a queue error event in `seen` has been unregistered since.
    fn queue_events_changed(&self, seen: &[u32]) -> bool {
        let now = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        seen.iter()
            .any(|id| !now.iter().any(|q| q.error_event_id == *id))
    }

    /// One WAIT_EVENTS (wait for any) on `signal_event` (id + last seen
    /// age, updated) plus every exception and queue-error event, for at
    /// most `timeout_ms`. Records fault data of fired MEMORY events.
    pub fn wait_slice(
        &self,
        signal_event: Option<(u32, &mut u64)>,
        timeout_ms: u32,
    ) -> HsaResult<()> {
        let mut events = Vec::new();
        let mut memory_slots = Vec::new();
        if let Some((id, age)) = &signal_event {
            let mut data = KfdEventData::for_event(*id);
            data.set_last_event_age(**age);
            events.push(data);
        }
        for ev in self
            .exception_events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
        {
            if ev.event_type == event_type::MEMORY {
                memory_slots.push(events.len());
            }
            events.push(KfdEventData::for_event(ev.event_id));
        }
        let queue_events: Vec<u32> = self
            .queues
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|q| q.error_event_id)
            .collect();
        events.extend(queue_events.iter().map(|&id| KfdEventData::for_event(id)));
        if events.is_empty() {
            return Ok(());
        }
        let mut args = WaitEventsArgs {
            num_events: events.len() as u32,
            wait_for_all: 0,
            timeout_ms,
            ..Default::default()
        };
        let result = self.device.wait_events(&mut args, &mut events);
        if result.is_err() || args.wait_result == KFD_IOC_WAIT_RESULT_FAIL {
            // A queue dropped by another thread destroys its error event,
            // which fails a wait that includes it. That is a spurious wake:
            // the caller re-checks its condition and waits again on the
            // current set. Any other failure is real.
            if self.queue_events_changed(&queue_events) {
                return Ok(());
            }
            result?;
            return Err(SignalError::WaitFailed.into());
        }
        if let Some((_, age)) = signal_event {
            let new_age = events[0].last_event_age();
            if new_age != 0 {
                *age = new_age;
            }
        }
        for slot in memory_slots {
            let data = events[slot].memory_exception();
            if data != MemoryExceptionData::default() {
                tracing::warn!(
                    gpu_id = data.gpu_id,
                    va = format_args!("{:#x}", data.va),
                    "GPU memory fault reported"
                );
                self.memory_faults
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(data.gpu_id, data);
                self.memory_fault_recorded.notify_all();
            }
        }
        Ok(())
    }
}
