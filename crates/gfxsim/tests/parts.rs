//! The simulated parts (`SimPart`): each publishes its amdkfd node as the
//! runtime's topology parser reads it, the values checked against their
//! public sources (named in `crates/gfxsim/src/part.rs`), and
//! `AQUEDUCT_SIM_PART` / `AQUEDUCT_SIM_ISA` select the part of devices built
//! from the default configuration.

use aqueduct_gfxsim::{ISA_ENV, PART_ENV, SimConfig, SimDevice, SimPart, SimPartError};
use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::topology::{Node, Topology};

/// The values a part's GPU node must show, written out from the sources
/// rather than from `SimPart::properties` so that a wrong table fails.
struct Expected {
    part: SimPart,
    gfx: &'static str,
    target_version: u64,
    compute_units: u32,
    simd_per_cu: u64,
    shader_engines: u64,
    arrays_per_engine: u64,
    cu_per_array: u64,
    xccs: u32,
    wave: u32,
    waves_per_cu: u32,
    lds: u64,
    device_id: u64,
    capability: u64,
    clock: u64,
    memory_width: u64,
    /// amdkfd's node name: amdgpu's ASIC name in lower case.
    node_name: &'static str,
}

const EXPECTED: [Expected; 4] = [
    // The default part: the amdkfd node of an RX 7900 XTX.
    Expected {
        part: SimPart::Rx7900Xtx,
        gfx: "gfx1100",
        target_version: 110000,
        compute_units: 96,
        simd_per_cu: 2,
        shader_engines: 6,
        arrays_per_engine: 2,
        cu_per_array: 8,
        xccs: 1,
        wave: 32,
        waves_per_cu: 32,
        lds: 64 << 10,
        device_id: 0x744c,
        capability: 671588992,
        clock: 2526,
        memory_width: 384,
        node_name: "ip discovery",
    },
    // rocprofiler-sdk's captured MI300X node; AMD: 304 CUs, 8 XCDs.
    Expected {
        part: SimPart::Mi300x,
        gfx: "gfx942",
        target_version: 90402,
        compute_units: 304,
        simd_per_cu: 4,
        shader_engines: 32,
        arrays_per_engine: 1,
        cu_per_array: 10,
        xccs: 8,
        wave: 64,
        waves_per_cu: 32,
        lds: 64 << 10,
        device_id: 0x74a1,
        capability: 0xac77_a280,
        clock: 2100,
        memory_width: 8192,
        node_name: "ip discovery",
    },
    // rocminfo of an MI210: 104 CUs, 8 engines of 1 array, chip 0x740f.
    Expected {
        part: SimPart::Mi210,
        gfx: "gfx90a",
        target_version: 90010,
        compute_units: 104,
        simd_per_cu: 4,
        shader_engines: 8,
        arrays_per_engine: 1,
        cu_per_array: 16,
        xccs: 1,
        wave: 64,
        waves_per_cu: 32,
        lds: 64 << 10,
        device_id: 0x740f,
        capability: 0xac77_a280,
        clock: 1700,
        memory_width: 4096,
        node_name: "aldebaran",
    },
    // AMD: an MI250X is two GCDs of 110 CUs; chip 0x740c.
    Expected {
        part: SimPart::Mi250xGcd,
        gfx: "gfx90a",
        target_version: 90010,
        compute_units: 110,
        simd_per_cu: 4,
        shader_engines: 8,
        arrays_per_engine: 1,
        cu_per_array: 16,
        xccs: 1,
        wave: 64,
        waves_per_cu: 32,
        lds: 64 << 10,
        device_id: 0x740c,
        capability: 0xac77_a280,
        clock: 1700,
        memory_width: 4096,
        node_name: "aldebaran",
    },
];

fn topology_of(part: SimPart, gpus: usize) -> Topology {
    let dev = SimDevice::new(SimConfig {
        part,
        gpus,
        threads: 1,
        vram_size: 1 << 30,
        ..SimConfig::default()
    })
    .expect("SimDevice::new");
    dev.topology().expect("topology")
}

fn check_node(node: &Node, e: &Expected) {
    let p = &node.properties;
    let what = format!("{:?}", e.part);
    assert_eq!(p.gfx_target_version, e.target_version, "{what}");
    assert_eq!(node.gfx_version().unwrap().name(), e.gfx, "{what}");
    assert_eq!(node.compute_unit_count(), e.compute_units, "{what}");
    assert_eq!(p.simd_per_cu, e.simd_per_cu, "{what}");
    assert_eq!(
        p.array_count / p.simd_arrays_per_engine,
        e.shader_engines,
        "{what}"
    );
    assert_eq!(p.simd_arrays_per_engine, e.arrays_per_engine, "{what}");
    assert_eq!(p.cu_per_simd_array, e.cu_per_array, "{what}");
    // The physical CU slots hold the active CUs.
    assert!(
        p.array_count * p.cu_per_simd_array >= u64::from(e.compute_units),
        "{what}"
    );
    assert_eq!(node.num_xcc(), e.xccs, "{what}");
    assert_eq!(node.wave_front_size(), e.wave, "{what}");
    assert_eq!(node.max_waves_per_cu(), e.waves_per_cu, "{what}");
    assert_eq!(node.lds_size_bytes(), e.lds, "{what}");
    assert_eq!(p.device_id, e.device_id, "{what}");
    assert_eq!(p.vendor_id, 0x1002, "{what}");
    assert_eq!(p.capability, e.capability, "{what}");
    // Every part has 64-bit AQL doorbells (what ROCr requires).
    assert_eq!(node.doorbell_type(), 2, "{what}");
    assert_eq!(p.max_engine_clk_fcompute, e.clock, "{what}");
    assert_eq!(node.mem_banks.len(), 1, "{what}");
    assert_eq!(node.mem_banks[0].width, e.memory_width, "{what}");
    assert_eq!(node.mem_banks[0].size_in_bytes, 1 << 30, "{what}");
    assert_eq!(node.caches.len() as u64, p.caches_count, "{what}");
    assert_eq!(node.name.trim(), e.node_name, "{what}");
}

#[test]
fn each_part_publishes_its_amdkfd_node() {
    for e in &EXPECTED {
        let topology = topology_of(e.part, 2);
        let gpus: Vec<&Node> = topology.gpu_nodes().collect();
        assert_eq!(gpus.len(), 2);
        for node in gpus {
            check_node(node, e);
        }
        assert_eq!(e.part.isa(), e.gfx);
        assert_eq!(e.part.compute_units(), u64::from(e.compute_units));
    }
}

#[test]
fn mi300x_context_save_sizes_match_the_captured_node() {
    // The captured node publishes cwsr_size 23203840 and ctl_stack_size
    // 12288 (per XCC); the runtime computes them from the other properties
    // as amdkfd's kfd_queue.c does, so they agree only if those are right.
    let topology = topology_of(SimPart::Mi300x, 1);
    let node = topology.gpu_nodes().next().unwrap();
    let cwsr = node.cwsr_sizes().expect("gfx942 has CWSR sizes");
    assert_eq!(cwsr.num_xcc, 8);
    assert_eq!(cwsr.ctl_stack_size, 12288);
    assert_eq!(cwsr.cwsr_size, 23203840);
}

#[test]
fn mi300x_caches_are_rocminfos() {
    let topology = topology_of(SimPart::Mi300x, 1);
    let node = topology.gpu_nodes().next().unwrap();
    let sizes: Vec<(u64, u64)> = node.caches.iter().map(|c| (c.level, c.size_kb)).collect();
    assert_eq!(sizes, [(1, 32), (2, 4096), (3, 262144)]);
}

#[test]
fn selection_spellings() {
    use SimPart::*;
    assert_eq!(SimPart::select(None, None), Ok(Rx7900Xtx));
    assert_eq!(SimPart::select(Some(""), Some(" ")), Ok(Rx7900Xtx));
    assert_eq!(SimPart::select(None, Some("gfx942")), Ok(Mi300x));
    assert_eq!(SimPart::select(None, Some("GFX90A")), Ok(Mi210));
    assert_eq!(SimPart::select(None, Some("gfx1100")), Ok(Rx7900Xtx));
    assert_eq!(SimPart::select(Some("MI250X"), None), Ok(Mi250xGcd));
    assert_eq!(
        SimPart::select(Some("mi250x"), Some("gfx90a")),
        Ok(Mi250xGcd)
    );
    assert_eq!(SimPart::select(Some("rx7900xtx"), None), Ok(Rx7900Xtx));
    assert_eq!(
        SimPart::select(Some("mi300a"), None),
        Err(SimPartError::UnknownPart {
            value: "mi300a".into()
        })
    );
    assert_eq!(
        SimPart::select(None, Some("gfx908")),
        Err(SimPartError::UnknownIsa {
            value: "gfx908".into()
        })
    );
    let conflict = SimPart::select(Some("mi300x"), Some("gfx90a")).unwrap_err();
    assert_eq!(
        conflict,
        SimPartError::Conflict {
            part: "mi300x",
            part_isa: "gfx942",
            isa: "gfx90a"
        }
    );
    assert_eq!(
        conflict.to_string(),
        "AQUEDUCT_SIM_PART=mi300x is a gfx942 part, but AQUEDUCT_SIM_ISA=gfx90a"
    );
    for part in SimPart::ALL {
        assert_eq!(part.env_name().parse::<SimPart>(), Ok(part));
    }
}

#[test]
fn the_environment_selects_the_part_of_default_devices() {
    let set = |part: Option<&str>, isa: Option<&str>| {
        for (name, value) in [(PART_ENV, part), (ISA_ENV, isa)] {
            match value {
                // SAFETY: this binary's tests read the environment only through std, which serialises access.
                Some(v) => unsafe { std::env::set_var(name, v) },
                // SAFETY: as above.
                None => unsafe { std::env::remove_var(name) },
            }
        }
    };
    set(None, Some("gfx942"));
    let config = SimConfig::default();
    assert_eq!(config.part, SimPart::Mi300x);
    let dev = SimDevice::new(SimConfig {
        threads: 1,
        vram_size: 1 << 30,
        ..config
    })
    .unwrap();
    let topology = dev.topology().unwrap();
    let node = topology.gpu_nodes().next().unwrap();
    assert_eq!(node.gfx_version().unwrap().name(), "gfx942");
    assert_eq!(node.compute_unit_count(), 304);

    set(Some("mi250x"), None);
    assert_eq!(SimConfig::default().part, SimPart::Mi250xGcd);
    set(None, Some("gfx90a"));
    assert_eq!(SimConfig::default().part, SimPart::Mi210);
    // A value that selects nothing is a typed error; the default
    // configuration then keeps the RX 7900 XTX.
    set(Some("mi100"), None);
    assert!(matches!(
        SimPart::from_env(),
        Err(SimPartError::UnknownPart { .. })
    ));
    assert_eq!(SimConfig::default().part, SimPart::Rx7900Xtx);
    set(None, None);
    assert_eq!(SimConfig::default().part, SimPart::Rx7900Xtx);
}
