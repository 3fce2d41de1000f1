//! The sanitizer of one dispatch: what its checks need to know (the tools,
//! the kernel, the allocations, the ranges the runtime says it binds, the
//! private segment size) and its findings, folded by (tool, PC) as its
//! workgroups end and added to the device's record ([`SanitizerLog`]) when
//! the dispatch ends, and kept for the runtime when it noted the dispatch
//! (noted.rs).

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use aqueduct_isa::observer::{DispatchObserver, WorkgroupObserver};

use super::allocations::AllocationSnapshot;
use super::config::{SanitizerConfig, Tool};
use super::device_init::WrittenSnapshot;
use super::finding::Finding;
use super::global_shadow::GlobalShadow;
use super::noted::NotedDispatches;
use super::report::{SanitizerLog, SanitizerReport};
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
    /// initcheck's tracked VRAM BOs (None: initcheck is off).
    pub(super) written: Option<Arc<WrittenSnapshot>>,
    /// Bytes of private memory per lane.
    pub(super) private_bytes: u32,
    /// The packet's kernarg address, which keys the runtime's note.
    kernarg: u64,
    /// The GPU address ranges the dispatch binds, when the runtime noted
    /// the dispatch (its findings are then kept for it).
    pub(super) bindings: Option<Arc<[Range<u64>]>>,
    /// racecheck-global's shadow of the dispatch's global accesses.
    pub(super) global: Option<GlobalShadow>,
    found: Mutex<Folded>,
    /// The device's record.
    log: Arc<SanitizerLog>,
    noted: Arc<NotedDispatches>,
}

/// What a dispatch is, for its sanitizer.
#[derive(Debug)]
pub(super) struct DispatchInfo {
    pub kernel: Arc<str>,
    pub kernel_object: u64,
    pub entry: u64,
    pub private_bytes: u32,
    pub kernarg: u64,
}

impl DispatchSanitizer {
    pub(super) fn new(
        tools: SanitizerConfig,
        info: DispatchInfo,
        allocations: Arc<AllocationSnapshot>,
        written: Option<Arc<WrittenSnapshot>>,
        log: Arc<SanitizerLog>,
        noted: Arc<NotedDispatches>,
    ) -> DispatchSanitizer {
        DispatchSanitizer {
            tools,
            kernel: info.kernel,
            kernel_object: info.kernel_object,
            entry: info.entry,
            allocations,
            written,
            private_bytes: info.private_bytes,
            kernarg: info.kernarg,
            bindings: noted.bindings(info.kernarg),
            global: tools
                .contains(Tool::RacecheckGlobal)
                .then(GlobalShadow::default),
            found: Mutex::default(),
            log,
            noted,
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
    /// (which prints the new ones) and, when the runtime noted the
    /// dispatch, keep them for it.
    pub fn report(&self) {
        let found = std::mem::take(&mut *self.found.lock().unwrap_or_else(|e| e.into_inner()));
        if found.is_empty() {
            return;
        }
        let found: Vec<(Finding, u64)> = found.into_values().collect();
        if self.bindings.is_some() {
            let reports = found
                .iter()
                .map(|(finding, count)| SanitizerReport {
                    kernel: self.kernel.clone(),
                    kernel_object: self.kernel_object,
                    finding: finding.clone(),
                    count: *count,
                })
                .collect();
            self.noted.keep(self.kernarg, reports);
        }
        self.log.add(&self.kernel, self.kernel_object, found);
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
