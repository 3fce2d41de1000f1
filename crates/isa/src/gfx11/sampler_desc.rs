//! The gfx11 sampler descriptor (S#, `SQ_IMG_SAMP_WORD0..3`): four dwords
//! naming address modes, filters, the LOD clamp and bias, the depth
//! comparison and the border colour. The facade builds them with
//! [`SamplerDescriptor::encode`]; the interpreter reads them back with
//! [`SamplerDescriptor::decode`], which refuses the settings gfxsim does not
//! model, so both sides agree on one bit layout.
//!
//! Bit layout (Mesa `src/amd/common/sid.h` `S_008F30..S_008F3C_*` with the
//! GFX10+/GFX11 variants that `ac_build_sampler_descriptor` in
//! `ac_descriptors.c` writes; ROCr `src/image/resource_gfx11.h`
//! `SQ_IMG_SAMP_WORD0..3`):
//! - dword 0: CLAMP_X bits 2:0, CLAMP_Y 5:3, CLAMP_Z 8:6, MAX_ANISO_RATIO
//!   11:9, DEPTH_COMPARE_FUNC 14:12, FORCE_UNNORMALIZED 15,
//!   ANISO_THRESHOLD 18:16, MC_COORD_TRUNC 19, FORCE_DEGAMMA 20, ANISO_BIAS
//!   26:21, TRUNC_COORD 27, DISABLE_CUBE_WRAP 28, FILTER_MODE 30:29,
//!   SKIP_DEGAMMA 31.
//! - dword 1: MIN_LOD bits 11:0 and MAX_LOD 23:12 (unsigned 4.8 fixed
//!   point), PERF_MIP 27:24, PERF_Z 31:28.
//! - dword 2: LOD_BIAS bits 13:0 (signed 6.8 fixed point; Mesa clamps it to
//!   -32..31 on GFX10+), LOD_BIAS_SEC 19:14, XY_MAG_FILTER 21:20,
//!   XY_MIN_FILTER 23:22, Z_FILTER 25:24, MIP_FILTER 27:26, ANISO_OVERRIDE
//!   29, BLEND_PRT 30, DERIV_ADJUST_EN 31.
//! - dword 3: BORDER_COLOR_TYPE bits 31:30; the rest holds the border colour
//!   table pointer, read only with the REGISTER type.
//!
//! What gfxsim executes: point and bilinear XY filters without
//! anisotropy, the blend filter mode, Z_FILTER 0 (Mesa never sets it; the XY
//! filters then apply to a 3D image's depth too, as Vulkan's
//! `VkSampler` filters do), the three built-in border colours. The
//! performance hints (PERF_MIP, PERF_Z, ANISO_THRESHOLD, ANISO_BIAS,
//! LOD_BIAS_SEC, ANISO_OVERRIDE, BLEND_PRT, DERIV_ADJUST_EN, SKIP_DEGAMMA)
//! do not change a non-anisotropic result and are kept but not read.

use thiserror::Error;

/// A CLAMP_X/Y/Z value (Mesa `sid.h` `V_008F30_SQ_TEX_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// `SQ_TEX_WRAP` (0): repeat.
    Wrap,
    /// `SQ_TEX_MIRROR` (1): mirrored repeat.
    Mirror,
    /// `SQ_TEX_CLAMP_LAST_TEXEL` (2): clamp to edge.
    ClampLastTexel,
    /// `SQ_TEX_MIRROR_ONCE_LAST_TEXEL` (3).
    MirrorOnceLastTexel,
    /// `SQ_TEX_CLAMP_HALF_BORDER` (4).
    ClampHalfBorder,
    /// `SQ_TEX_MIRROR_ONCE_HALF_BORDER` (5).
    MirrorOnceHalfBorder,
    /// `SQ_TEX_CLAMP_BORDER` (6): clamp to the border colour.
    ClampBorder,
    /// `SQ_TEX_MIRROR_ONCE_BORDER` (7).
    MirrorOnceBorder,
}

impl AddressMode {
    const ALL: [AddressMode; 8] = [
        AddressMode::Wrap,
        AddressMode::Mirror,
        AddressMode::ClampLastTexel,
        AddressMode::MirrorOnceLastTexel,
        AddressMode::ClampHalfBorder,
        AddressMode::MirrorOnceHalfBorder,
        AddressMode::ClampBorder,
        AddressMode::MirrorOnceBorder,
    ];

    /// The field value.
    pub fn field(self) -> u32 {
        Self::ALL.iter().position(|&m| m == self).unwrap_or(0) as u32
    }

    /// The mode of a three-bit field value.
    pub fn from_field(v: u32) -> Self {
        Self::ALL[(v & 7) as usize]
    }
}

/// An XY_MAG_FILTER / XY_MIN_FILTER value (`SQ_TEX_XY_FILTER_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XyFilter {
    /// `POINT` (0): nearest.
    Point,
    /// `BILINEAR` (1).
    Bilinear,
    /// `ANISO_POINT` (2).
    AnisoPoint,
    /// `ANISO_BILINEAR` (3).
    AnisoBilinear,
}

impl XyFilter {
    fn field(self) -> u32 {
        self as u32
    }

    fn from_field(v: u32) -> Self {
        [
            XyFilter::Point,
            XyFilter::Bilinear,
            XyFilter::AnisoPoint,
            XyFilter::AnisoBilinear,
        ][(v & 3) as usize]
    }
}

/// A MIP_FILTER value (`SQ_TEX_MIP_FILTER_*`; 3 is reserved on gfx11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MipFilter {
    /// `NONE` (0): only the base level is read.
    None,
    /// `POINT` (1).
    Point,
    /// `LINEAR` (2).
    Linear,
}

/// A DEPTH_COMPARE_FUNC value (`SQ_TEX_DEPTH_COMPARE_*`): the test is
/// `reference FUNC texel` (Vulkan's `VkCompareOp` order, which Mesa maps to
/// these values one to one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareFunc {
    Never,
    Less,
    Equal,
    LessEqual,
    Greater,
    NotEqual,
    GreaterEqual,
    Always,
}

impl CompareFunc {
    const ALL: [CompareFunc; 8] = [
        CompareFunc::Never,
        CompareFunc::Less,
        CompareFunc::Equal,
        CompareFunc::LessEqual,
        CompareFunc::Greater,
        CompareFunc::NotEqual,
        CompareFunc::GreaterEqual,
        CompareFunc::Always,
    ];

    /// The field value.
    pub fn field(self) -> u32 {
        Self::ALL.iter().position(|&m| m == self).unwrap_or(0) as u32
    }

    /// The function of a three-bit field value.
    pub fn from_field(v: u32) -> Self {
        Self::ALL[(v & 7) as usize]
    }

    /// Does `reference` pass against `texel`?
    pub fn passes(self, reference: f32, texel: f32) -> bool {
        match self {
            CompareFunc::Never => false,
            CompareFunc::Less => reference < texel,
            CompareFunc::Equal => reference == texel,
            CompareFunc::LessEqual => reference <= texel,
            CompareFunc::Greater => reference > texel,
            CompareFunc::NotEqual => reference != texel,
            CompareFunc::GreaterEqual => reference >= texel,
            CompareFunc::Always => true,
        }
    }
}

/// A BORDER_COLOR_TYPE value (`SQ_TEX_BORDER_COLOR_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BorderColor {
    /// `TRANS_BLACK` (0): (0, 0, 0, 0).
    TransparentBlack,
    /// `OPAQUE_BLACK` (1): (0, 0, 0, 1).
    OpaqueBlack,
    /// `OPAQUE_WHITE` (2): (1, 1, 1, 1).
    OpaqueWhite,
    /// `REGISTER` (3): an entry of the border colour table the driver
    /// programs; the pointer is dword 3's low bits.
    Register { ptr: u32 },
}

impl BorderColor {
    /// The colour as four f32 components; None for a table entry.
    pub fn rgba(self) -> Option<[f32; 4]> {
        match self {
            BorderColor::TransparentBlack => Some([0.0; 4]),
            BorderColor::OpaqueBlack => Some([0.0, 0.0, 0.0, 1.0]),
            BorderColor::OpaqueWhite => Some([1.0; 4]),
            BorderColor::Register { .. } => None,
        }
    }
}

/// FILTER_MODE (`SQ_IMG_FILTER_MODE_*`): how the footprint's texels combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FilterMode {
    /// `BLEND` (0): weighted average.
    Blend,
    /// `MIN` (1): component-wise minimum.
    Min,
    /// `MAX` (2): component-wise maximum.
    Max,
}

/// Why an S# cannot be encoded, or is not one gfxsim executes.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum SamplerDescriptorError {
    #[error("sampler MAX_ANISO_RATIO {ratio} (anisotropic filtering) is not modelled")]
    Anisotropic { ratio: u32 },
    #[error("sampler XY filter {filter} (anisotropic) is not modelled")]
    AnisotropicFilter { filter: u32 },
    #[error("sampler Z_FILTER {filter} is not modelled (only 0, the XY filters' rule)")]
    ZFilter { filter: u32 },
    #[error("sampler MIP_FILTER 3 is reserved")]
    ReservedMipFilter,
    #[error("sampler FILTER_MODE {mode} ({what}) is not modelled; only BLEND (0) is")]
    FilterMode { mode: u32, what: &'static str },
    #[error("sampler address mode {mode:?} is not modelled")]
    AddressMode { mode: AddressMode },
    #[error("sampler border colour table (BORDER_COLOR_TYPE REGISTER) is not modelled")]
    BorderColorTable,
    #[error("sampler {what} is set, which is not modelled")]
    Unmodelled { what: &'static str },
    #[error("sampler {what} {value} is outside {min}..={max}")]
    Lod {
        what: &'static str,
        value: f32,
        min: f32,
        max: f32,
    },
}

/// A gfx11 sampler descriptor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerDescriptor {
    /// CLAMP_X, CLAMP_Y, CLAMP_Z.
    pub address: [AddressMode; 3],
    /// XY_MAG_FILTER: used where the LOD is 0 or below.
    pub mag_filter: XyFilter,
    /// XY_MIN_FILTER: used where the LOD is above 0.
    pub min_filter: XyFilter,
    /// MIP_FILTER.
    pub mip_filter: MipFilter,
    /// MIN_LOD, a multiple of 1/256 in 0..=15 + 255/256.
    pub min_lod: f32,
    /// MAX_LOD, as MIN_LOD.
    pub max_lod: f32,
    /// LOD_BIAS, a multiple of 1/256 in -32..=32 - 1/256.
    pub lod_bias: f32,
    /// DEPTH_COMPARE_FUNC, read by the `_c` instructions only.
    pub compare: CompareFunc,
    /// MAX_ANISO_RATIO (0: 1x).
    pub max_aniso_ratio: u32,
    /// FORCE_UNNORMALIZED: coordinates are in texels.
    pub unnormalized: bool,
    /// TRUNC_COORD: point sampling truncates the texel coordinate (floor),
    /// the rule Vulkan and WebGPU give; radv sets it for point samplers.
    pub trunc_coord: bool,
    /// DISABLE_CUBE_WRAP.
    pub disable_cube_wrap: bool,
    /// FILTER_MODE.
    pub filter_mode: FilterMode,
    /// BORDER_COLOR_TYPE (and the table pointer for REGISTER).
    pub border_color: BorderColor,
    /// Dword bits this type does not name (hints and the coordinate and
    /// degamma controls), kept so that decode then encode is the identity.
    pub other_bits: [u32; 4],
}

fn bits(word: u32, lo: u32, width: u32) -> u32 {
    (word >> lo) & ((1u32 << width) - 1)
}

/// Dword bits [`SamplerDescriptor`] names; the rest is `other_bits`.
const NAMED: [u32; 4] = [
    0x1FF | 0x7 << 9 | 0x7 << 12 | 1 << 15 | 1 << 27 | 1 << 28 | 0x3 << 29,
    0xFF_FFFF,
    0x3FFF | 0x3 << 20 | 0x3 << 22 | 0x3 << 26,
    0x3 << 30,
];

/// Largest MIN_LOD/MAX_LOD (4.8 unsigned fixed point).
pub const MAX_LOD: f32 = 4095.0 / 256.0;

impl SamplerDescriptor {
    /// A sampler with the given filters and address modes, comparison
    /// NEVER (read by `_c` instructions only), LOD clamp 0..=MAX_LOD and
    /// transparent black border. Point samplers truncate (TRUNC_COORD), as
    /// radv's do.
    pub fn new(address: [AddressMode; 3], mag: XyFilter, min: XyFilter) -> Self {
        SamplerDescriptor {
            address,
            mag_filter: mag,
            min_filter: min,
            mip_filter: MipFilter::None,
            min_lod: 0.0,
            max_lod: MAX_LOD,
            lod_bias: 0.0,
            compare: CompareFunc::Never,
            max_aniso_ratio: 0,
            unnormalized: false,
            trunc_coord: mag == XyFilter::Point && min == XyFilter::Point,
            disable_cube_wrap: false,
            filter_mode: FilterMode::Blend,
            border_color: BorderColor::TransparentBlack,
            other_bits: [0; 4],
        }
    }

    /// The four dwords of this descriptor.
    pub fn encode(&self) -> Result<[u32; 4], SamplerDescriptorError> {
        let lod = |what, value: f32, min: f32, max: f32| {
            if (min..=max).contains(&value) {
                Ok((value * 256.0).round() as i32)
            } else {
                Err(SamplerDescriptorError::Lod {
                    what,
                    value,
                    min,
                    max,
                })
            }
        };
        let min_lod = lod("MIN_LOD", self.min_lod, 0.0, MAX_LOD)? as u32;
        let max_lod = lod("MAX_LOD", self.max_lod, 0.0, MAX_LOD)? as u32;
        let bias = lod("LOD_BIAS", self.lod_bias, -32.0, 32.0 - 1.0 / 256.0)? as u32 & 0x3FFF;
        if self.max_aniso_ratio > 7 {
            return Err(SamplerDescriptorError::Anisotropic {
                ratio: self.max_aniso_ratio,
            });
        }
        let mip = match self.mip_filter {
            MipFilter::None => 0,
            MipFilter::Point => 1,
            MipFilter::Linear => 2,
        };
        let (border, ptr) = match self.border_color {
            BorderColor::TransparentBlack => (0, 0),
            BorderColor::OpaqueBlack => (1, 0),
            BorderColor::OpaqueWhite => (2, 0),
            BorderColor::Register { ptr } => (3, ptr & !(0x3 << 30)),
        };
        let mut d = [
            self.address[0].field()
                | self.address[1].field() << 3
                | self.address[2].field() << 6
                | self.max_aniso_ratio << 9
                | self.compare.field() << 12
                | (self.unnormalized as u32) << 15
                | (self.trunc_coord as u32) << 27
                | (self.disable_cube_wrap as u32) << 28
                | (self.filter_mode as u32) << 29,
            min_lod | max_lod << 12,
            bias | self.mag_filter.field() << 20 | self.min_filter.field() << 22 | mip << 26,
            border << 30,
        ];
        for (k, w) in d.iter_mut().enumerate() {
            *w |= self.other_bits[k] & !NAMED[k];
        }
        if border == 3 {
            d[3] |= ptr;
        }
        Ok(d)
    }

    /// Every field of `words`, without judging whether gfxsim executes it
    /// (see [`SamplerDescriptor::decode`]).
    pub fn parse(words: &[u32; 4]) -> Result<Self, SamplerDescriptorError> {
        let [w0, w1, w2, w3] = *words;
        let mip_filter = match bits(w2, 26, 2) {
            0 => MipFilter::None,
            1 => MipFilter::Point,
            2 => MipFilter::Linear,
            _ => return Err(SamplerDescriptorError::ReservedMipFilter),
        };
        let filter_mode = match bits(w0, 29, 2) {
            0 => FilterMode::Blend,
            1 => FilterMode::Min,
            2 => FilterMode::Max,
            mode => {
                return Err(SamplerDescriptorError::FilterMode {
                    mode,
                    what: "reserved",
                });
            }
        };
        let border_color = match bits(w3, 30, 2) {
            0 => BorderColor::TransparentBlack,
            1 => BorderColor::OpaqueBlack,
            2 => BorderColor::OpaqueWhite,
            _ => BorderColor::Register {
                ptr: w3 & !(0x3 << 30),
            },
        };
        // LOD_BIAS: 14-bit two's complement, 8 fraction bits.
        let bias = ((bits(w2, 0, 14) << 18) as i32 >> 18) as f32 / 256.0;
        let mut other_bits: [u32; 4] = std::array::from_fn(|k| words[k] & !NAMED[k]);
        if matches!(border_color, BorderColor::Register { .. }) {
            other_bits[3] = 0;
        }
        Ok(SamplerDescriptor {
            address: [
                AddressMode::from_field(bits(w0, 0, 3)),
                AddressMode::from_field(bits(w0, 3, 3)),
                AddressMode::from_field(bits(w0, 6, 3)),
            ],
            mag_filter: XyFilter::from_field(bits(w2, 20, 2)),
            min_filter: XyFilter::from_field(bits(w2, 22, 2)),
            mip_filter,
            min_lod: bits(w1, 0, 12) as f32 / 256.0,
            max_lod: bits(w1, 12, 12) as f32 / 256.0,
            lod_bias: bias,
            compare: CompareFunc::from_field(bits(w0, 12, 3)),
            max_aniso_ratio: bits(w0, 9, 3),
            unnormalized: bits(w0, 15, 1) != 0,
            trunc_coord: bits(w0, 27, 1) != 0,
            disable_cube_wrap: bits(w0, 28, 1) != 0,
            filter_mode,
            border_color,
            other_bits,
        })
    }

    /// The descriptor in `words`, or why gfxsim does not execute it.
    pub fn decode(words: &[u32; 4]) -> Result<Self, SamplerDescriptorError> {
        use SamplerDescriptorError as E;
        let s = Self::parse(words)?;
        if s.max_aniso_ratio != 0 {
            return Err(E::Anisotropic {
                ratio: s.max_aniso_ratio,
            });
        }
        for f in [s.mag_filter, s.min_filter] {
            if matches!(f, XyFilter::AnisoPoint | XyFilter::AnisoBilinear) {
                return Err(E::AnisotropicFilter { filter: f.field() });
            }
        }
        let z = bits(words[2], 24, 2);
        if z != 0 {
            return Err(E::ZFilter { filter: z });
        }
        match s.filter_mode {
            FilterMode::Blend => {}
            FilterMode::Min => {
                return Err(E::FilterMode {
                    mode: 1,
                    what: "min",
                });
            }
            FilterMode::Max => {
                return Err(E::FilterMode {
                    mode: 2,
                    what: "max",
                });
            }
        }
        for &mode in &s.address {
            // The mirror-once and half-border modes have no WebGPU or
            // Vulkan core counterpart to check a model against.
            if !matches!(
                mode,
                AddressMode::Wrap
                    | AddressMode::Mirror
                    | AddressMode::ClampLastTexel
                    | AddressMode::ClampBorder
            ) {
                return Err(E::AddressMode { mode });
            }
        }
        if matches!(s.border_color, BorderColor::Register { .. }) {
            return Err(E::BorderColorTable);
        }
        // Controls that change coordinates or conversion in ways no public
        // document specifies.
        for (bit, what) in [(19, "MC_COORD_TRUNC"), (20, "FORCE_DEGAMMA (sRGB decode)")] {
            if words[0] >> bit & 1 != 0 {
                return Err(E::Unmodelled { what });
            }
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fields placed by hand from the bit table in the module comment.
    #[test]
    fn a_descriptor_places_every_field() {
        let mut s = SamplerDescriptor::new(
            [
                AddressMode::Mirror,
                AddressMode::ClampLastTexel,
                AddressMode::ClampBorder,
            ],
            XyFilter::Bilinear,
            XyFilter::Point,
        );
        s.mip_filter = MipFilter::Linear;
        s.min_lod = 1.5;
        s.max_lod = 4.25;
        s.lod_bias = -2.5;
        s.compare = CompareFunc::GreaterEqual;
        s.unnormalized = true;
        s.border_color = BorderColor::OpaqueWhite;
        let w = s.encode().unwrap();
        // CLAMP 1, 2, 6; DEPTH_COMPARE 6 at 14:12; FORCE_UNNORMALIZED bit 15.
        assert_eq!(w[0], 1 | 2 << 3 | 6 << 6 | 6 << 12 | 1 << 15);
        // MIN_LOD 1.5 * 256 = 384, MAX_LOD 4.25 * 256 = 1088 at 23:12.
        assert_eq!(w[1], 384 | 1088 << 12);
        // LOD_BIAS -640 in 14 bits = 0x3D80; MAG 1 at 21:20, MIN 0, MIP 2 at 27:26.
        assert_eq!(w[2], 0x3D80 | 1 << 20 | 2 << 26);
        assert_eq!(w[3], 2 << 30);
        assert_eq!(SamplerDescriptor::decode(&w), Ok(s));
    }

    #[test]
    fn a_point_sampler_truncates_and_round_trips() {
        let s = SamplerDescriptor::new([AddressMode::Wrap; 3], XyFilter::Point, XyFilter::Point);
        let w = s.encode().unwrap();
        assert_eq!(w, [1 << 27, 4095 << 12, 0, 0]);
        assert_eq!(SamplerDescriptor::decode(&w), Ok(s));
        // The hints decode and encode back unchanged.
        let mut h = w;
        h[1] |= 0xF << 24;
        h[2] |= 1 << 29;
        let back = SamplerDescriptor::decode(&h).unwrap();
        assert_eq!(back.encode(), Ok(h));
    }

    #[test]
    fn unmodelled_samplers_are_refused() {
        use SamplerDescriptorError as E;
        let w = SamplerDescriptor::new(
            [AddressMode::ClampLastTexel; 3],
            XyFilter::Bilinear,
            XyFilter::Bilinear,
        )
        .encode()
        .unwrap();
        let with = |k: usize, v: u32| {
            let mut x = w;
            x[k] |= v;
            SamplerDescriptor::decode(&x)
        };
        assert_eq!(with(0, 2 << 9), Err(E::Anisotropic { ratio: 2 }));
        assert_eq!(with(2, 3 << 22), Err(E::AnisotropicFilter { filter: 3 }));
        assert_eq!(with(2, 1 << 24), Err(E::ZFilter { filter: 1 }));
        assert_eq!(with(2, 3 << 26), Err(E::ReservedMipFilter));
        assert_eq!(
            with(0, 1 << 30),
            Err(E::FilterMode {
                mode: 2,
                what: "max"
            })
        );
        let mut x = w;
        x[0] = x[0] & !(7 << 3) | 5 << 3;
        assert_eq!(
            SamplerDescriptor::decode(&x),
            Err(E::AddressMode {
                mode: AddressMode::MirrorOnceHalfBorder
            })
        );
        assert_eq!(with(3, 3 << 30), Err(E::BorderColorTable));
        assert_eq!(
            with(0, 1 << 20),
            Err(E::Unmodelled {
                what: "FORCE_DEGAMMA (sRGB decode)"
            })
        );
        let mut bad = SamplerDescriptor::decode(&w).unwrap();
        bad.max_lod = 16.0;
        assert!(matches!(bad.encode(), Err(E::Lod { .. })));
    }
}
