//! What the runtime derives from a node's raw sysfs properties: the gfx
//! target, CU and wave counts, LDS size, render node, PCI address, doorbell
//! type, and the table that maps property names to [`NodeProperties`]
//! fields (shared by the parser and the writer so they cannot drift).

use super::{GfxVersion, Node, NodeKind, NodeProperties, Topology};

/// The well-known properties keys, in the order the kernel prints them
/// (`node_show` in kfd_topology.c). Keys up to and including
/// `num_cp_queues`, plus `max_engine_clk_ccompute`, are printed for every
/// node; the rest only for GPU nodes.
const KNOWN_KEYS: [&str; 38] = [
    "cpu_cores_count",
    "simd_count",
    "mem_banks_count",
    "caches_count",
    "io_links_count",
    "p2p_links_count",
    "cpu_core_id_base",
    "simd_id_base",
    "max_waves_per_simd",
    "lds_size_in_kb",
    "gds_size_in_kb",
    "num_gws",
    "wave_front_size",
    "array_count",
    "simd_arrays_per_engine",
    "cu_per_simd_array",
    "simd_per_cu",
    "max_slots_scratch_cu",
    "gfx_target_version",
    "vendor_id",
    "device_id",
    "location_id",
    "domain",
    "drm_render_minor",
    "hive_id",
    "num_sdma_engines",
    "num_sdma_xgmi_engines",
    "num_sdma_queues_per_engine",
    "num_cp_queues",
    "max_engine_clk_fcompute",
    "local_mem_size",
    "fw_version",
    "capability",
    "debug_prop",
    "sdma_fw_version",
    "unique_id",
    "num_xcc",
    "max_engine_clk_ccompute",
];

/// Keys the kernel prints for CPU-only nodes too (see [`KNOWN_KEYS`]).
const KEYS_FOR_ALL_NODES: usize = 29;

impl NodeProperties {
    /// The typed field a properties key fills, if the key is well known.
    pub fn field_mut(&mut self, key: &str) -> Option<&mut u64> {
        Some(match key {
            "cpu_cores_count" => &mut self.cpu_cores_count,
            "simd_count" => &mut self.simd_count,
            "mem_banks_count" => &mut self.mem_banks_count,
            "caches_count" => &mut self.caches_count,
            "io_links_count" => &mut self.io_links_count,
            "p2p_links_count" => &mut self.p2p_links_count,
            "cpu_core_id_base" => &mut self.cpu_core_id_base,
            "simd_id_base" => &mut self.simd_id_base,
            "capability" => &mut self.capability,
            "debug_prop" => &mut self.debug_prop,
            "max_waves_per_simd" => &mut self.max_waves_per_simd,
            "lds_size_in_kb" => &mut self.lds_size_in_kb,
            "gds_size_in_kb" => &mut self.gds_size_in_kb,
            "num_gws" => &mut self.num_gws,
            "wave_front_size" => &mut self.wave_front_size,
            "array_count" => &mut self.array_count,
            "simd_arrays_per_engine" => &mut self.simd_arrays_per_engine,
            "cu_per_simd_array" => &mut self.cu_per_simd_array,
            "simd_per_cu" => &mut self.simd_per_cu,
            "max_slots_scratch_cu" => &mut self.max_slots_scratch_cu,
            "gfx_target_version" => &mut self.gfx_target_version,
            "vendor_id" => &mut self.vendor_id,
            "device_id" => &mut self.device_id,
            "location_id" => &mut self.location_id,
            "domain" => &mut self.domain,
            "drm_render_minor" => &mut self.drm_render_minor,
            "hive_id" => &mut self.hive_id,
            "num_sdma_engines" => &mut self.num_sdma_engines,
            "num_sdma_xgmi_engines" => &mut self.num_sdma_xgmi_engines,
            "num_sdma_queues_per_engine" => &mut self.num_sdma_queues_per_engine,
            "num_cp_queues" => &mut self.num_cp_queues,
            "max_engine_clk_fcompute" => &mut self.max_engine_clk_fcompute,
            "max_engine_clk_ccompute" => &mut self.max_engine_clk_ccompute,
            "local_mem_size" => &mut self.local_mem_size,
            "fw_version" => &mut self.fw_version,
            "sdma_fw_version" => &mut self.sdma_fw_version,
            "unique_id" => &mut self.unique_id,
            "num_xcc" => &mut self.num_xcc,
            _ => return None,
        })
    }

    /// The well-known keys and their typed values, in kernel print order.
    /// With `gpu == false` only the keys the kernel prints for CPU-only
    /// nodes.
    pub fn known_values(&self, gpu: bool) -> Vec<(&'static str, u64)> {
        let mut copy = self.clone();
        let keys: Vec<&'static str> = if gpu {
            KNOWN_KEYS.to_vec()
        } else {
            let mut k = KNOWN_KEYS[..KEYS_FOR_ALL_NODES].to_vec();
            k.push("max_engine_clk_ccompute");
            k
        };
        keys.into_iter()
            .map(|key| (key, copy.field_mut(key).map(|v| *v).unwrap_or_default()))
            .collect()
    }

    /// `true` if `key` is one of the typed fields.
    pub fn is_known_key(key: &str) -> bool {
        KNOWN_KEYS.contains(&key)
    }

    /// The decoded `gfx_target_version` (None for CPU nodes).
    pub fn gfx_version(&self) -> Option<GfxVersion> {
        GfxVersion::from_target_version(self.gfx_target_version)
    }
}

impl GfxVersion {
    /// Decode `major*10000 + minor*100 + stepping`. None for 0 (CPU nodes)
    /// and for minor/stepping values that a single hex digit of a gfx name
    /// cannot carry (> 15).
    pub fn from_target_version(version: u64) -> Option<GfxVersion> {
        let major = version / 10000;
        let minor = (version / 100) % 100;
        let stepping = version % 100;
        if major == 0 || major > u32::MAX as u64 || minor > 15 || stepping > 15 {
            return None;
        }
        Some(GfxVersion {
            major: major as u32,
            minor: minor as u32,
            stepping: stepping as u32,
        })
    }

    /// The `gfx_target_version` number this version is published as.
    pub fn target_version(&self) -> u64 {
        self.major as u64 * 10000 + self.minor as u64 * 100 + self.stepping as u64
    }

    /// The LLVM processor name: "gfx" + major in decimal + minor and
    /// stepping as one hex digit each ("gfx1100", "gfx942", "gfx90a").
    pub fn name(&self) -> String {
        format!("gfx{}{:x}{:x}", self.major, self.minor, self.stepping)
    }

    /// Parse a processor name ("gfx1100", "gfx90a"); the last two
    /// characters are minor and stepping in hex, the rest the major.
    pub fn from_name(name: &str) -> Option<GfxVersion> {
        let digits = name.strip_prefix("gfx")?;
        if digits.len() < 3 || !digits.is_ascii() {
            return None;
        }
        let (major, rest) = digits.split_at(digits.len() - 2);
        let major: u32 = major.parse().ok()?;
        let minor = u32::from_str_radix(&rest[..1], 16).ok()?;
        let stepping = u32::from_str_radix(&rest[1..], 16).ok()?;
        (major > 0).then_some(GfxVersion {
            major,
            minor,
            stepping,
        })
    }
}

impl std::fmt::Display for GfxVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// A PCI address decoded from `domain` and `location_id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PciBdf {
    pub domain: u32,
    pub bus: u8,
    pub device: u8,
    pub function: u8,
}

impl std::fmt::Display for PciBdf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{:x}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

impl Node {
    pub fn is_gpu(&self) -> bool {
        self.kind == NodeKind::Gpu
    }

    /// The decoded gfx target (None for CPU nodes).
    pub fn gfx_version(&self) -> Option<GfxVersion> {
        self.properties.gfx_version()
    }

    /// Compute units of the whole node (all XCCs): simd_count / simd_per_cu.
    pub fn compute_unit_count(&self) -> u32 {
        let p = &self.properties;
        let cus = p.simd_count.checked_div(p.simd_per_cu).unwrap_or(0);
        u32::try_from(cus).unwrap_or(u32::MAX)
    }

    /// Lanes per wave the hardware runs by default (32 on RDNA, 64 on CDNA).
    pub fn wave_front_size(&self) -> u32 {
        self.properties.wave_front_size as u32
    }

    /// LDS per workgroup processor, in bytes (saturating: the kernel
    /// prints any u64 it likes).
    pub fn lds_size_bytes(&self) -> u64 {
        self.properties.lds_size_in_kb.saturating_mul(1024)
    }

    /// N of `/dev/dri/renderD<N>`; None for CPU nodes.
    pub fn drm_render_minor(&self) -> Option<u32> {
        (self.is_gpu() && self.properties.drm_render_minor != 0)
            .then_some(self.properties.drm_render_minor as u32)
    }

    /// The GPU's unique id (from its serial/fuse data; 0 if unknown).
    pub fn unique_id(&self) -> u64 {
        self.properties.unique_id
    }

    /// max_waves_per_simd * simd_per_cu, saturating at u32::MAX.
    pub fn max_waves_per_cu(&self) -> u32 {
        let waves = self
            .properties
            .max_waves_per_simd
            .saturating_mul(self.properties.simd_per_cu);
        u32::try_from(waves).unwrap_or(u32::MAX)
    }

    /// HSA_CAPABILITY bits 13:12. ROCr needs 2 (64-bit AQL doorbells,
    /// gfx9+) to use the write pointer semantics of AQL queues.
    pub fn doorbell_type(&self) -> u32 {
        ((self.properties.capability >> 12) & 0x3) as u32
    }

    /// Number of XCCs (compute dies) the node spans; 1 where the kernel
    /// does not publish num_xcc.
    pub fn num_xcc(&self) -> u32 {
        u32::try_from(self.properties.num_xcc.max(1)).unwrap_or(u32::MAX)
    }

    /// PCI address of a GPU node (location_id: bus 15:8, device 7:3,
    /// function 2:0); None for CPU nodes.
    pub fn pci_bdf(&self) -> Option<PciBdf> {
        if !self.is_gpu() {
            return None;
        }
        let loc = self.properties.location_id;
        Some(PciBdf {
            domain: self.properties.domain as u32,
            bus: ((loc >> 8) & 0xff) as u8,
            device: ((loc >> 3) & 0x1f) as u8,
            function: (loc & 0x7) as u8,
        })
    }
}

impl Topology {
    pub fn gpu_nodes(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().filter(|n| n.is_gpu())
    }

    pub fn cpu_nodes(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().filter(|n| !n.is_gpu())
    }

    /// The GPU node whose `gpu_id` file holds `gpu_id` (0 never matches).
    pub fn node_by_gpu_id(&self, gpu_id: u32) -> Option<&Node> {
        if gpu_id == 0 {
            return None;
        }
        self.nodes.iter().find(|n| n.gpu_id == gpu_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx_names_decode() {
        let cases = [
            (110000, "gfx1100"),
            (90402, "gfx942"),
            (90010, "gfx90a"),
            (110501, "gfx1151"),
            (90500, "gfx950"),
            (100300, "gfx1030"),
        ];
        for (version, name) in cases {
            let v = GfxVersion::from_target_version(version).unwrap();
            assert_eq!(v.name(), name);
            assert_eq!(v.target_version(), version);
            assert_eq!(GfxVersion::from_name(name), Some(v));
        }
        assert_eq!(GfxVersion::from_target_version(0), None);
        assert_eq!(GfxVersion::from_target_version(91600), None);
        assert_eq!(GfxVersion::from_name("gfx"), None);
        assert_eq!(GfxVersion::from_name("gfx9zz"), None);
        assert_eq!(GfxVersion::from_name("sm_90"), None);
    }

    #[test]
    fn known_keys_all_map_to_fields() {
        let mut p = NodeProperties::default();
        for (i, key) in KNOWN_KEYS.iter().enumerate() {
            *p.field_mut(key).unwrap() = i as u64 + 1;
        }
        let values = p.known_values(true);
        assert_eq!(values.len(), KNOWN_KEYS.len());
        for (i, (key, value)) in values.iter().enumerate() {
            assert_eq!((*key, *value), (KNOWN_KEYS[i], i as u64 + 1));
        }
        // (Two keys aliasing one field would read back the later value.)
        assert_eq!(KNOWN_KEYS[KEYS_FOR_ALL_NODES - 1], "num_cp_queues");
    }
}
