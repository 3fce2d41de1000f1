//! Bounded in-process runs: a test body on its own thread, failed when it
//! has not finished in time, so a deadlock fails the test instead of hanging
//! CI (the in-process counterpart of [`crate::process::run_bounded`]).

use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

/// Runs `body` on its own thread; panics if it has not finished by `limit`,
/// and re-raises its panic if it panicked.
pub fn bounded(limit: Duration, body: impl FnOnce() + Send + 'static) {
    let (tx, rx) = channel();
    let handle = std::thread::spawn(move || {
        body();
        let _ = tx.send(());
    });
    match rx.recv_timeout(limit) {
        Ok(()) => handle.join().expect("body thread"),
        Err(RecvTimeoutError::Timeout) => {
            panic!("no progress within {limit:?}: deadlock or lost wake-up")
        }
        Err(RecvTimeoutError::Disconnected) => {
            if let Err(payload) = handle.join() {
                std::panic::resume_unwind(payload);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_body_passes() {
        bounded(Duration::from_secs(5), || {});
    }

    #[test]
    #[should_panic(expected = "no progress within")]
    fn a_stuck_body_fails() {
        bounded(Duration::from_millis(50), || {
            std::thread::sleep(Duration::from_secs(2))
        });
    }

    #[test]
    #[should_panic(expected = "inner")]
    fn a_panicking_body_reraises() {
        bounded(Duration::from_secs(5), || panic!("inner"));
    }
}
