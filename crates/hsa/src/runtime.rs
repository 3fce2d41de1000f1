//! The runtime: one KFD process context over a `KfdDevice`.
//!
//! `Runtime::new` performs the init sequence of libhsakmt/ROCr:
//! GET_VERSION (major must be 1) → topology → per visible GPU: open the
//! render node, ACQUIRE_VM → GET_PROCESS_APERTURES_NEW → reserve the VA
//! aperture (PROT_NONE, 2 MiB aligned; CPU VA = GPU VA) → allocate the
//! event page (32 KiB GTT|WRITABLE|COHERENT|UNCACHED, in a reservation of
//! its own, on the first GPU and mapped on all) and hand it to the first
//! CREATE_EVENT → per GPU a MEMORY and a HW_EXCEPTION event, the doorbell
//! page (8 KiB DOORBELL|WRITABLE|COHERENT BO mmap'd from /dev/kfd), the
//! pools and the kernarg region, and GET_CLOCK_COUNTERS for the first of
//! the two clock samples that translate its timestamps (`clock.rs`).
//! Runtime signals come from one fine-grained slab mapped on every GPU.
//!
//! The render nodes and the event page are the device's KFD process state
//! (`process.rs`): a second runtime over the same device, alive at the same
//! time or made after the first is gone, reuses them, as the driver
//! requires. Besides the explicit handle (tests and facade instances make
//! several), a process-wide, reference-counted instance mirrors
//! `hsa_init`/`hsa_shut_down`.

use std::sync::{Arc, Mutex};

use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::topology::{CwsrSizes, HeapType, Node, Topology};
use aqueduct_kfd::uapi::{
    GetProcessAperturesNewArgs, GetVersionArgs, KFD_IOCTL_MAJOR_VERSION, KFD_SIGNAL_EVENT_LIMIT,
    ProcessDeviceApertures, alloc_flags, event_type, minor_version,
};

use crate::agent::{self, Agent, VISIBLE_DEVICES_ENV};
use crate::clock::{DispatchTime, GpuClock};
use crate::error::{AgentError, HsaError, HsaResult, MemoryError};
use crate::executable::Executable;
use crate::memory::context::{BoRequest, MemoryContext};
use crate::memory::vmem::{APERTURE_ALIGN, DEFAULT_APERTURE_SIZE, VaReservation};
use crate::memory::{Allocation, HostMapping, MemoryPool, PoolKind, SubAllocator};
use crate::process;
use crate::queue::Queue;
use crate::queue::aql_queue::QueueSetup;
use crate::queue::scratch::{DEFAULT_SCRATCH_SINGLE_LIMIT, ScratchLimits, ScratchSetup, SrdLayout};
use crate::queue::scratch_reclaim::AgentScratch;
use crate::sdma::SdmaQueue;
use crate::sdma::queue::SdmaQueueSetup;
use crate::signal::Signal;
use crate::signal::event::EventHub;

/// Bytes of the event page: one 8-byte slot per KFD signal event.
pub const EVENT_PAGE_SIZE: u64 = KFD_SIGNAL_EVENT_LIMIT as u64 * 8;
/// Bytes of a GPU's doorbell page (1024 64-bit doorbells).
pub const DOORBELL_PAGE_SIZE: u64 = 8192;
/// Flags of the event page BO.
pub const EVENT_PAGE_FLAGS: u32 =
    alloc_flags::GTT | alloc_flags::WRITABLE | alloc_flags::COHERENT | alloc_flags::UNCACHED;
/// Flags of a doorbell page BO.
pub const DOORBELL_PAGE_FLAGS: u32 =
    alloc_flags::DOORBELL | alloc_flags::WRITABLE | alloc_flags::COHERENT;

/// Init options; `Default` reads `ROCR_VISIBLE_DEVICES` from the
/// environment.
#[derive(Clone, Debug)]
pub struct RuntimeOptions {
    /// A `ROCR_VISIBLE_DEVICES`-style filter; `None` = all GPUs.
    pub visible_devices: Option<String>,
    /// Bytes of VA to reserve for all allocations.
    pub aperture_size: u64,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        Self {
            visible_devices: std::env::var(VISIBLE_DEVICES_ENV).ok(),
            aperture_size: DEFAULT_APERTURE_SIZE,
        }
    }
}

/// Per-GPU state.
#[derive(Debug)]
struct GpuContext {
    agent_index: usize,
    node: Node,
    drm_fd: u32,
    apertures: ProcessDeviceApertures,
    cwsr: CwsrSizes,
    /// CoarseDevice, FineSystem, Kernarg.
    pools: Vec<MemoryPool>,
    doorbell_page: Arc<Allocation>,
    kernargs: SubAllocator,
    /// The GPU counter's translation into the system clock.
    clock: GpuClock,
    /// The agent's queues' scratch, for reclaims.
    scratch: Arc<AgentScratch>,
}

#[derive(Debug)]
pub struct Runtime {
    device: Arc<dyn KfdDevice>,
    version: (u32, u32),
    topology: Topology,
    agents: Vec<Agent>,
    gpus: Vec<GpuContext>,
    memory: Arc<MemoryContext>,
    hub: Arc<EventHub>,
    signal_slots: SubAllocator,
}

fn system_memory_size(topology: &Topology) -> u64 {
    let sum = |nodes: &mut dyn Iterator<Item = &Node>| -> u64 {
        nodes
            .flat_map(|n| n.mem_banks.iter())
            .filter(|b| b.heap_type == HeapType::System)
            .map(|b| b.size_in_bytes)
            .sum()
    };
    let cpu = sum(&mut topology.cpu_nodes());
    if cpu != 0 {
        cpu
    } else {
        sum(&mut topology.gpu_nodes())
    }
}

impl Runtime {
    /// Initialise over `device`, honouring `ROCR_VISIBLE_DEVICES`.
    pub fn new(device: Arc<dyn KfdDevice>) -> HsaResult<Arc<Runtime>> {
        Self::with_options(device, RuntimeOptions::default())
    }

    pub fn with_options(
        device: Arc<dyn KfdDevice>,
        options: RuntimeOptions,
    ) -> HsaResult<Arc<Runtime>> {
        let mut version = GetVersionArgs::default();
        device.get_version(&mut version)?;
        // 1.11 is the oldest interface gfxsim presents, so the oldest the
        // runtime is tested against (`aqueduct_kfd::uapi::minor_version`).
        let oldest_minor = minor_version::CWSR_UNIFIED_MEMORY;
        if version.major_version != KFD_IOCTL_MAJOR_VERSION || version.minor_version < oldest_minor
        {
            return Err(HsaError::UnsupportedKfdVersion {
                major: version.major_version,
                minor: version.minor_version,
                oldest_minor,
            });
        }
        let topology = device.topology()?;
        let visible: Vec<Node> =
            agent::visible_gpu_nodes(&topology, options.visible_devices.as_deref())
                .into_iter()
                .cloned()
                .collect();
        if visible.is_empty() {
            return Err(HsaError::NoGpuAgent);
        }

        // Render nodes and the event page belong to the device's KFD
        // process, shared with every other runtime over it (`process.rs`).
        let process = process::of(&device);
        let mut agents = Vec::new();
        let mut gpu_setup = Vec::new();
        for (ordinal, node) in visible.iter().enumerate() {
            let mut a = Agent::from_node(node);
            a.gpu_ordinal = Some(ordinal);
            let cwsr = a.cwsr_sizes.ok_or_else(|| AgentError::NoQueueBufferSizes {
                node: node.index,
                name: a.name.clone(),
            })?;
            let minor = node
                .drm_render_minor()
                .ok_or(AgentError::NoRenderNode { node: node.index })?;
            let drm_fd = process.acquire_vm(&device, node.gpu_id, minor)?;
            gpu_setup.push((agents.len(), node.clone(), drm_fd, cwsr));
            agents.push(a);
        }
        for node in topology.cpu_nodes() {
            agents.push(Agent::from_node(node));
        }

        let gpu_count = topology.gpu_nodes().count();
        let mut apertures = vec![ProcessDeviceApertures::default(); gpu_count];
        let mut ap_args = GetProcessAperturesNewArgs {
            num_of_nodes: gpu_count as u32,
            ..Default::default()
        };
        device.get_process_apertures_new(&mut ap_args, &mut apertures)?;
        apertures.truncate(ap_args.num_of_nodes as usize);

        let reservation = VaReservation::new(options.aperture_size, APERTURE_ALIGN)?;
        for ap in &apertures {
            let end = reservation.base() + reservation.size() - 1;
            if ap.gpuvm_limit != 0 && (reservation.base() < ap.gpuvm_base || end > ap.gpuvm_limit) {
                return Err(MemoryError::ApertureOutsideGpuvm {
                    base: reservation.base(),
                    end,
                    gpu_id: ap.gpu_id,
                    gpuvm_base: ap.gpuvm_base,
                    gpuvm_limit: ap.gpuvm_limit,
                }
                .into());
            }
        }
        let memory = Arc::new(MemoryContext::new(device.clone(), reservation));
        let all_gpu_ids: Vec<u32> = visible.iter().map(|n| n.gpu_id).collect();

        let event_page = process.event_page(&device, &all_gpu_ids, &apertures)?;
        let hub = Arc::new(EventHub::with_event_page(device.clone(), Some(event_page)));

        let system_size = system_memory_size(&topology);
        let mut gpus = Vec::new();
        for (agent_index, node, drm_fd, cwsr) in gpu_setup {
            let gpu_id = node.gpu_id;
            hub.add_exception_event(hub.create_event(event_type::MEMORY, true, node.index)?);
            hub.add_exception_event(hub.create_event(
                event_type::HW_EXCEPTION,
                true,
                node.index,
            )?);
            let doorbell_page = Arc::new(memory.allocate_bo(&BoRequest {
                size: DOORBELL_PAGE_SIZE,
                align: 0,
                flags: DOORBELL_PAGE_FLAGS,
                owner_gpu: gpu_id,
                host_mapping: HostMapping::Kfd,
                map_gpus: &[gpu_id],
            })?);
            let scratch = AgentScratch::new(cwsr.num_xcc);
            let pools = vec![
                MemoryPool::new(
                    memory.clone(),
                    gpu_id,
                    PoolKind::CoarseDevice,
                    agents[agent_index].local_memory_size,
                )
                .with_scratch_reclaim(scratch.clone()),
                MemoryPool::new(memory.clone(), gpu_id, PoolKind::FineSystem, system_size),
                MemoryPool::new(memory.clone(), gpu_id, PoolKind::Kernarg, system_size),
            ];
            let kernargs = SubAllocator::new(pools[2].clone(), vec![gpu_id])?;
            let apertures = apertures
                .iter()
                .find(|a| a.gpu_id == gpu_id)
                .copied()
                .unwrap_or_default();
            let clock_device = device.clone();
            let clock = GpuClock::new(
                gpu_id,
                Box::new(move |args| clock_device.get_clock_counters(args)),
            );
            gpus.push(GpuContext {
                agent_index,
                node,
                drm_fd,
                apertures,
                cwsr,
                pools,
                doorbell_page,
                kernargs,
                clock,
                scratch,
            });
        }
        let signal_slots = SubAllocator::new(gpus[0].pools[1].clone(), all_gpu_ids.clone())?;
        tracing::info!(
            backend = device.backend_name(),
            kfd = format_args!("{}.{}", version.major_version, version.minor_version),
            gpus = gpus.len(),
            "HSA runtime initialised"
        );
        Ok(Arc::new(Runtime {
            device,
            version: (version.major_version, version.minor_version),
            topology,
            agents,
            gpus,
            memory,
            hub,
            signal_slots,
        }))
    }

    pub fn device(&self) -> &Arc<dyn KfdDevice> {
        &self.device
    }
    /// KFD interface version (major, minor).
    pub fn kfd_version(&self) -> (u32, u32) {
        self.version
    }
    pub fn topology(&self) -> &Topology {
        &self.topology
    }
    /// Visible GPUs (in visibility order), then CPUs.
    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }
    pub fn gpu_agents(&self) -> impl Iterator<Item = &Agent> {
        self.agents.iter().filter(|a| a.is_gpu())
    }
    pub fn cpu_agents(&self) -> impl Iterator<Item = &Agent> {
        self.agents.iter().filter(|a| !a.is_gpu())
    }
    pub fn gpu_agent(&self, ordinal: usize) -> HsaResult<&Agent> {
        agent::gpu_by_ordinal(&self.agents, ordinal)
    }
    pub fn agent_by_uuid(&self, uuid: &str) -> HsaResult<&Agent> {
        agent::agent_by_uuid(&self.agents, uuid)
    }
    pub fn event_hub(&self) -> &Arc<EventHub> {
        &self.hub
    }
    /// Base and size of the reserved VA aperture.
    pub fn aperture(&self) -> (u64, u64) {
        (
            self.memory.reservation.base(),
            self.memory.reservation.size(),
        )
    }

    fn gpu(&self, agent: &Agent) -> HsaResult<&GpuContext> {
        self.gpus
            .iter()
            .find(|g| g.node.gpu_id == agent.gpu_id && agent.is_gpu())
            .ok_or_else(|| {
                AgentError::NotVisibleGpu {
                    name: agent.name.clone(),
                    node: agent.node_id,
                }
                .into()
            })
    }

    /// The agent's pools: CoarseDevice, FineSystem, Kernarg.
    pub fn pools(&self, agent: &Agent) -> HsaResult<&[MemoryPool]> {
        Ok(&self.gpu(agent)?.pools)
    }
    pub fn pool(&self, agent: &Agent, kind: PoolKind) -> HsaResult<&MemoryPool> {
        self.pools(agent)?
            .iter()
            .find(|p| p.kind() == kind)
            .ok_or_else(|| {
                AgentError::NoPool {
                    agent: agent.name.clone(),
                    kind,
                }
                .into()
            })
    }
    pub fn kernarg_pool(&self, agent: &Agent) -> HsaResult<&MemoryPool> {
        self.pool(agent, PoolKind::Kernarg)
    }
    /// The kernarg region: 64-byte-aligned blocks (< 64 KiB) from the
    /// agent's kernarg pool.
    pub fn kernargs(&self, agent: &Agent) -> HsaResult<&SubAllocator> {
        Ok(&self.gpu(agent)?.kernargs)
    }
    /// GET_PROCESS_APERTURES_NEW's entry of the agent.
    pub fn apertures(&self, agent: &Agent) -> HsaResult<ProcessDeviceApertures> {
        Ok(self.gpu(agent)?.apertures)
    }
    /// The fd ACQUIRE_VM was given for the agent.
    pub fn drm_fd(&self, agent: &Agent) -> HsaResult<u32> {
        Ok(self.gpu(agent)?.drm_fd)
    }

    /// Map `allocation` on more GPU agents.
    pub fn allow_access(&self, allocation: &Allocation, agents: &[&Agent]) -> HsaResult<()> {
        let ids = agents
            .iter()
            .map(|a| self.gpu(a).map(|g| g.node.gpu_id))
            .collect::<HsaResult<Vec<u32>>>()?;
        allocation.map_to_gpus(&ids)
    }

    /// An interrupt signal with `initial` value, usable by every GPU.
    pub fn create_signal(&self, initial: i64) -> HsaResult<Signal> {
        let slot = self.signal_slots.allocate(64)?;
        Signal::new_in_slot(slot, initial, self.hub.clone())
    }

    /// An AQL queue of `packets` slots (power of two, >= 64) on `agent`.
    pub fn create_queue(&self, agent: &Agent, packets: u32) -> HsaResult<Queue> {
        let gpu = self.gpu(agent)?;
        let a = &self.agents[gpu.agent_index];
        let node = &gpu.node;
        let p = &node.properties;
        // The queue's scratch handler sizes scratch from the agent's geometry
        // (ROCr `AqlQueue::HandleInsufficientScratch`); its signal is an
        // interrupt signal, as ROCr's queue_inactive_signal.
        let scratch = ScratchSetup {
            device_pool: gpu.pools[0].clone(),
            signal: self.create_signal(0)?,
            limits: ScratchLimits {
                compute_units: u64::from(a.compute_unit_count),
                shader_engines: (p.array_count / p.simd_arrays_per_engine.max(1)).max(1),
                slots_per_cu: p.max_slots_scratch_cu,
                xccs: u64::from(gpu.cwsr.num_xcc).max(1),
                single_limit: scratch_single_limit(),
                srd: SrdLayout::for_gfx_target_version(p.gfx_target_version),
            },
            agent: gpu.scratch.clone(),
        };
        Queue::create(
            QueueSetup {
                device: self.device.clone(),
                hub: self.hub.clone(),
                gpu_id: node.gpu_id,
                node_id: node.index,
                fine_pool: &gpu.pools[1],
                device_pool: &gpu.pools[0],
                doorbell_page: gpu.doorbell_page.clone(),
                cwsr: gpu.cwsr,
                max_cu_id: a.compute_unit_count.saturating_sub(1),
                max_wave_id: a.max_waves_per_cu.saturating_sub(1),
                group_aperture_base_hi: (gpu.apertures.lds_base >> 32) as u32,
                private_aperture_base_hi: (gpu.apertures.scratch_base >> 32) as u32,
                scratch,
            },
            packets,
        )
    }

    /// An SDMA queue on `agent` ([`crate::sdma::SDMA_RING_BYTES`] of ring), for copies
    /// and fills by the GPU's copy engines. Fails as CREATE_QUEUE fails,
    /// e.g. with ENOMEM once the process holds every SDMA queue KFD hands
    /// out.
    pub fn create_sdma_queue(&self, agent: &Agent) -> HsaResult<SdmaQueue> {
        let gpu = self.gpu(agent)?;
        SdmaQueue::create(SdmaQueueSetup {
            device: self.device.clone(),
            hub: self.hub.clone(),
            gpu_id: gpu.node.gpu_id,
            node_id: gpu.node.index,
            fine_pool: &gpu.pools[1],
            doorbell_page: gpu.doorbell_page.clone(),
        })
    }

    /// The start and end of the packet `signal` completed, in the system
    /// clock (`clock::system_timestamp`), from the timestamps the CP wrote
    /// into it on a queue of `agent` with profiling on
    /// (`hsa_amd_profiling_get_dispatch_time`).
    pub fn dispatch_time(&self, agent: &Agent, signal: &Signal) -> HsaResult<DispatchTime> {
        let gpu = self.gpu(agent)?;
        let (start, end) = signal.dispatch_ticks()?;
        Ok(gpu.clock.dispatch_time(start, end)?)
    }

    /// GPU-counter ticks `start` and `end` of `agent` (a packet's
    /// `start_ts`/`end_ts`, read by the caller) in the system clock, as
    /// [`Runtime::dispatch_time`] translates them.
    pub fn ticks_to_system(&self, agent: &Agent, start: u64, end: u64) -> HsaResult<DispatchTime> {
        let gpu = self.gpu(agent)?;
        Ok(gpu.clock.dispatch_time(start, end)?)
    }

    /// Take back the scratch of every queue of `agent` whose CP supports
    /// asynchronous reclaim, waiting (bounded) for the dispatches using it
    /// (ROCr `GpuAgent::AsyncReclaimScratchQueues`), and free the agent's
    /// cached use-once scratch; the bytes freed.
    pub fn reclaim_scratch(&self, agent: &Agent) -> HsaResult<u64> {
        Ok(self.gpu(agent)?.scratch.reclaim_all()?)
    }

    /// Set `agent`'s async scratch limit (ROCr
    /// `hsa_amd_agent_set_async_scratch_limit`): queues holding more give
    /// their scratch back, and requests above it are given once; the
    /// bytes freed.
    pub fn set_scratch_async_limit(&self, agent: &Agent, bytes: u64) -> HsaResult<u64> {
        Ok(self.gpu(agent)?.scratch.set_async_limit(bytes)?)
    }

    /// `agent`'s async scratch limit (1 GiB per XCC unless set).
    pub fn scratch_async_limit(&self, agent: &Agent) -> HsaResult<u64> {
        Ok(self.gpu(agent)?.scratch.async_limit())
    }

    /// A tick of `agent`'s timestamp counter (the CP's and `s_memrealtime`'s
    /// clock) in the system clock.
    pub fn gpu_ticks_to_system(&self, agent: &Agent, tick: u64) -> HsaResult<u64> {
        Ok(self.gpu(agent)?.clock.to_system(tick)?)
    }

    /// Load a code object (or offload bundle) for `agent`.
    pub fn load_executable(&self, agent: &Agent, bytes: &[u8]) -> HsaResult<Executable> {
        Executable::load(self, agent, bytes)
    }
}

/// The environment variable that sets the most scratch one queue holds
/// (ROCr's, `core/util/flag.h`).
pub const SCRATCH_SINGLE_LIMIT_ENV: &str = "HSA_SCRATCH_SINGLE_LIMIT";

/// The queues' scratch limit: [`SCRATCH_SINGLE_LIMIT_ENV`] in bytes, or
/// ROCr's default.
fn scratch_single_limit() -> u64 {
    std::env::var(SCRATCH_SINGLE_LIMIT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_SCRATCH_SINGLE_LIMIT)
}

struct Global {
    runtime: Arc<Runtime>,
    refs: usize,
}

static GLOBAL: Mutex<Option<Global>> = Mutex::new(None);

/// `hsa_init`: initialise the process-wide runtime over `device`, or, if
/// it is already initialised, take another reference (the device argument
/// is then unused).
pub fn init(device: Arc<dyn KfdDevice>) -> HsaResult<Arc<Runtime>> {
    let mut g = GLOBAL.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(global) = g.as_mut() {
        global.refs += 1;
        return Ok(global.runtime.clone());
    }
    let runtime = Runtime::new(device)?;
    *g = Some(Global {
        runtime: runtime.clone(),
        refs: 1,
    });
    Ok(runtime)
}

/// `hsa_shut_down`: drop one reference; the last one releases the
/// process-wide runtime (its resources go when the last handle does).
pub fn shut_down() -> HsaResult<()> {
    let mut g = GLOBAL.lock().unwrap_or_else(|p| p.into_inner());
    let global = g.as_mut().ok_or(HsaError::NotInitialized)?;
    global.refs -= 1;
    if global.refs == 0 {
        *g = None;
    }
    Ok(())
}

/// The process-wide runtime.
pub fn global() -> HsaResult<Arc<Runtime>> {
    let g = GLOBAL.lock().unwrap_or_else(|p| p.into_inner());
    g.as_ref()
        .map(|g| g.runtime.clone())
        .ok_or(HsaError::NotInitialized)
}
