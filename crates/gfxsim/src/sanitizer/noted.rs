//! What the runtime says about a dispatch before it runs, and what the
//! sanitizer keeps of it for the runtime: the GPU address ranges the
//! dispatch binds (`KfdDevice::note_dispatch_bindings`, which a
//! WebGPU-style runtime calls with its bind groups' buffer ranges) and the
//! dispatch's findings, until the runtime takes them when the dispatch's
//! submission completes. Both are keyed by the packet's kernarg address,
//! which no other packet in flight shares with a different dispatch (a
//! runtime reuses a kernarg block only after its dispatch completed;
//! repeats of one dispatch share it and their findings add up).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use super::report::SanitizerReport;

/// One noted dispatch.
#[derive(Debug)]
struct Noted {
    bindings: Arc<[Range<u64>]>,
    findings: Vec<SanitizerReport>,
}

/// The dispatches the runtime noted, by kernarg address.
#[derive(Debug, Default)]
pub struct NotedDispatches {
    by_kernarg: Mutex<HashMap<u64, Noted>>,
}

impl NotedDispatches {
    /// The dispatch at `kernarg` binds `bindings` (a fresh note: findings
    /// kept under that address before are dropped).
    pub fn note(&self, kernarg: u64, bindings: &[Range<u64>]) {
        self.lock().insert(
            kernarg,
            Noted {
                bindings: bindings.into(),
                findings: Vec::new(),
            },
        );
    }

    /// The ranges the dispatch at `kernarg` binds; None when the runtime
    /// did not note it.
    pub fn bindings(&self, kernarg: u64) -> Option<Arc<[Range<u64>]>> {
        self.lock().get(&kernarg).map(|n| n.bindings.clone())
    }

    /// Keep a noted dispatch's findings for the runtime (nothing for a
    /// dispatch no longer noted: its findings stay in the device's record).
    pub fn keep(&self, kernarg: u64, findings: Vec<SanitizerReport>) {
        if let Some(n) = self.lock().get_mut(&kernarg) {
            n.findings.extend(findings);
        }
    }

    /// The findings of the dispatch at `kernarg`, forgetting the note.
    pub fn take(&self, kernarg: u64) -> Vec<SanitizerReport> {
        self.lock()
            .remove(&kernarg)
            .map_or_else(Vec::new, |n| n.findings)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Noted>> {
        self.by_kernarg.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_holds_until_its_findings_are_taken() {
        let noted = NotedDispatches::default();
        assert_eq!(noted.bindings(0x100), None);
        let bound = [0x1000..0x1040, 0x2000..0x2100];
        noted.note(0x100, &bound);
        assert_eq!(noted.bindings(0x100).as_deref(), Some(&bound[..]));
        assert_eq!(noted.take(0x100), vec![]);
        assert_eq!(noted.bindings(0x100), None);
    }
}
