//! KFD topology: the sysfs tree under `/sys/devices/virtual/kfd/kfd/topology`
//! parsed into typed structs.
//!
//! The parser reads through [`SysfsTree`], so the same code parses the real
//! sysfs ([`DirTree`]), test fixtures, and the tree gfxsim publishes for its
//! simulated nodes ([`MemTree`]).

mod cwsr;
mod error;
mod node;
mod parse;
mod tree;
mod write;

pub use cwsr::{CWSR_PAGE_SIZE, CwsrSizes};
pub use error::TopologyFault;
pub use node::PciBdf;
pub use parse::parse_properties;
pub use tree::{DirTree, MemTree, SysfsTree};
pub use write::properties_text;

use std::collections::BTreeMap;

/// Where real systems publish the topology.
pub const SYSFS_TOPOLOGY_ROOT: &str = "/sys/devices/virtual/kfd/kfd/topology";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    pub generation_id: u64,
    pub system: SystemProperties,
    /// Nodes in sysfs index order (`nodes/0`, `nodes/1`, ...).
    pub nodes: Vec<Node>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SystemProperties {
    pub platform_oem: u64,
    pub platform_id: u64,
    pub platform_rev: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// A CPU-only node (gpu_id 0, simd_count 0).
    Cpu,
    /// A GPU node (with or without CPU cores, e.g. an APU).
    Gpu,
}

/// gfx_target_version decoded: major*10000 + minor*100 + stepping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GfxVersion {
    pub major: u32,
    pub minor: u32,
    pub stepping: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The N of `nodes/N`.
    pub index: u32,
    /// Contents of `nodes/N/gpu_id`; 0 for CPU nodes.
    pub gpu_id: u32,
    /// Contents of `nodes/N/name` (e.g. "ip discovery", "" for CPUs).
    pub name: String,
    pub kind: NodeKind,
    pub properties: NodeProperties,
    pub mem_banks: Vec<MemBank>,
    pub caches: Vec<Cache>,
    pub io_links: Vec<IoLink>,
    /// `p2p_links/M` (absent on older kernels and single-GPU systems).
    pub p2p_links: Vec<IoLink>,
}

/// The `properties` file of a node. Well-known keys are typed fields
/// (absent keys read as 0, except `num_xcc`, which defaults to 1);
/// every key, known or not, is also kept in `raw`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeProperties {
    pub cpu_cores_count: u64,
    pub simd_count: u64,
    pub mem_banks_count: u64,
    pub caches_count: u64,
    pub io_links_count: u64,
    pub p2p_links_count: u64,
    pub cpu_core_id_base: u64,
    pub simd_id_base: u64,
    pub capability: u64,
    pub debug_prop: u64,
    pub max_waves_per_simd: u64,
    pub lds_size_in_kb: u64,
    pub gds_size_in_kb: u64,
    pub num_gws: u64,
    pub wave_front_size: u64,
    pub array_count: u64,
    pub simd_arrays_per_engine: u64,
    pub cu_per_simd_array: u64,
    pub simd_per_cu: u64,
    pub max_slots_scratch_cu: u64,
    pub gfx_target_version: u64,
    pub vendor_id: u64,
    pub device_id: u64,
    pub location_id: u64,
    pub domain: u64,
    pub drm_render_minor: u64,
    pub hive_id: u64,
    pub num_sdma_engines: u64,
    pub num_sdma_xgmi_engines: u64,
    pub num_sdma_queues_per_engine: u64,
    pub num_cp_queues: u64,
    pub max_engine_clk_fcompute: u64,
    pub max_engine_clk_ccompute: u64,
    pub local_mem_size: u64,
    pub fw_version: u64,
    pub sdma_fw_version: u64,
    pub unique_id: u64,
    pub num_xcc: u64,
    pub raw: BTreeMap<String, u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeapType {
    System,
    FrameBufferPublic,
    FrameBufferPrivate,
    Gpugds,
    Gpulds,
    Gpuscratch,
    Other(u64),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemBank {
    pub heap_type: HeapType,
    pub size_in_bytes: u64,
    pub flags: u64,
    pub width: u64,
    pub mem_clk_max: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cache {
    pub processor_id_low: u64,
    pub level: u64,
    pub size_kb: u64,
    pub cache_line_size: u64,
    pub cache_lines_per_tag: u64,
    pub association: u64,
    pub latency: u64,
    pub cache_type: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoLink {
    pub link_type: u64,
    pub version_major: u64,
    pub version_minor: u64,
    pub node_from: u64,
    pub node_to: u64,
    pub weight: u64,
    pub min_latency: u64,
    pub max_latency: u64,
    pub min_bandwidth: u64,
    pub max_bandwidth: u64,
    pub recommended_transfer_size: u64,
    pub flags: u64,
}
