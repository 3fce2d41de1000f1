//! Running a command-line tool under a time bound, for the tests that feed
//! the tools hostile input: a run past the bound is killed and fails the
//! test, so a hang cannot stall the suite.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::ScratchDir;

/// How a bounded run ended: its exit code (None for a signal) and its
/// standard output followed by its standard error.
pub struct Ended {
    pub code: Option<i32>,
    pub text: String,
}

impl Ended {
    /// A clean failure: an exit code other than 0 and 101 (a Rust panic),
    /// a message, and no panic text.
    pub fn failed_cleanly(&self) -> bool {
        matches!(self.code, Some(c) if c != 0 && c != 101)
            && !self.text.trim().is_empty()
            && !self.text.contains("panicked")
    }
}

/// Runs `command` with no input and RUST_BACKTRACE unset; panics if it
/// runs past `limit` (after killing it).
pub fn run_bounded(command: &mut Command, limit: Duration) -> Ended {
    // Files rather than pipes: a child that fills a pipe nobody reads
    // would block and look like a hang.
    let dir = ScratchDir::new("bounded");
    let (out, err) = (dir.join("out"), dir.join("err"));
    let mut child = command
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(std::fs::File::create(&err).expect("stderr file"))
        .spawn()
        .expect("the program starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if start.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&out).unwrap_or_default()
        + &std::fs::read_to_string(&err).unwrap_or_default();
    match status {
        Some(status) => Ended {
            code: status.code(),
            text,
        },
        None => panic!("{command:?} ran past {limit:?}:\n{text}"),
    }
}
