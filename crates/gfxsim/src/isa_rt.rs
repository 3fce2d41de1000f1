//! TEMPORARY adapter: the ISA emulator's `CodeCache`, `Dispatch` and
//! `WorkerContext` are being written in `isa/`; until they land, this
//! minimal stand-in with the same signatures lets the driver be built and
//! tested. It runs kernels whose first instruction is `s_endpgm` and
//! reports anything else as an illegal instruction. Replaced by
//! `pub use crate::isa::{CodeCache, Dispatch, WorkerContext};`.

use std::sync::Arc;

use crate::isa::{Access, DispatchSetup, GpuMemory, WaveError, WaveErrorKind, WorkgroupStats};

/// `s_endpgm` on gfx11.
const S_ENDPGM: u32 = 0xBFB0_0000;

#[derive(Debug, Default)]
pub struct CodeCache;

impl CodeCache {
    pub fn new() -> CodeCache {
        CodeCache
    }
    pub fn invalidate(&self, _start: u64, _len: u64) {}
}

#[derive(Debug)]
pub struct Dispatch {
    setup: DispatchSetup,
}

impl Dispatch {
    pub fn new(setup: DispatchSetup, _code: Arc<CodeCache>) -> Result<Dispatch, WaveError> {
        Ok(Dispatch { setup })
    }

    pub fn workgroup_count(&self) -> [u32; 3] {
        let mut counts = [1; 3];
        for (i, count) in counts.iter_mut().enumerate() {
            *count = self.setup.grid_size[i].div_ceil(self.setup.workgroup_size[i].max(1));
        }
        counts
    }

    pub fn run_workgroup(
        &self,
        workgroup_id: [u32; 3],
        mem: &dyn GpuMemory,
        _ctx: &mut WorkerContext,
    ) -> Result<WorkgroupStats, WaveError> {
        let pc = self.setup.kernel_object.wrapping_add_signed(self.setup.descriptor.kernel_code_entry_byte_offset);
        let wave_error = |kind| WaveError { kind, pc, workgroup: workgroup_id };
        let ptr = mem.translate(pc, 4, Access::Execute).map_err(|f| wave_error(WaveErrorKind::MemoryViolation(f)))?;
        // SAFETY: translate checked 4 bytes at ptr lie in one live mapping.
        let word = unsafe { std::ptr::read_unaligned(ptr as *const u32) };
        if word != S_ENDPGM {
            return Err(wave_error(WaveErrorKind::IllegalInstruction { words: vec![word], mnemonic: None }));
        }
        let items: u32 = self.setup.workgroup_size.iter().product();
        Ok(WorkgroupStats { wave_instructions: items.div_ceil(32) as u64, waves: items.div_ceil(32) })
    }
}

#[derive(Debug, Default)]
pub struct WorkerContext;

impl WorkerContext {
    pub fn new() -> WorkerContext {
        WorkerContext
    }
}
