//! Runs corpus cases on gfxsim through the HSA runtime: one simulated GPU (gfx1100 by
//! default, or another part with [`Device::with_config`]) and a runtime over it, buffers in fine-grained memory filled from a [`Case`], kernargs
//! built from the kernel's own metadata, one dispatch waited for, buffers read back.
//!
//! Shared by crates/hsa/tests/corpus.rs and benches/corpus.rs: the including crate
//! names the runtime and the simulator as `hsa` and `gfxsim` at its root
//! (`use aqueduct_hsa as hsa;` or `use aqueduct::hsa;`), and includes `cases` beside it.
#![allow(dead_code)] // the test reads the results, the benchmark also the counters

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::cases::{Arg, Case, Kernel};
use super::gfxsim::{SimConfig, SimDevice};
use super::hsa::code_object::{ArgRef, DispatchShape, KernargBuilder};
use super::hsa::{
    Agent, Allocation, Executable, KernelDispatch, PoolKind, Queue, Runtime, RuntimeOptions,
    SubAllocation, WaitCondition, WaitHint,
};

/// How long one corpus dispatch may take before it counts as hung.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// Scratch per work-item given to kernels whose stack size is only known at run time
/// (recursion, indirect calls), on top of their fixed private segment.
pub const DYNAMIC_STACK_BYTES: u32 = 4096;

/// The corpus's code objects directory.
pub fn corpus_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(super::CORPUS_FROM_MANIFEST)
}

/// A simulated GPU with a runtime and one queue.
pub struct Device {
    pub sim: Arc<SimDevice>,
    pub runtime: Arc<Runtime>,
    pub agent: Agent,
    pub queue: Queue,
}

/// What one dispatch produced.
pub struct Outcome {
    /// Every buffer's bytes after the dispatch, in the case's order.
    pub buffers: Vec<Vec<u8>>,
    /// Packet submitted to completion signal observed.
    pub elapsed: Duration,
    /// Wave instructions the simulator executed for it.
    pub wave_instructions: u64,
}

impl Device {
    pub fn new(threads: usize) -> Result<Device, String> {
        Device::with_aperture(threads, None)
    }

    /// As [`Device::new`], with the runtime reserving `aperture` bytes of VA for its
    /// allocations instead of its default (64 GiB). Valgrind cannot reserve the default:
    /// a few hundred MiB are enough for one dispatch of every case.
    pub fn with_aperture(threads: usize, aperture: Option<u64>) -> Result<Device, String> {
        Device::with_config(
            SimConfig {
                threads,
                ..SimConfig::default()
            },
            aperture,
        )
    }

    /// As [`Device::with_aperture`], on a gfxsim device made with `config`.
    pub fn with_config(config: SimConfig, aperture: Option<u64>) -> Result<Device, String> {
        let sim = SimDevice::new(config).map_err(|e| format!("gfxsim: {e}"))?;
        let mut options = RuntimeOptions::default();
        if let Some(bytes) = aperture {
            options.aperture_size = bytes;
        }
        let runtime =
            Runtime::with_options(sim.clone(), options).map_err(|e| format!("runtime: {e}"))?;
        let agent = runtime
            .gpu_agent(0)
            .map_err(|e| format!("GPU agent: {e}"))?
            .clone();
        let queue = runtime
            .create_queue(&agent, 64)
            .map_err(|e| format!("queue: {e}"))?;
        Ok(Device {
            sim,
            runtime,
            agent,
            queue,
        })
    }

    /// Whether `corpus/<agent's ISA>/<file>` exists (the GFX9 directories lack the
    /// gfx11-only kernels).
    pub fn has(&self, file: &str) -> bool {
        corpus_dir()
            .join(self.sim.config().part.isa())
            .join(file)
            .is_file()
    }

    /// Loads `corpus/<agent's ISA>/<file>` (gfx1100, gfx942 or gfx90a).
    pub fn load(&self, file: &str) -> Result<Executable, String> {
        let path = corpus_dir().join(self.sim.config().part.isa()).join(file);
        let bytes = std::fs::read(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        self.runtime
            .load_executable(&self.agent, &bytes)
            .map_err(|e| format!("loading {file}: {e}"))
    }

    fn buffer(&self, init: &[u8]) -> Result<Allocation, String> {
        let pool = self
            .runtime
            .pool(&self.agent, PoolKind::FineSystem)
            .map_err(|e| e.to_string())?;
        let mut a = pool
            .allocate(init.len().max(4) as u64)
            .map_err(|e| format!("allocate: {e}"))?;
        let host = a
            .as_mut_slice()
            .ok_or("fine-grained memory is not host mapped")?;
        host[..init.len()].copy_from_slice(init);
        Ok(a)
    }

    /// Dispatches `kernel` of `exe` for `case` and waits for it.
    pub fn run(&self, exe: &Executable, kernel: &Kernel, case: &Case) -> Result<Outcome, String> {
        let prepared = self.prepare(exe, kernel, case)?;
        let (elapsed, wave_instructions) = self.submit(std::slice::from_ref(&prepared))?;
        let buffers = prepared
            .buffers
            .iter()
            .zip(&case.buffers)
            .map(|(a, init)| {
                let bytes = a.as_slice().ok_or("buffer not host mapped".to_string())?;
                Ok(bytes[..init.len()].to_vec())
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Outcome {
            buffers,
            elapsed,
            wave_instructions,
        })
    }

    /// Dispatches `case` `repeats` times back to back on the queue, each dispatch with its
    /// own copy of the case's buffers and kernargs (so kernels that update memory in place
    /// see the same inputs every time), one completion signal counting them down, waited
    /// for once. Returns the time and wave instructions of the whole batch; the results are
    /// not checked ([`Device::run`] checks a single dispatch).
    pub fn run_repeated(
        &self,
        exe: &Executable,
        kernel: &Kernel,
        case: &Case,
        repeats: u32,
    ) -> Result<(Duration, u64), String> {
        let copies = (0..repeats.clamp(1, MAX_BATCH))
            .map(|_| self.prepare(exe, kernel, case))
            .collect::<Result<Vec<_>, _>>()?;
        self.submit(&copies)
    }

    /// Buffers filled from `case`, the kernarg block, and the dispatch packet fields.
    fn prepare(&self, exe: &Executable, kernel: &Kernel, case: &Case) -> Result<Prepared, String> {
        let k = exe
            .kernel(kernel.name)
            .map_err(|e| format!("kernel {}: {e}", kernel.name))?;
        let buffers = case
            .buffers
            .iter()
            .map(|b| self.buffer(b))
            .collect::<Result<Vec<_>, _>>()?;
        let dims = if case.grid[2] > 1 || case.workgroup[2] > 1 {
            3
        } else if case.grid[1] > 1 || case.workgroup[1] > 1 {
            2
        } else {
            1
        };
        let shape = DispatchShape::new(case.grid, case.workgroup.map(u32::from), dims);
        let mut builder = KernargBuilder::new(&k.info);
        for (i, arg) in case.args.iter().enumerate() {
            let result = match *arg {
                Arg::Buf(b) => builder.set_ptr(ArgRef::Index(i), buffers[b].gpu_va()),
                _ => builder.set(ArgRef::Index(i), &arg.scalar_bytes()),
            };
            result.map_err(|e| format!("argument {i}: {e}"))?;
        }
        let bytes = builder
            .finish(&shape)
            .map_err(|e| format!("kernargs: {e}"))?;
        let mut kernarg = self
            .runtime
            .kernargs(&self.agent)
            .map_err(|e| e.to_string())?
            .allocate(bytes.len().max(16) as u64)
            .map_err(|e| format!("kernarg block: {e}"))?;
        kernarg.as_mut_slice()[..bytes.len()].copy_from_slice(&bytes);
        let mut dispatch = k.dispatch(kernarg.gpu_va(), case.grid, case.workgroup);
        if k.info.uses_dynamic_stack {
            dispatch.private_segment_size += DYNAMIC_STACK_BYTES;
        }
        Ok(Prepared {
            buffers,
            kernarg,
            dispatch,
        })
    }

    /// Submits one packet per prepared dispatch and waits for all of them. Every packet
    /// has the barrier bit (the default fence), so each starts after the one before it has
    /// completed and only the last completes the signal: one completion interrupt per
    /// batch, as a submission of the facade has (its closing barrier packet), rather than
    /// a host wake-up per dispatch.
    fn submit(&self, prepared: &[Prepared]) -> Result<(Duration, u64), String> {
        let done = self.runtime.create_signal(1).map_err(|e| e.to_string())?;
        let last = prepared.len().saturating_sub(1);
        let packets = prepared
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mut dispatch = p.dispatch;
                debug_assert!(
                    dispatch.fence.barrier,
                    "the batch relies on in-order packets"
                );
                if i == last {
                    dispatch.completion_signal = done.handle();
                }
                dispatch.to_packet().map_err(|e| format!("packet: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let before = self.sim.stats().wave_instructions;
        let start = Instant::now();
        for packet in &packets {
            self.queue
                .submit_dispatch(packet)
                .map_err(|e| format!("submit: {e}"))?;
        }
        done.wait(WaitCondition::Eq, 0, Some(TIMEOUT), WaitHint::Blocked)
            .map_err(|e| format!("dispatch failed: {e}"))?;
        let elapsed = start.elapsed();
        Ok((elapsed, self.sim.stats().wave_instructions - before))
    }
}

/// Most dispatches [`Device::run_repeated`] puts on the queue in one batch.
pub const MAX_BATCH: u32 = 60;

/// A case's memory and packet, ready to submit (the kernarg block must outlive it).
struct Prepared {
    buffers: Vec<Allocation>,
    #[allow(dead_code)] // keeps the kernarg block alive while packets reference it
    kernarg: SubAllocation,
    dispatch: KernelDispatch,
}
