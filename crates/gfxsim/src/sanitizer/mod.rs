//! gfxsim's sanitizer: memcheck, racecheck, initcheck and synccheck for any
//! code object, with no recompilation, because the emulator executes every
//! instruction. The book's chapter `book/src/sanitizer.md` is the user's
//! guide.
//!
//! A device made with [`SimConfig::sanitize`](crate::SimConfig) set (from
//! `AQUEDUCT_SIM_SANITIZE`) holds a [`Sanitizer`]; the command processor
//! gives each dispatch a [`DispatchSanitizer`] as its observer
//! (`aqueduct_isa::observer`), which gives each workgroup its own checker
//! on the thread that runs it. Findings are folded by (tool, kernel, PC),
//! printed when the dispatch ends and kept on the device
//! (`SimDevice::sanitizer_reports`).
//!
//! The files, one concept each: `config.rs` (which tools, the variable's
//! parse), `allocations.rs` (the requested sizes the runtime describes),
//! `finding.rs` (what is found), `memcheck.rs`, `lds_shadow.rs`
//! (initcheck and racecheck on LDS), `synccheck.rs` (the rules),
//! `workgroup.rs` and `dispatch.rs` (the observers), `report.rs` (the
//! device's folded record and the stderr lines).

mod allocations;
mod config;
mod dispatch;
mod finding;
mod lds_shadow;
mod memcheck;
mod report;
mod synccheck;
mod workgroup;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

pub use allocations::Allocation;
pub use config::{SANITIZE_ENV, SanitizeParseError, SanitizerConfig, TOOL_NAMES, Tool};
pub use dispatch::DispatchSanitizer;
pub use finding::{Finding, Site};
pub use report::{SanitizerLog, SanitizerReport};

use allocations::Allocations;

/// The sanitizer of one device: its tools, what the runtime told it
/// (allocation sizes, kernel names) and its findings.
#[derive(Debug)]
pub struct Sanitizer {
    tools: SanitizerConfig,
    allocations: Allocations,
    kernels: RwLock<HashMap<u64, Arc<str>>>,
    log: Arc<SanitizerLog>,
}

impl Sanitizer {
    pub fn new(tools: SanitizerConfig) -> Sanitizer {
        Sanitizer {
            tools,
            allocations: Allocations::default(),
            kernels: RwLock::default(),
            log: Arc::default(),
        }
    }

    /// The allocation at `base` holds `size` requested bytes.
    pub fn note_allocation(&self, base: u64, size: u64) {
        self.allocations.insert(base, size);
    }

    /// The allocation at `base` is freed.
    pub fn forget_allocation(&self, base: u64) {
        self.allocations.remove(base);
    }

    /// The kernel whose descriptor is at `kernel_object` is called `name`.
    pub fn note_kernel(&self, kernel_object: u64, name: &str) {
        self.kernels
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(kernel_object, Arc::from(name));
    }

    /// The sanitizer of a dispatch of the kernel at `kernel_object`, whose
    /// first instruction is at `entry`, with `private_bytes` of private
    /// memory per lane.
    pub fn dispatch(
        &self,
        kernel_object: u64,
        entry: u64,
        private_bytes: u32,
    ) -> Arc<DispatchSanitizer> {
        let name = self
            .kernels
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&kernel_object)
            .cloned()
            .unwrap_or_else(|| Arc::from(format!("kernel@{kernel_object:#x}")));
        Arc::new(DispatchSanitizer::new(
            self.tools,
            name,
            kernel_object,
            entry,
            self.allocations.snapshot(),
            private_bytes,
            self.log.clone(),
        ))
    }

    /// The device's findings.
    pub fn log(&self) -> &SanitizerLog {
        &self.log
    }
}
