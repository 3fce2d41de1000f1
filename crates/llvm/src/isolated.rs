//! A compile in a child process with a time limit: the caller survives
//! what libLLVM-19 does on inputs it mishandles. Its code generator loops
//! for ever on some modules (known_hangs.rs) and ends the process on
//! others (`report_fatal_error`, "Cannot select"), and neither can be
//! stopped from inside the process. A child can be killed.
//!
//! The child is `fork(2)`ed from the caller, without `exec`: it starts
//! with the library loaded, its targets registered and the target machine
//! made, so a compile costs the fork (page tables; the pages themselves
//! are shared copy-on-write) over the in-process compile. The fork happens
//! while no other thread is inside the library (library.rs, `IN_USE`,
//! taken for writing), so every lock of libLLVM is free in the child; the
//! C library makes `malloc` safe after `fork` (glibc's fork handlers).
//! The child closes every descriptor but the standard ones and its pipe
//! (another compile's pipe, inherited, would keep that compile's parent
//! from seeing its end), compiles, writes one record to the pipe and ends
//! with `_exit`, running no exit handler of the parent's. It asks to be killed
//! when the thread that forked it ends (`PR_SET_PDEATHSIG`), so a child
//! does not outlive its process.
//!
//! The record: a tag byte, then the object (tag 0), the stage byte and
//! LLVM's message (tag 1), or the reason of a fatal error (tag 2, written
//! by the fatal error handler installed in the child,
//! `LLVMInstallFatalErrorHandler`, llvm-c/ErrorHandling.h).

use std::ffi::{CStr, c_char, c_int, c_uint};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, poll};
use rustix::io::Errno;
use rustix::pipe::{PipeFlags, pipe_with};
use rustix::process::{Pid, Signal, WaitOptions, kill_process, waitpid};

use crate::error::{IsolatedError, LlvmError, Stage};
use crate::library::{Llvm, quiesce};
use crate::object::{ObjectTarget, TargetMachine};

unsafe extern "C" {
    fn fork() -> c_int;
    fn _exit(status: c_int) -> !;
    fn close_range(first: c_uint, last: c_uint, flags: c_int) -> c_int;
}

const TAG_OBJECT: u8 = 0;
const TAG_FAILED: u8 = 1;
const TAG_FATAL: u8 = 2;

/// The child's exit statuses past a written record.
const EXIT_FATAL: c_int = 70;
const EXIT_NO_RECORD: c_int = 71;
const EXIT_ORPHAN: c_int = 72;

/// The stages as record bytes, in one order for both ends.
const STAGES: [Stage; 8] = [
    Stage::TargetMachine,
    Stage::Parse,
    Stage::Verify,
    Stage::Optimise,
    Stage::Emit,
    Stage::Jit,
    Stage::Link,
    Stage::Lookup,
];

/// The pipe's write end in the child, for the fatal error handler.
static RECORD_FD: AtomicI32 = AtomicI32::new(-1);

fn os(call: &'static str) -> impl Fn(Errno) -> IsolatedError {
    move |e| IsolatedError::Os {
        call,
        errno: e.raw_os_error(),
    }
}

/// Write all of `bytes` to `fd` (the child's end; errors end the child's
/// record early, which the parent reports as a child without a result).
fn write_all(fd: impl AsFd, mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        match rustix::io::write(fd.as_fd(), bytes) {
            Ok(0) => return false,
            Ok(n) => bytes = &bytes[n..],
            Err(Errno::INTR) => {}
            Err(_) => return false,
        }
    }
    true
}

/// The child's fatal error handler: the reason goes to the parent, and
/// the child ends (LLVM requires that the handler not return).
unsafe extern "C" fn fatal_error(reason: *const c_char) {
    let fd = RECORD_FD.load(Ordering::Relaxed);
    // SAFETY: LLVM passes a NUL-terminated reason (or null).
    let text = (!reason.is_null()).then(|| unsafe { CStr::from_ptr(reason) });
    // SAFETY: the pipe's write end stays open until the child ends.
    let out = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    let _ = write_all(out, &[TAG_FATAL]) && write_all(out, text.map_or(&[][..], CStr::to_bytes));
    // SAFETY: ends the child without the parent's exit handlers.
    unsafe { _exit(EXIT_FATAL) }
}

impl Llvm {
    /// Compile IR text to a relocatable object for `target`, as
    /// [`Llvm::compile_object`] does, in a child process that is killed
    /// after `limit`: a module libLLVM loops on gives
    /// [`IsolatedError::TimedOut`], one it aborts on gives
    /// [`IsolatedError::Crashed`], and this process goes on.
    pub fn compile_object_isolated(
        &self,
        ir: &str,
        file: &str,
        target: &ObjectTarget,
        limit: Duration,
    ) -> Result<Vec<u8>, IsolatedError> {
        let tm = {
            let _in_use = crate::library::in_use();
            self.take_machine(target)?
        };
        let result = self.compile_in_child(ir, file, &tm, target, limit);
        self.put_machine(target, tm);
        result
    }

    fn compile_in_child(
        &self,
        ir: &str,
        file: &str,
        tm: &TargetMachine,
        target: &ObjectTarget,
        limit: Duration,
    ) -> Result<Vec<u8>, IsolatedError> {
        let start = Instant::now();
        let (from_child, to_parent) = pipe_with(PipeFlags::CLOEXEC).map_err(os("pipe2"))?;
        let parent = rustix::process::getpid();
        let (pid, fork_errno) = {
            let Some(_quiet) = quiesce(limit) else {
                return Err(IsolatedError::Busy {
                    limit_ms: limit.as_millis() as u64,
                });
            };
            // SAFETY: no thread is inside libLLVM (`quiesce`); the child
            // below calls only the library, `write` and `_exit`.
            let pid = unsafe { fork() };
            let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
            (pid, errno)
        };
        if pid == 0 {
            drop(from_child);
            // SAFETY: this is the child; it never returns.
            unsafe { self.child(ir, file, tm, target, parent, to_parent) }
        }
        drop(to_parent);
        let Some(child) = Pid::from_raw(pid).filter(|_| pid > 0) else {
            return Err(IsolatedError::Os {
                call: "fork",
                errno: fork_errno,
            });
        };
        let record = read_record(&from_child, start, limit);
        if record.is_err() {
            // Past the limit (or the pipe failed): the child goes.
            let _ = kill_process(child, Signal::KILL);
        }
        let status = loop {
            match waitpid(Some(child), WaitOptions::empty()) {
                Err(Errno::INTR) => continue,
                Ok(found) => break found.map(|(_, s)| s),
                // SIGCHLD ignored by the application: no status to reap.
                Err(_) => break None,
            }
        };
        let record = record?;
        let crashed = |fatal: Option<String>| IsolatedError::Crashed {
            fatal,
            signal: status.and_then(|s| s.terminating_signal()),
            status: status.and_then(|s| s.exit_status()),
        };
        match record.split_first() {
            Some((&TAG_OBJECT, object)) if status.is_none_or(|s| s.exit_status() == Some(0)) => {
                Ok(object.to_vec())
            }
            Some((&TAG_FAILED, [stage, message @ ..])) if (*stage as usize) < STAGES.len() => {
                Err(IsolatedError::Llvm(LlvmError::Failed {
                    stage: STAGES[*stage as usize],
                    message: String::from_utf8_lossy(message).into_owned(),
                }))
            }
            Some((&TAG_FATAL, reason)) => {
                Err(crashed(Some(String::from_utf8_lossy(reason).into_owned())))
            }
            _ => Err(crashed(None)),
        }
    }

    /// The child: compile, write the record, end.
    ///
    /// # Safety
    /// Runs only in a child just forked from a process in which no other
    /// thread was inside libLLVM.
    unsafe fn child(
        &self,
        ir: &str,
        file: &str,
        tm: &TargetMachine,
        target: &ObjectTarget,
        parent: Pid,
        to_parent: OwnedFd,
    ) -> ! {
        let body = std::panic::AssertUnwindSafe(|| {
            let dies_with_parent =
                rustix::process::set_parent_process_death_signal(Some(Signal::KILL)).is_ok();
            // The parent may have ended before the request above.
            if !dies_with_parent || rustix::process::getppid() != Some(parent) {
                return EXIT_ORPHAN;
            }
            let fd = std::os::fd::AsRawFd::as_raw_fd(&to_parent);
            // Every descriptor but the standard ones and the record's
            // goes: a child must not keep another compile's pipe open (its
            // parent would wait for this child's end to see that pipe's).
            // SAFETY: closes descriptors only this child's copy holds; the
            // child uses no descriptor but `to_parent`.
            unsafe {
                if fd > 3 {
                    close_range(3, fd as c_uint - 1, 0);
                }
                close_range(fd as c_uint + 1, c_uint::MAX, 0);
            }
            RECORD_FD.store(fd, Ordering::Relaxed);
            // SAFETY: installs a handler that never returns (it `_exit`s);
            // only this child ever has it.
            unsafe { (self.api.install_fatal_error_handler)(fatal_error) };
            let written = match self.compile_with(ir, file, tm, target) {
                Ok(object) => {
                    write_all(&to_parent, &[TAG_OBJECT]) && write_all(&to_parent, &object)
                }
                Err(LlvmError::Failed { stage, message }) => {
                    let stage = STAGES.iter().position(|s| *s == stage).unwrap_or(0) as u8;
                    write_all(&to_parent, &[TAG_FAILED, stage])
                        && write_all(&to_parent, message.as_bytes())
                }
                // compile_with fails only with `Failed`; the parent reports
                // anything else as a child without a result.
                Err(LlvmError::Unavailable { .. }) => true,
            };
            if written { 0 } else { EXIT_NO_RECORD }
        });
        let status = std::panic::catch_unwind(body).unwrap_or(EXIT_NO_RECORD);
        // SAFETY: ends the child without the parent's exit handlers.
        unsafe { _exit(status) }
    }
}

/// Read the child's record to the end of the pipe, or fail with
/// [`IsolatedError::TimedOut`] once `limit` has passed since `start`.
fn read_record(pipe: &OwnedFd, start: Instant, limit: Duration) -> Result<Vec<u8>, IsolatedError> {
    let mut record = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let left = limit.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Err(IsolatedError::TimedOut {
                limit_ms: limit.as_millis() as u64,
            });
        }
        let timeout = rustix::event::Timespec::try_from(left).ok();
        let mut fds = [PollFd::new(pipe, PollFlags::IN)];
        match poll(&mut fds, timeout.as_ref()) {
            Ok(0) | Err(Errno::INTR) => continue,
            Ok(_) => {}
            Err(e) => return Err(os("poll")(e)),
        }
        match rustix::io::read(pipe, &mut chunk[..]) {
            Ok(0) => return Ok(record),
            Ok(n) => record.extend_from_slice(&chunk[..n]),
            Err(Errno::INTR | Errno::AGAIN) => {}
            Err(e) => return Err(os("read")(e)),
        }
    }
}
