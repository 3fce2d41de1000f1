//! Wall time in which a dispatch's waves were held up by the simulator
//! itself rather than by their own work, which the watchdog
//! (`dispatch.rs check_watchdog`) does not count.
//!
//! The watchdog bounds the time a dispatch's waves run, as a stand-in for
//! how long the GPU would spend on them. The one hold-up with no GPU
//! counterpart is a wave waiting for its block's translation: with
//! `AQUEDUCT_SIM_JIT=always` a worker compiles each block when a wave first
//! enters it and waits for the result (jit/tier.rs), and LLVM may take
//! seconds on a large block (up to its limit, jit/llvm/compile.rs). Counting
//! that would stop a correct kernel with `TimeLimit` in the mode the tests
//! use to run every block translated.
//!
//! Workers of one dispatch may wait at the same time; the clock counts the
//! wall time in which at least one waited, once, so a kernel that really
//! loops is still stopped about its limit after its last wait.

// Only the translator pauses; without it the clock stays at zero.
#![cfg_attr(not(feature = "llvm-jit"), allow(dead_code))]

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The paused wall time of one dispatch.
#[derive(Debug, Default)]
pub(crate) struct PausedTime {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Workers waiting now.
    waiting: u32,
    /// When the current span of waiting began (`waiting > 0`).
    since: Option<Instant>,
    /// Paused time of the spans that have ended.
    ended: Duration,
}

impl PausedTime {
    /// Begin a wait; it ends when the returned guard drops.
    pub(crate) fn pause(&self) -> Pause<'_> {
        let mut s = self.lock();
        if s.waiting == 0 {
            s.since = Some(Instant::now());
        }
        s.waiting += 1;
        Pause(self)
    }

    /// Paused wall time so far, including a span still open.
    pub(crate) fn total(&self) -> Duration {
        let s = self.lock();
        s.ended + s.since.map_or(Duration::ZERO, |t| t.elapsed())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state stays consistent across a panic (each update is one
        // assignment), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// An open wait of [`PausedTime::pause`].
#[must_use]
pub(crate) struct Pause<'a>(&'a PausedTime);

impl Drop for Pause<'_> {
    fn drop(&mut self) {
        let mut s = self.0.lock();
        s.waiting -= 1;
        if s.waiting == 0
            && let Some(t) = s.since.take()
        {
            s.ended += t.elapsed();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_waits_count_once() {
        let p = PausedTime::default();
        assert_eq!(p.total(), Duration::ZERO);
        let started = Instant::now();
        {
            let _a = p.pause();
            let _b = p.pause();
            std::thread::sleep(Duration::from_millis(30));
        }
        let wall = started.elapsed();
        let paused = p.total();
        assert!(paused >= Duration::from_millis(30), "{paused:?}");
        // Two waiters for 30 ms are 30 ms of pause, not 60.
        assert!(paused <= wall, "{paused:?} > {wall:?}");
        // Closed: no longer grows.
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(p.total(), paused);
    }

    #[test]
    fn an_open_wait_counts_up_to_now() {
        let p = PausedTime::default();
        let _a = p.pause();
        std::thread::sleep(Duration::from_millis(10));
        assert!(p.total() >= Duration::from_millis(10));
    }
}
