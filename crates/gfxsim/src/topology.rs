//! The simulated system's KFD topology, published in sysfs format.
//!
//! Node 0 is a 16-core CPU node; nodes 1..=gpus are GPUs of the configured
//! [`SimPart`] with the properties that part's amdkfd sysfs node reports
//! (`part.rs` names the source of each value; the default RX 7900 XTX: 96
//! CUs in 12 shader arrays, wave32, 64 KiB LDS, capability with doorbell
//! type 2). The tree is text, exactly what the kernel prints, so the runtime
//! parses it with the same parser it uses on real sysfs.

use aqueduct_kfd::topology::MemTree;

use crate::part::SimPart;

/// gfx_target_version of gfx1100.
pub const GFX1100_TARGET_VERSION: u64 = 110000;
/// Render minors start here (/dev/dri/renderD128).
pub const FIRST_RENDER_MINOR: u32 = 128;
/// The most GPUs a simulated system may have (gpu_ids must fit the 16-bit
/// gpu_id field of KFD mmap offsets).
pub const MAX_GPUS: usize = 64;
/// CPU cores of node 0.
const CPU_CORES: u64 = 16;
/// Shader engines of the gfx1100 part (libhsakmt's NumShaderBanks:
/// array_count / simd_arrays_per_engine); gfx11's COMPUTE_TMPRING_SIZE.WAVES
/// counts scratch wave slots per engine.
pub const SHADER_ENGINES: u64 = {
    let p = SimPart::Rx7900Xtx.properties();
    p.array_count / p.simd_arrays_per_engine
};

/// The gpu_id of simulated GPU `index` (0-based). Real KFD derives gpu_ids
/// from a hash of the device; these are fixed, nonzero, distinct and fit in
/// 16 bits.
pub fn gpu_id_of(index: usize) -> u32 {
    0x5a3c + 0x1d1 * index as u32
}

/// The unique_id a GPU reports (real boards report a serial-like value).
fn unique_id_of(index: usize) -> u64 {
    0x6b3e_5a8c_9d2f_0000 + 0x1_0001 * index as u64
}

fn properties(pairs: &[(&str, u64)]) -> String {
    let mut text = String::new();
    for (key, value) in pairs {
        text.push_str(&format!("{key} {value}\n"));
    }
    text
}

/// Host RAM in bytes as /proc/meminfo reports it (for the CPU node's memory
/// bank and the GTT limit), or 64 GiB when it cannot be read.
pub fn host_memory_size() -> u64 {
    let parsed = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        });
    parsed.unwrap_or(64 << 30)
}

/// Build the sysfs tree of a system with `gpus` GPUs of part `part`, with
/// `vram_size` bytes each.
pub fn build_tree(part: SimPart, gpus: usize, vram_size: u64) -> MemTree {
    let props = part.properties();
    let mut tree = MemTree::new();
    tree.insert("generation_id", "1\n");
    tree.insert(
        "system_properties",
        properties(&[("platform_oem", 0), ("platform_id", 0), ("platform_rev", 0)]),
    );

    // Node 0: the CPU.
    tree.insert("nodes/0/gpu_id", "0\n");
    tree.insert("nodes/0/name", "AMD Ryzen 9 7950X 16-Core Processor\n");
    tree.insert(
        "nodes/0/properties",
        properties(&[
            ("cpu_cores_count", CPU_CORES),
            ("simd_count", 0),
            ("mem_banks_count", 1),
            ("caches_count", 0),
            ("io_links_count", gpus as u64),
            ("p2p_links_count", 0),
            ("cpu_core_id_base", 0),
            ("simd_id_base", 0),
            ("max_waves_per_simd", 0),
            ("lds_size_in_kb", 0),
            ("gds_size_in_kb", 0),
            ("num_gws", 0),
            ("wave_front_size", 0),
            ("array_count", 0),
            ("simd_arrays_per_engine", 0),
            ("cu_per_simd_array", 0),
            ("simd_per_cu", 0),
            ("max_slots_scratch_cu", 0),
            ("gfx_target_version", 0),
            ("vendor_id", 0),
            ("device_id", 0),
            ("location_id", 0),
            ("domain", 0),
            ("drm_render_minor", 0),
            ("hive_id", 0),
            ("num_sdma_engines", 0),
            ("num_sdma_xgmi_engines", 0),
            ("num_sdma_queues_per_engine", 0),
            ("num_cp_queues", 0),
            ("max_engine_clk_ccompute", 4500),
        ]),
    );
    tree.insert(
        "nodes/0/mem_banks/0/properties",
        properties(&[
            ("heap_type", 0),
            ("size_in_bytes", host_memory_size()),
            ("flags", 0),
            ("width", 64),
            ("mem_clk_max", 2400),
        ]),
    );
    for gpu in 0..gpus {
        tree.insert(
            format!("nodes/0/io_links/{gpu}/properties"),
            io_link(0, gpu as u64 + 1),
        );
    }

    for gpu in 0..gpus {
        let node = gpu + 1;
        let base = format!("nodes/{node}");
        tree.insert(format!("{base}/gpu_id"), format!("{}\n", gpu_id_of(gpu)));
        tree.insert(
            format!("{base}/name"),
            format!("{}\n", part.kfd_node_name()),
        );
        tree.insert(
            format!("{base}/properties"),
            gpu_properties(part, gpu, vram_size),
        );
        tree.insert(
            format!("{base}/mem_banks/0/properties"),
            properties(&[
                ("heap_type", 1),
                ("size_in_bytes", vram_size),
                ("flags", 0),
                ("width", props.memory_width),
                ("mem_clk_max", props.memory_clock),
            ]),
        );
        for (i, cache) in part.caches().iter().enumerate() {
            tree.insert(
                format!("{base}/caches/{i}/properties"),
                properties(&[
                    ("processor_id_low", simd_id_base(gpu)),
                    ("level", cache.level),
                    ("size", cache.size_kb),
                    ("cache_line_size", cache.line_size),
                    ("cache_lines_per_tag", 1),
                    ("association", 16),
                    ("latency", 0),
                    ("type", 1),
                ]),
            );
        }
        tree.insert(
            format!("{base}/io_links/0/properties"),
            io_link(node as u64, 0),
        );
    }
    tree
}

fn simd_id_base(gpu: usize) -> u64 {
    0x8000_1000 + 0x1000 * gpu as u64
}

fn io_link(from: u64, to: u64) -> String {
    properties(&[
        ("type", 2), // PCIe
        ("version_major", 0),
        ("version_minor", 0),
        ("node_from", from),
        ("node_to", to),
        ("weight", 20),
        ("min_latency", 0),
        ("max_latency", 0),
        ("min_bandwidth", 312),
        ("max_bandwidth", 64000),
        ("recommended_transfer_size", 0),
        ("flags", 1),
    ])
}

fn gpu_properties(part: SimPart, gpu: usize, vram_size: u64) -> String {
    let p = part.properties();
    properties(&[
        ("cpu_cores_count", 0),
        ("simd_count", p.simd_count),
        ("mem_banks_count", 1),
        ("caches_count", part.caches().len() as u64),
        ("io_links_count", 1),
        ("p2p_links_count", 0),
        ("cpu_core_id_base", 0),
        ("simd_id_base", simd_id_base(gpu)),
        ("max_waves_per_simd", p.max_waves_per_simd),
        ("lds_size_in_kb", p.lds_size_in_kb),
        ("gds_size_in_kb", 0),
        ("num_gws", 64),
        ("wave_front_size", p.wave_front_size),
        ("array_count", p.array_count),
        ("simd_arrays_per_engine", p.simd_arrays_per_engine),
        ("cu_per_simd_array", p.cu_per_simd_array),
        ("simd_per_cu", p.simd_per_cu),
        ("max_slots_scratch_cu", 32),
        ("gfx_target_version", p.gfx_target_version),
        ("vendor_id", 4098),
        ("device_id", p.device_id),
        // PCI bus 3 + gpu, device 0, function 0.
        ("location_id", (3 + gpu as u64) << 8),
        ("domain", 0),
        ("drm_render_minor", (FIRST_RENDER_MINOR + gpu as u32) as u64),
        ("hive_id", 0),
        ("num_sdma_engines", p.num_sdma_engines),
        ("num_sdma_xgmi_engines", p.num_sdma_xgmi_engines),
        ("num_sdma_queues_per_engine", p.num_sdma_queues_per_engine),
        ("num_cp_queues", p.num_cp_queues),
        ("max_engine_clk_fcompute", p.max_engine_clk_fcompute),
        ("local_mem_size", vram_size),
        ("fw_version", p.fw_version),
        ("capability", p.capability),
        ("debug_prop", 0),
        ("sdma_fw_version", p.sdma_fw_version),
        ("unique_id", unique_id_of(gpu)),
        ("num_xcc", p.num_xcc),
        ("max_engine_clk_ccompute", 4500),
    ])
}
