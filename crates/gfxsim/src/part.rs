//! The GPU parts gfxsim simulates ([`SimPart`]): each part's amdkfd sysfs
//! node properties, and how `AQUEDUCT_SIM_PART` / `AQUEDUCT_SIM_ISA` pick one.
//!
//! Sources of the values:
//! - amdkfd fills a GPU node in Linux `drivers/gpu/drm/amd/amdkfd/kfd_topology.c`
//!   (`kfd_topology_add_device`: simd_count = CUs x simd_per_cu, array_count =
//!   shader engines x arrays per engine, cu_per_simd_array = `max_cu_per_sh`,
//!   num_xcc = the XCCs of the partition; `kfd_topology_set_capabilities`:
//!   the capability bits) and `kfd_crat.c` (`kfd_fill_gpu_cache_info`,
//!   `kfd_fill_gpu_memory_affinity`: the caches and the VRAM bank).
//! - MI300X: the node ROCm's rocprofiler-sdk keeps as a captured KFD
//!   topology (`projects/rocprofiler-sdk/source/lib/rocprofiler-sdk/tests/data/topology/nodes/4/`
//!   of ROCm/rocm-systems: simd_count 1216, array_count 32, cu_per_simd_array 10,
//!   num_xcc 8, max_waves_per_simd 8, capability 2893521536, device_id 29857,
//!   a 206141652992-byte bank (192 GiB less 16 MiB) of width 8192, cwsr_size
//!   23203840 and ctl_stack_size 12288, fw_version 192, sdma_fw_version 25),
//!   and AMD's MI300X data sheet (304 CUs, 8 XCDs, 192 GB HBM3, 2100 MHz peak
//!   engine clock, 256 MB Infinity Cache).
//! - MI210 and the MI250X GCD: rocminfo of an MI210 in ROCm issue
//!   ROCm/legacy-rocm-build#2595 (104 CUs, 4 SIMDs per CU, 8 shader engines of 1 array,
//!   chip id 0x740f, 1700 MHz, 32 waves per CU, L1 16 KB, L2 8192 KB), AMD's
//!   MI210 and MI250X data sheets (104 and 220 CUs, the MI250X as 2 GCDs of
//!   110; 64 GB HBM2e per GCD on a 4096-bit bus at 1.6 GHz), and the PCI
//!   ids amdgpu binds as CHIP_ALDEBARAN (`amdgpu_drv.c`; pci.ids names
//!   0x740c MI250X/MI250 and 0x740f MI210); fw_version 96 and
//!   sdma_fw_version 9 are the "Packet Processor uCode" and "SDMA engine
//!   uCode" rocminfo prints for an MI210 in ROCm/device-metrics-exporter#135.
//!   Cache line sizes are those of amdkfd's tables (`kfd_crat.c`: 64-byte
//!   L1 lines, 128-byte L2 lines on CDNA2/3). Two gfx90a values rest on no
//!   public sysfs dump: `cu_per_simd_array` 16 is the gfx90a geometry of 8
//!   engines x 16 CU slots, and the capability word is
//!   what `kfd_topology_set_capabilities` sets for GC 9.4.2 with RAS (the
//!   same bits as the MI300X capture: debug precise-memory support from
//!   9.4.2 on, SRAM and HBM EDC, per-queue reset, ASIC revision 1).

use std::str::FromStr;

use aqueduct_isa::Isa;
use aqueduct_isa::gfx9::Target;

/// Environment variable naming the simulated part (`rx7900xtx`, `mi300x`,
/// `mi210`, `mi250x`).
pub const PART_ENV: &str = "AQUEDUCT_SIM_PART";
/// Environment variable naming the simulated ISA (`gfx1100`, `gfx942`,
/// `gfx90a`): the part of that ISA unless `AQUEDUCT_SIM_PART` names one.
pub const ISA_ENV: &str = "AQUEDUCT_SIM_ISA";

/// A simulated GPU part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SimPart {
    /// RX 7900 XTX: gfx1100, 96 CUs, wave32.
    #[default]
    Rx7900Xtx,
    /// Instinct MI300X: gfx942, 304 CUs in 8 XCCs, wave64.
    Mi300x,
    /// Instinct MI210: gfx90a, 104 CUs, wave64.
    Mi210,
    /// One GCD of an Instinct MI250X (each GCD is its own KFD node): gfx90a,
    /// 110 CUs, wave64.
    Mi250xGcd,
}

/// One cache level as amdkfd publishes it (`kfd_crat.c`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheLevel {
    pub level: u64,
    pub size_kb: u64,
    pub line_size: u64,
}

/// The sysfs node properties that differ between parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartProperties {
    pub gfx_target_version: u64,
    pub simd_count: u64,
    pub simd_per_cu: u64,
    pub array_count: u64,
    pub simd_arrays_per_engine: u64,
    pub cu_per_simd_array: u64,
    pub num_xcc: u64,
    pub max_waves_per_simd: u64,
    pub lds_size_in_kb: u64,
    pub wave_front_size: u64,
    pub device_id: u64,
    pub capability: u64,
    pub max_engine_clk_fcompute: u64,
    pub num_cp_queues: u64,
    pub num_sdma_engines: u64,
    pub num_sdma_xgmi_engines: u64,
    pub num_sdma_queues_per_engine: u64,
    pub fw_version: u64,
    pub sdma_fw_version: u64,
    /// The VRAM bank's bus width (bits) and top memory clock (MHz).
    pub memory_width: u64,
    pub memory_clock: u64,
    /// The part's memory: the most VRAM the default configuration reports.
    pub hbm_size: u64,
}

impl SimPart {
    pub const ALL: [SimPart; 4] = [
        SimPart::Rx7900Xtx,
        SimPart::Mi300x,
        SimPart::Mi210,
        SimPart::Mi250xGcd,
    ];

    /// The name `AQUEDUCT_SIM_PART` spells.
    pub fn env_name(self) -> &'static str {
        match self {
            SimPart::Rx7900Xtx => "rx7900xtx",
            SimPart::Mi300x => "mi300x",
            SimPart::Mi210 => "mi210",
            SimPart::Mi250xGcd => "mi250x",
        }
    }

    /// The marketing name.
    pub fn product_name(self) -> &'static str {
        match self {
            SimPart::Rx7900Xtx => "Radeon RX 7900 XTX",
            SimPart::Mi300x => "Instinct MI300X",
            SimPart::Mi210 => "Instinct MI210",
            SimPart::Mi250xGcd => "Instinct MI250X (one GCD)",
        }
    }

    /// The node's `name` file: amdkfd copies amdgpu's ASIC name in lower
    /// case (`kfd_topology.c`, from `amdgpu_asic_name`), "ip discovery" for
    /// the parts amdgpu enumerates by IP discovery (gfx1100, gfx942).
    pub fn kfd_node_name(self) -> &'static str {
        match self {
            SimPart::Rx7900Xtx | SimPart::Mi300x => "ip discovery",
            SimPart::Mi210 | SimPart::Mi250xGcd => "aldebaran",
        }
    }

    /// The ISA's processor name (`gfx1100`, `gfx942`, `gfx90a`).
    pub fn isa(self) -> &'static str {
        match self {
            SimPart::Rx7900Xtx => "gfx1100",
            SimPart::Mi300x => "gfx942",
            SimPart::Mi210 | SimPart::Mi250xGcd => "gfx90a",
        }
    }

    /// The part `AQUEDUCT_SIM_ISA=<isa>` picks.
    pub fn for_isa(isa: &str) -> Option<SimPart> {
        match isa {
            "gfx1100" => Some(SimPart::Rx7900Xtx),
            "gfx942" => Some(SimPart::Mi300x),
            "gfx90a" => Some(SimPart::Mi210),
            _ => None,
        }
    }

    /// The instruction set the executor runs for this part.
    pub fn isa_kind(self) -> Isa {
        match self {
            SimPart::Rx7900Xtx => Isa::Gfx11,
            SimPart::Mi300x => Isa::Gfx9(Target::Gfx942),
            SimPart::Mi210 | SimPart::Mi250xGcd => Isa::Gfx9(Target::Gfx90a),
        }
    }

    /// Compute units of the node (simd_count / simd_per_cu).
    pub const fn compute_units(self) -> u64 {
        let p = self.properties();
        p.simd_count / p.simd_per_cu
    }

    pub const fn properties(self) -> PartProperties {
        match self {
            // The RX 7900 XTX's amdkfd node: 96 CUs of 2 SIMDs in 12 shader
            // arrays (6 engines of 2), wave32, doorbell type 2.
            SimPart::Rx7900Xtx => PartProperties {
                gfx_target_version: 110000,
                simd_count: 192,
                simd_per_cu: 2,
                array_count: 12,
                simd_arrays_per_engine: 2,
                cu_per_simd_array: 8,
                num_xcc: 1,
                max_waves_per_simd: 16,
                lds_size_in_kb: 64,
                wave_front_size: 32,
                device_id: 29772,
                capability: 671588992,
                max_engine_clk_fcompute: 2526,
                num_cp_queues: 8,
                num_sdma_engines: 2,
                num_sdma_xgmi_engines: 0,
                num_sdma_queues_per_engine: 6,
                fw_version: 2140,
                sdma_fw_version: 21,
                memory_width: 384,
                memory_clock: 1250,
                hbm_size: 24 << 30,
            },
            // The rocprofiler-sdk capture (module comment), field for field.
            SimPart::Mi300x => PartProperties {
                gfx_target_version: 90402,
                simd_count: 1216,
                simd_per_cu: 4,
                array_count: 32,
                simd_arrays_per_engine: 1,
                cu_per_simd_array: 10,
                num_xcc: 8,
                max_waves_per_simd: 8,
                lds_size_in_kb: 64,
                wave_front_size: 64,
                device_id: 29857,
                capability: 2893521536,
                max_engine_clk_fcompute: 2100,
                num_cp_queues: 24,
                num_sdma_engines: 2,
                num_sdma_xgmi_engines: 14,
                num_sdma_queues_per_engine: 8,
                fw_version: 192,
                sdma_fw_version: 25,
                memory_width: 8192,
                memory_clock: 1300,
                hbm_size: 192 << 30,
            },
            SimPart::Mi210 => gfx90a_properties(104, 0x740f),
            SimPart::Mi250xGcd => gfx90a_properties(110, 0x740c),
        }
    }

    /// The caches the node lists (L1 per CU, L2, and the Infinity Cache
    /// where the part has one), sizes in KiB as rocminfo prints them.
    pub fn caches(self) -> &'static [CacheLevel] {
        const fn cache(level: u64, size_kb: u64, line_size: u64) -> CacheLevel {
            CacheLevel {
                level,
                size_kb,
                line_size,
            }
        }
        // L1 per CU, L2, and the 96 MiB Infinity Cache (L3).
        const RDNA3: [CacheLevel; 3] =
            [cache(1, 16, 128), cache(2, 6144, 128), cache(3, 98304, 64)];
        // rocminfo of the MI300X in ROCm/legacy-rocm-build#4414: L1 32 KB,
        // L2 4096 KB (per XCC), 256 MB Infinity Cache.
        const MI300X: [CacheLevel; 3] =
            [cache(1, 32, 64), cache(2, 4096, 128), cache(3, 262144, 64)];
        // rocminfo of the MI210 (module comment): L1 16 KB, L2 8192 KB.
        const GFX90A: [CacheLevel; 2] = [cache(1, 16, 64), cache(2, 8192, 128)];
        match self {
            SimPart::Rx7900Xtx => &RDNA3,
            SimPart::Mi300x => &MI300X,
            SimPart::Mi210 | SimPart::Mi250xGcd => &GFX90A,
        }
    }

    /// The part `AQUEDUCT_SIM_PART` and `AQUEDUCT_SIM_ISA` select (the
    /// RX 7900 XTX when neither is set).
    pub fn from_env() -> Result<SimPart, SimPartError> {
        let part = std::env::var(PART_ENV).ok();
        let isa = std::env::var(ISA_ENV).ok();
        Self::select(part.as_deref(), isa.as_deref())
    }

    /// The part a `AQUEDUCT_SIM_PART` value and a `AQUEDUCT_SIM_ISA` value
    /// select: the part if named, else the ISA's part, else the RX 7900
    /// XTX. Both set must agree on the ISA. Empty values count as unset.
    pub fn select(part: Option<&str>, isa: Option<&str>) -> Result<SimPart, SimPartError> {
        let part = part
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::parse::<SimPart>)
            .transpose()?;
        let isa = match isa.map(str::trim).filter(|s| !s.is_empty()) {
            Some(text) => Some(SimPart::for_isa(&text.to_ascii_lowercase()).ok_or_else(|| {
                SimPartError::UnknownIsa {
                    value: text.to_string(),
                }
            })?),
            None => None,
        };
        match (part, isa) {
            (Some(part), Some(by_isa)) if part.isa() != by_isa.isa() => {
                Err(SimPartError::Conflict {
                    part: part.env_name(),
                    part_isa: part.isa(),
                    isa: by_isa.isa(),
                })
            }
            (Some(part), _) => Ok(part),
            (None, Some(by_isa)) => Ok(by_isa),
            (None, None) => Ok(SimPart::default()),
        }
    }
}

/// The gfx90a node (MI210, one MI250X GCD): 8 shader engines of one array
/// of 16 CU slots, 4 SIMDs per CU, 8 waves per SIMD, wave64, 64 KiB LDS,
/// 5 SDMA engines (2 PCIe + 3 xGMI), 64 GiB HBM2e on a 4096-bit bus at
/// 1.6 GHz. Sources in the module comment.
const fn gfx90a_properties(compute_units: u64, device_id: u64) -> PartProperties {
    PartProperties {
        gfx_target_version: 90010,
        simd_count: compute_units * 4,
        simd_per_cu: 4,
        array_count: 8,
        simd_arrays_per_engine: 1,
        cu_per_simd_array: 16,
        num_xcc: 1,
        max_waves_per_simd: 8,
        lds_size_in_kb: 64,
        wave_front_size: 64,
        device_id,
        capability: 2893521536,
        max_engine_clk_fcompute: 1700,
        num_cp_queues: 24,
        num_sdma_engines: 2,
        num_sdma_xgmi_engines: 3,
        num_sdma_queues_per_engine: 8,
        fw_version: 96,
        sdma_fw_version: 9,
        memory_width: 4096,
        memory_clock: 1600,
        hbm_size: 64 << 30,
    }
}

impl FromStr for SimPart {
    type Err = SimPartError;

    /// A part as `AQUEDUCT_SIM_PART` spells it (case-insensitive).
    fn from_str(text: &str) -> Result<SimPart, SimPartError> {
        let lower = text.trim().to_ascii_lowercase();
        SimPart::ALL
            .into_iter()
            .find(|p| p.env_name() == lower)
            .ok_or_else(|| SimPartError::UnknownPart {
                value: text.to_string(),
            })
    }
}

impl std::fmt::Display for SimPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.product_name(), self.isa())
    }
}

/// Why `AQUEDUCT_SIM_PART` / `AQUEDUCT_SIM_ISA` select no part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimPartError {
    #[error("{PART_ENV}={value:?} names no simulated part (rx7900xtx, mi300x, mi210, mi250x)")]
    UnknownPart { value: String },
    #[error("{ISA_ENV}={value:?} names no simulated ISA (gfx1100, gfx942, gfx90a)")]
    UnknownIsa { value: String },
    #[error("{PART_ENV}={part} is a {part_isa} part, but {ISA_ENV}={isa}")]
    Conflict {
        part: &'static str,
        part_isa: &'static str,
        isa: &'static str,
    },
}
