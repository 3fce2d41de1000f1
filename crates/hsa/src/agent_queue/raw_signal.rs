//! What a packet processor does with signals it knows only by handle (the
//! address of an `amd_signal_t` in a packet): read the value, decrement it
//! on completion and raise its event, and sleep until one of several
//! signal events fires. These mirror gfxsim's command processor (value at
//! offset 8, event id and mailbox in the struct) from the host side, where
//! raising an event is SET_EVENT.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::abi::{
    AMD_SIGNAL_EVENT_ID_OFFSET, AMD_SIGNAL_EVENT_MAILBOX_OFFSET, AMD_SIGNAL_VALUE_OFFSET,
};
use aqueduct_kfd::uapi::{KFD_IOC_WAIT_RESULT_FAIL, KfdEventData, SetEventArgs, WaitEventsArgs};

use crate::signal::event::INITIAL_EVENT_AGE;

/// How long the processor sleeps between polls of signals that have no
/// KFD event to wake it.
pub const POLL_INTERVAL: Duration = Duration::from_micros(200);

/// An `amd_signal_t` by handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawSignal(u64);

impl RawSignal {
    /// # Safety
    /// `handle` must be the address of an `amd_signal_t` that stays live
    /// (and 64-byte aligned) while this value is used; its `value` is only
    /// accessed atomically by anyone.
    pub unsafe fn new(handle: u64) -> Self {
        Self(handle)
    }

    pub fn handle(&self) -> u64 {
        self.0
    }

    fn field<T>(&self, offset: usize) -> *mut T {
        (self.0 as usize + offset) as *mut T
    }

    fn value(&self) -> &AtomicI64 {
        // SAFETY: per `new`, the signal is live and its value (aligned i64 at offset 8) is only accessed atomically.
        unsafe { AtomicI64::from_ptr(self.field(AMD_SIGNAL_VALUE_OFFSET)) }
    }

    pub fn load(&self) -> i64 {
        self.value().load(Ordering::Acquire)
    }

    /// The signal's KFD event id, if it has an event (a mailbox).
    pub fn event_id(&self) -> Option<u32> {
        // SAFETY: per `new`, the struct is live; mailbox and event id are written once, before the handle is published.
        let (mailbox, id) = unsafe {
            (
                self.field::<u64>(AMD_SIGNAL_EVENT_MAILBOX_OFFSET)
                    .read_volatile(),
                self.field::<u32>(AMD_SIGNAL_EVENT_ID_OFFSET)
                    .read_volatile(),
            )
        };
        (mailbox != 0).then_some(id)
    }

    /// Completion: decrement the value, then raise the signal's event so
    /// host waiters and command processors waiting on it re-check.
    pub fn complete(&self, device: &dyn KfdDevice) {
        self.value().fetch_sub(1, Ordering::AcqRel);
        if let Some(event_id) = self.event_id()
            && let Err(e) = device.set_event(&mut SetEventArgs { event_id, pad: 0 })
        {
            tracing::warn!(
                event_id,
                "SET_EVENT after a completion-signal decrement: {e}"
            );
        }
    }
}

/// Last-seen ages of signal events, so a wait never misses a set that
/// happened after the previous wait returned (KFD's age protocol).
#[derive(Debug, Default)]
pub(crate) struct EventAges(HashMap<u32, u64>);

impl EventAges {
    pub fn forget(&mut self, event_id: u32) {
        self.0.remove(&event_id);
    }

    /// One WAIT_EVENTS (any of `events`) for at most `timeout`. A failed
    /// wait (an event destroyed under us) sleeps `POLL_INTERVAL` instead,
    /// so callers that loop never spin.
    pub fn wait_any(&mut self, device: &dyn KfdDevice, events: &[u32], timeout: Duration) {
        if events.is_empty() {
            std::thread::sleep(timeout);
            return;
        }
        let mut data: Vec<KfdEventData> = events
            .iter()
            .map(|&id| {
                let mut d = KfdEventData::for_event(id);
                d.set_last_event_age(*self.0.get(&id).unwrap_or(&INITIAL_EVENT_AGE));
                d
            })
            .collect();
        let mut args = WaitEventsArgs {
            num_events: data.len() as u32,
            wait_for_all: 0,
            timeout_ms: timeout.as_micros().div_ceil(1000).max(1) as u32,
            ..Default::default()
        };
        let result = device.wait_events(&mut args, &mut data);
        if result.is_err() || args.wait_result == KFD_IOC_WAIT_RESULT_FAIL {
            tracing::trace!("agent queue: WAIT_EVENTS failed ({result:?}); polling");
            std::thread::sleep(POLL_INTERVAL);
            return;
        }
        for (id, d) in events.iter().zip(&data) {
            let age = d.last_event_age();
            if age != 0 {
                self.0.insert(*id, age);
            }
        }
    }
}
