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
//! (`SimDevice::sanitizer_reports`); those of a dispatch the runtime noted
//! (`KfdDevice::note_dispatch_bindings`) are also kept for the runtime to
//! take when its submission completes (`SimDevice::take_dispatch_findings`).
//!
//! The files, one concept each: `config.rs` (which tools, the variable's
//! parse), `allocations.rs` (the requested sizes the runtime describes),
//! `finding.rs` (what is found), `memcheck.rs`, `lds_shadow.rs`
//! (initcheck and racecheck on LDS), `device_init.rs` (initcheck on
//! VRAM), `global_shadow.rs` (racecheck-global), `synccheck.rs` (the rules),
//! `workgroup.rs` and `dispatch.rs` (the observers), `report.rs` (the
//! device's folded record and the stderr lines), `noted.rs` (the bound
//! ranges and findings of the dispatches the runtime noted).

mod allocations;
mod config;
mod device_init;
mod dispatch;
mod finding;
mod global_shadow;
mod lds_shadow;
mod memcheck;
mod noted;
mod report;
mod synccheck;
mod workgroup;

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, RwLock};

pub use allocations::Allocation;
/// The access kind a finding names (the executor's own).
pub use aqueduct_isa::Access;
pub use config::{SANITIZE_ENV, SanitizeParseError, SanitizerConfig, TOOL_NAMES, Tool};
pub use dispatch::DispatchSanitizer;
pub use finding::{Finding, Site};
pub use report::{SanitizerLog, SanitizerReport};

use allocations::Allocations;
use device_init::DeviceMemoryInit;
use dispatch::DispatchInfo;
use noted::NotedDispatches;

/// The sanitizer of one device: its tools, what the runtime told it
/// (allocation sizes, kernel names) and its findings.
#[derive(Debug)]
pub struct Sanitizer {
    tools: SanitizerConfig,
    allocations: Allocations,
    /// initcheck's record of which VRAM bytes the device wrote.
    device_init: Option<DeviceMemoryInit>,
    kernels: RwLock<HashMap<u64, Arc<str>>>,
    log: Arc<SanitizerLog>,
    noted: Arc<NotedDispatches>,
}

impl Sanitizer {
    pub fn new(tools: SanitizerConfig) -> Sanitizer {
        Sanitizer {
            tools,
            allocations: Allocations::default(),
            device_init: tools
                .contains(Tool::Initcheck)
                .then(DeviceMemoryInit::default),
            kernels: RwLock::default(),
            log: Arc::default(),
            noted: Arc::default(),
        }
    }

    /// The allocation at `base` holds `size` requested bytes.
    pub fn note_allocation(&self, base: u64, size: u64) {
        self.allocations.insert(base, size);
    }

    /// The allocation at `base` is freed.
    pub fn forget_allocation(&self, base: u64) {
        self.allocations.remove(base);
        if let Some(d) = &self.device_init {
            d.forget(base);
        }
    }

    /// A VRAM BO of `size` bytes at `base` is allocated (initcheck tracks
    /// which of its bytes the device writes).
    pub fn note_vram_allocation(&self, base: u64, size: u64) {
        if let Some(d) = &self.device_init {
            d.track(base, size);
        }
    }

    /// The BO at `base` is mapped for the host, whose writes the device
    /// cannot see: initcheck counts it as written.
    pub fn note_host_mapped(&self, base: u64) {
        if let Some(d) = &self.device_init {
            d.forget(base);
        }
    }

    /// Something other than a kernel (an SDMA copy, fill, fence or atomic)
    /// wrote `[addr, addr + len)`.
    pub fn note_device_write(&self, addr: u64, len: u64) {
        if let Some(d) = &self.device_init {
            d.snapshot().mark(addr, len);
        }
    }

    /// The kernel whose descriptor is at `kernel_object` is called `name`.
    pub fn note_kernel(&self, kernel_object: u64, name: &str) {
        self.kernels
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(kernel_object, Arc::from(name));
    }

    /// The dispatch whose packet carries `kernarg` binds `bindings`; its
    /// findings are kept until [`Sanitizer::take_dispatch_findings`].
    pub fn note_dispatch_bindings(&self, kernarg: u64, bindings: &[Range<u64>]) {
        self.noted.note(kernarg, bindings);
    }

    /// The findings of the noted dispatch whose packet carried `kernarg`,
    /// forgetting the note.
    pub fn take_dispatch_findings(&self, kernarg: u64) -> Vec<SanitizerReport> {
        self.noted.take(kernarg)
    }

    /// The sanitizer of a dispatch of the kernel at `kernel_object`, whose
    /// first instruction is at `entry`, with `private_bytes` of private
    /// memory per lane, from a packet carrying `kernarg`.
    pub fn dispatch(
        &self,
        kernel_object: u64,
        entry: u64,
        private_bytes: u32,
        kernarg: u64,
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
            DispatchInfo {
                kernel: name,
                kernel_object,
                entry,
                private_bytes,
                kernarg,
            },
            self.allocations.snapshot(),
            self.device_init.as_ref().map(DeviceMemoryInit::snapshot),
            self.log.clone(),
            self.noted.clone(),
        ))
    }

    /// The device's findings.
    pub fn log(&self) -> &SanitizerLog {
        &self.log
    }
}
