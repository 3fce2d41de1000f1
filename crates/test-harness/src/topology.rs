//! Topologies built in-test: CPU nodes and gfx1100 GPU nodes with the
//! property values of a Radeon RX 7900 XTX (as its sysfs topology
//! publishes them; `crates/kfd/tests/fixtures/rx7900xtx`).

use aqueduct_kfd::topology::{
    HeapType, MemBank, Node, NodeKind, NodeProperties, SystemProperties, Topology,
};

pub fn cpu_node(index: u32) -> Node {
    Node {
        index,
        gpu_id: 0,
        name: String::new(),
        kind: NodeKind::Cpu,
        properties: NodeProperties {
            cpu_cores_count: 16,
            num_xcc: 1,
            ..Default::default()
        },
        mem_banks: vec![MemBank {
            heap_type: HeapType::System,
            size_in_bytes: 32 << 30,
            flags: 0,
            width: 64,
            mem_clk_max: 4800,
        }],
        caches: vec![],
        io_links: vec![],
        p2p_links: vec![],
    }
}

pub fn gfx1100_node(index: u32, gpu_id: u32, unique_id: u64) -> Node {
    Node {
        index,
        gpu_id,
        name: "ip discovery".into(),
        kind: NodeKind::Gpu,
        properties: NodeProperties {
            simd_count: 192,
            simd_per_cu: 2,
            cu_per_simd_array: 8,
            array_count: 12,
            simd_arrays_per_engine: 2,
            max_waves_per_simd: 16,
            wave_front_size: 32,
            lds_size_in_kb: 64,
            gfx_target_version: 110000,
            drm_render_minor: 128 + index as u64,
            unique_id,
            capability: 671588992,
            num_cp_queues: 8,
            num_xcc: 1,
            vendor_id: 0x1002,
            device_id: 0x744c,
            local_mem_size: 24 << 30,
            ..Default::default()
        },
        mem_banks: vec![MemBank {
            heap_type: HeapType::FrameBufferPrivate,
            size_in_bytes: 24 << 30,
            flags: 0,
            width: 384,
            mem_clk_max: 1250,
        }],
        caches: vec![],
        io_links: vec![],
        p2p_links: vec![],
    }
}

/// One CPU node, then GPUs with the given (gpu_id, unique_id).
pub fn topology(gpus: &[(u32, u64)]) -> Topology {
    let mut nodes = vec![cpu_node(0)];
    for (i, &(gpu_id, unique_id)) in gpus.iter().enumerate() {
        nodes.push(gfx1100_node(i as u32 + 1, gpu_id, unique_id));
    }
    Topology {
        generation_id: 1,
        system: SystemProperties::default(),
        nodes,
    }
}
