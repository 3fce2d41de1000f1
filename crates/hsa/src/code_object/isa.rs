//! ISA names: the gfx processor plus the xnack/sramecc target features, read
//! from a code object's e_flags (code object v4+ encoding) or parsed from a
//! target ID string (`amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`, or just
//! `gfx1100`). Matching follows the target-ID rules: a feature that is `Any`
//! (or not supported by the processor) matches either setting.

use std::fmt;

/// The target triple every HSA code object carries.
pub const HSA_TRIPLE: &str = "amdgcn-amd-amdhsa";

/// The processor field of e_flags.
pub(crate) const EF_AMDGPU_MACH: u32 = 0x0ff;
/// V4+ XNACK setting (2 bits) and SRAMECC setting (2 bits).
const EF_AMDGPU_FEATURE_XNACK: u32 = 0x300;
const EF_AMDGPU_FEATURE_SRAMECC: u32 = 0xc00;

/// e_flags processor values (LLVM `BinaryFormat/ELF.h`, checked against what
/// llvm-mc-19 writes for each -mcpu; gfx950 as named by newer LLVM).
const MACHINES: &[(u32, &str)] = &[
    (0x020, "gfx600"),
    (0x021, "gfx601"),
    (0x022, "gfx700"),
    (0x023, "gfx701"),
    (0x024, "gfx702"),
    (0x025, "gfx703"),
    (0x026, "gfx704"),
    (0x028, "gfx801"),
    (0x029, "gfx802"),
    (0x02a, "gfx803"),
    (0x02b, "gfx810"),
    (0x02c, "gfx900"),
    (0x02d, "gfx902"),
    (0x02e, "gfx904"),
    (0x02f, "gfx906"),
    (0x030, "gfx908"),
    (0x031, "gfx909"),
    (0x032, "gfx90c"),
    (0x033, "gfx1010"),
    (0x034, "gfx1011"),
    (0x035, "gfx1012"),
    (0x036, "gfx1030"),
    (0x037, "gfx1031"),
    (0x038, "gfx1032"),
    (0x039, "gfx1033"),
    (0x03a, "gfx602"),
    (0x03b, "gfx705"),
    (0x03c, "gfx805"),
    (0x03d, "gfx1035"),
    (0x03e, "gfx1034"),
    (0x03f, "gfx90a"),
    (0x040, "gfx940"),
    (0x041, "gfx1100"),
    (0x042, "gfx1013"),
    (0x043, "gfx1150"),
    (0x044, "gfx1103"),
    (0x045, "gfx1036"),
    (0x046, "gfx1101"),
    (0x047, "gfx1102"),
    (0x048, "gfx1200"),
    (0x04a, "gfx1151"),
    (0x04b, "gfx941"),
    (0x04c, "gfx942"),
    (0x04e, "gfx1201"),
    (0x04f, "gfx950"),
    (0x051, "gfx9-generic"),
    (0x052, "gfx10-1-generic"),
    (0x053, "gfx10-3-generic"),
    (0x054, "gfx11-generic"),
    (0x055, "gfx1152"),
    (0x059, "gfx12-generic"),
];

/// The gfx name for an e_flags processor value.
pub fn gfx_name_for_mach(mach: u32) -> Option<&'static str> {
    MACHINES
        .iter()
        .find(|(value, _)| *value == mach)
        .map(|(_, name)| *name)
}

/// The e_flags processor value for a gfx name.
pub fn mach_for_gfx_name(gfx: &str) -> Option<u32> {
    MACHINES
        .iter()
        .find(|(_, name)| *name == gfx)
        .map(|(value, _)| *value)
}

/// A target feature setting (xnack, sramecc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetFeature {
    /// The processor does not have the feature.
    Unsupported,
    /// Code works with the feature on or off.
    Any,
    Off,
    On,
}

impl TargetFeature {
    /// Decode a v4+ 2-bit feature field (0 unsupported, 1 any, 2 off, 3 on).
    fn from_field(field: u32) -> Self {
        match field & 3 {
            0 => Self::Unsupported,
            1 => Self::Any,
            2 => Self::Off,
            _ => Self::On,
        }
    }

    /// Whether code built with `self` can run where the feature is `agent`.
    pub fn compatible_with(self, agent: TargetFeature) -> bool {
        match (self, agent) {
            (Self::Any | Self::Unsupported, _) | (_, Self::Any | Self::Unsupported) => true,
            (code, agent) => code == agent,
        }
    }

    fn suffix(self) -> Option<char> {
        match self {
            Self::On => Some('+'),
            Self::Off => Some('-'),
            Self::Any | Self::Unsupported => None,
        }
    }
}

/// An AMDGPU ISA: processor plus xnack/sramecc settings.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IsaName {
    /// Processor name, for example `gfx1100` or `gfx11-generic`.
    pub gfx: String,
    pub xnack: TargetFeature,
    pub sramecc: TargetFeature,
}

impl IsaName {
    /// A processor with both features `Any` (matches any setting).
    pub fn new(gfx: impl Into<String>) -> Self {
        Self {
            gfx: gfx.into(),
            xnack: TargetFeature::Any,
            sramecc: TargetFeature::Any,
        }
    }

    /// Decode the e_flags of a code object v4+ (v2/v3 used other bits).
    pub fn from_e_flags(e_flags: u32) -> Option<Self> {
        let gfx = gfx_name_for_mach(e_flags & EF_AMDGPU_MACH)?;
        Some(Self {
            gfx: gfx.to_string(),
            xnack: TargetFeature::from_field((e_flags & EF_AMDGPU_FEATURE_XNACK) >> 8),
            sramecc: TargetFeature::from_field((e_flags & EF_AMDGPU_FEATURE_SRAMECC) >> 10),
        })
    }

    /// The target ID, for example `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`;
    /// features appear only when `On` or `Off`, in LLVM's (alphabetical) order.
    pub fn full_name(&self) -> String {
        format!("{HSA_TRIPLE}--{}", self.target_id())
    }

    /// The processor with its feature suffixes, for example `gfx90a:xnack+`.
    pub fn target_id(&self) -> String {
        let mut id = self.gfx.clone();
        for (name, feature) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            if let Some(sign) = feature.suffix() {
                id.push(':');
                id.push_str(name);
                id.push(sign);
            }
        }
        id
    }

    /// Whether code for `self` runs on `agent`: the same processor and
    /// compatible feature settings.
    pub fn compatible_with(&self, agent: &IsaName) -> bool {
        self.gfx == agent.gfx
            && self.xnack.compatible_with(agent.xnack)
            && self.sramecc.compatible_with(agent.sramecc)
    }

    /// A GFX9-family processor (gfx900 to gfx950 and the gfx9 generic
    /// targets): wave64 only, COMPUTE_PGM_RSRC3 as GFX9 defines it.
    pub fn is_gfx9(&self) -> bool {
        self.gfx.starts_with("gfx9")
    }

    /// gfx90a and the gfx94x/gfx950 family: one register file holds the
    /// VGPRs and, from ACCUM_OFFSET on, the AGPRs (LLVM AMDGPUUsage,
    /// "compute_pgm_rsrc3 for GFX90A, GFX942").
    pub fn has_unified_register_file(&self) -> bool {
        matches!(
            self.gfx.as_str(),
            "gfx90a" | "gfx940" | "gfx941" | "gfx942" | "gfx950" | "gfx9-4-generic"
        )
    }

    /// The GFX9 processors whose row of LLVM AMDGPUUsage's processor table
    /// says *Architected flat scratch* (gfx11 and later have it too): the
    /// hardware sets up scratch, and the kernel descriptor must not ask for
    /// the private segment buffer or flat scratch init user SGPRs.
    pub fn is_gfx9_with_architected_flat_scratch(&self) -> bool {
        matches!(
            self.gfx.as_str(),
            "gfx940" | "gfx941" | "gfx942" | "gfx950" | "gfx9-4-generic"
        )
    }

    /// Parse `gfx1100`, `gfx90a:xnack+`, `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`
    /// (or the 3-field triple `amdgcn-amd-amdhsa-gfx906`). Features not named are `Any`.
    pub fn parse(s: &str) -> Option<IsaName> {
        let id = match s.strip_prefix(HSA_TRIPLE) {
            Some(rest) => rest.strip_prefix("--").or_else(|| rest.strip_prefix('-'))?,
            None => s,
        };
        let mut parts = id.split(':');
        let gfx = parts.next()?;
        let valid_gfx = gfx.starts_with("gfx")
            && gfx.len() > 3
            && gfx[3..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !valid_gfx {
            return None;
        }
        let mut isa = IsaName::new(gfx);
        for feature in parts {
            let (name, setting) = match feature.strip_suffix('+') {
                Some(name) => (name, TargetFeature::On),
                None => (feature.strip_suffix('-')?, TargetFeature::Off),
            };
            match name {
                "xnack" => isa.xnack = setting,
                "sramecc" => isa.sramecc = setting,
                _ => return None,
            }
        }
        Some(isa)
    }
}

impl fmt::Display for IsaName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.full_name())
    }
}
