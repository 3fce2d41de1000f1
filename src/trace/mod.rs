//! Timeline traces: a Chrome/Perfetto trace-event JSON file with a track
//! per GPU queue (one slice per dispatch, per SDMA copy or fill, per
//! barrier packet ordering them, per submission's end and per host
//! callback's barrier, with flow arrows to what each barrier waited for
//! and from it to what it released; timed by the CP's stamps in
//! completion signals; timestamp-query markers are not shown) and host
//! tracks for
//! submissions, mapping, blocking waits and host callbacks. On gfxsim each
//! dispatch slice also carries the device's per-dispatch counters.
//!
//! Switch: [`start`] opens a session (one at a time per process) and
//! [`TraceSession::stop`] or its drop finishes the file; `AQUEDUCT_TRACE=
//! path.json` opens one the first time an [`crate::Instance`] is made,
//! kept for the life of the process and flushed whenever a device is
//! dropped. With no session, the facade's only cost is `enabled`, one
//! relaxed load per submit, map, wait or host callback, and at submit one
//! more, of whether gfxsim was told to count (`DeviceShared::count_dispatches`).
//!
//! The parts: `event.rs` (tracks and records), `writer.rs` (the file),
//! `host_barrier.rs` (a host callback's GPU barrier),
//! `signal_pool.rs` (the signals traced packets complete, kept ready),
//! `submission.rs` (a submission's traced packets, and the events made of
//! their signals' stamps once the submission retires, on the trace thread,
//! so that the submitting and polling threads do no trace work per packet).

mod args;
mod event;
pub(crate) mod host_barrier;
mod json;
pub(crate) mod signal_pool;
pub(crate) mod submission;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

pub(crate) use args::{Args, DispatchArgs, DispatchCounterValues};
#[cfg(feature = "sim")]
pub(crate) use args::{NamedCounts, OccupancyValues};
pub(crate) use event::{EventKind, TraceEvent, Track};
use writer::TraceWriter;

/// The environment variable naming the file a process-long trace goes to.
pub const TRACE_ENV: &str = "AQUEDUCT_TRACE";

/// Why a trace could not be started or written.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// Another session is running (only one writes at a time).
    #[error("a trace is already being written to {}", active.display())]
    AlreadyActive {
        /// The running session's file.
        active: PathBuf,
    },
    /// The file could not be created.
    #[error("cannot create the trace file {}: {source}", path.display())]
    Create {
        /// The file asked for.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// Writing the file failed.
    #[error("cannot write the trace file {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

/// Whether a session is running: the check on every traced path.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The running session's writer.
static WRITER: Mutex<Option<TraceWriter>> = Mutex::new(None);
/// The session `AQUEDUCT_TRACE` started (kept for the life of the process).
static ENV_SESSION: OnceLock<Option<TraceSession>> = OnceLock::new();

fn writer() -> MutexGuard<'static, Option<TraceWriter>> {
    WRITER.lock().unwrap_or_else(|e| e.into_inner())
}

/// Work the trace thread does in order: turning retired submissions into
/// events (clock translation, counters) and events into JSON, off the
/// threads that submit and poll.
type Task = Box<dyn FnOnce() + Send>;

/// How long the trace thread lets tasks collect while a session runs: it
/// takes them in batches, so queueing one costs no wake-up.
const BATCH_INTERVAL: std::time::Duration = std::time::Duration::from_millis(5);

/// The trace thread's queue (started on first use; it lives as long as
/// the process, idle without a session).
static TASKS: OnceLock<Mutex<Sender<Task>>> = OnceLock::new();

/// Run `task` on the trace thread (here, when it cannot be started).
pub(crate) fn in_background(task: Task) {
    let tasks = TASKS.get_or_init(|| {
        let (tx, rx) = channel::<Task>();
        let spawned = std::thread::Builder::new()
            .name("aqueduct-trace".into())
            .spawn(move || {
                lower_own_priority();
                loop {
                    if enabled() {
                        std::thread::sleep(BATCH_INTERVAL);
                        rx.try_iter().for_each(|task| task());
                    } else {
                        // No session: block until a task comes.
                        match rx.recv() {
                            Ok(task) => task(),
                            Err(_) => return,
                        }
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("trace thread: {e}");
        }
        Mutex::new(tx)
    });
    let sent = tasks.lock().unwrap_or_else(|e| e.into_inner()).send(task);
    if let Err(std::sync::mpsc::SendError(task)) = sent {
        task();
    }
}

/// Give the calling thread the lowest priority (nice 19, `setpriority(2)`
/// on its thread id, which Linux applies to that thread alone): the trace
/// thread runs on what the traced program and gfxsim's threads leave
/// over, and falls behind rather than slowing them when the host's cores
/// are busy. What it has not written yet waits in memory; a flush or the
/// session's end waits for it.
fn lower_own_priority() {
    let tid = rustix::thread::gettid();
    if let Err(e) = rustix::process::setpriority_process(Some(tid), 19) {
        tracing::debug!("trace thread priority: {e}");
    }
}

/// Wait until the trace thread has done every task queued before.
fn drain() {
    if TASKS.get().is_none() {
        return;
    }
    let (tx, rx) = channel();
    in_background(Box::new(move || {
        let _ = tx.send(());
    }));
    let _ = rx.recv();
}

/// Whether a trace is being written.
#[inline]
pub(crate) fn enabled() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// A running trace; [`TraceSession::stop`] (or dropping it) writes the
/// rest and closes the file.
#[derive(Debug)]
pub struct TraceSession {
    path: PathBuf,
    stopped: bool,
}

/// Start writing a trace to `path` (created or truncated). Work submitted
/// from now on is traced; a submission in flight at [`TraceSession::stop`]
/// is left out unless a poll retired it before.
pub fn start(path: impl AsRef<Path>) -> Result<TraceSession, TraceError> {
    let path = path.as_ref();
    let mut slot = writer();
    if let Some(w) = slot.as_ref() {
        return Err(TraceError::AlreadyActive {
            active: w.path().to_path_buf(),
        });
    }
    *slot = Some(TraceWriter::create(path, aqueduct_hsa::system_timestamp())?);
    ACTIVE.store(true, Ordering::Relaxed);
    Ok(TraceSession {
        path: path.to_path_buf(),
        stopped: false,
    })
}

impl TraceSession {
    /// The file the session writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write everything recorded so far to the file (it is complete JSON
    /// after each flush).
    pub fn flush(&self) -> Result<(), TraceError> {
        flush()
    }

    /// Finish the file and end the session.
    pub fn stop(mut self) -> Result<(), TraceError> {
        self.finish()
    }

    fn finish(&mut self) -> Result<(), TraceError> {
        if self.stopped {
            return Ok(());
        }
        self.stopped = true;
        ACTIVE.store(false, Ordering::Relaxed);
        drain();
        match writer().take() {
            Some(mut w) => w.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for TraceSession {
    fn drop(&mut self) {
        if let Err(e) = self.finish() {
            tracing::warn!("{e}");
        }
    }
}

/// Start the `AQUEDUCT_TRACE` session, the first time only.
pub(crate) fn start_from_env() {
    ENV_SESSION.get_or_init(|| {
        let path = std::env::var_os(TRACE_ENV).filter(|p| !p.is_empty())?;
        match start(&path) {
            Ok(session) => Some(session),
            Err(e) => {
                tracing::warn!("{TRACE_ENV}: {e}");
                None
            }
        }
    });
}

/// Record `events` in the running session (dropped when none runs).
pub(crate) fn record(events: Vec<TraceEvent>) {
    in_background(Box::new(move || write_events(events)));
}

/// Write `events` to the running session (on the trace thread).
fn write_events(events: Vec<TraceEvent>) {
    let mut slot = writer();
    let Some(w) = slot.as_mut() else {
        return;
    };
    for e in &events {
        if let Err(e) = w.push(e) {
            tracing::warn!("{e}");
            return;
        }
    }
}

/// A host slice on `track` of device `device` from `start_ns` to now.
pub(crate) fn host_slice(
    device: u64,
    track: Track,
    name: impl Into<Arc<str>>,
    start_ns: u64,
    args: serde_json::Map<String, serde_json::Value>,
) {
    let end = aqueduct_hsa::system_timestamp();
    record(vec![TraceEvent {
        device,
        track,
        ts_ns: start_ns,
        kind: EventKind::Slice {
            name: name.into(),
            cat: "host",
            dur_ns: end.saturating_sub(start_ns),
            args: args.into(),
        },
    }]);
}

/// The time a traced host activity starts (None when tracing is off).
#[inline]
pub(crate) fn host_start() -> Option<u64> {
    enabled().then(aqueduct_hsa::system_timestamp)
}

/// Write what the running session holds to its file, once the trace
/// thread has done what was queued before.
pub(crate) fn flush() -> Result<(), TraceError> {
    drain();
    match writer().as_mut() {
        Some(w) => w.flush(),
        None => Ok(()),
    }
}
