//! A wake-up counter: how a command processor sleeps until something it
//! may care about happened (a doorbell write, a dispatch finishing, an
//! event firing), without polling and without missed wake-ups.
//!
//! The sleeper reads [`Wake::seen`] *before* checking its conditions and
//! then calls [`Wake::wait_past`] with that value; any [`Wake::notify`] in
//! between makes the wait return at once.
//!
//! The counter is a futex word and sleepers announce themselves in
//! `sleepers`: a notify with nobody asleep is two atomic ops and no system
//! call (a doorbell rung while the command processor is busy, a dispatch
//! the command processor ran itself), where a mutex and condition variable
//! cost a futex call per notify. Both sides use sequentially consistent
//! ordering (the notifier bumps the count, then reads `sleepers`; the
//! sleeper bumps `sleepers`, then reads the count), so either the notifier
//! sees the sleeper and wakes it, or the sleeper sees the new count and
//! does not sleep; the kernel's own check of the word closes the rest.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use rustix::thread::futex;

use crate::dispatch::spin_until;

#[derive(Debug, Default)]
pub struct Wake {
    /// Notifications so far (wrapping).
    count: AtomicU32,
    /// Threads inside `wait_past`.
    sleepers: AtomicU32,
    /// Set while the owner waits on KFD events (barrier packets), so that
    /// event fires wake it.
    wants_events: AtomicBool,
}

impl Wake {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn seen(&self) -> u64 {
        u64::from(self.count.load(Ordering::SeqCst))
    }

    pub fn notify(&self) {
        self.count.fetch_add(1, Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) != 0 {
            // An error (none is documented for a private wake) would leave
            // the sleeper to its next notify; there is nothing to retry.
            let _ = futex::wake(&self.count, futex::Flags::PRIVATE, u32::MAX);
        }
    }

    /// Poll for up to `limit` for the counter to differ from `seen`;
    /// whether it did.
    pub fn spin_past(&self, seen: u64, limit: Duration) -> bool {
        spin_until(limit, || self.seen() != seen)
    }

    /// Block until the counter differs from `seen`.
    pub fn wait_past(&self, seen: u64) {
        let seen = seen as u32;
        loop {
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            if self.count.load(Ordering::SeqCst) != seen {
                self.sleepers.fetch_sub(1, Ordering::SeqCst);
                return;
            }
            // EAGAIN (the count already moved) and EINTR both mean: look again.
            let _ = futex::wait(&self.count, futex::Flags::PRIVATE, seen, None);
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Block until the counter differs from `seen` or `limit` has passed
    /// (a poller that must look again on its own, such as an SDMA
    /// POLL_REGMEM, which re-reads memory every interval).
    pub fn wait_past_for(&self, seen: u64, limit: Duration) {
        let timeout = rustix::time::Timespec {
            tv_sec: limit.as_secs() as i64,
            tv_nsec: limit.subsec_nanos() as _,
        };
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        if self.count.load(Ordering::SeqCst) == seen as u32 {
            // ETIMEDOUT, EAGAIN and EINTR all mean: look again.
            let _ = futex::wait(
                &self.count,
                futex::Flags::PRIVATE,
                seen as u32,
                Some(&timeout),
            );
        }
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }

    pub fn set_wants_events(&self, on: bool) {
        self.wants_events.store(on, Ordering::SeqCst);
    }

    pub fn wants_events(&self) -> bool {
        self.wants_events.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Instant;

    #[test]
    fn a_notify_before_the_wait_is_not_missed() {
        let wake = Wake::new();
        let seen = wake.seen();
        wake.notify();
        // Returns at once: the count moved past `seen`.
        wake.wait_past(seen);
        assert_eq!(wake.seen(), seen + 1);
        assert!(wake.spin_past(seen, Duration::from_millis(1)));
    }

    #[test]
    fn a_sleeper_is_woken_by_a_notify_from_another_thread() {
        let wake = Arc::new(Wake::new());
        for _ in 0..200 {
            let seen = wake.seen();
            let w = wake.clone();
            let sleeper = std::thread::spawn(move || w.wait_past(seen));
            std::thread::yield_now();
            wake.notify();
            sleeper.join().expect("sleeper");
        }
        assert_eq!(wake.sleepers.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn spin_past_times_out_when_nothing_happens() {
        let wake = Wake::new();
        let start = Instant::now();
        assert!(!wake.spin_past(wake.seen(), Duration::from_millis(2)));
        assert!(start.elapsed() >= Duration::from_millis(2));
    }
}
