//! The trace file: a JSON object `{"traceEvents":[...]}` that is complete
//! after every flush. Events collect in memory and are appended in front of
//! the closing `]}` (the writer seeks back over it), so a process that ends
//! without stopping its session leaves a file that opens as far as the
//! last flush.
//!
//! A counter track's sample equal to the track's last one is left out: a
//! run of dispatches with the same counters draws one step, not one per
//! dispatch.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::TraceError;
use super::args::Sample;
use super::event::{EventKind, TraceEvent, Track, process_name, track_name};

/// What closes the event array and the object.
const TRAILER: &[u8] = b"\n]}\n";
/// Buffered bytes past which events go to the file.
const FLUSH_BYTES: usize = 1 << 20;

#[derive(Debug)]
pub(crate) struct TraceWriter {
    path: PathBuf,
    file: File,
    /// The session's start in the system clock: `ts` 0.
    pub(crate) origin_ns: u64,
    /// Serialized events not written yet, each preceded by its separator.
    pending: Vec<u8>,
    /// Whether the file holds an event (the next one needs a comma).
    any: bool,
    /// Devices and tracks whose names are written (a few; searched in
    /// order, cheaper than hashing each event's).
    named_devices: Vec<u64>,
    named: Vec<(u64, Track)>,
    /// Each counter track's last sample written, by device and name.
    last_samples: Vec<((u64, &'static str), Sample)>,
}

impl TraceWriter {
    pub(crate) fn create(path: &Path, origin_ns: u64) -> Result<TraceWriter, TraceError> {
        let io = |source| TraceError::Create {
            path: path.to_path_buf(),
            source,
        };
        let mut file = File::create(path).map_err(io)?;
        file.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[")
            .map_err(io)?;
        file.write_all(TRAILER).map_err(io)?;
        Ok(TraceWriter {
            path: path.to_path_buf(),
            file,
            origin_ns,
            pending: Vec::new(),
            any: false,
            named_devices: Vec::new(),
            named: Vec::new(),
            last_samples: Vec::new(),
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn push_json(&mut self, value: &serde_json::Value) {
        self.pending
            .extend_from_slice(if self.any { b",\n" } else { b"\n" });
        self.any = true;
        // Writing a Value into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut self.pending, value);
    }

    /// Whether `sample` of counter track `name` of `device` differs from
    /// the track's last one (and so is written); it becomes the last one.
    fn sample_changes(&mut self, device: u64, name: &'static str, sample: Sample) -> bool {
        let key = (device, name);
        match self.last_samples.iter_mut().find(|(k, _)| *k == key) {
            Some((_, last)) if *last == sample => false,
            Some((_, last)) => {
                *last = sample;
                true
            }
            None => {
                self.last_samples.push((key, sample));
                true
            }
        }
    }

    /// Queue `event` (and its track's names, the first time).
    pub(crate) fn push(&mut self, event: &TraceEvent) -> Result<(), TraceError> {
        if let EventKind::Counter { name, values } = &event.kind
            && !self.sample_changes(event.device, name, *values)
        {
            return Ok(());
        }
        if !self.named_devices.contains(&event.device) {
            self.named_devices.push(event.device);
            self.push_json(&process_name(event.device));
        }
        if !self.named.contains(&(event.device, event.track)) {
            self.named.push((event.device, event.track));
            self.push_json(&track_name(event.device, event.track));
        }
        self.pending
            .extend_from_slice(if self.any { b",\n" } else { b"\n" });
        self.any = true;
        event.write_json(self.origin_ns, &mut self.pending);
        if self.pending.len() >= FLUSH_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Write the queued events before the trailer.
    pub(crate) fn flush(&mut self) -> Result<(), TraceError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let io = |source| TraceError::Write {
            path: self.path.clone(),
            source,
        };
        self.file
            .seek(SeekFrom::End(-(TRAILER.len() as i64)))
            .map_err(io)?;
        self.file.write_all(&self.pending).map_err(io)?;
        self.file.write_all(TRAILER).map_err(io)?;
        self.file.flush().map_err(io)?;
        self.pending.clear();
        Ok(())
    }
}
