//! Error scopes and the uncaptured-error handler (WebGPU's error model).
//!
//! Each device keeps a stack of scopes per thread (wgpu 30 makes scopes
//! thread-local; keying the stack by thread id gives the same behaviour
//! without thread-local storage per device). An error goes to the innermost
//! scope of the reporting thread whose filter matches; if there is none, to
//! the uncaptured-error handler. With no handler installed the error is
//! fatal, as in wgpu (`default_error_handler` in wgpu's
//! `src/backend/wgpu_core.rs`): it is logged through `log` and `tracing`,
//! then the reporting call panics with `aqueduct error: ` and the message.
//! [`log_uncaptured_error`] is the opt-in handler that logs instead.

use std::fmt;
use std::sync::{Arc, Weak};
use std::thread::ThreadId;

use crate::error::{Error, ErrorFilter};
use crate::lock_rank::{LockRank, Mutex, MutexGuard};

/// A handler for errors no scope caught.
pub trait UncapturedErrorHandler: Fn(Error) + Send + Sync + 'static {}
impl<T> UncapturedErrorHandler for T where T: Fn(Error) + Send + Sync + 'static {}

struct Scope {
    id: u64,
    thread: ThreadId,
    filter: ErrorFilter,
    error: Option<Error>,
}

#[derive(Default)]
struct SinkState {
    scopes: Vec<Scope>,
    next_id: u64,
    handler: Option<Arc<dyn Fn(Error) + Send + Sync>>,
}

/// Where a device's errors go.
pub(crate) struct ErrorSink {
    state: Mutex<SinkState>,
}

impl Default for ErrorSink {
    fn default() -> Self {
        ErrorSink {
            state: Mutex::new(LockRank::ErrorSink, SinkState::default()),
        }
    }
}

impl std::fmt::Debug for ErrorSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ErrorSink")
    }
}

impl ErrorSink {
    fn lock(&self) -> MutexGuard<'_, SinkState> {
        self.state.lock_unpoisoned()
    }

    /// Deliver `error` to a scope or the handler.
    pub(crate) fn report(&self, error: Error) {
        let me = std::thread::current().id();
        let handler = {
            let mut s = self.lock();
            let filter = error.filter();
            if let Some(scope) = s
                .scopes
                .iter_mut()
                .rev()
                .find(|sc| sc.thread == me && sc.filter == filter)
            {
                // A scope keeps the first error it caught.
                if scope.error.is_none() {
                    scope.error = Some(error);
                }
                return;
            }
            s.handler.clone()
        };
        match handler {
            Some(h) => h(error),
            None => default_uncaptured(error),
        }
    }

    pub(crate) fn push(&self, filter: ErrorFilter) -> u64 {
        let mut s = self.lock();
        s.next_id += 1;
        let id = s.next_id;
        s.scopes.push(Scope {
            id,
            thread: std::thread::current().id(),
            filter,
            error: None,
        });
        id
    }

    /// Pop scope `id` (and any scope of this thread pushed after it and not
    /// popped, as dropping guards out of order would leave them).
    pub(crate) fn pop(&self, id: u64) -> Option<Error> {
        let mut s = self.lock();
        let pos = s.scopes.iter().position(|sc| sc.id == id)?;
        let scope = s.scopes.remove(pos);
        scope.error
    }

    pub(crate) fn set_handler(&self, handler: Arc<dyn Fn(Error) + Send + Sync>) {
        self.lock().handler = Some(handler);
    }
}

/// What an error no scope catches and no handler takes does: it is
/// logged, then the reporting call panics (wgpu's default). A second
/// error reported while the thread already unwinds (from a `Drop`) is
/// only logged: panicking again would abort the process.
fn default_uncaptured(error: Error) {
    log_to_subscribers(&error);
    if !std::thread::panicking() {
        panic!("aqueduct error: {error}\n");
    }
}

/// Emit `message` as an error through `log` and `tracing` (target
/// `aqueduct`); returns whether either has a consumer for it.
fn log_to_subscribers(message: &dyn fmt::Display) -> bool {
    log::error!(target: "aqueduct", "uncaptured error: {message}");
    tracing::error!(target: "aqueduct", "uncaptured error: {message}");
    log::log_enabled!(target: "aqueduct", log::Level::Error)
        || tracing::enabled!(target: "aqueduct", tracing::Level::ERROR)
}

/// Log `message` as an uncaptured error instead of panicking: through
/// `log` (so `env_logger` shows it) and `tracing`, and on stderr when
/// neither has a logger or subscriber that takes it, so the error is never
/// lost. The building block of [`log_uncaptured_error`] and of layers with
/// their own error type (aqueduct-wgpu).
pub fn log_uncaptured(message: &dyn fmt::Display) {
    if !log_to_subscribers(message) {
        eprintln!("aqueduct: uncaptured error: {message}");
    }
}

/// The opt-in logging mode of the uncaptured-error handler: install it with
/// `device.on_uncaptured_error(Arc::new(aqueduct::log_uncaptured_error))`
/// and errors no scope catches are logged (see [`log_uncaptured`]) and the
/// calls that raised them return, leaving invalid objects behind.
pub fn log_uncaptured_error(error: Error) {
    log_uncaptured(&error);
}

/// An open error scope; [`ErrorScopeGuard::pop`] closes it and returns the
/// first error it caught. Dropping the guard closes it and discards the
/// error.
#[must_use = "an error scope is closed when its guard is popped or dropped"]
pub struct ErrorScopeGuard {
    pub(crate) sink: Weak<ErrorSink>,
    pub(crate) id: u64,
    pub(crate) popped: bool,
}

impl ErrorScopeGuard {
    /// Close the scope; resolves at once to the first error it caught.
    pub fn pop(mut self) -> std::future::Ready<Option<Error>> {
        std::future::ready(self.take())
    }

    /// Close the scope without an executor (the same as `block_on(pop())`).
    pub fn pop_now(mut self) -> Option<Error> {
        self.take()
    }

    fn take(&mut self) -> Option<Error> {
        self.popped = true;
        self.sink.upgrade().and_then(|s| s.pop(self.id))
    }
}

impl Drop for ErrorScopeGuard {
    fn drop(&mut self) {
        if !self.popped {
            self.take();
        }
    }
}
