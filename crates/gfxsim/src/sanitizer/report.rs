//! The device's record of what the sanitizer found: findings folded by
//! (tool, kernel, PC) with a count, in the order first found. A dispatch
//! adds its findings when it ends, and the ones new to the device are
//! printed to stderr then, one line each:
//! `sanitizer <tool>: kernel <name>+0x<offset>: <message>`.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use super::config::Tool;
use super::finding::Finding;

/// One folded finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SanitizerReport {
    /// The kernel's name (its descriptor's address when the runtime did not
    /// name it through `KfdDevice::note_kernel`).
    pub kernel: Arc<str>,
    /// The address of its kernel descriptor (the packet's `kernel_object`).
    pub kernel_object: u64,
    /// The first occurrence.
    pub finding: Finding,
    /// How many times it happened (once per wave instruction, or per
    /// barrier release).
    pub count: u64,
}

impl SanitizerReport {
    pub fn tool(&self) -> Tool {
        self.finding.tool()
    }
}

impl fmt::Display for SanitizerReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "sanitizer {}: kernel {}+{:#x}: {}",
            self.tool(),
            self.kernel,
            self.finding.site().offset,
            self.finding
        )?;
        if self.count > 1 {
            write!(f, " ({} times)", self.count)?;
        }
        Ok(())
    }
}

/// The folding key: tool, kernel descriptor, PC.
type Key = (Tool, u64, u64);

/// Every finding of one device, folded.
#[derive(Debug, Default)]
pub struct SanitizerLog {
    inner: Mutex<Folded>,
}

#[derive(Debug, Default)]
struct Folded {
    reports: Vec<SanitizerReport>,
    index: HashMap<Key, usize>,
}

impl SanitizerLog {
    /// Add a dispatch's folded findings (`(finding, count)`); print those
    /// the device had not seen.
    pub fn add(&self, kernel: &Arc<str>, kernel_object: u64, found: Vec<(Finding, u64)>) {
        let mut new_lines = Vec::new();
        {
            let mut log = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            for (finding, count) in found {
                let key = (finding.tool(), kernel_object, finding.site().pc);
                if let Some(&k) = log.index.get(&key) {
                    log.reports[k].count += count;
                    continue;
                }
                let report = SanitizerReport {
                    kernel: kernel.clone(),
                    kernel_object,
                    finding,
                    count,
                };
                new_lines.push(report.to_string());
                let k = log.reports.len();
                log.reports.push(report);
                log.index.insert(key, k);
            }
        }
        for line in new_lines {
            eprintln!("{line}");
        }
    }

    /// The findings so far, in the order first found.
    pub fn reports(&self) -> Vec<SanitizerReport> {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .reports
            .clone()
    }

    /// The findings so far, leaving the record empty.
    pub fn take(&self) -> Vec<SanitizerReport> {
        let mut log = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        log.index.clear();
        std::mem::take(&mut log.reports)
    }
}
