//! Topology parsing against trees captured from real machines (see
//! tests/fixtures/README.md), the error contract on damaged trees, the
//! sysfs writer, and the CWSR sizes KFD validates at CREATE_QUEUE.

use std::path::PathBuf;

use aqueduct_kfd::KfdError;
use aqueduct_kfd::topology::{
    CwsrSizes, DirTree, HeapType, MemTree, NodeKind, PciBdf, SysfsTree, Topology, TopologyFault,
};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn parse_fixture(name: &str) -> Topology {
    Topology::parse(&DirTree::new(fixture(name))).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn topology_error(result: Result<Topology, KfdError>) -> (String, TopologyFault) {
    match result {
        Err(KfdError::Topology { path, fault }) => (path.display().to_string(), fault),
        other => panic!("expected a topology error, got {other:?}"),
    }
}

#[test]
fn mi300x_node() {
    let topo = parse_fixture("mi300x");
    assert_eq!(topo.nodes.len(), 2);
    assert_eq!(topo.cpu_nodes().count(), 1);
    let gpus: Vec<_> = topo.gpu_nodes().collect();
    assert_eq!(gpus.len(), 1);
    let gpu = gpus[0];
    assert_eq!(gpu.index, 1);
    assert_eq!(gpu.kind, NodeKind::Gpu);
    assert_eq!(gpu.name, "ip discovery");
    assert_eq!(gpu.gfx_version().unwrap().name(), "gfx942");
    assert_eq!(gpu.compute_unit_count(), 304);
    assert_eq!(gpu.wave_front_size(), 64);
    assert_eq!(gpu.lds_size_bytes(), 65536);
    assert_eq!(gpu.max_waves_per_cu(), 32);
    assert_eq!(gpu.num_xcc(), 8);
    assert_eq!(gpu.properties.num_xcc, 8);
    assert_eq!(gpu.drm_render_minor(), Some(128));
    assert_eq!(gpu.unique_id(), 4376936076086227261);
    assert_eq!(gpu.doorbell_type(), 2);
    assert_eq!(gpu.properties.device_id, 0x74a1);
    assert_eq!(gpu.properties.hive_id, 10631624818852212319);
    let bdf = gpu.pci_bdf().unwrap();
    assert_eq!(
        bdf,
        PciBdf {
            domain: 0,
            bus: 0x47,
            device: 0,
            function: 0
        }
    );
    assert_eq!(bdf.to_string(), "0000:47:00.0");
    assert_eq!(gpu.mem_banks.len(), 1);
    assert_eq!(gpu.mem_banks[0].heap_type, HeapType::FrameBufferPublic);
    assert_eq!(gpu.mem_banks[0].size_in_bytes, 206141652992);
    assert_eq!(gpu.mem_banks[0].width, 8192);
    assert_eq!(gpu.caches.len(), 1);
    assert_eq!(
        (
            gpu.caches[0].level,
            gpu.caches[0].size_kb,
            gpu.caches[0].cache_line_size
        ),
        (1, 32, 128)
    );
    assert_eq!(gpu.io_links.len(), 1);
    assert_eq!((gpu.io_links[0].node_from, gpu.io_links[0].node_to), (1, 0));
    assert!(gpu.p2p_links.is_empty());
    assert_eq!(topo.node_by_gpu_id(56101).map(|n| n.index), Some(1));
    assert!(topo.node_by_gpu_id(0).is_none());
    assert!(topo.node_by_gpu_id(1).is_none());

    let cpu = topo.cpu_nodes().next().unwrap();
    assert_eq!(cpu.properties.cpu_cores_count, 96);
    assert_eq!(cpu.properties.num_xcc, 1, "absent num_xcc reads as 1");
    assert!(!cpu.properties.raw.contains_key("num_xcc"));
    assert_eq!(cpu.gfx_version(), None);
    assert_eq!(cpu.drm_render_minor(), None);
    assert_eq!(cpu.pci_bdf(), None);
    assert_eq!(cpu.cwsr_sizes(), None);
    assert_eq!(cpu.mem_banks[0].heap_type, HeapType::System);
}

#[test]
fn rx7900xtx_node() {
    let topo = parse_fixture("rx7900xtx");
    let gpu = topo.gpu_nodes().next().unwrap();
    assert_eq!(gpu.gfx_version().unwrap().name(), "gfx1100");
    assert_eq!(gpu.compute_unit_count(), 96);
    assert_eq!(gpu.wave_front_size(), 32);
    assert_eq!(gpu.lds_size_bytes(), 64 * 1024);
    assert_eq!(gpu.max_waves_per_cu(), 32);
    assert_eq!(gpu.num_xcc(), 1);
    assert_eq!(gpu.drm_render_minor(), Some(128));
    assert_eq!(gpu.doorbell_type(), 2);
    assert_eq!(gpu.properties.device_id, 0x744c);
    assert_eq!(gpu.properties.fw_version, 2140);
    assert_eq!(gpu.pci_bdf().unwrap().to_string(), "0000:86:00.0");
    assert_eq!(gpu.mem_banks[0].heap_type, HeapType::FrameBufferPublic);
    assert_eq!(gpu.mem_banks[0].size_in_bytes, 25753026560);
    assert_eq!(gpu.mem_banks[0].width, 384);
    assert_eq!(topo.node_by_gpu_id(43970).map(|n| n.index), Some(1));
}

#[test]
fn cpu_only_system() {
    let topo = parse_fixture("cpu_only");
    assert_eq!(topo.nodes.len(), 1);
    assert_eq!(topo.gpu_nodes().count(), 0);
    assert_eq!(topo.nodes[0].kind, NodeKind::Cpu);
    assert_eq!(topo.nodes[0].properties.cpu_cores_count, 16);
}

#[test]
fn cwsr_sizes_follow_the_kernel_formula() {
    // Values worked out by hand from kfd_queue_ctx_save_restore_size.
    let xtx = parse_fixture("rx7900xtx");
    let sizes = xtx.gpu_nodes().next().unwrap().cwsr_sizes().unwrap();
    // 96 CUs, 3072 waves, 12 B/wave; VGPR 0x60000 per CU on gfx1100.
    assert_eq!(
        sizes,
        CwsrSizes {
            ctl_stack_size: 40960,
            wg_data_size: 46006272,
            cwsr_size: 46047232,
            debug_memory_size: 98304,
            eop_buffer_size: 4096,
            num_xcc: 1,
        }
    );
    // 0x2C02000 is what tinygrad allocates for a 7900 XTX save area.
    assert_eq!(sizes.total_size(), 0x2C02000);

    let mi300 = parse_fixture("mi300x");
    let sizes = mi300.gpu_nodes().next().unwrap().cwsr_sizes().unwrap();
    // 38 CUs per XCC, min(38*40, 32/1*512) = 1520 waves, 8 B/wave;
    // VGPR 0x80000 per CU on gfx942.
    assert_eq!(
        sizes,
        CwsrSizes {
            ctl_stack_size: 12288,
            wg_data_size: 23191552,
            cwsr_size: 23203840,
            debug_memory_size: 48640,
            eop_buffer_size: 4096,
            num_xcc: 8,
        }
    );
    assert_eq!(sizes.total_size(), 186019840);
    assert_eq!(sizes.xcc_slice_offset(3), 3 * (23203840 + 48640));
}

#[test]
fn cwsr_sizes_gfx10_cap_and_unsupported_targets() {
    let mut topo = parse_fixture("rx7900xtx");
    let gpu = &mut topo.nodes[1];
    // A gfx1030-shaped node: 80 CUs -> 2560 waves * 12 B would need
    // 0x8000 bytes of control stack; gfx10 caps it at 0x7000.
    gpu.properties.gfx_target_version = 100300;
    gpu.properties.simd_count = 160;
    let sizes = gpu.cwsr_sizes().unwrap();
    assert_eq!(sizes.ctl_stack_size, 0x7000);
    assert_eq!(
        sizes.wg_data_size,
        80 * (0x40000 + 0x4000 + 0x10000 + 0x1000)
    );

    gpu.properties.gfx_target_version = 70002; // gfx702: no CWSR
    assert_eq!(gpu.cwsr_sizes(), None);
    gpu.properties.gfx_target_version = 80002; // Tonga: 32 KiB EOP
    assert_eq!(gpu.cwsr_sizes().unwrap().eop_buffer_size, 0x8000);
    gpu.properties.simd_per_cu = 0;
    assert_eq!(gpu.cwsr_sizes(), None);
}

#[test]
fn cwsr_sizes_that_do_not_fit_are_none() {
    let mut topo = parse_fixture("mi300x");
    let gpu = &mut topo.nodes[1];
    let sane = gpu.properties.clone();
    // Each property alone drives a product past u64 or the ioctl's u32.
    type Mutate = fn(&mut aqueduct_kfd::topology::NodeProperties);
    let cases: [(&str, Mutate); 5] = [
        ("simd_count", |p| p.simd_count = u64::MAX),
        ("array_count", |p| p.array_count = u64::MAX),
        ("num_xcc", |p| {
            p.num_xcc = 1 << 33;
            p.simd_count = u64::MAX;
        }),
        ("lds_size_in_kb on gfx950", |p| {
            p.gfx_target_version = 90500;
            p.lds_size_in_kb = u64::MAX / 512;
        }),
        ("a save area past u64", |p| {
            // gfx1100 with 8955 CUs per XCC: a save area just under 4 GiB
            // plus 9 MiB of debugger memory, times 2^32 - 1 XCCs.
            p.gfx_target_version = 110000;
            p.num_xcc = u32::MAX as u64;
            p.simd_count = 8955 * p.simd_per_cu * u32::MAX as u64;
        }),
    ];
    for (what, mutate) in cases {
        gpu.properties = sane.clone();
        mutate(&mut gpu.properties);
        assert_eq!(gpu.cwsr_sizes(), None, "{what}");
    }
    gpu.properties = sane;
    assert!(gpu.cwsr_sizes().is_some());
}

fn fixture_tree(name: &str) -> MemTree {
    MemTree::from_dir(fixture(name)).unwrap()
}

#[test]
fn malformed_value_names_file_and_key() {
    let mut tree = fixture_tree("rx7900xtx");
    let text = tree
        .files()
        .find(|(p, _)| *p == "nodes/1/properties")
        .unwrap()
        .1
        .to_string();
    tree.insert(
        "nodes/1/properties",
        text.replace("simd_count 192", "simd_count x"),
    );
    let (path, fault) = topology_error(Topology::parse(&tree));
    assert_eq!(path, "<memory>/nodes/1/properties");
    assert!(
        matches!(&fault, TopologyFault::InvalidProperty { key, value }
            if key == "simd_count" && value == "x"),
        "{fault:?}"
    );
    // The message names the file, the key and the value.
    let shown = KfdError::Topology {
        path: path.into(),
        fault,
    }
    .to_string();
    assert_eq!(
        shown,
        "topology: <memory>/nodes/1/properties: key simd_count: invalid number 'x'"
    );
}

#[test]
fn missing_properties_file_names_the_file() {
    let mut tree = fixture_tree("mi300x");
    tree.remove("nodes/1/mem_banks/0/properties").unwrap();
    tree.insert("nodes/1/mem_banks/0/other", "");
    let (path, fault) = topology_error(Topology::parse(&tree));
    assert_eq!(path, "<memory>/nodes/1/mem_banks/0/properties");
    assert!(
        matches!(fault, TopologyFault::Unreadable { .. }),
        "{fault:?}"
    );

    let mut tree = fixture_tree("mi300x");
    tree.remove("nodes/0/properties").unwrap();
    let (path, _) = topology_error(Topology::parse(&tree));
    assert_eq!(path, "<memory>/nodes/0/properties");
}

#[test]
fn truncated_line_names_file_and_key() {
    let mut tree = fixture_tree("mi300x");
    let text = tree
        .files()
        .find(|(p, _)| *p == "nodes/1/properties")
        .unwrap()
        .1
        .to_string();
    // Cut the file in the middle of a line, after a key.
    let cut = text.find("num_cp_queues").unwrap() + "num_cp_queues".len();
    tree.insert("nodes/1/properties", &text[..cut]);
    let (path, fault) = topology_error(Topology::parse(&tree));
    assert_eq!(path, "<memory>/nodes/1/properties");
    assert!(
        matches!(&fault, TopologyFault::TruncatedLine { key } if key == "num_cp_queues"),
        "{fault:?}"
    );
}

#[test]
fn on_disk_errors_name_the_real_path() {
    let root = fixture("cpu_only");
    let tree = DirTree::new(root.join("nodes"));
    let (path, fault) = topology_error(Topology::parse(&tree));
    assert_eq!(path, root.join("nodes/generation_id").display().to_string());
    assert!(
        matches!(fault, TopologyFault::Unreadable { .. }),
        "{fault:?}"
    );
}

/// A tree that refuses one file with EPERM, as sysfs does for a GPU node
/// masked by the process's device cgroup.
struct MaskedTree {
    inner: MemTree,
    masked: &'static str,
}

impl SysfsTree for MaskedTree {
    fn read(&self, path: &str) -> std::io::Result<String> {
        if path == self.masked {
            return Err(std::io::Error::from_raw_os_error(1)); // EPERM
        }
        self.inner.read(path)
    }
    fn list(&self, path: &str) -> std::io::Result<Vec<String>> {
        self.inner.list(path)
    }
    fn display_path(&self, path: &str) -> PathBuf {
        self.inner.display_path(path)
    }
}

#[test]
fn cgroup_masked_node_is_skipped() {
    let tree = MaskedTree {
        inner: fixture_tree("mi300x"),
        masked: "nodes/1/gpu_id",
    };
    let topo = Topology::parse(&tree).unwrap();
    assert_eq!(topo.nodes.len(), 1);
    assert_eq!(topo.gpu_nodes().count(), 0);
}

#[test]
fn writer_reproduces_kernel_format_and_round_trips() {
    for name in ["mi300x", "rx7900xtx", "cpu_only"] {
        let topo = parse_fixture(name);
        let written = MemTree::from_topology(&topo);
        assert_eq!(
            Topology::parse(&written).unwrap(),
            topo,
            "{name}: round trip"
        );
        // Node properties come out byte-for-byte as the kernel printed them.
        let original = fixture_tree(name);
        for node in &topo.nodes {
            let path = format!("nodes/{}/properties", node.index);
            let expected = original.files().find(|(p, _)| *p == path).unwrap().1;
            assert_eq!(
                node.properties.to_properties_text(node.is_gpu()),
                expected,
                "{name} {path}"
            );
        }
    }
}
