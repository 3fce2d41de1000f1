//! Shared setup of aqueduct-hsa's end-to-end tests (e2e_kernels,
//! e2e_ordering, e2e_faults and the others over gfxsim): a runtime over a fresh gfxsim device, the checked-in gfx1100
//! kernels, host-visible buffers, and a one-call "build the kernargs and the
//! dispatch" helper, so each test reads as: data in, dispatch, compare with
//! a host computation.
//!
//! Each test builds its own `Gpu` (own SimDevice and Runtime): a queue error
//! makes every wait of that runtime fail, so fault tests must not share one
//! with anything else.

use std::sync::Arc;
use std::time::Duration;

use aqueduct_gfxsim::{SimConfig, SimDevice};
use aqueduct_hsa::code_object::{ArgRef, DispatchShape, KernargBuilder};
use aqueduct_hsa::memory::PoolKind;
use aqueduct_hsa::{
    Agent, AllocOptions, Allocation, Executable, HsaResult, Kernel, KernelDispatch, Queue, Runtime,
    RuntimeOptions, Signal, SubAllocation, WaitCondition, WaitHint,
};
pub use aqueduct_test_support::Rng;

/// Long enough for any dispatch here on a loaded 2-core machine; a hang
/// fails the test instead of blocking CI.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// Worker threads of the simulated GPU (the CI machine has 2 cores).
pub const SIM_THREADS: usize = 2;

/// A simulated gfx1100 and a runtime over it.
pub struct Gpu {
    pub rt: Arc<Runtime>,
    pub sim: Arc<SimDevice>,
    pub agent: Agent,
}

/// A loaded code object and one of its kernels (the executable must
/// outlive every dispatch of the kernel).
pub struct Program {
    pub exe: Executable,
    pub kernel: Kernel,
}

/// One explicit kernel argument, in the order of the kernel's metadata.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    Ptr(u64),
    U32(u32),
    F32(f32),
}

/// A dispatch ready to submit: its kernarg block (kept alive here) and the
/// packet fields (completion signal and fence still to be chosen).
pub struct Launch {
    pub kernarg: SubAllocation,
    pub dispatch: KernelDispatch,
}

/// The bytes of `kernels/gfx1100/<file>`.
pub fn kernel_file(file: &str) -> Vec<u8> {
    aqueduct_test_support::repo::kernel(&format!("gfx1100/{file}"))
}

/// The dimension count a dispatch of these sizes has (as KernelDispatch::new
/// derives it).
pub fn dims_of(grid: [u32; 3], workgroup: [u16; 3]) -> u32 {
    if grid[2] > 1 || workgroup[2] > 1 {
        3
    } else if grid[1] > 1 || workgroup[1] > 1 {
        2
    } else {
        1
    }
}

impl Default for Gpu {
    fn default() -> Gpu {
        Gpu::new()
    }
}

impl Gpu {
    pub fn new() -> Gpu {
        Self::with_threads(SIM_THREADS)
    }

    pub fn with_threads(threads: usize) -> Gpu {
        let gpu = Self::with_config(SimConfig {
            threads,
            ..SimConfig::default()
        });
        assert_eq!(gpu.agent.name, "gfx1100");
        gpu
    }

    /// A runtime over a gfxsim device made with `config`, on its first GPU.
    pub fn with_config(config: SimConfig) -> Gpu {
        Self::over(SimDevice::new(config).expect("SimDevice::new"))
    }

    /// A new runtime over the existing device `sim`, on its first GPU.
    pub fn over(sim: Arc<SimDevice>) -> Gpu {
        let options = RuntimeOptions {
            visible_devices: None,
            aperture_size: 16 << 30,
        };
        let rt = Runtime::with_options(sim.clone(), options).expect("Runtime::with_options");
        let agent = rt.gpu_agent(0).expect("a GPU agent").clone();
        Gpu { rt, sim, agent }
    }

    /// Load `kernels/gfx1100/<name>.co` and take its kernel `name`.
    pub fn load(&self, name: &str) -> Program {
        self.load_bytes(&kernel_file(&format!("{name}.co")), name)
            .unwrap_or_else(|e| panic!("loading {name}.co: {e}"))
    }

    /// Load `corpus/gfx1100/<name>.co` (the ISA corpus) and take its
    /// kernel `name`.
    pub fn load_corpus(&self, name: &str) -> Program {
        let bytes = aqueduct_test_support::repo::read(&format!("corpus/gfx1100/{name}.co"));
        self.load_bytes(&bytes, name)
            .unwrap_or_else(|e| panic!("loading corpus/gfx1100/{name}.co: {e}"))
    }

    pub fn load_bytes(&self, bytes: &[u8], kernel: &str) -> HsaResult<Program> {
        let exe = self.rt.load_executable(&self.agent, bytes)?;
        let kernel = exe.kernel(kernel)?;
        Ok(Program { exe, kernel })
    }

    /// `bytes` of fine-grained system memory (host and GPU visible).
    pub fn alloc(&self, bytes: u64) -> Allocation {
        self.rt
            .pool(&self.agent, PoolKind::FineSystem)
            .expect("fine-grained pool")
            .allocate(bytes)
            .expect("fine-grained allocation")
    }

    /// `bytes` of VRAM that the host can also map (to fill and check it).
    pub fn alloc_vram(&self, bytes: u64) -> Allocation {
        let options = AllocOptions {
            host_access: true,
            ..Default::default()
        };
        self.rt
            .pool(&self.agent, PoolKind::CoarseDevice)
            .expect("device pool")
            .allocate_with(bytes, &options)
            .expect("VRAM allocation")
    }

    /// `bytes` of device-local VRAM the host never maps.
    pub fn alloc_device_only(&self, bytes: u64) -> Allocation {
        self.rt
            .pool(&self.agent, PoolKind::CoarseDevice)
            .expect("device pool")
            .allocate(bytes)
            .expect("VRAM allocation")
    }

    /// A fine-grained buffer holding `words`.
    pub fn upload_u32(&self, words: &[u32]) -> Allocation {
        self.upload(bytemuck::cast_slice(words))
    }

    pub fn upload_f32(&self, values: &[f32]) -> Allocation {
        self.upload(bytemuck::cast_slice(values))
    }

    pub fn upload(&self, bytes: &[u8]) -> Allocation {
        let mut a = self.alloc(bytes.len().max(1) as u64);
        host_bytes_mut(&mut a)[..bytes.len()].copy_from_slice(bytes);
        a
    }

    /// A fine-grained buffer of `count` u32s, each `fill`.
    pub fn filled_u32(&self, count: usize, fill: u32) -> Allocation {
        self.upload_u32(&vec![fill; count])
    }

    pub fn queue(&self, packets: u32) -> Queue {
        self.rt
            .create_queue(&self.agent, packets)
            .expect("create_queue")
    }

    pub fn signal(&self, initial: i64) -> Signal {
        self.rt.create_signal(initial).expect("create_signal")
    }

    /// Kernargs for `kernel` (explicit `args` in order, hidden ones from
    /// the dispatch sizes and `global_offset`) and the matching dispatch.
    pub fn launch_with_offset(
        &self,
        kernel: &Kernel,
        args: &[Arg],
        grid: [u32; 3],
        workgroup: [u16; 3],
        global_offset: [u64; 3],
    ) -> Launch {
        let mut shape =
            DispatchShape::new(grid, workgroup.map(u32::from), dims_of(grid, workgroup));
        shape.global_offset = global_offset;
        let mut builder = KernargBuilder::new(&kernel.info);
        for (i, arg) in args.iter().enumerate() {
            let slot = ArgRef::Index(i);
            match *arg {
                Arg::Ptr(p) => builder.set_ptr(slot, p),
                Arg::U32(v) => builder.set_u32(slot, v),
                Arg::F32(v) => builder.set_f32(slot, v),
            }
            .unwrap_or_else(|e| panic!("argument {i} of {}: {e}", kernel.info.name));
        }
        let bytes = builder.finish(&shape).expect("kernarg finish");
        let mut kernarg = self
            .rt
            .kernargs(&self.agent)
            .expect("kernarg region")
            .allocate(bytes.len().max(1) as u64)
            .expect("kernarg block");
        kernarg.as_mut_slice()[..bytes.len()].copy_from_slice(&bytes);
        let dispatch = kernel.dispatch(kernarg.gpu_va(), grid, workgroup);
        Launch { kernarg, dispatch }
    }

    pub fn launch(
        &self,
        kernel: &Kernel,
        args: &[Arg],
        grid: [u32; 3],
        workgroup: [u16; 3],
    ) -> Launch {
        self.launch_with_offset(kernel, args, grid, workgroup, [0; 3])
    }

    /// Submit `launch` on `queue` with a fresh completion signal and wait
    /// for it.
    pub fn run_on(&self, queue: &Queue, launch: &Launch) -> HsaResult<()> {
        let done = self.signal(1);
        let mut d = launch.dispatch;
        d.completion_signal = done.handle();
        queue.submit_dispatch(&d.to_packet()?)?;
        wait_zero(&done)?;
        Ok(())
    }

    /// One dispatch on a queue of its own, waited for.
    pub fn run(
        &self,
        kernel: &Kernel,
        args: &[Arg],
        grid: [u32; 3],
        workgroup: [u16; 3],
    ) -> HsaResult<()> {
        let queue = self.queue(64);
        let launch = self.launch(kernel, args, grid, workgroup);
        self.run_on(&queue, &launch)
    }
}

/// An address inside the runtime's reserved aperture that no allocation
/// uses: the aperture's last 4 KiB page (allocations are placed from the
/// bottom).
pub fn unallocated_in_aperture(gpu: &Gpu) -> u64 {
    let (base, size) = gpu.rt.aperture();
    base + size - 4096
}

/// A launch of kernels/gfx1100/oob_write.co (`program`): one wave of 64
/// storing `value` at `target`.
pub fn oob_write_launch(gpu: &Gpu, program: &Program, target: u64, value: u32) -> Launch {
    gpu.launch(
        &program.kernel,
        &[Arg::Ptr(target), Arg::U32(value)],
        [64, 1, 1],
        [64, 1, 1],
    )
}

/// Run kernels/gfx1100/oob_write.co (`program`) storing `value` at
/// `target` on `queue`, waiting for it.
pub fn oob_write(
    gpu: &Gpu,
    program: &Program,
    queue: &Queue,
    target: u64,
    value: u32,
) -> HsaResult<()> {
    gpu.run_on(queue, &oob_write_launch(gpu, program, target, value))
}

/// Wait (blocked, [`TIMEOUT`]) until `signal` is 0.
pub fn wait_zero(signal: &Signal) -> HsaResult<i64> {
    signal.wait(WaitCondition::Eq, 0, Some(TIMEOUT), WaitHint::Blocked)
}

pub fn host_bytes(a: &Allocation) -> &[u8] {
    a.as_slice().expect("allocation is host mapped")
}

pub fn host_bytes_mut(a: &mut Allocation) -> &mut [u8] {
    a.as_mut_slice().expect("allocation is host mapped")
}

/// The first `count` u32s of `a`.
pub fn read_u32(a: &Allocation, count: usize) -> Vec<u32> {
    host_bytes(a)[..count * 4]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn read_f32(a: &Allocation, count: usize) -> Vec<f32> {
    read_u32(a, count).into_iter().map(f32::from_bits).collect()
}

/// Assert `got == want` element by element, reporting the first mismatch
/// and how many there are (not two whole arrays).
pub fn assert_same<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
    if let Some(&first) = bad.first() {
        panic!(
            "{what}: {} of {} elements differ; first at [{first}]: got {:?}, want {:?}",
            bad.len(),
            got.len(),
            got[first],
            want[first]
        );
    }
}
