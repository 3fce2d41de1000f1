//! Agents: the GPUs and CPUs of the topology, with the properties HSA
//! reports for them, and device selection the way ROCr and IREE do it
//! (by ordinal, by UUID, and through `ROCR_VISIBLE_DEVICES`).

use aqueduct_kfd::topology::{CwsrSizes, GfxVersion, HeapType, Node, Topology};

use crate::error::{AgentError, HsaResult};

/// The environment variable ROCr filters and reorders GPUs with.
pub const VISIBLE_DEVICES_ENV: &str = "ROCR_VISIBLE_DEVICES";

/// `hsa_device_type_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceType {
    Cpu,
    Gpu,
}

/// A snapshot of one agent's properties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agent {
    pub device_type: DeviceType,
    /// "gfx1100" for GPUs, "CPU" for CPU agents.
    pub name: String,
    /// "AMD" for AMD GPUs and CPUs.
    pub vendor: String,
    /// A product-style name from the node's name ("AMD gfx1100" if the
    /// node has none).
    pub product_name: String,
    /// "amdgcn-amd-amdhsa--gfx1100" (GPUs only).
    pub isa_name: Option<String>,
    pub gfx_version: Option<GfxVersion>,
    /// "GPU-" + 16 hex digits of the node's unique_id ("GPU-XX" if it has
    /// none), "CPU-XX" for CPUs.
    pub uuid: String,
    /// Topology node index.
    pub node_id: u32,
    /// KFD gpu_id (0 for CPUs).
    pub gpu_id: u32,
    /// Index among the runtime's visible GPUs (None for CPUs).
    pub gpu_ordinal: Option<usize>,
    pub wavefront_size: u32,
    pub compute_unit_count: u32,
    pub simd_per_cu: u32,
    pub max_waves_per_cu: u32,
    /// LDS bytes available to one workgroup.
    pub lds_size: u64,
    /// Work-items per workgroup.
    pub max_workgroup_size: u32,
    /// Work-items per workgroup, per dimension.
    pub workgroup_max_dim: [u16; 3],
    /// Work-items per grid, per dimension.
    pub grid_max_dim: [u32; 3],
    /// Work-items per grid in total.
    pub grid_max_size: u32,
    /// Bytes of device-local memory.
    pub local_memory_size: u64,
    pub cpu_cores: u32,
    /// The queue buffer sizes KFD requires on this node.
    pub cwsr_sizes: Option<CwsrSizes>,
    pub drm_render_minor: Option<u32>,
}

impl Agent {
    pub fn is_gpu(&self) -> bool {
        self.device_type == DeviceType::Gpu
    }

    /// The properties of a topology node as an agent.
    pub fn from_node(node: &Node) -> Agent {
        let gpu = node.is_gpu();
        let gfx = node.gfx_version();
        let name = match (gpu, gfx) {
            (true, Some(v)) => v.name(),
            (true, None) => "gfx-unknown".to_string(),
            (false, _) => "CPU".to_string(),
        };
        let trimmed = node.name.trim();
        let product_name = if !trimmed.is_empty() && trimmed != "ip discovery" {
            trimmed.to_string()
        } else if gpu {
            format!("AMD {name}")
        } else {
            "CPU".to_string()
        };
        let uuid = match (gpu, node.unique_id()) {
            (true, 0) => "GPU-XX".to_string(),
            (true, id) => format!("GPU-{id:016x}"),
            (false, _) => "CPU-XX".to_string(),
        };
        let local_memory_size: u64 = node
            .mem_banks
            .iter()
            .filter(|b| {
                matches!(
                    b.heap_type,
                    HeapType::FrameBufferPublic | HeapType::FrameBufferPrivate
                )
            })
            .map(|b| b.size_in_bytes)
            .sum::<u64>()
            .max(if gpu {
                node.properties.local_mem_size
            } else {
                0
            });
        Agent {
            device_type: if gpu {
                DeviceType::Gpu
            } else {
                DeviceType::Cpu
            },
            isa_name: gpu.then(|| format!("amdgcn-amd-amdhsa--{name}")),
            name,
            vendor: "AMD".to_string(),
            product_name,
            gfx_version: gfx,
            uuid,
            node_id: node.index,
            gpu_id: node.gpu_id,
            gpu_ordinal: None,
            wavefront_size: if gpu { node.wave_front_size() } else { 0 },
            compute_unit_count: if gpu {
                node.compute_unit_count()
            } else {
                node.properties.cpu_cores_count as u32
            },
            simd_per_cu: node.properties.simd_per_cu as u32,
            max_waves_per_cu: node.max_waves_per_cu(),
            lds_size: node.lds_size_bytes(),
            max_workgroup_size: if gpu { 1024 } else { 0 },
            workgroup_max_dim: if gpu { [1024; 3] } else { [0; 3] },
            grid_max_dim: if gpu { [u32::MAX; 3] } else { [0; 3] },
            grid_max_size: if gpu { u32::MAX } else { 0 },
            local_memory_size,
            cpu_cores: node.properties.cpu_cores_count as u32,
            cwsr_sizes: node.cwsr_sizes(),
            drm_render_minor: node.drm_render_minor(),
        }
    }
}

/// The GPU nodes of `topology` that a `ROCR_VISIBLE_DEVICES` value
/// selects, in the order it lists them (None: all, in topology order).
///
/// As in ROCr, the value is a comma-separated list of ordinals (indices
/// among all GPU nodes) or UUIDs ("GPU-<16 hex>"); processing stops at the
/// first entry that names no GPU, duplicates are ignored, and an empty
/// value hides every GPU.
pub fn visible_gpu_nodes<'t>(
    topology: &'t Topology,
    visible_devices: Option<&str>,
) -> Vec<&'t Node> {
    let gpus: Vec<&Node> = topology.gpu_nodes().collect();
    let Some(spec) = visible_devices else {
        return gpus;
    };
    let uuids: Vec<String> = gpus.iter().map(|n| Agent::from_node(n).uuid).collect();
    let mut chosen: Vec<usize> = Vec::new();
    for token in spec.split(',').map(str::trim) {
        let found = if let Ok(ordinal) = token.parse::<usize>() {
            (ordinal < gpus.len()).then_some(ordinal)
        } else {
            uuids
                .iter()
                .position(|u| u != "GPU-XX" && u.eq_ignore_ascii_case(token))
        };
        match found {
            Some(i) if !chosen.contains(&i) => chosen.push(i),
            Some(_) => {}
            None => {
                if !token.is_empty() {
                    tracing::warn!(
                        "{VISIBLE_DEVICES_ENV}: `{token}` names no GPU; ignoring it and what follows"
                    );
                }
                break;
            }
        }
    }
    chosen.into_iter().map(|i| gpus[i]).collect()
}

/// Find a GPU agent by ordinal among `agents`' GPUs.
pub fn gpu_by_ordinal(agents: &[Agent], ordinal: usize) -> HsaResult<&Agent> {
    let gpus: Vec<&Agent> = agents.iter().filter(|a| a.is_gpu()).collect();
    gpus.get(ordinal).copied().ok_or_else(|| {
        AgentError::OrdinalOutOfRange {
            ordinal,
            visible: gpus.len(),
        }
        .into()
    })
}

/// Find an agent by UUID (case-insensitive).
pub fn agent_by_uuid<'a>(agents: &'a [Agent], uuid: &str) -> HsaResult<&'a Agent> {
    agents
        .iter()
        .find(|a| a.uuid.eq_ignore_ascii_case(uuid) && !a.uuid.ends_with("-XX"))
        .ok_or_else(|| {
            AgentError::UnknownUuid {
                uuid: uuid.to_string(),
                known: agents.iter().map(|a| a.uuid.clone()).collect(),
            }
            .into()
        })
}
