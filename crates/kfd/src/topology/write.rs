//! Writer from [`Topology`] back to the sysfs format, so gfxsim can publish
//! its simulated nodes as a [`MemTree`] (or a directory) that the one
//! parser reads, exactly as it reads the kernel's tree.
//!
//! Node properties are written the way the kernel prints them: the typed
//! fields in kernel order (GPU-only keys only for GPU nodes), then any
//! other keys of `raw` in name order. Where `raw` and a typed field
//! disagree, the typed field wins.

use super::{Cache, HeapType, IoLink, MemBank, MemTree, Node, NodeProperties, Topology};

/// Format `name value` lines, one per pair, as a sysfs properties file.
pub fn properties_text(props: &[(&str, u64)]) -> String {
    let mut text = String::new();
    for (key, value) in props {
        text.push_str(key);
        text.push(' ');
        text.push_str(&value.to_string());
        text.push('\n');
    }
    text
}

impl HeapType {
    /// The sysfs `heap_type` code.
    pub fn code(self) -> u64 {
        match self {
            HeapType::System => 0,
            HeapType::FrameBufferPublic => 1,
            HeapType::FrameBufferPrivate => 2,
            HeapType::Gpugds => 3,
            HeapType::Gpulds => 4,
            HeapType::Gpuscratch => 5,
            HeapType::Other(code) => code,
        }
    }
}

impl NodeProperties {
    /// The node's `properties` file (see the module docs for the order).
    pub fn to_properties_text(&self, gpu: bool) -> String {
        let mut pairs = self.known_values(gpu);
        for (key, value) in &self.raw {
            if !NodeProperties::is_known_key(key) {
                pairs.push((key.as_str(), *value));
            }
        }
        properties_text(&pairs)
    }
}

impl MemBank {
    pub fn to_properties_text(&self) -> String {
        properties_text(&[
            ("heap_type", self.heap_type.code()),
            ("size_in_bytes", self.size_in_bytes),
            ("flags", self.flags),
            ("width", self.width),
            ("mem_clk_max", self.mem_clk_max),
        ])
    }
}

impl Cache {
    pub fn to_properties_text(&self) -> String {
        properties_text(&[
            ("processor_id_low", self.processor_id_low),
            ("level", self.level),
            ("size", self.size_kb),
            ("cache_line_size", self.cache_line_size),
            ("cache_lines_per_tag", self.cache_lines_per_tag),
            ("association", self.association),
            ("latency", self.latency),
            ("type", self.cache_type),
        ])
    }
}

impl IoLink {
    pub fn to_properties_text(&self) -> String {
        properties_text(&[
            ("type", self.link_type),
            ("version_major", self.version_major),
            ("version_minor", self.version_minor),
            ("node_from", self.node_from),
            ("node_to", self.node_to),
            ("weight", self.weight),
            ("min_latency", self.min_latency),
            ("max_latency", self.max_latency),
            ("min_bandwidth", self.min_bandwidth),
            ("max_bandwidth", self.max_bandwidth),
            ("recommended_transfer_size", self.recommended_transfer_size),
            ("flags", self.flags),
        ])
    }
}

impl Node {
    /// Insert this node's files under `nodes/<index>/` of `tree`.
    pub fn write_to(&self, tree: &mut MemTree) {
        let base = format!("nodes/{}", self.index);
        tree.insert(format!("{base}/gpu_id"), format!("{}\n", self.gpu_id));
        tree.insert(format!("{base}/name"), format!("{}\n", self.name));
        tree.insert(
            format!("{base}/properties"),
            self.properties.to_properties_text(self.is_gpu()),
        );
        for (i, bank) in self.mem_banks.iter().enumerate() {
            tree.insert(
                format!("{base}/mem_banks/{i}/properties"),
                bank.to_properties_text(),
            );
        }
        for (i, cache) in self.caches.iter().enumerate() {
            tree.insert(
                format!("{base}/caches/{i}/properties"),
                cache.to_properties_text(),
            );
        }
        for (i, link) in self.io_links.iter().enumerate() {
            tree.insert(
                format!("{base}/io_links/{i}/properties"),
                link.to_properties_text(),
            );
        }
        for (i, link) in self.p2p_links.iter().enumerate() {
            tree.insert(
                format!("{base}/p2p_links/{i}/properties"),
                link.to_properties_text(),
            );
        }
    }
}

impl MemTree {
    /// The whole topology in sysfs format.
    pub fn from_topology(topology: &Topology) -> MemTree {
        let mut tree = MemTree::new();
        tree.insert("generation_id", format!("{}\n", topology.generation_id));
        tree.insert(
            "system_properties",
            properties_text(&[
                ("platform_oem", topology.system.platform_oem),
                ("platform_id", topology.system.platform_id),
                ("platform_rev", topology.system.platform_rev),
            ]),
        );
        for node in &topology.nodes {
            node.write_to(&mut tree);
        }
        tree
    }
}
