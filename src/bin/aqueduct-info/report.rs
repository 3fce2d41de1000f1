//! What aqueduct-info reports, collected from an initialised runtime.
//!
//! One plain data tree (runtime → agents → pools and queue properties), so
//! the text listing and `--json` are two renderings of the same values and
//! cannot disagree. Everything comes from the HSA layer's public API (the
//! agents' properties, `Runtime::pools`, the queue module's size bounds),
//! the way rocminfo reads it from ROCr.

use aqueduct::hsa::agent::VISIBLE_DEVICES_ENV;
use aqueduct::hsa::memory::PoolInfo;
use aqueduct::hsa::queue::aql_queue::{MAX_QUEUE_PACKETS, MIN_QUEUE_PACKETS};
use aqueduct::hsa::{Agent, DeviceType, PoolKind, Runtime};
use aqueduct::kfd::abi::AQL_PACKET_SIZE;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct Report {
    pub runtime: RuntimeInfo,
    pub agents: Vec<AgentInfo>,
}

#[derive(Debug, Serialize)]
pub struct RuntimeInfo {
    pub name: &'static str,
    pub version: &'static str,
    /// The KfdDevice behind the runtime: "kfd" (real /dev/kfd) or "gfxsim".
    pub backend: &'static str,
    pub simulated: bool,
    /// KFD ioctl interface version "major.minor".
    pub kfd_version: String,
    /// The reserved GPU virtual-address aperture (CPU VA = GPU VA).
    pub aperture_base: u64,
    pub aperture_size: u64,
    /// The `ROCR_VISIBLE_DEVICES` filter in force, if any.
    pub visible_devices: Option<String>,
    pub gpu_count: usize,
    pub cpu_count: usize,
}

#[derive(Debug, Serialize)]
pub struct AgentInfo {
    pub name: String,
    pub product_name: String,
    pub vendor: String,
    /// "gpu" or "cpu".
    pub device_type: &'static str,
    pub uuid: String,
    pub node_id: u32,
    pub gpu_id: u32,
    pub gpu_ordinal: Option<usize>,
    pub isa: Option<String>,
    /// A GPU run by gfxsim rather than real hardware (false for CPUs).
    pub simulated: bool,
    pub compute_units: u32,
    /// The XCCs (compute dies) the GPU's CUs are spread over: 8 on an
    /// MI300X, 1 on single-die parts; 0 for CPUs.
    pub xccs: u32,
    pub simd_per_cu: u32,
    pub wavefront_size: u32,
    pub max_waves_per_cu: u32,
    pub lds_bytes_per_workgroup: u64,
    pub max_workgroup_size: u32,
    pub workgroup_max_dim: [u16; 3],
    pub grid_max_dim: [u32; 3],
    pub grid_max_size: u32,
    pub local_memory_bytes: u64,
    pub cpu_cores: u32,
    pub pools: Vec<PoolReport>,
    pub queues: Option<QueueProperties>,
}

#[derive(Debug, Serialize)]
pub struct PoolReport {
    /// "coarse-device", "fine-system" or "kernarg".
    pub kind: &'static str,
    pub segment: &'static str,
    pub fine_grained: bool,
    pub kernarg: bool,
    pub size_bytes: u64,
    pub alloc_granule: u64,
    pub alloc_alignment: u64,
    /// Host-mapped without asking (fine pools).
    pub host_accessible: bool,
    /// Every agent of the runtime and its access to this pool, as ROCr's
    /// `HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS` states it.
    pub access: Vec<PoolAccess>,
}

#[derive(Debug, Serialize)]
pub struct PoolAccess {
    pub agent: String,
    pub node_id: u32,
    /// "allowed-by-default": mapped for the agent at allocation;
    /// "disallowed-by-default": possible after `Runtime::allow_access`
    /// (GPUs) or `AllocOptions::host_access` (the host).
    pub access: &'static str,
}

#[derive(Debug, Serialize)]
pub struct QueueProperties {
    /// User-mode AQL queue; several host threads may reserve packets.
    pub queue_type: &'static str,
    pub min_packets: u32,
    pub max_packets: u32,
    pub packet_bytes: u64,
    /// Bytes of the context save/restore area KFD requires per queue.
    pub cwsr_bytes: Option<u32>,
    pub control_stack_bytes: Option<u32>,
    pub eop_buffer_bytes: Option<u32>,
}

pub const ACCESS_DEFAULT: &str = "allowed-by-default";
pub const ACCESS_ON_REQUEST: &str = "disallowed-by-default";

fn kind_name(kind: PoolKind) -> &'static str {
    match kind {
        PoolKind::CoarseDevice => "coarse-device",
        PoolKind::FineSystem => "fine-system",
        PoolKind::Kernarg => "kernarg",
    }
}

/// Access of `agent` to a pool of `owner`: fine pools are host mapped and
/// mapped on the owning GPU; a coarse pool is the owner's VRAM, mapped for
/// the host only when an allocation asks; other GPUs need allow_access.
fn access_of(info: &PoolInfo, owner: &Agent, agent: &Agent) -> &'static str {
    let default = match agent.device_type {
        DeviceType::Cpu => info.host_accessible,
        DeviceType::Gpu => agent.gpu_id == owner.gpu_id,
    };
    if default {
        ACCESS_DEFAULT
    } else {
        ACCESS_ON_REQUEST
    }
}

fn pool_report(info: &PoolInfo, owner: &Agent, agents: &[Agent]) -> PoolReport {
    PoolReport {
        kind: kind_name(info.kind),
        segment: "global",
        fine_grained: info.fine_grained,
        kernarg: info.kernarg,
        size_bytes: info.size,
        alloc_granule: info.alloc_granule,
        alloc_alignment: info.alloc_alignment,
        host_accessible: info.host_accessible,
        access: agents
            .iter()
            .map(|a| PoolAccess {
                agent: a.name.clone(),
                node_id: a.node_id,
                access: access_of(info, owner, a),
            })
            .collect(),
    }
}

fn agent_info(runtime: &Runtime, agent: &Agent, simulated: bool) -> AgentInfo {
    let gpu = agent.is_gpu();
    let pools = if gpu {
        match runtime.pools(agent) {
            Ok(pools) => pools
                .iter()
                .map(|p| pool_report(p.info(), agent, runtime.agents()))
                .collect(),
            Err(e) => {
                tracing::warn!("pools of {}: {e}", agent.name);
                Vec::new()
            }
        }
    } else {
        Vec::new()
    };
    let queues = gpu.then(|| QueueProperties {
        queue_type: "aql-multi-producer",
        min_packets: MIN_QUEUE_PACKETS,
        max_packets: MAX_QUEUE_PACKETS,
        packet_bytes: AQL_PACKET_SIZE as u64,
        cwsr_bytes: agent.cwsr_sizes.map(|c| c.cwsr_size),
        control_stack_bytes: agent.cwsr_sizes.map(|c| c.ctl_stack_size),
        eop_buffer_bytes: agent.cwsr_sizes.map(|c| c.eop_buffer_size),
    });
    AgentInfo {
        name: agent.name.clone(),
        product_name: agent.product_name.clone(),
        vendor: agent.vendor.clone(),
        device_type: if gpu { "gpu" } else { "cpu" },
        uuid: agent.uuid.clone(),
        node_id: agent.node_id,
        gpu_id: agent.gpu_id,
        gpu_ordinal: agent.gpu_ordinal,
        isa: agent.isa_name.clone(),
        simulated: gpu && simulated,
        compute_units: agent.compute_unit_count,
        xccs: if gpu {
            agent.cwsr_sizes.map_or(1, |c| c.num_xcc)
        } else {
            0
        },
        simd_per_cu: agent.simd_per_cu,
        wavefront_size: agent.wavefront_size,
        max_waves_per_cu: agent.max_waves_per_cu,
        lds_bytes_per_workgroup: agent.lds_size,
        max_workgroup_size: agent.max_workgroup_size,
        workgroup_max_dim: agent.workgroup_max_dim,
        grid_max_dim: agent.grid_max_dim,
        grid_max_size: agent.grid_max_size,
        local_memory_bytes: agent.local_memory_size,
        cpu_cores: agent.cpu_cores,
        pools,
        queues,
    }
}

/// Everything the runtime knows about its device, agents and pools.
pub fn collect(runtime: &Runtime) -> Report {
    let backend = runtime.device().backend_name();
    let simulated = backend != "kfd";
    let (major, minor) = runtime.kfd_version();
    let (aperture_base, aperture_size) = runtime.aperture();
    Report {
        runtime: RuntimeInfo {
            name: "aqueduct",
            version: env!("CARGO_PKG_VERSION"),
            backend,
            simulated,
            kfd_version: format!("{major}.{minor}"),
            aperture_base,
            aperture_size,
            visible_devices: std::env::var(VISIBLE_DEVICES_ENV).ok(),
            gpu_count: runtime.gpu_agents().count(),
            cpu_count: runtime.cpu_agents().count(),
        },
        agents: runtime
            .agents()
            .iter()
            .map(|a| agent_info(runtime, a, simulated))
            .collect(),
    }
}
