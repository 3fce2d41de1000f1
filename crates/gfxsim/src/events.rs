//! KFD events: CREATE/DESTROY/SET/RESET/WAIT_EVENTS, the event page, and
//! the device-side ways events fire (a completion signal's mailbox write +
//! interrupt, a GPU VM fault, a queue error).
//!
//! Semantics follow kfd_events.c:
//! - Signal (and debug) events own a slot of the event page; their id is
//!   the slot index. Other events get ids from 0x8000_0000 up.
//! - The event page is the runtime's GTT BO whose handle the first
//!   CREATE_EVENT passes in `event_page_offset`; without one, gfxsim makes
//!   its own page, mapped with mmap of /dev/kfd at the TYPE_EVENTS offset.
//!   Each signal event's slot is set to "unsignaled" (all ones) when the
//!   event is created.
//! - The CP writes the event id into the slot and interrupts; the interrupt
//!   handler acknowledges (slot back to all ones) and sets the event.
//! - set: auto-reset events that a waiter consumes are reset by that
//!   waiter; manual-reset events stay signaled until RESET_EVENT.
//! - Every set bumps the event's age (KFD 1.14 `last_event_age`): a waiter
//!   that passes an age different from the current one returns at once.
//! - WAIT_EVENTS blocks until one (or all) of its events is set; timeout 0
//!   polls and 0xFFFF_FFFF waits forever. A set wakes only the callers
//!   waiting on that event: KFD queues a waiter on the wait queue of each
//!   event it waits on (`init_event_waiter`) and `set_event` wakes that
//!   event's queue. Waking every caller on every set would, on each
//!   dispatch's completion interrupt, also wake threads that wait on other
//!   events (the runtime's scratch thread) and take host time from the CP.
//!
//! Command processors waiting on barrier packets register a [`Wake`] as a
//! listener and are woken on every event fire (and on every completion
//! signal update), then re-check their dependency signals.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use aqueduct_kfd::uapi::{
    CreateEventArgs, KFD_IOC_WAIT_RESULT_COMPLETE, KFD_IOC_WAIT_RESULT_FAIL,
    KFD_IOC_WAIT_RESULT_TIMEOUT, KFD_SIGNAL_EVENT_LIMIT, KfdEventData, MemoryExceptionData,
    event_type, mmap_offset,
};
use aqueduct_kfd::{KfdError, KfdResult};
use rustix::io::Errno;

use crate::memory::Memory;
use crate::memory::backing::Backing;
use crate::wake::Wake;

/// Value of an event-page slot that holds no pending signal.
pub const UNSIGNALED_EVENT_SLOT: u64 = u64::MAX;
/// First id of non-signal events.
pub const FIRST_NONSIGNAL_EVENT_ID: u32 = 0x8000_0000;
/// `KFD_EVENT_TIMEOUT_INFINITE`.
pub const TIMEOUT_INFINITE: u32 = u32::MAX;
/// Bytes of the event page.
pub const EVENT_PAGE_SIZE: u64 = KFD_SIGNAL_EVENT_LIMIT as u64 * 8;

fn err(ioctl: &'static str, errno: Errno) -> KfdError {
    KfdError::ioctl(ioctl, errno.raw_os_error())
}

#[derive(Debug)]
struct Event {
    event_type: u32,
    auto_reset: bool,
    signaled: bool,
    /// Incremented on every set (starts at 1, as KFD's event_age).
    age: u64,
    memory_exception: Option<MemoryExceptionData>,
}

impl Event {
    fn uses_slot(&self) -> bool {
        matches!(
            self.event_type,
            event_type::SIGNAL | event_type::DEBUG_EVENT
        )
    }
}

#[derive(Debug)]
struct EventPage {
    backing: Arc<Backing>,
    slots: u32,
    /// The runtime's BO handle (0 for gfxsim's own page).
    handle: u64,
}

impl EventPage {
    fn slot(&self, index: u32) -> Option<&AtomicU64> {
        if index >= self.slots {
            return None;
        }
        // SAFETY: the page holds `slots` 8-byte slots, page aligned, and
        // lives as long as self; the memory is shared with the device and
        // the host, so it is accessed atomically.
        Some(unsafe { &*(self.backing.ptr().add(index as usize * 8) as *const AtomicU64) })
    }
}

#[derive(Debug, Default)]
struct EventState {
    events: HashMap<u32, Event>,
    page: Option<EventPage>,
    next_other_id: u32,
    /// The WAIT_EVENTS callers blocked now.
    waiters: Vec<Arc<Waiter>>,
}

impl EventState {
    /// The waiters on an event `fired` says yes to.
    fn waiters_on(&self, fired: impl Fn(u32) -> bool) -> Vec<Arc<Waiter>> {
        self.waiters
            .iter()
            .filter(|w| w.ids.iter().any(|&id| fired(id)))
            .cloned()
            .collect()
    }

    /// The waiters on event `event_id`.
    fn waiters_of(&self, event_id: u32) -> Vec<Arc<Waiter>> {
        self.waiters_on(|id| id == event_id)
    }
}

/// A blocked WAIT_EVENTS caller: the events it waits on, and the condition
/// variable (over the state's mutex) a set of one of them notifies.
#[derive(Debug)]
struct Waiter {
    ids: Vec<u32>,
    cv: Condvar,
}

#[derive(Debug, Default)]
pub struct Events {
    state: Mutex<EventState>,
    listeners: Mutex<Vec<Weak<Wake>>>,
    /// Whether WAIT_EVENTS reads and returns `last_event_age` (KFD 1.14 and
    /// later; see `kfd_version.rs`).
    event_age: bool,
}

impl Events {
    /// Events of a device presenting KFD minor version `kfd_minor`.
    pub fn new(kfd_minor: u32) -> Self {
        Self {
            state: Mutex::new(EventState {
                next_other_id: FIRST_NONSIGNAL_EVENT_ID,
                ..Default::default()
            }),
            event_age: kfd_minor >= aqueduct_kfd::uapi::minor_version::EVENT_AGE,
            ..Default::default()
        }
    }

    fn state(&self) -> MutexGuard<'_, EventState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn create(&self, memory: &Memory, args: &mut CreateEventArgs) -> KfdResult<()> {
        const NAME: &str = "CREATE_EVENT";
        if args.event_type > event_type::MEMORY {
            return Err(err(NAME, Errno::INVAL));
        }
        let mut state = self.state();
        if args.event_page_offset != 0 {
            if state.page.is_some() {
                tracing::debug!("{NAME}: the event page is already set");
                return Err(err(NAME, Errno::INVAL));
            }
            let bo = memory
                .bo(args.event_page_offset)
                .ok_or_else(|| err(NAME, Errno::INVAL))?;
            if bo.size < EVENT_PAGE_SIZE || bo.backing.size() < EVENT_PAGE_SIZE {
                tracing::debug!(
                    "{NAME}: event page BO of {:#x} bytes is smaller than {EVENT_PAGE_SIZE:#x}",
                    bo.size
                );
                return Err(err(NAME, Errno::INVAL));
            }
            state.page = Some(EventPage {
                backing: bo.backing.clone(),
                slots: KFD_SIGNAL_EVENT_LIMIT,
                handle: args.event_page_offset,
            });
        }
        let auto_reset = args.auto_reset != 0;
        let event = Event {
            event_type: args.event_type,
            auto_reset,
            signaled: false,
            age: 1,
            memory_exception: None,
        };
        let id = if event.uses_slot() {
            if state.page.is_none() {
                let backing = Backing::new_memfd("gfxsim-events", EVENT_PAGE_SIZE)
                    .map_err(|_| err(NAME, Errno::NOMEM))?;
                state.page = Some(EventPage {
                    backing: Arc::new(backing),
                    slots: KFD_SIGNAL_EVENT_LIMIT,
                    handle: 0,
                });
            }
            let slots = state.page.as_ref().map_or(0, |p| p.slots);
            let id = (0..slots)
                .find(|id| !state.events.contains_key(id))
                .ok_or_else(|| err(NAME, Errno::NOSPC))?;
            if let Some(slot) = state.page.as_ref().and_then(|p| p.slot(id)) {
                slot.store(UNSIGNALED_EVENT_SLOT, Ordering::Release);
            }
            args.event_page_offset = mmap_offset::TYPE_EVENTS;
            args.event_slot_index = id;
            id
        } else {
            let mut id = state.next_other_id;
            while state.events.contains_key(&id) {
                id = id.checked_add(1).ok_or_else(|| err(NAME, Errno::NOSPC))?;
            }
            state.next_other_id = id.wrapping_add(1).max(FIRST_NONSIGNAL_EVENT_ID);
            id
        };
        args.event_id = id;
        args.event_trigger_data = id;
        state.events.insert(id, event);
        tracing::trace!(
            "{NAME}: id {id:#x} type {} auto_reset {auto_reset}",
            args.event_type
        );
        Ok(())
    }

    pub fn destroy(&self, event_id: u32) -> KfdResult<()> {
        let mut state = self.state();
        state
            .events
            .remove(&event_id)
            .ok_or_else(|| err("DESTROY_EVENT", Errno::INVAL))?;
        // Waiters on it return FAIL.
        let waiters = state.waiters_of(event_id);
        drop(state);
        waiters.iter().for_each(|w| w.cv.notify_all());
        Ok(())
    }

    /// SET_EVENT from the host: only signal events may be set by the CPU.
    pub fn host_set(&self, event_id: u32) -> KfdResult<()> {
        let mut state = self.state();
        let event = state
            .events
            .get_mut(&event_id)
            .ok_or_else(|| err("SET_EVENT", Errno::INVAL))?;
        if event.event_type != event_type::SIGNAL {
            return Err(err("SET_EVENT", Errno::INVAL));
        }
        Self::set_locked(event);
        let waiters = state.waiters_of(event_id);
        drop(state);
        self.fired(&waiters);
        Ok(())
    }

    pub fn reset(&self, event_id: u32) -> KfdResult<()> {
        let mut state = self.state();
        let event = state
            .events
            .get_mut(&event_id)
            .ok_or_else(|| err("RESET_EVENT", Errno::INVAL))?;
        event.signaled = false;
        Ok(())
    }

    fn set_locked(event: &mut Event) {
        event.signaled = true;
        event.age = event.age.wrapping_add(1).max(1);
    }

    /// Wake `waiters` (the WAIT_EVENTS callers on the events set) and
    /// every command processor waiting on events.
    fn fired(&self, waiters: &[Arc<Waiter>]) {
        waiters.iter().for_each(|w| w.cv.notify_all());
        self.notify_listeners();
    }

    /// Wake the command processors that wait on events (barrier packets),
    /// e.g. after a completion signal changed without an event.
    pub fn notify_listeners(&self) {
        let mut listeners = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
        listeners.retain(|w| match w.upgrade() {
            Some(wake) => {
                if wake.wants_events() {
                    wake.notify();
                }
                true
            }
            None => false,
        });
    }

    pub fn add_listener(&self, wake: &Arc<Wake>) {
        self.listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::downgrade(wake));
    }

    /// The interrupt the CP raises after writing `event_id` to a signal's
    /// mailbox: if that event's slot holds a signal, acknowledge it and set
    /// the event.
    pub fn interrupt(&self, event_id: u32) {
        let mut guard = self.state();
        let state = &mut *guard;
        let Some(event) = state.events.get_mut(&event_id) else {
            tracing::debug!("gfxsim: interrupt for unknown event {event_id}");
            return;
        };
        let slot = state.page.as_ref().and_then(|p| p.slot(event_id));
        let pending = match slot {
            Some(slot) if event.uses_slot() => {
                slot.swap(UNSIGNALED_EVENT_SLOT, Ordering::AcqRel) != UNSIGNALED_EVENT_SLOT
            }
            _ => false,
        };
        if !pending {
            tracing::debug!("gfxsim: interrupt for event {event_id} whose slot holds no signal");
            return;
        }
        Self::set_locked(event);
        let waiters = state.waiters_of(event_id);
        drop(guard);
        self.fired(&waiters);
    }

    /// Set event `event_id` from the device side (queue error events).
    pub fn device_set(&self, event_id: u32) {
        let mut state = self.state();
        match state.events.get_mut(&event_id) {
            Some(event) => Self::set_locked(event),
            None => {
                tracing::debug!("gfxsim: device set of unknown event {event_id}");
                return;
            }
        }
        let waiters = state.waiters_of(event_id);
        drop(state);
        self.fired(&waiters);
    }

    /// A GPU VM fault: every MEMORY event gets the exception data and fires.
    pub fn memory_fault(&self, data: MemoryExceptionData) {
        let mut state = self.state();
        let mut any = false;
        for event in state
            .events
            .values_mut()
            .filter(|e| e.event_type == event_type::MEMORY)
        {
            event.memory_exception = Some(data);
            Self::set_locked(event);
            any = true;
        }
        if any {
            let waiters = state.waiters_on(|id| {
                state
                    .events
                    .get(&id)
                    .is_some_and(|e| e.event_type == event_type::MEMORY)
            });
            drop(state);
            self.fired(&waiters);
        }
    }

    /// The backing of the event page gfxsim allocated itself (for mmap of
    /// /dev/kfd at TYPE_EVENTS); None if there is none.
    /// Handle of the runtime's BO registered as the event page, if any
    /// (kfd_chardev.c keeps it as `p->signal_handle`).
    pub fn page_handle(&self) -> Option<u64> {
        self.state()
            .page
            .as_ref()
            .map(|p| p.handle)
            .filter(|&h| h != 0)
    }

    pub fn page_backing(&self) -> Option<Arc<Backing>> {
        self.state().page.as_ref().map(|p| p.backing.clone())
    }

    /// WAIT_EVENTS. Returns the wait result.
    pub fn wait(
        &self,
        events: &mut [KfdEventData],
        wait_for_all: bool,
        timeout_ms: u32,
    ) -> KfdResult<u32> {
        const NAME: &str = "WAIT_EVENTS";
        let deadline = match timeout_ms {
            TIMEOUT_INFINITE => None,
            ms => Some(Instant::now() + Duration::from_millis(ms as u64)),
        };
        let mut state = self.state();
        let mut start_age = Vec::with_capacity(events.len());
        for data in events.iter() {
            let event = state
                .events
                .get(&data.event_id)
                .ok_or_else(|| err(NAME, Errno::INVAL))?;
            // A caller-provided age that differs from the current one means
            // the event fired since the caller last looked.
            let age = if self.event_age {
                data.last_event_age()
            } else {
                0
            };
            let signal = event.event_type == event_type::SIGNAL;
            start_age.push(if signal && age != 0 { age } else { event.age });
        }
        let mut activated = vec![false; events.len()];
        // Registered on the first block, unregistered before returning.
        let mut waiter: Option<Arc<Waiter>> = None;
        let result = 'wait: loop {
            for (i, data) in events.iter().enumerate() {
                if activated[i] {
                    continue;
                }
                let Some(event) = state.events.get_mut(&data.event_id) else {
                    break 'wait KFD_IOC_WAIT_RESULT_FAIL;
                };
                if event.signaled || event.age != start_age[i] {
                    activated[i] = true;
                    if event.auto_reset {
                        event.signaled = false;
                    }
                }
            }
            let done = if wait_for_all {
                activated.iter().all(|&a| a)
            } else {
                activated.iter().any(|&a| a)
            };
            if done || events.is_empty() {
                for (i, data) in events.iter_mut().enumerate() {
                    let Some(event) = state.events.get(&data.event_id) else {
                        continue;
                    };
                    if !activated[i] {
                        continue;
                    }
                    match event.event_type {
                        event_type::MEMORY => {
                            if let Some(m) = event.memory_exception {
                                data.set_memory_exception(m);
                            }
                        }
                        event_type::SIGNAL if self.event_age => data.set_last_event_age(event.age),
                        _ => {}
                    }
                }
                break 'wait KFD_IOC_WAIT_RESULT_COMPLETE;
            }
            let w = waiter
                .get_or_insert_with(|| {
                    let w = Arc::new(Waiter {
                        ids: events.iter().map(|d| d.event_id).collect(),
                        cv: Condvar::new(),
                    });
                    state.waiters.push(w.clone());
                    w
                })
                .clone();
            match deadline {
                None => state = w.cv.wait(state).unwrap_or_else(|e| e.into_inner()),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        break 'wait KFD_IOC_WAIT_RESULT_TIMEOUT;
                    }
                    state =
                        w.cv.wait_timeout(state, deadline - now)
                            .unwrap_or_else(|e| e.into_inner())
                            .0;
                }
            }
        };
        if let Some(w) = waiter {
            state.waiters.retain(|other| !Arc::ptr_eq(other, &w));
        }
        Ok(result)
    }
}
