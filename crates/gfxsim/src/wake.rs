//! A wake-up counter: how a command processor sleeps until something it
//! may care about happened (a doorbell write, a dispatch finishing, an
//! event firing), without polling and without missed wake-ups.
//!
//! The sleeper reads [`Wake::seen`] *before* checking its conditions and
//! then calls [`Wake::wait_past`] with that value; any [`Wake::notify`] in
//! between makes the wait return at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

#[derive(Debug, Default)]
pub struct Wake {
    count: Mutex<u64>,
    cv: Condvar,
    /// Set while the owner waits on KFD events (barrier packets), so that
    /// event fires wake it.
    wants_events: AtomicBool,
}

impl Wake {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn seen(&self) -> u64 {
        *self.count.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn notify(&self) {
        let mut count = self.count.lock().unwrap_or_else(|e| e.into_inner());
        *count = count.wrapping_add(1);
        self.cv.notify_all();
    }

    /// Block until the counter differs from `seen`.
    pub fn wait_past(&self, seen: u64) {
        let mut count = self.count.lock().unwrap_or_else(|e| e.into_inner());
        while *count == seen {
            count = self.cv.wait(count).unwrap_or_else(|e| e.into_inner());
        }
    }

    pub fn set_wants_events(&self, on: bool) {
        self.wants_events.store(on, Ordering::SeqCst);
    }

    pub fn wants_events(&self) -> bool {
        self.wants_events.load(Ordering::SeqCst)
    }
}
