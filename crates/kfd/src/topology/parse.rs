//! Parser from a sysfs-format tree to [`Topology`].
//!
//! Layout (libhsakmt `topology.c`, `topology_sysfs_get_node_props`): `generation_id`,
//! `system_properties`, and `nodes/N/{gpu_id, name, properties,
//! mem_banks/M/properties, caches/M/properties, io_links/M/properties,
//! p2p_links/M/properties}`. Properties files hold `name value` lines with
//! decimal u64 values.
//!
//! Every failure is a [`KfdError::Topology`] naming the file and, where one
//! is at fault, the key; the parser never panics on what it reads.
//!
//! Two leniencies follow ROCr/libhsakmt:
//! - A node whose `gpu_id` file cannot be read for lack of permission
//!   (EPERM/EACCES: the node is masked from this process by a device
//!   cgroup) is skipped, as libhsakmt skips nodes it may not use.
//! - The `mem_banks`, `caches`, `io_links` and `p2p_links` directories may
//!   be absent (a node with none of them); the `*_count` properties are
//!   kept as published and not cross-checked, since the kernel counts
//!   entries (e.g. caches) it does not always list.
//!
//! Cache `properties` on real systems carry a `sibling_map` line whose value
//! is a comma-separated bitmap, not a number; that key is skipped.

use std::io::ErrorKind;

use super::{
    Cache, HeapType, IoLink, MemBank, Node, NodeKind, NodeProperties, SysfsTree, SystemProperties,
    Topology, TopologyFault,
};
use crate::error::{KfdError, KfdResult};

/// Keys whose values are not single numbers and are skipped.
const NON_SCALAR_KEYS: &[&str] = &["sibling_map"];

fn topo_err(tree: &dyn SysfsTree, path: &str, fault: TopologyFault) -> KfdError {
    KfdError::Topology {
        path: tree.display_path(path),
        fault,
    }
}

fn read_file(tree: &dyn SysfsTree, path: &str) -> KfdResult<String> {
    tree.read(path)
        .map_err(|source| topo_err(tree, path, TopologyFault::Unreadable { source }))
}

/// Parse the text of a properties file into `(key, value)` pairs in file
/// order. `path` is only used to name the file in errors.
///
/// Errors: a line with a key but no value ("truncated line"), a value that
/// is not a decimal u64, or extra fields after the value.
pub fn parse_properties(
    tree: &dyn SysfsTree,
    path: &str,
    text: &str,
) -> KfdResult<Vec<(String, u64)>> {
    let mut pairs = Vec::new();
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let Some(key) = fields.next() else { continue };
        let Some(value) = fields.next() else {
            return Err(topo_err(
                tree,
                path,
                TopologyFault::TruncatedLine {
                    key: key.to_string(),
                },
            ));
        };
        if NON_SCALAR_KEYS.contains(&key) {
            continue;
        }
        if let Some(extra) = fields.next() {
            return Err(topo_err(
                tree,
                path,
                TopologyFault::UnexpectedField {
                    key: key.to_string(),
                    field: extra.to_string(),
                },
            ));
        }
        let value: u64 = value.parse().map_err(|_| {
            let fault = TopologyFault::InvalidProperty {
                key: key.to_string(),
                value: value.to_string(),
            };
            topo_err(tree, path, fault)
        })?;
        pairs.push((key.to_string(), value));
    }
    Ok(pairs)
}

fn read_properties(tree: &dyn SysfsTree, path: &str) -> KfdResult<Vec<(String, u64)>> {
    let text = read_file(tree, path)?;
    parse_properties(tree, path, &text)
}

/// A lookup in parsed pairs, 0 when absent.
fn get(pairs: &[(String, u64)], key: &str) -> u64 {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| *v)
        .unwrap_or(0)
}

/// Numbered entries of a directory ("0", "1", ...) in numeric order. An
/// absent directory is empty when `optional`.
fn list_indices(tree: &dyn SysfsTree, path: &str, optional: bool) -> KfdResult<Vec<u32>> {
    let names = match tree.list(path) {
        Ok(names) => names,
        Err(e) if optional && e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(topo_err(tree, path, TopologyFault::Unlistable { source })),
    };
    let mut indices = Vec::with_capacity(names.len());
    for name in names {
        let index = name.parse::<u32>().map_err(|_| {
            topo_err(
                tree,
                path,
                TopologyFault::UnnumberedEntry { name: name.clone() },
            )
        })?;
        indices.push(index);
    }
    indices.sort_unstable();
    Ok(indices)
}

fn parse_scalar(tree: &dyn SysfsTree, path: &str, text: &str) -> KfdResult<u64> {
    let value = text.trim();
    value.parse().map_err(|_| {
        let value = value.to_string();
        topo_err(tree, path, TopologyFault::InvalidNumber { value })
    })
}

fn heap_type(code: u64) -> HeapType {
    match code {
        0 => HeapType::System,
        1 => HeapType::FrameBufferPublic,
        2 => HeapType::FrameBufferPrivate,
        3 => HeapType::Gpugds,
        4 => HeapType::Gpulds,
        5 => HeapType::Gpuscratch,
        other => HeapType::Other(other),
    }
}

fn parse_mem_bank(pairs: &[(String, u64)]) -> MemBank {
    MemBank {
        heap_type: heap_type(get(pairs, "heap_type")),
        size_in_bytes: get(pairs, "size_in_bytes"),
        flags: get(pairs, "flags"),
        width: get(pairs, "width"),
        mem_clk_max: get(pairs, "mem_clk_max"),
    }
}

fn parse_cache(pairs: &[(String, u64)]) -> Cache {
    Cache {
        processor_id_low: get(pairs, "processor_id_low"),
        level: get(pairs, "level"),
        size_kb: get(pairs, "size"),
        cache_line_size: get(pairs, "cache_line_size"),
        cache_lines_per_tag: get(pairs, "cache_lines_per_tag"),
        association: get(pairs, "association"),
        latency: get(pairs, "latency"),
        cache_type: get(pairs, "type"),
    }
}

fn parse_io_link(pairs: &[(String, u64)]) -> IoLink {
    IoLink {
        link_type: get(pairs, "type"),
        version_major: get(pairs, "version_major"),
        version_minor: get(pairs, "version_minor"),
        node_from: get(pairs, "node_from"),
        node_to: get(pairs, "node_to"),
        weight: get(pairs, "weight"),
        min_latency: get(pairs, "min_latency"),
        max_latency: get(pairs, "max_latency"),
        min_bandwidth: get(pairs, "min_bandwidth"),
        max_bandwidth: get(pairs, "max_bandwidth"),
        recommended_transfer_size: get(pairs, "recommended_transfer_size"),
        flags: get(pairs, "flags"),
    }
}

/// Parse every `<dir>/M/properties` of a node with `f`.
fn parse_children<T>(
    tree: &dyn SysfsTree,
    dir: &str,
    f: fn(&[(String, u64)]) -> T,
) -> KfdResult<Vec<T>> {
    let mut out = Vec::new();
    for index in list_indices(tree, dir, true)? {
        let pairs = read_properties(tree, &format!("{dir}/{index}/properties"))?;
        out.push(f(&pairs));
    }
    Ok(out)
}

fn node_properties(pairs: Vec<(String, u64)>) -> NodeProperties {
    let mut props = NodeProperties {
        num_xcc: 1,
        ..NodeProperties::default()
    };
    for (key, value) in pairs {
        if let Some(field) = props.field_mut(&key) {
            *field = value;
        }
        props.raw.insert(key, value);
    }
    props
}

/// Parse node `index`; `Ok(None)` when the node is masked from this process.
fn parse_node(tree: &dyn SysfsTree, index: u32) -> KfdResult<Option<Node>> {
    let base = format!("nodes/{index}");
    let gpu_id_path = format!("{base}/gpu_id");
    let gpu_id_text = match tree.read(&gpu_id_path) {
        Ok(text) => text,
        Err(e) if e.kind() == ErrorKind::PermissionDenied => {
            tracing::debug!(
                node = index,
                "skipping topology node: gpu_id not readable ({e})"
            );
            return Ok(None);
        }
        Err(source) => {
            return Err(topo_err(
                tree,
                &gpu_id_path,
                TopologyFault::Unreadable { source },
            ));
        }
    };
    let gpu_id = parse_scalar(tree, &gpu_id_path, &gpu_id_text)?;
    let gpu_id = u32::try_from(gpu_id)
        .map_err(|_| topo_err(tree, &gpu_id_path, TopologyFault::GpuIdTooWide { gpu_id }))?;
    let name = read_file(tree, &format!("{base}/name"))?
        .trim_end_matches('\n')
        .to_string();
    let properties = node_properties(read_properties(tree, &format!("{base}/properties"))?);
    let kind = if properties.simd_count > 0 && gpu_id != 0 {
        NodeKind::Gpu
    } else {
        NodeKind::Cpu
    };
    Ok(Some(Node {
        index,
        gpu_id,
        name,
        kind,
        properties,
        mem_banks: parse_children(tree, &format!("{base}/mem_banks"), parse_mem_bank)?,
        caches: parse_children(tree, &format!("{base}/caches"), parse_cache)?,
        io_links: parse_children(tree, &format!("{base}/io_links"), parse_io_link)?,
        p2p_links: parse_children(tree, &format!("{base}/p2p_links"), parse_io_link)?,
    }))
}

impl Topology {
    /// Parse a whole topology tree (see the module docs for the layout and
    /// the error policy).
    pub fn parse(tree: &dyn SysfsTree) -> KfdResult<Topology> {
        let generation_id =
            parse_scalar(tree, "generation_id", &read_file(tree, "generation_id")?)?;
        let system = read_properties(tree, "system_properties")?;
        let system = SystemProperties {
            platform_oem: get(&system, "platform_oem"),
            platform_id: get(&system, "platform_id"),
            platform_rev: get(&system, "platform_rev"),
        };
        let mut nodes = Vec::new();
        for index in list_indices(tree, "nodes", false)? {
            if let Some(node) = parse_node(tree, index)? {
                nodes.push(node);
            }
        }
        Ok(Topology {
            generation_id,
            system,
            nodes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::MemTree;

    fn minimal_tree() -> MemTree {
        let mut t = MemTree::new();
        t.insert("generation_id", "3\n");
        t.insert(
            "system_properties",
            "platform_oem 1\nplatform_id 2\nplatform_rev 0\n",
        );
        t.insert("nodes/0/gpu_id", "0\n");
        t.insert("nodes/0/name", "\n");
        t.insert("nodes/0/properties", "cpu_cores_count 4\nsimd_count 0\n");
        t
    }

    /// The file a topology error names, and its fault.
    fn fault(err: KfdError) -> (String, TopologyFault) {
        match err {
            KfdError::Topology { path, fault } => (path.display().to_string(), fault),
            other => panic!("expected a topology error, got {other:?}"),
        }
    }

    #[test]
    fn minimal_cpu_tree() {
        let topo = Topology::parse(&minimal_tree()).unwrap();
        assert_eq!(topo.generation_id, 3);
        assert_eq!(
            topo.system,
            SystemProperties {
                platform_oem: 1,
                platform_id: 2,
                platform_rev: 0
            }
        );
        assert_eq!(topo.nodes.len(), 1);
        let node = &topo.nodes[0];
        assert_eq!(node.kind, NodeKind::Cpu);
        assert_eq!(node.properties.cpu_cores_count, 4);
        assert_eq!(node.properties.num_xcc, 1, "num_xcc defaults to 1");
        assert!(node.mem_banks.is_empty() && node.caches.is_empty());
    }

    #[test]
    fn unknown_keys_and_sibling_map() {
        let mut t = minimal_tree();
        t.insert("nodes/0/properties", "simd_count 0\nnew_kernel_key 77\n");
        t.insert(
            "nodes/0/caches/0/properties",
            "processor_id_low 0\nlevel 1\nsize 32\ntype 5\nsibling_map 1,1,0,0\n",
        );
        let topo = Topology::parse(&t).unwrap();
        let node = &topo.nodes[0];
        assert_eq!(node.properties.raw.get("new_kernel_key"), Some(&77));
        assert_eq!(node.properties.raw.get("simd_count"), Some(&0));
        assert_eq!(node.caches.len(), 1);
        assert_eq!(
            (
                node.caches[0].level,
                node.caches[0].size_kb,
                node.caches[0].cache_type
            ),
            (1, 32, 5)
        );
    }

    #[test]
    fn gpu_id_zero_is_cpu_even_with_simds() {
        let mut t = minimal_tree();
        t.insert("nodes/0/properties", "simd_count 8\n");
        assert_eq!(Topology::parse(&t).unwrap().nodes[0].kind, NodeKind::Cpu);
    }

    #[test]
    fn bad_values_name_file_and_key() {
        let mut t = minimal_tree();
        t.insert("nodes/0/properties", "simd_count 0\nlds_size_in_kb -1\n");
        let (path, f) = fault(Topology::parse(&t).unwrap_err());
        assert_eq!(path, "<memory>/nodes/0/properties");
        assert!(
            matches!(&f, TopologyFault::InvalidProperty { key, value }
                if key == "lds_size_in_kb" && value == "-1"),
            "{f:?}"
        );

        let mut t = minimal_tree();
        t.insert("nodes/0/properties", "simd_count 0 0\n");
        let (path, f) = fault(Topology::parse(&t).unwrap_err());
        assert_eq!(path, "<memory>/nodes/0/properties");
        assert!(
            matches!(&f, TopologyFault::UnexpectedField { key, field }
                if key == "simd_count" && field == "0"),
            "{f:?}"
        );

        let mut t = minimal_tree();
        t.insert("nodes/0/gpu_id", "abc\n");
        let (path, f) = fault(Topology::parse(&t).unwrap_err());
        assert_eq!(path, "<memory>/nodes/0/gpu_id");
        assert!(
            matches!(&f, TopologyFault::InvalidNumber { value } if value == "abc"),
            "{f:?}"
        );

        let mut t = minimal_tree();
        t.insert("nodes/0/gpu_id", "4294967296\n");
        let (_, f) = fault(Topology::parse(&t).unwrap_err());
        assert!(
            matches!(f, TopologyFault::GpuIdTooWide { gpu_id: 4294967296 }),
            "{f:?}"
        );

        let mut t = minimal_tree();
        t.insert("nodes/x/gpu_id", "0\n");
        let (path, f) = fault(Topology::parse(&t).unwrap_err());
        assert_eq!(path, "<memory>/nodes");
        assert!(
            matches!(&f, TopologyFault::UnnumberedEntry { name } if name == "x"),
            "{f:?}"
        );
    }

    #[test]
    fn missing_files_are_errors() {
        let t = MemTree::new();
        let (path, f) = fault(Topology::parse(&t).unwrap_err());
        assert_eq!(path, "<memory>/generation_id");
        assert!(matches!(f, TopologyFault::Unreadable { .. }), "{f:?}");

        let mut t = minimal_tree();
        t.insert("nodes/1/gpu_id", "1234\n");
        t.insert("nodes/1/name", "gfx\n");
        let (path, f) = fault(Topology::parse(&t).unwrap_err());
        assert_eq!(path, "<memory>/nodes/1/properties");
        assert!(matches!(f, TopologyFault::Unreadable { .. }), "{f:?}");
    }
}
