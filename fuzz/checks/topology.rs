//! Fuzz checks: `Topology::parse` over a sysfs tree built from the bytes.
//!
//! Input format (also how the seed corpus encodes the fixtures): records
//! separated by NUL bytes; a record's first line is a file path relative to
//! the topology root ("nodes/1/properties"), the rest is the file's
//! contents. Directories are implied by the paths (a `MemTree`). Parsing
//! may reject the tree; a panic is a finding. A parsed topology's derived
//! values (gfx version, CU count, render minor, PCI address, CWSR sizes)
//! and its written-back properties text are computed too, since the runtime
//! uses them on whatever the kernel printed.
//!
//! The checks live here, apart from libFuzzer, so the fuzz target
//! (`fuzz_targets/topology.rs`) and the corpus replay that runs in every
//! `cargo test` use the same code.

use aqueduct_kfd::topology::{MemTree, Topology, parse_properties};

fn tree_from_bytes(bytes: &[u8]) -> MemTree {
    let mut tree = MemTree::new();
    for record in bytes.split(|&b| b == 0) {
        let text = String::from_utf8_lossy(record);
        let (path, contents) = text.split_once('\n').unwrap_or((&text, ""));
        tree.insert(path, contents);
    }
    tree
}

/// Run the target's invariants on one input (panics on a finding).
pub fn check(bytes: &[u8]) {
    let tree = tree_from_bytes(bytes);
    let Ok(topology) = Topology::parse(&tree) else {
        return;
    };
    for node in &topology.nodes {
        let _ = (node.is_gpu(), node.gfx_version().map(|v| v.name()));
        let _ = (node.compute_unit_count(), node.wave_front_size());
        let _ = (
            node.lds_size_bytes(),
            node.drm_render_minor(),
            node.unique_id(),
        );
        let _ = (
            node.max_waves_per_cu(),
            node.doorbell_type(),
            node.num_xcc(),
        );
        let _ = node.pci_bdf();
        if let Some(sizes) = node.cwsr_sizes() {
            let _ = sizes.total_size();
            for xcc in 0..node.num_xcc().min(16) {
                let _ = sizes.xcc_slice_offset(xcc);
            }
        }
        let _ = topology.node_by_gpu_id(node.gpu_id);
        // The writer's text parses back to the same known values.
        let text = node.properties.to_properties_text(node.is_gpu());
        let pairs = parse_properties(&tree, "written", &text).expect("written text parses back");
        for (key, value) in node.properties.known_values(node.is_gpu()) {
            assert!(
                pairs.iter().any(|(k, v)| k == key && *v == value),
                "{key} {value} lost in the written text"
            );
        }
        for bank in &node.mem_banks {
            let _ = bank.to_properties_text();
        }
    }
    let _ = (topology.gpu_nodes().count(), topology.cpu_nodes().count());
}
