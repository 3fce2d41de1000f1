//! HSA signals: an `amd_signal_t` in memory the GPU can reach, whose
//! 64-bit value both host and device update atomically.
//!
//! The handle a packet carries is the address of the `amd_signal_t`.
//! Runtime signals live in 64-byte slots of a fine-grained slab mapped on
//! every GPU and are *interrupt* signals: they own a KFD SIGNAL event whose
//! id and event-page mailbox are written into the struct, so the command
//! processor can wake host waiters after it decrements the value.
//!
//! Host-side updates issue SET_EVENT on the signal's event after every
//! store/RMW. That is what wakes a blocked host waiter, and it is the
//! nudge a simulated device needs to re-check device-side waits on the
//! signal (barrier-AND/OR dependencies), see ARCHITECTURE.md.
//!
//! Waiting spins for a few microseconds, then blocks in WAIT_EVENTS on the
//! signal's event and the runtime's exception events (see [`event`]),
//! re-checking the value and the queues' error words after every wake.
//!
//! KFD gives a process at most `KFD_SIGNAL_EVENT_LIMIT` (4096) signal
//! events (Linux `kfd_events.c`, `create_signal_event`: ENOSPC past it). A
//! signal created while signals hold all of them but the 256 kept for queue
//! error events (or while KFD refuses one) is a *polling* signal, like
//! ROCr's `DefaultSignal` (`runtime/hsa-runtime/core/runtime/
//! default_signal.cpp`): no event and no mailbox, so the device raises no
//! interrupt for it and a blocked wait polls its value every
//! [`POLL_SLICE_MS`], sleeping in WAIT_EVENTS on the exception events
//! between polls so a GPU fault still ends it.

pub mod event;

use std::ptr::NonNull;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use aqueduct_kfd::abi::AmdSignal;
use aqueduct_kfd::abi::signal::{AMD_SIGNAL_KIND_USER, AMD_SIGNAL_VALUE_OFFSET};
use aqueduct_kfd::uapi::event_type;

use crate::error::{HsaError, HsaResult, ProfilingError, QueueError, SignalError};
use crate::memory::SubAllocation;
use event::{EventHub, INITIAL_EVENT_AGE, KfdEvent, MAX_WAIT_SLICE_MS};

/// How long a blocked wait spins before it sleeps in the kernel.
pub const WAIT_SPIN: Duration = Duration::from_micros(5);

/// How long a blocked wait on a polling signal (one without an event)
/// sleeps between two reads of its value.
pub const POLL_SLICE_MS: u32 = 1;

/// Signal events kept for what cannot poll (each queue's error event).
const QUEUE_EVENT_RESERVE: u32 = 256;

/// Signal events the process's signals hold (the KFD limit is per process;
/// runtimes over other devices only make the fallback come sooner).
static SIGNAL_EVENTS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// A signal event for a runtime signal, or None when the process has
/// used up its signal events (KFD's ENOSPC, or a slot past the event page):
/// the signal is then a polling one.
fn signal_event_or_poll(hub: &EventHub) -> HsaResult<Option<KfdEvent>> {
    let limit = aqueduct_kfd::uapi::KFD_SIGNAL_EVENT_LIMIT - QUEUE_EVENT_RESERVE;
    if SIGNAL_EVENTS.fetch_add(1, Ordering::AcqRel) >= limit {
        SIGNAL_EVENTS.fetch_sub(1, Ordering::AcqRel);
        note_polling_signal();
        return Ok(None);
    }
    let created = hub.create_event(event_type::SIGNAL, true, 0);
    if created.is_err() {
        SIGNAL_EVENTS.fetch_sub(1, Ordering::AcqRel);
    }
    match created {
        Ok(event) => Ok(Some(event)),
        Err(HsaError::Kfd(e)) if e.errno() == Some(rustix::io::Errno::NOSPC.raw_os_error()) => {
            note_polling_signal();
            Ok(None)
        }
        Err(HsaError::Signal(SignalError::EventSlot { .. })) => {
            note_polling_signal();
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Warn once per process that signals fall back to polling.
fn note_polling_signal() {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        tracing::warn!(
            "all {} KFD signal events are in use; new signals poll instead of \
             waiting for interrupts",
            aqueduct_kfd::uapi::KFD_SIGNAL_EVENT_LIMIT
        )
    });
}

/// Memory order of a signal operation. An order that means nothing for an
/// operation (a release load, an acquire store) is strengthened to the
/// nearest one that does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryOrder {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

impl MemoryOrder {
    pub const ALL: [MemoryOrder; 4] = [
        MemoryOrder::Relaxed,
        MemoryOrder::Acquire,
        MemoryOrder::Release,
        MemoryOrder::AcqRel,
    ];

    fn for_load(self) -> Ordering {
        match self {
            MemoryOrder::Relaxed => Ordering::Relaxed,
            _ => Ordering::Acquire,
        }
    }
    fn for_store(self) -> Ordering {
        match self {
            MemoryOrder::Relaxed => Ordering::Relaxed,
            MemoryOrder::Acquire | MemoryOrder::Release => Ordering::Release,
            MemoryOrder::AcqRel => Ordering::SeqCst,
        }
    }
    fn for_rmw(self) -> Ordering {
        match self {
            MemoryOrder::Relaxed => Ordering::Relaxed,
            MemoryOrder::Acquire => Ordering::Acquire,
            MemoryOrder::Release => Ordering::Release,
            MemoryOrder::AcqRel => Ordering::AcqRel,
        }
    }
}

/// `hsa_signal_condition_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitCondition {
    Eq,
    Ne,
    Lt,
    Gte,
}

impl WaitCondition {
    pub fn holds(self, current: i64, value: i64) -> bool {
        match self {
            WaitCondition::Eq => current == value,
            WaitCondition::Ne => current != value,
            WaitCondition::Lt => current < value,
            WaitCondition::Gte => current >= value,
        }
    }
}

/// `hsa_wait_state_t`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WaitHint {
    /// Spin briefly, then sleep in the kernel until woken.
    #[default]
    Blocked,
    /// Keep the thread polling (yielding) until the condition holds.
    Active,
}

enum Storage {
    /// A slot of the runtime's signal slab.
    Slot { _block: SubAllocation },
    /// Plain host memory (signals no device reads: tests, host-only sync).
    Host(NonNull<AmdSignal>),
}

/// Wakes waiters of a signal that has no KFD event.
#[derive(Default)]
struct HostNotify {
    generation: Mutex<u64>,
    changed: Condvar,
}

struct SignalInner {
    amd: NonNull<AmdSignal>,
    storage: Storage,
    event: Option<KfdEvent>,
    hub: Option<Arc<EventHub>>,
    host_notify: HostNotify,
}

// SAFETY: the amd_signal_t is shared memory accessed only through atomics (value) or before publication (other fields).
unsafe impl Send for SignalInner {}
// SAFETY: as above; all mutation after construction is atomic.
unsafe impl Sync for SignalInner {}

impl Drop for SignalInner {
    fn drop(&mut self) {
        // The slot may be reused by a new signal: forget any failure.
        if let Some(hub) = &self.hub {
            hub.note_signal_dropped(self.amd.as_ptr() as u64);
        }
        if self.event.is_some() && self.hub.is_some() {
            SIGNAL_EVENTS.fetch_sub(1, Ordering::AcqRel);
        }
        if let Storage::Host(p) = self.storage {
            // SAFETY: p came from Box::into_raw in Signal::new_host_backed and is freed only here.
            drop(unsafe { Box::from_raw(p.as_ptr()) });
        }
    }
}

/// A signal handle; clones share the signal, which is released when the
/// last clone goes.
#[derive(Clone)]
pub struct Signal {
    inner: Arc<SignalInner>,
}

impl std::fmt::Debug for Signal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signal")
            .field("handle", &format_args!("{:#x}", self.handle()))
            .field("value", &self.load(MemoryOrder::Relaxed))
            .field("event_id", &self.event_id())
            .finish()
    }
}

impl Signal {
    /// Write a fresh `amd_signal_t` at `amd`.
    ///
    /// # Safety
    /// `amd` points at 64 writable, 64-byte-aligned bytes that nothing else
    /// reads or writes yet.
    unsafe fn init_struct(amd: NonNull<AmdSignal>, initial: i64, event: Option<&KfdEvent>) {
        let s = AmdSignal {
            kind: AMD_SIGNAL_KIND_USER,
            value: initial,
            event_mailbox_ptr: event.map_or(0, |e| e.mailbox_va),
            event_id: event.map_or(0, |e| e.event_id),
            ..Default::default()
        };
        // SAFETY: per the contract, amd is valid, aligned and unshared.
        unsafe { amd.as_ptr().write(s) };
    }

    /// A signal in a runtime slot (used by `Runtime::create_signal`): an
    /// interrupt signal while the process has signal events left, a polling
    /// one after.
    pub(crate) fn new_in_slot(
        slot: SubAllocation,
        initial: i64,
        hub: Arc<EventHub>,
    ) -> HsaResult<Signal> {
        if slot.len() < 64 || !slot.gpu_va().is_multiple_of(64) {
            return Err(SignalError::SlotLayout {
                len: slot.len(),
                va: slot.gpu_va(),
            }
            .into());
        }
        let event = signal_event_or_poll(&hub)?;
        let amd = slot.host_ptr().cast::<AmdSignal>();
        // SAFETY: the slot is a fresh host-mapped block of >= 64 bytes at a 64-byte-aligned address (checked above), owned by this signal.
        unsafe { Self::init_struct(amd, initial, event.as_ref()) };
        Ok(Signal {
            inner: Arc::new(SignalInner {
                amd,
                storage: Storage::Slot { _block: slot },
                event,
                hub: Some(hub),
                host_notify: HostNotify::default(),
            }),
        })
    }

    /// A signal in plain host memory. With `hub`, it gets a KFD event and
    /// waits/updates go through the device (SET_EVENT / WAIT_EVENTS); its
    /// memory is not GPU-mapped, so only a device sharing the host address
    /// space (or none) may use its handle. Without `hub`, waits block on a
    /// host condition variable.
    pub fn new_host_backed(initial: i64, hub: Option<Arc<EventHub>>) -> HsaResult<Signal> {
        let event = match &hub {
            Some(h) => signal_event_or_poll(h)?,
            None => None,
        };
        let amd = NonNull::from(Box::leak(Box::new(AmdSignal::default())));
        // SAFETY: a fresh heap amd_signal_t (64 bytes, 64-byte-aligned type) that only this signal holds.
        unsafe { Self::init_struct(amd, initial, event.as_ref()) };
        Ok(Signal {
            inner: Arc::new(SignalInner {
                amd,
                storage: Storage::Host(amd),
                event,
                hub,
                host_notify: HostNotify::default(),
            }),
        })
    }

    /// A host-only signal (no device involved).
    pub fn new_host(initial: i64) -> Signal {
        match Self::new_host_backed(initial, None) {
            Ok(s) => s,
            Err(_) => unreachable!("a host signal without a hub makes no device call"),
        }
    }

    /// The `hsa_signal_t` handle: the address of the `amd_signal_t`.
    pub fn handle(&self) -> u64 {
        self.inner.amd.as_ptr() as u64
    }

    /// The KFD event id, for interrupt signals.
    pub fn event_id(&self) -> Option<u32> {
        self.inner.event.as_ref().map(|e| e.event_id)
    }

    /// The event-page mailbox address written into the signal (0 if none).
    pub fn event_mailbox(&self) -> u64 {
        self.inner.event.as_ref().map_or(0, |e| e.mailbox_va)
    }

    /// A copy of the whole `amd_signal_t` (besides `value`, only the CP
    /// writes a field after creation: `start_ts`/`end_ts` of a profiled
    /// packet, before it decrements the value).
    pub fn amd_signal(&self) -> AmdSignal {
        // SAFETY: the struct is valid for the life of inner; volatile read of shared memory.
        unsafe { std::ptr::read_volatile(self.inner.amd.as_ptr()) }
    }

    /// The GPU-counter ticks (start, end) the CP wrote into this signal for
    /// the last packet it completed with it, when that packet ran on a
    /// queue with profiling on (`Queue::set_profiling`). Read them after a
    /// wait saw the completion, and before the signal completes another
    /// packet (as `hsa_amd_profiling_get_dispatch_time` requires).
    pub fn dispatch_ticks(&self) -> Result<(u64, u64), ProfilingError> {
        // Acquire: the CP writes the stamps before its decrement.
        self.value().load(Ordering::Acquire);
        let amd = self.amd_signal();
        let (start, end) = (amd.start_ts, amd.end_ts);
        let signal = self.handle();
        if start == 0 || end == 0 {
            return Err(ProfilingError::NoTimestamps { signal, start, end });
        }
        if end < start {
            return Err(ProfilingError::EndBeforeStart { signal, start, end });
        }
        Ok((start, end))
    }

    fn value(&self) -> &AtomicI64 {
        // SAFETY: value is an 8-byte-aligned i64 at offset 8 of the live amd_signal_t; all accesses to it are atomic.
        unsafe {
            AtomicI64::from_ptr(
                self.inner
                    .amd
                    .as_ptr()
                    .cast::<u8>()
                    .add(AMD_SIGNAL_VALUE_OFFSET)
                    .cast::<i64>(),
            )
        }
    }

    /// Tell waiters (host and device) that the value changed.
    fn notify(&self) {
        if let Some(ev) = &self.inner.event {
            if let Err(e) = ev.set() {
                tracing::warn!(
                    event_id = ev.event_id,
                    "SET_EVENT after a signal update failed: {e}"
                );
            }
        } else {
            let n = &self.inner.host_notify;
            *n.generation.lock().unwrap_or_else(|p| p.into_inner()) += 1;
            n.changed.notify_all();
        }
    }

    pub fn load(&self, order: MemoryOrder) -> i64 {
        self.value().load(order.for_load())
    }

    pub fn store(&self, value: i64, order: MemoryOrder) {
        // Re-arming a signal forgets that a dropped packet failed it.
        if let Some(hub) = &self.inner.hub {
            hub.clear_signal_failure(self.handle());
        }
        self.value().store(value, order.for_store());
        self.notify();
    }

    fn rmw(&self, result: i64) -> i64 {
        self.notify();
        result
    }

    /// Atomic add; returns the previous value.
    pub fn add(&self, value: i64, order: MemoryOrder) -> i64 {
        self.rmw(self.value().fetch_add(value, order.for_rmw()))
    }
    pub fn sub(&self, value: i64, order: MemoryOrder) -> i64 {
        self.rmw(self.value().fetch_sub(value, order.for_rmw()))
    }
    pub fn and(&self, value: i64, order: MemoryOrder) -> i64 {
        self.rmw(self.value().fetch_and(value, order.for_rmw()))
    }
    pub fn or(&self, value: i64, order: MemoryOrder) -> i64 {
        self.rmw(self.value().fetch_or(value, order.for_rmw()))
    }
    pub fn xor(&self, value: i64, order: MemoryOrder) -> i64 {
        self.rmw(self.value().fetch_xor(value, order.for_rmw()))
    }
    pub fn exchange(&self, value: i64, order: MemoryOrder) -> i64 {
        self.rmw(self.value().swap(value, order.for_rmw()))
    }
    /// Compare-and-swap; returns the value observed (== `expected` iff the
    /// swap happened). Waiters are notified only when it happened.
    pub fn cas(&self, expected: i64, new: i64, order: MemoryOrder) -> i64 {
        let failure = match order {
            MemoryOrder::Relaxed | MemoryOrder::Release => Ordering::Relaxed,
            MemoryOrder::Acquire | MemoryOrder::AcqRel => Ordering::Acquire,
        };
        match self
            .value()
            .compare_exchange(expected, new, order.for_rmw(), failure)
        {
            Ok(v) => self.rmw(v),
            Err(v) => v,
        }
    }

    /// Wait until `condition(value, compare)` holds; returns the value that
    /// satisfied it. `timeout: None` waits forever. Fails with
    /// [`HsaError::QueueError`] if a queue of the runtime is in error (the
    /// work that would update the signal will not run) and with
    /// [`HsaError::Timeout`] when the timeout passes.
    pub fn wait(
        &self,
        condition: WaitCondition,
        compare: i64,
        timeout: Option<Duration>,
        hint: WaitHint,
    ) -> HsaResult<i64> {
        let start = Instant::now();
        let deadline = timeout.map(|t| start + t);
        // Errors recovered after this point still fail this wait.
        let epoch = self.inner.hub.as_ref().map_or(0, |h| h.error_epoch());
        let spin_until = match hint {
            WaitHint::Blocked => start + WAIT_SPIN,
            WaitHint::Active => deadline.unwrap_or(start + Duration::from_secs(u32::MAX as u64)),
        };
        let mut spins = 0u32;
        loop {
            let v = self.load(MemoryOrder::Acquire);
            if condition.holds(v, compare) {
                return Ok(v);
            }
            let now = Instant::now();
            if now >= spin_until {
                break;
            }
            spins = spins.wrapping_add(1);
            if hint == WaitHint::Active && spins.is_multiple_of(1024) {
                if let Some(hub) = &self.inner.hub
                    && let Some(err) = self.failure(hub, epoch)
                {
                    return Err(err.into());
                }
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        match &self.inner.hub {
            Some(hub) => {
                let event_id = self.inner.event.as_ref().map(|e| e.event_id);
                self.wait_blocked(event_id, hub, condition, compare, deadline, epoch)
            }
            None => self.wait_on_host(condition, compare, deadline),
        }
    }

    /// The blocked wait: re-check the value after every slice spent in
    /// WAIT_EVENTS on the signal's event (if it has one) and the exception
    /// events. A polling signal (no event) is read every [`POLL_SLICE_MS`].
    fn wait_blocked(
        &self,
        event_id: Option<u32>,
        hub: &EventHub,
        condition: WaitCondition,
        compare: i64,
        deadline: Option<Instant>,
        epoch: u64,
    ) -> HsaResult<i64> {
        let mut age = INITIAL_EVENT_AGE;
        loop {
            let v = self.load(MemoryOrder::Acquire);
            if condition.holds(v, compare) {
                return Ok(v);
            }
            if let Some(err) = self.failure(hub, epoch) {
                return Err(err.into());
            }
            let Some(slice_ms) = Self::remaining_ms(deadline) else {
                return Err(HsaError::Timeout);
            };
            match event_id {
                Some(id) => hub.wait_slice(Some((id, &mut age)), slice_ms)?,
                None => hub.wait_slice(None, slice_ms.min(POLL_SLICE_MS))?,
            };
        }
    }

    /// Why this wait can no longer succeed: a dropped packet was to
    /// complete this signal, or a queue failed since the wait began.
    fn failure(&self, hub: &EventHub, epoch: u64) -> Option<QueueError> {
        hub.signal_failure(self.handle())
            .or_else(|| hub.queue_error_since(epoch))
    }

    fn remaining_ms(deadline: Option<Instant>) -> Option<u32> {
        match deadline {
            None => Some(MAX_WAIT_SLICE_MS),
            Some(d) => {
                let left = d
                    .checked_duration_since(Instant::now())
                    .filter(|l| !l.is_zero())?;
                Some(
                    left.as_micros()
                        .div_ceil(1000)
                        .min(MAX_WAIT_SLICE_MS as u128) as u32,
                )
            }
        }
    }

    fn wait_on_host(
        &self,
        condition: WaitCondition,
        compare: i64,
        deadline: Option<Instant>,
    ) -> HsaResult<i64> {
        let n = &self.inner.host_notify;
        let mut generation = n.generation.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let v = self.load(MemoryOrder::Acquire);
            if condition.holds(v, compare) {
                return Ok(v);
            }
            let Some(slice_ms) = Self::remaining_ms(deadline) else {
                return Err(HsaError::Timeout);
            };
            let seen = *generation;
            let (g, _) = n
                .changed
                .wait_timeout_while(generation, Duration::from_millis(slice_ms as u64), |g| {
                    *g == seen
                })
                .unwrap_or_else(|p| p.into_inner());
            generation = g;
        }
    }
}
