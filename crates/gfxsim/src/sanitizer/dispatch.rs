//! The sanitizer of one dispatch: what its checks need to know (the tools,
//! the kernel, the allocations, the private segment size) and its findings,
//! folded by (tool, PC) as its workgroups end and added to the device's
//! record ([`SanitizerLog`]) when the dispatch ends.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use aqueduct_isa::observer::{DispatchObserver, WorkgroupObserver};

use super::allocations::AllocationSnapshot;
use super::config::{SanitizerConfig, Tool};
use super::finding::Finding;
use super::report::SanitizerLog;
use super::workgroup::WorkgroupSanitizer;

/// Findings folded by (tool, PC): the first, and how many.
pub(super) type Folded = BTreeMap<(Tool, u64), (Finding, u64)>;

/// Add `finding` to `found` (a second one at the same tool and PC counts).
pub(super) fn fold(found: &mut Folded, finding: Finding) {
    found
        .entry((finding.tool(), finding.site().pc))
        .and_modify(|(_, n)| *n += 1)
        .or_insert((finding, 1));
}

/// The sanitizer of one dispatch.
#[derive(Debug)]
pub struct DispatchSanitizer {
    pub(super) tools: SanitizerConfig,
    pub(super) kernel: Arc<str>,
    pub(super) kernel_object: u64,
    /// The kernel's first instruction (PCs are reported from here).
    pub(super) entry: u64,
    pub(super) allocations: Arc<AllocationSnapshot>,
    /// Bytes of private memory per lane.
    pub(super) private_bytes: u32,
    found: Mutex<Folded>,
    /// The device's record.
    log: Arc<SanitizerLog>,
}

impl DispatchSanitizer {
    pub(super) fn new(
        tools: SanitizerConfig,
        kernel: Arc<str>,
        kernel_object: u64,
        entry: u64,
        allocations: Arc<AllocationSnapshot>,
        private_bytes: u32,
        log: Arc<SanitizerLog>,
    ) -> DispatchSanitizer {
        DispatchSanitizer {
            tools,
            kernel,
            kernel_object,
            entry,
            allocations,
            private_bytes,
            found: Mutex::default(),
            log,
        }
    }

    /// A workgroup's findings.
    pub(super) fn add(&self, found: Folded) {
        let mut all = self.found.lock().unwrap_or_else(|e| e.into_inner());
        for (key, (finding, n)) in found {
            all.entry(key)
                .and_modify(|(_, total)| *total += n)
                .or_insert((finding, n));
        }
    }

    /// The dispatch has ended: add its findings to the device's record
    /// (which prints the new ones).
    pub fn report(&self) {
        let found = std::mem::take(&mut *self.found.lock().unwrap_or_else(|e| e.into_inner()));
        if !found.is_empty() {
            self.log.add(
                &self.kernel,
                self.kernel_object,
                found.into_values().collect(),
            );
        }
    }
}

impl DispatchObserver for DispatchSanitizer {
    fn workgroup(
        &self,
        id: [u32; 3],
        _waves: u32,
        lds_bytes: u32,
    ) -> Box<dyn WorkgroupObserver + '_> {
        Box::new(WorkgroupSanitizer::new(self, id, lds_bytes))
    }
}
