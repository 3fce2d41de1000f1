//! The lock order of the facade, stated once and checked in debug builds.
//!
//! Every lock in the facade is a [`Mutex`] of this module made with a
//! [`LockRank`]. A thread takes locks in increasing rank only: in debug
//! builds each thread keeps the ranks it holds, and taking a lock whose
//! rank is not above all of them panics at once, naming both locks (an
//! order that could deadlock with another thread fails on the first run
//! that takes it, not on the unlucky one). Release builds keep nothing and
//! check nothing: a `Mutex` is a `std::sync::Mutex`. Modelled on wgpu-core's
//! `lock/rank.rs`.

use std::sync::{LockResult, PoisonError};

/// Where a lock stands in the order: a thread holding a lock takes only
/// locks ranked after it. Each variant says what it guards and why it
/// stands where it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LockRank {
    /// `CommandEncoder`'s recording state; held while a command is
    /// validated (which looks at buffer state in the registry) and while
    /// `finish` reports the encoder's error.
    CommandEncoder,
    /// An adapter's list of the devices opened on it (`Instance::poll_all`).
    AdapterDevices,
    /// The device's host-callback soft queue, made on first use.
    HostCallbackQueue,
    /// `DeviceShared::submit_lock`: whoever writes packets to the GPU
    /// queue; held across a submission, which takes the queue state and
    /// reports faults.
    SubmitLock,
    /// `DeviceShared::state`: the submission engine (rings, pending
    /// uploads, in-flight submissions, callbacks); let go while a
    /// submission waits for ring space.
    QueueState,
    /// `DeviceShared::registry`: buffer state; taken under the queue state
    /// by mapping and submission.
    Registry,
    /// One WGSL batch compile at a time (`crate::wgsl`); held across the
    /// compile, which takes the pending set and the shader cache.
    #[cfg_attr(not(feature = "wgsl"), allow(dead_code))]
    ShaderBatch,
    /// WGSL modules waiting for a batch compile.
    #[cfg_attr(not(feature = "wgsl"), allow(dead_code))]
    ShaderPending,
    /// Loaded WGSL variants of a device.
    ShaderCache,
    /// The error scopes and uncaptured-error handler; errors are reported
    /// with the submit lock or an encoder held.
    ErrorSink,
    /// A callback panic waiting to be raised again.
    HostCallbackPanic,
    /// A work-done callback shared by its host-thread and polled paths.
    WorkDoneCallback,
    /// The device's spare recordings (`src/command/pool.rs`): taken and
    /// given back under an encoder or the queue state, and nothing is
    /// taken while it is held.
    RecordingPool,
}

#[cfg(debug_assertions)]
thread_local! {
    /// The ranks of the locks this thread holds, in the order taken.
    static HELD: std::cell::RefCell<Vec<LockRank>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Record that this thread takes a lock of `rank`; panics if it holds one
/// of the same or a later rank.
#[cfg(debug_assertions)]
fn acquire(rank: LockRank) {
    HELD.with(|held| {
        let mut held = held.borrow_mut();
        if let Some(&last) = held.iter().max() {
            assert!(
                last < rank,
                "lock order violated: taking {rank:?} while holding {last:?} (see src/lock_rank.rs)"
            );
        }
        held.push(rank);
    });
}

/// Record that this thread let go of a lock of `rank`.
#[cfg(debug_assertions)]
fn release(rank: LockRank) {
    // `try_with`: a guard dropped while the thread's locals are torn down.
    let _ = HELD.try_with(|held| {
        let mut held = held.borrow_mut();
        if let Some(i) = held.iter().rposition(|&r| r == rank) {
            held.remove(i);
        }
    });
}

/// A `std::sync::Mutex` with a place in the lock order.
#[derive(Debug)]
pub(crate) struct Mutex<T> {
    inner: std::sync::Mutex<T>,
    #[cfg(debug_assertions)]
    rank: LockRank,
}

impl<T> Mutex<T> {
    pub(crate) const fn new(rank: LockRank, value: T) -> Self {
        #[cfg(not(debug_assertions))]
        let _ = rank;
        Mutex {
            inner: std::sync::Mutex::new(value),
            #[cfg(debug_assertions)]
            rank,
        }
    }

    /// Take the lock (checking the order in debug builds); poisoned as
    /// `std::sync::Mutex::lock` is.
    pub(crate) fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        #[cfg(debug_assertions)]
        acquire(self.rank);
        let guard = |inner| MutexGuard {
            inner,
            #[cfg(debug_assertions)]
            rank: self.rank,
        };
        match self.inner.lock() {
            Ok(inner) => Ok(guard(inner)),
            Err(poisoned) => Err(PoisonError::new(guard(poisoned.into_inner()))),
        }
    }

    /// Take the lock; a panic of an earlier holder does not matter to
    /// the callers (their state stays consistent between statements).
    pub(crate) fn lock_unpoisoned(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The guard of a ranked [`Mutex`].
#[derive(Debug)]
pub(crate) struct MutexGuard<'a, T> {
    inner: std::sync::MutexGuard<'a, T>,
    #[cfg(debug_assertions)]
    rank: LockRank,
}

impl<T> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        #[cfg(debug_assertions)]
        release(self.rank);
    }
}

impl<T> std::ops::Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T> std::ops::DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_taken_in_rank_order_are_fine_and_released() {
        let state = Mutex::new(LockRank::QueueState, 1);
        let registry = Mutex::new(LockRank::Registry, 2);
        {
            let s = state.lock_unpoisoned();
            let r = registry.lock_unpoisoned();
            assert_eq!(*s + *r, 3);
        }
        // Both were let go: the earlier rank may be taken again.
        let r = registry.lock_unpoisoned();
        drop(r);
        let _s = state.lock_unpoisoned();
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "lock order violated: taking SubmitLock while holding QueueState")]
    fn an_out_of_order_acquisition_panics_in_debug_builds() {
        let submit = Mutex::new(LockRank::SubmitLock, ());
        let state = Mutex::new(LockRank::QueueState, ());
        let _state = state.lock_unpoisoned();
        let _submit = submit.lock_unpoisoned();
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "lock order violated")]
    fn a_second_lock_of_the_same_rank_panics_in_debug_builds() {
        let a = Mutex::new(LockRank::Registry, ());
        let b = Mutex::new(LockRank::Registry, ());
        let _a = a.lock_unpoisoned();
        let _b = b.lock_unpoisoned();
    }
}
