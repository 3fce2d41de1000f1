//! The gfx11 image resource descriptor (T#): its eight dwords, the formats
//! gfxsim executes, and where a texel lives in a linear (`SW_LINEAR`) image.
//! The facade builds descriptors with [`ImageDescriptor::encode`] and lays
//! out texture memory with [`linear_texel_offset`]; the interpreter reads
//! them back with [`ImageDescriptor::decode`] and addresses texels with the
//! same function.
//!
//! Bit layout (ROCr `src/image/resource_gfx11.h`, `SQ_IMG_RSRC_WORD0..7`;
//! Mesa `src/amd/common/sid.h`, `S_00A00x_*` GFX11 fields):
//! - dword 0: BASE_ADDRESS, address bits 39:8.
//! - dword 1: BASE_ADDRESS_HI bits 7:0 (address bits 47:40), LLC_NOALLOC
//!   bits 14:13, BIG_PAGE bit 15, MAX_MIP bits 19:16, FORMAT bits 27:20, WIDTH_LO
//!   bits 31:30 (width - 1, bits 1:0); bits 12:8 and bits 29:28 reserved.
//! - dword 2: WIDTH_HI bits 11:0 (width - 1, bits 13:2), HEIGHT bits 27:14
//!   (height - 1); bits 13:12 and bits 31:28 reserved.
//! - dword 3: DST_SEL_X/Y/Z/W bits 11:0, BASE_LEVEL bits 15:12, LAST_LEVEL
//!   bits 19:16, SW_MODE bits 24:20, BC_SWIZZLE bits 27:25, TYPE bits 31:28.
//! - dword 4: DEPTH bits 12:0 (3D: depth - 1; arrays and cube: the last layer
//!   the view sees), or for 1D and 2D PITCH bits 13:0 (row pitch - 1, in
//!   texels; ROCr `ImageManagerGfx11::PopulateImageSrd`); BASE_ARRAY
//!   bits 28:16; bits 15:14 and bits 31:29 reserved.
//! - dword 5: ARRAY_PITCH, MIN_LOD_LO and sampling controls; dwords 6-7:
//!   MIN_LOD_HI, compression controls (COMPRESSION_ENABLE is dword 6 bit
//!   21) and the metadata address. gfxsim reads only COMPRESSION_ENABLE
//!   there (compressed images are refused).
//!
//! Layout (Mesa/ROCr addrlib `gfx11addrlib.cpp`,
//! `Gfx11Lib::HwlComputeSurfaceInfoLinear`, the same as gfx10's): rows are
//! `row_pitch` texels apart, the pitch being the width aligned to 256 bytes
//! (`256 / elementBytes` texels) unless a 1D or 2D single-level descriptor
//! names its own pitch (a multiple of 256 bytes, Mesa `ac_descriptors.c`
//! asserts so for gfx10.3+). A mip chain (MAX_MIP > 0) is stored within
//! each slice smallest level first: level `MAX_MIP` at the slice's start,
//! then each larger level up to level 0, each level's rows at its own
//! 256-byte-aligned pitch. A level's layout extent is the level-0 extent
//! halved per level rounding up, never below one (`Gfx11Lib::GetMipSize`,
//! `ShiftCeil`), so an odd side's level is padded rather than cut; the
//! texels a level holds are Vulkan's `max(1, extent >> level)`. Slices (3D
//! depth, or array layers) are one whole chain apart: addrlib gives every
//! level of a linear 3D image all the depth slices (`mipDepth` is
//! `numSlices`), and radeonsi addresses a linear texture as "an array of
//! slices, each an array of mip levels" (`si_texture.c`,
//! `si_texture_get_offset`, `surf_slice_size` and `u.gfx9.offset[level]`).
//!
//! That the texture unit follows this placement from one descriptor is what
//! Mesa relies on: for gfx9+ the T# base address is the chain's start
//! whatever the view's first level (`ac_set_mutable_tex_desc_fields` adds
//! no level offset), MAX_MIP holds the resource's level count - 1 and
//! BASE_LEVEL / LAST_LEVEL the view's first and last level
//! (`ac_build_gfx10_texture_descriptor`), while the CPU writes a linear
//! texture's levels at addrlib's offsets (`si_texture_get_offset`; radv's
//! `GetImageSubresourceLayout` reports them for linear images). A custom
//! pitch exists only for single-level surfaces (addrlib applies
//! `ApplyCustomizedPitchHeight` only when `numMipLevels` is 1, and Mesa sets
//! PITCH only with `uses_custom_pitch`), so a chain with a nonzero PITCH
//! field is refused ([`ImageDescriptorError::ChainPitch`]), as is a level
//! range outside the chain ([`ImageDescriptorError::LevelRange`]).

use thiserror::Error;

/// Largest width and height a T# holds (14-bit fields of extent - 1).
pub const MAX_EXTENT: u32 = 1 << 14;
/// Largest 3D depth, and layer index + 1, a T# holds (13-bit fields).
pub const MAX_DEPTH: u32 = 1 << 13;
/// The linear row alignment in bytes (addrlib's `256 / elementBytes` texels).
pub const ROW_ALIGN_BYTES: u32 = 256;
/// Largest MAX_MIP, BASE_LEVEL and LAST_LEVEL (4-bit fields).
pub const MAX_MIP: u32 = 15;

/// The T# TYPE field (dword 3 bits 31:28; Mesa `sid.h` `V_008F1C_SQ_RSRC_IMG_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageDim {
    /// `SQ_RSRC_IMG_1D` (8).
    D1,
    /// `SQ_RSRC_IMG_2D` (9).
    D2,
    /// `SQ_RSRC_IMG_3D` (10).
    D3,
    /// `SQ_RSRC_IMG_CUBE` (11): six 2D faces per cube, addressed as layers.
    Cube,
    /// `SQ_RSRC_IMG_1D_ARRAY` (12).
    D1Array,
    /// `SQ_RSRC_IMG_2D_ARRAY` (13).
    D2Array,
}

impl ImageDim {
    /// The TYPE field value.
    pub fn type_field(self) -> u32 {
        match self {
            ImageDim::D1 => 8,
            ImageDim::D2 => 9,
            ImageDim::D3 => 10,
            ImageDim::Cube => 11,
            ImageDim::D1Array => 12,
            ImageDim::D2Array => 13,
        }
    }

    /// The dimension of TYPE field value `t`; MSAA (14, 15) and buffer
    /// types are not images gfxsim executes.
    pub fn from_type_field(t: u32) -> Option<Self> {
        Some(match t {
            8 => ImageDim::D1,
            9 => ImageDim::D2,
            10 => ImageDim::D3,
            11 => ImageDim::Cube,
            12 => ImageDim::D1Array,
            13 => ImageDim::D2Array,
            _ => return None,
        })
    }

    /// Does the view index layers (DEPTH holds the last layer, BASE_ARRAY
    /// the first)?
    pub fn is_layered(self) -> bool {
        matches!(self, ImageDim::Cube | ImageDim::D1Array | ImageDim::D2Array)
    }

    /// Is DEPTH the row pitch (1D and 2D, ROCr `PopulateImageSrd`)?
    fn pitch_in_depth_field(self) -> bool {
        matches!(self, ImageDim::D1 | ImageDim::D2)
    }
}

/// A DST_SEL value (dword 3, three bits per component; Mesa `sid.h`
/// `V_008F1C_SQ_SEL_*`): what a loaded component returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DstSel {
    /// `SQ_SEL_0` (0).
    Zero,
    /// `SQ_SEL_1` (1): 1.0, or 1 for integer formats.
    One,
    /// `SQ_SEL_X` (4): the texel's first component.
    X,
    /// `SQ_SEL_Y` (5).
    Y,
    /// `SQ_SEL_Z` (6).
    Z,
    /// `SQ_SEL_W` (7).
    W,
}

impl DstSel {
    /// The field value.
    pub fn field(self) -> u32 {
        match self {
            DstSel::Zero => 0,
            DstSel::One => 1,
            DstSel::X => 4,
            DstSel::Y => 5,
            DstSel::Z => 6,
            DstSel::W => 7,
        }
    }

    /// The selector of field value `v` (2 and 3 are reserved).
    pub fn from_field(v: u32) -> Option<Self> {
        Some(match v {
            0 => DstSel::Zero,
            1 => DstSel::One,
            4 => DstSel::X,
            5 => DstSel::Y,
            6 => DstSel::Z,
            7 => DstSel::W,
            _ => return None,
        })
    }

    /// The texel component this selects, if any.
    pub fn component(self) -> Option<usize> {
        match self {
            DstSel::X => Some(0),
            DstSel::Y => Some(1),
            DstSel::Z => Some(2),
            DstSel::W => Some(3),
            DstSel::Zero | DstSel::One => None,
        }
    }
}

/// How a component's bits become a register value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumericType {
    /// `x / (2^n - 1)` as f32.
    Unorm,
    /// `max(x / (2^(n-1) - 1), -1)` as f32.
    Snorm,
    /// Zero-extended integer.
    Uint,
    /// Sign-extended integer.
    Sint,
    /// IEEE f32, f16, or the unsigned 11/10-bit floats.
    Float,
}

/// Declares [`ImageFormat`] and [`IMAGE_FORMATS`] from one list, so the
/// list of every format cannot drift from the enum.
macro_rules! image_formats {
    ($(#[$meta:meta])* $($name:ident),* $(,)?) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ImageFormat {
            $($name,)*
        }

        /// Every [`ImageFormat`], in declaration order.
        pub const IMAGE_FORMATS: &[ImageFormat] = &[$(ImageFormat::$name,)*];
    };
}

image_formats!(
    /// The formats gfxsim executes: every WGSL storage-texture format and the
    /// common sampled ones. Each is a gfx11 unified FORMAT value (dword 1
    /// bits 27:20; LLVM `AMDGPUBaseInfo.cpp` gfx11 unified format table, the same
    /// codes as MTBUF's `BUF_FMT_*`), and [`ImageFormat::Bgra8Unorm`] is
    /// `8_8_8_8_UNORM` read through DST_SEL Z, Y, X, W (Mesa's BGRA swizzle).
    /// The sRGB formats are `8_8_8_8_SRGB` (66: ROCr
    /// `src/image/resource_gfx11.h`, `CFMT_8_8_8_8_SRGB`; an image-only
    /// format, no buffer format has that code), RGBA and BGRA as above.
    R8Unorm,
    R8Snorm,
    R8Uint,
    R8Sint,
    R16Unorm,
    R16Snorm,
    R16Uint,
    R16Sint,
    R16Float,
    Rg8Unorm,
    Rg8Snorm,
    Rg8Uint,
    Rg8Sint,
    R32Uint,
    R32Sint,
    R32Float,
    Rg16Unorm,
    Rg16Snorm,
    Rg16Uint,
    Rg16Sint,
    Rg16Float,
    Rg11b10Ufloat,
    Rgb10a2Unorm,
    Rgb10a2Uint,
    Rgba8Unorm,
    Rgba8Snorm,
    Rgba8Uint,
    Rgba8Sint,
    Bgra8Unorm,
    Rgba8UnormSrgb,
    Bgra8UnormSrgb,
    Rg32Uint,
    Rg32Sint,
    Rg32Float,
    Rgba16Unorm,
    Rgba16Snorm,
    Rgba16Uint,
    Rgba16Sint,
    Rgba16Float,
    Rgba32Uint,
    Rgba32Sint,
    Rgba32Float,
);

impl ImageFormat {
    /// The gfx11 unified FORMAT value.
    pub fn format_field(self) -> u32 {
        use ImageFormat::*;
        match self {
            R8Unorm => 1,
            R8Snorm => 2,
            R8Uint => 5,
            R8Sint => 6,
            R16Unorm => 7,
            R16Snorm => 8,
            R16Uint => 11,
            R16Sint => 12,
            R16Float => 13,
            Rg8Unorm => 14,
            Rg8Snorm => 15,
            Rg8Uint => 18,
            Rg8Sint => 19,
            R32Uint => 20,
            R32Sint => 21,
            R32Float => 22,
            Rg16Unorm => 23,
            Rg16Snorm => 24,
            Rg16Uint => 27,
            Rg16Sint => 28,
            Rg16Float => 29,
            // 10_11_11_FLOAT: x in bits 10:0, y 21:11, z 31:22.
            Rg11b10Ufloat => 30,
            // 2_10_10_10: x in bits 9:0 ... w in 31:30.
            Rgb10a2Unorm => 36,
            Rgb10a2Uint => 40,
            Rgba8Unorm | Bgra8Unorm => 42,
            Rgba8UnormSrgb | Bgra8UnormSrgb => 66,
            Rgba8Snorm => 43,
            Rgba8Uint => 46,
            Rgba8Sint => 47,
            Rg32Uint => 48,
            Rg32Sint => 49,
            Rg32Float => 50,
            Rgba16Unorm => 51,
            Rgba16Snorm => 52,
            Rgba16Uint => 55,
            Rgba16Sint => 56,
            Rgba16Float => 57,
            Rgba32Uint => 61,
            Rgba32Sint => 62,
            Rgba32Float => 63,
        }
    }

    /// The format of unified FORMAT value `v` (for 42 and 66, the RGBA
    /// format; the descriptor's DST_SEL tells BGRA apart, see
    /// [`ImageDescriptor::decode`]).
    pub fn from_format_field(v: u32) -> Option<Self> {
        IMAGE_FORMATS
            .iter()
            .copied()
            .find(|f| !f.is_bgra() && f.format_field() == v)
    }

    /// Is this a BGRA format (RGBA bits read through the BGRA DST_SEL)?
    pub fn is_bgra(self) -> bool {
        matches!(self, ImageFormat::Bgra8Unorm | ImageFormat::Bgra8UnormSrgb)
    }

    /// Is this an sRGB format: UNORM bits whose x, y and z decode through
    /// the sRGB EOTF on reads (alpha stays linear)?
    pub fn is_srgb(self) -> bool {
        matches!(
            self,
            ImageFormat::Rgba8UnormSrgb | ImageFormat::Bgra8UnormSrgb
        )
    }

    /// The BGRA format read through the same FORMAT field as this RGBA
    /// one, if there is one.
    fn bgra_of(self) -> Option<Self> {
        match self {
            ImageFormat::Rgba8Unorm => Some(ImageFormat::Bgra8Unorm),
            ImageFormat::Rgba8UnormSrgb => Some(ImageFormat::Bgra8UnormSrgb),
            _ => None,
        }
    }

    /// Bits of each component, component x first (0 past the last).
    pub fn component_bits(self) -> [u32; 4] {
        use ImageFormat::*;
        match self {
            R8Unorm | R8Snorm | R8Uint | R8Sint => [8, 0, 0, 0],
            R16Unorm | R16Snorm | R16Uint | R16Sint | R16Float => [16, 0, 0, 0],
            Rg8Unorm | Rg8Snorm | Rg8Uint | Rg8Sint => [8, 8, 0, 0],
            R32Uint | R32Sint | R32Float => [32, 0, 0, 0],
            Rg16Unorm | Rg16Snorm | Rg16Uint | Rg16Sint | Rg16Float => [16, 16, 0, 0],
            Rg11b10Ufloat => [11, 11, 10, 0],
            Rgb10a2Unorm | Rgb10a2Uint => [10, 10, 10, 2],
            Rgba8Unorm | Rgba8Snorm | Rgba8Uint | Rgba8Sint | Bgra8Unorm | Rgba8UnormSrgb
            | Bgra8UnormSrgb => [8, 8, 8, 8],
            Rg32Uint | Rg32Sint | Rg32Float => [32, 32, 0, 0],
            Rgba16Unorm | Rgba16Snorm | Rgba16Uint | Rgba16Sint | Rgba16Float => [16; 4],
            Rgba32Uint | Rgba32Sint | Rgba32Float => [32; 4],
        }
    }

    /// Number of components the texel stores.
    pub fn components(self) -> usize {
        self.component_bits().iter().filter(|&&b| b != 0).count()
    }

    /// Bytes of one texel.
    pub fn bytes_per_texel(self) -> u32 {
        self.component_bits().iter().sum::<u32>() / 8
    }

    /// How the components convert.
    pub fn numeric(self) -> NumericType {
        use ImageFormat::*;
        match self {
            // The sRGB formats' bits are UNORM; `is_srgb` adds the decode.
            R8Unorm | R16Unorm | Rg8Unorm | Rg16Unorm | Rgb10a2Unorm | Rgba8Unorm | Bgra8Unorm
            | Rgba16Unorm | Rgba8UnormSrgb | Bgra8UnormSrgb => NumericType::Unorm,
            R8Snorm | R16Snorm | Rg8Snorm | Rg16Snorm | Rgba8Snorm | Rgba16Snorm => {
                NumericType::Snorm
            }
            R8Uint | R16Uint | Rg8Uint | R32Uint | Rg16Uint | Rgb10a2Uint | Rgba8Uint
            | Rg32Uint | Rgba16Uint | Rgba32Uint => NumericType::Uint,
            R8Sint | R16Sint | Rg8Sint | R32Sint | Rg16Sint | Rgba8Sint | Rg32Sint | Rgba16Sint
            | Rgba32Sint => NumericType::Sint,
            R16Float | R32Float | Rg16Float | Rg11b10Ufloat | Rg32Float | Rgba16Float
            | Rgba32Float => NumericType::Float,
        }
    }

    /// The DST_SEL a view of this format uses: components the texel has
    /// read as themselves, missing x..z read 0 and a missing w reads one
    /// (the swizzles of Mesa's `util/format` table for these formats); BGRA
    /// swaps x and z.
    pub fn dst_sel(self) -> [DstSel; 4] {
        if self.is_bgra() {
            return [DstSel::Z, DstSel::Y, DstSel::X, DstSel::W];
        }
        let sel = [DstSel::X, DstSel::Y, DstSel::Z, DstSel::W];
        let n = self.components();
        std::array::from_fn(|c| {
            if c < n {
                sel[c]
            } else if c == 3 {
                DstSel::One
            } else {
                DstSel::Zero
            }
        })
    }

    /// The default linear row pitch in texels for `width`: the width
    /// aligned to 256 bytes (addrlib `HwlComputeSurfaceInfoLinear`).
    pub fn linear_row_pitch(self, width: u32) -> u32 {
        width.next_multiple_of(ROW_ALIGN_BYTES / self.bytes_per_texel())
    }
}

/// Why a descriptor cannot be encoded, or a T# is not one gfxsim executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum ImageDescriptorError {
    #[error("image descriptor TYPE {type_field} is not a 1D/2D/3D/cube/1D-array/2D-array image")]
    UnsupportedType { type_field: u32 },
    #[error("image descriptor SW_MODE {sw_mode} is a tiled layout; only SW_LINEAR (0) is modelled")]
    TiledSwizzle { sw_mode: u32 },
    #[error("image descriptor FORMAT {format} is not a format gfxsim executes")]
    UnsupportedFormat { format: u32 },
    #[error("image descriptor DST_SEL component {component} holds reserved value {value}")]
    ReservedDstSel { component: usize, value: u32 },
    #[error(
        "image levels BASE_LEVEL {base_level}..=LAST_LEVEL {last_level} are not within the \
         chain's MAX_MIP {max_mip} (at most {MAX_MIP})"
    )]
    LevelRange {
        max_mip: u32,
        base_level: u32,
        last_level: u32,
    },
    #[error("image mip chain (MAX_MIP {max_mip}) names a custom row pitch {row_pitch}")]
    ChainPitch { max_mip: u32, row_pitch: u32 },
    #[error("image descriptor enables compression (dword 6 bit 21), which is not modelled")]
    Compressed,
    #[error("image descriptor dword {word} has reserved bits {bits:#010x} set")]
    ReservedBits { word: usize, bits: u32 },
    #[error("image base address {address:#x} is not 256-byte aligned or exceeds 48 bits")]
    BaseAddress { address: u64 },
    #[error("image {what} {value} is outside 1..={limit}")]
    Extent {
        what: ExtentKind,
        value: u32,
        limit: u32,
    },
    #[error(
        "image row pitch {row_pitch} texels of {bytes_per_texel} bytes is below the width \
         {width} or not a multiple of 256 bytes"
    )]
    RowPitch {
        row_pitch: u32,
        width: u32,
        bytes_per_texel: u32,
    },
    #[error(
        "image row pitch {row_pitch} cannot be encoded for this dimension: 3D, cube and array \
         images use the derived pitch {derived}"
    )]
    PitchNotEncodable { row_pitch: u32, derived: u32 },
    #[error("image view's last layer {last_layer} is before its first layer {base_array}")]
    LayerRange { base_array: u32, last_layer: u32 },
}

/// Which extent an [`ImageDescriptorError::Extent`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExtentKind {
    Width,
    Height,
    Depth,
    Layers,
}

impl std::fmt::Display for ExtentKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ExtentKind::Width => "width",
            ExtentKind::Height => "height",
            ExtentKind::Depth => "depth",
            ExtentKind::Layers => "layer count",
        })
    }
}

/// A gfx11 image resource descriptor of a linear image and its mip chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageDescriptor {
    /// Byte address of texel (0, 0, layer 0), 256-byte aligned, below 2^48
    /// (BASE_ADDRESS and BASE_ADDRESS_HI hold it >> 8).
    pub base_address: u64,
    /// FORMAT (and, for BGRA, the swizzle).
    pub format: ImageFormat,
    /// TYPE.
    pub dim: ImageDim,
    /// Level 0's texels per row (WIDTH_LO/WIDTH_HI hold width - 1).
    pub width: u32,
    /// Level 0's rows (HEIGHT holds height - 1); 1 for 1D and 1D-array
    /// images.
    pub height: u32,
    /// 3D: level 0's depth (DEPTH holds depth - 1). Cube and arrays: the
    /// layers the view sees (DEPTH holds `base_array + depth - 1`). 1D and
    /// 2D: 1.
    pub depth: u32,
    /// Level 0's texels from one row to the next in memory: a multiple of
    /// 256 bytes and at least `width` ([`ImageFormat::linear_row_pitch`] is
    /// the default, and the only pitch 3D, cube and array images and mip
    /// chains can have).
    pub row_pitch: u32,
    /// MAX_MIP: the chain's level count - 1, which fixes where each level
    /// lies (module comment).
    pub max_mip: u32,
    /// BASE_LEVEL: the first level the view sees.
    pub base_level: u32,
    /// LAST_LEVEL: the last level the view sees.
    pub last_level: u32,
    /// BASE_ARRAY: the first layer the view sees (cube and arrays).
    pub base_array: u32,
    /// DST_SEL_X/Y/Z/W.
    pub dst_sel: [DstSel; 4],
}

fn bits(word: u32, lo: u32, width: u32) -> u32 {
    (word >> lo) & ((1u32 << width) - 1)
}

/// Reserved bits per dword (1D/2D dword 4 bit 13 is PITCH's top bit).
const RESERVED: [u32; 5] = [
    0,
    0x1F << 8 | 0x3 << 28,
    0x3 << 12 | 0xF << 28,
    0,
    0x3 << 14 | 0x7 << 29,
];

impl ImageDescriptor {
    /// A one-level view of a whole linear image with the format's default
    /// pitch and swizzle.
    pub fn linear(
        base_address: u64,
        format: ImageFormat,
        dim: ImageDim,
        width: u32,
        height: u32,
        depth: u32,
    ) -> Self {
        ImageDescriptor {
            base_address,
            format,
            dim,
            width,
            height,
            depth,
            row_pitch: format.linear_row_pitch(width),
            max_mip: 0,
            base_level: 0,
            last_level: 0,
            base_array: 0,
            dst_sel: format.dst_sel(),
        }
    }

    /// Layers the view sees (1 for 1D, 2D and 3D).
    pub fn layers(&self) -> u32 {
        if self.dim.is_layered() { self.depth } else { 1 }
    }

    /// Levels the view sees.
    pub fn levels(&self) -> u32 {
        self.last_level.saturating_sub(self.base_level) + 1
    }

    /// A view of levels `base_level..=last_level` of a `levels`-level chain
    /// (the pitch becomes the derived one, the only one a chain has).
    pub fn with_levels(mut self, levels: u32, base_level: u32, last_level: u32) -> Self {
        self.max_mip = levels.saturating_sub(1);
        self.base_level = base_level;
        self.last_level = last_level;
        if levels > 1 {
            self.row_pitch = self.format.linear_row_pitch(self.width);
        }
        self
    }

    /// The texels level `level` (of the chain) holds across, down and, for
    /// 3D, deep: each level-0 extent halved per level, never below one
    /// (Vulkan "Image Mip Level Sizing"). Layers do not shrink. A 3D
    /// level's `max(1, depth >> level)` slices of texels sit one chain
    /// apart like every slice: addrlib's linear path
    /// (`Gfx11Lib::HwlComputeSurfaceInfoLinear`) sets each level's
    /// `mipDepth` to `numSlices` and sums one `sliceSize` over all levels,
    /// the surface being `sliceSize` times the slices.
    pub fn level_extent(&self, level: u32) -> [u32; 3] {
        let m = |v: u32| v.checked_shr(level).unwrap_or(0).max(1);
        let depth = if self.dim == ImageDim::D3 {
            m(self.depth)
        } else {
            self.depth
        };
        [m(self.width), m(self.height), depth]
    }

    /// Level `level`'s row pitch in texels: level 0's pitch for a single
    /// level, else the level's layout width aligned to 256 bytes.
    pub fn level_pitch(&self, level: u32) -> u32 {
        if self.max_mip == 0 {
            return self.row_pitch;
        }
        self.format
            .linear_row_pitch(layout_extent(self.width, level))
    }

    /// Bytes one level occupies in a slice: its pitch times its layout
    /// height.
    pub fn level_bytes(&self, level: u32) -> u64 {
        let rows = if self.max_mip == 0 {
            self.height
        } else {
            layout_extent(self.height, level)
        };
        self.level_pitch(level) as u64 * rows as u64 * self.format.bytes_per_texel() as u64
    }

    /// Bytes from a slice's start to level `level`: every smaller level of
    /// the chain comes first (module comment).
    pub fn level_offset(&self, level: u32) -> u64 {
        (level + 1..=self.max_mip)
            .map(|l| self.level_bytes(l))
            .sum()
    }

    /// Bytes from one slice (3D depth slice or layer) to the next: the
    /// whole chain.
    pub fn slice_bytes(&self) -> u64 {
        self.level_offset(0) + self.level_bytes(0)
    }

    fn check(&self) -> Result<(), ImageDescriptorError> {
        use ImageDescriptorError as E;
        if self.base_address & 0xFF != 0 || self.base_address >> 48 != 0 {
            return Err(E::BaseAddress {
                address: self.base_address,
            });
        }
        let extent = |what, value: u32, limit: u32| {
            if value == 0 || value > limit {
                Err(E::Extent { what, value, limit })
            } else {
                Ok(())
            }
        };
        extent(ExtentKind::Width, self.width, MAX_EXTENT)?;
        let flat = matches!(self.dim, ImageDim::D1 | ImageDim::D1Array);
        extent(
            ExtentKind::Height,
            self.height,
            if flat { 1 } else { MAX_EXTENT },
        )?;
        match self.dim {
            ImageDim::D3 => extent(ExtentKind::Depth, self.depth, MAX_DEPTH)?,
            d if d.is_layered() => extent(
                ExtentKind::Layers,
                self.depth,
                MAX_DEPTH.saturating_sub(self.base_array),
            )?,
            _ => extent(ExtentKind::Depth, self.depth, 1)?,
        }
        if !self.dim.is_layered() && self.base_array != 0 {
            return Err(E::LayerRange {
                base_array: self.base_array,
                last_layer: 0,
            });
        }
        if self.max_mip > MAX_MIP
            || self.last_level > self.max_mip
            || self.base_level > self.last_level
        {
            return Err(E::LevelRange {
                max_mip: self.max_mip,
                base_level: self.base_level,
                last_level: self.last_level,
            });
        }
        let bpt = self.format.bytes_per_texel();
        if self.row_pitch < self.width
            || !(self.row_pitch * bpt).is_multiple_of(ROW_ALIGN_BYTES)
            || self.row_pitch > MAX_EXTENT
        {
            return Err(E::RowPitch {
                row_pitch: self.row_pitch,
                width: self.width,
                bytes_per_texel: bpt,
            });
        }
        let derived = self.format.linear_row_pitch(self.width);
        if self.max_mip > 0 && self.row_pitch != derived {
            return Err(E::ChainPitch {
                max_mip: self.max_mip,
                row_pitch: self.row_pitch,
            });
        }
        if !self.dim.pitch_in_depth_field() && self.row_pitch != derived {
            return Err(E::PitchNotEncodable {
                row_pitch: self.row_pitch,
                derived,
            });
        }
        Ok(())
    }

    /// The eight dwords of this descriptor.
    pub fn encode(&self) -> Result<[u32; 8], ImageDescriptorError> {
        self.check()?;
        let a = self.base_address >> 8;
        let w = self.width - 1;
        let mut d = [0u32; 8];
        d[0] = a as u32;
        d[1] = (a >> 32) as u32 & 0xFF
            | self.max_mip << 16
            | self.format.format_field() << 20
            | (w & 3) << 30;
        d[2] = (w >> 2) | (self.height - 1) << 14;
        let sel = self
            .dst_sel
            .iter()
            .enumerate()
            .fold(0, |acc, (c, s)| acc | s.field() << (3 * c));
        d[3] = sel | self.base_level << 12 | self.last_level << 16 | self.dim.type_field() << 28;
        d[4] = match self.dim {
            // A chain's pitch is derived (PITCH 0; module comment).
            ImageDim::D1 | ImageDim::D2 if self.max_mip > 0 => 0,
            ImageDim::D1 | ImageDim::D2 => self.row_pitch - 1,
            ImageDim::D3 => self.depth - 1,
            _ => (self.base_array + self.depth - 1) | self.base_array << 16,
        };
        Ok(d)
    }

    /// The descriptor in `words`, or why gfxsim does not execute it.
    pub fn decode(words: &[u32; 8]) -> Result<Self, ImageDescriptorError> {
        use ImageDescriptorError as E;
        let type_field = bits(words[3], 28, 4);
        let dim = ImageDim::from_type_field(type_field).ok_or(E::UnsupportedType { type_field })?;
        for (word, &mask) in RESERVED.iter().enumerate() {
            let mut mask = mask;
            if word == 4 && !dim.pitch_in_depth_field() {
                mask |= 1 << 13;
            }
            if words[word] & mask != 0 {
                return Err(E::ReservedBits {
                    word,
                    bits: words[word] & mask,
                });
            }
        }
        let sw_mode = bits(words[3], 20, 5);
        if sw_mode != 0 {
            return Err(E::TiledSwizzle { sw_mode });
        }
        if words[6] >> 21 & 1 != 0 {
            return Err(E::Compressed);
        }
        let format_code = bits(words[1], 20, 8);
        let format = ImageFormat::from_format_field(format_code).ok_or(E::UnsupportedFormat {
            format: format_code,
        })?;
        let mut dst_sel = [DstSel::Zero; 4];
        for (c, s) in dst_sel.iter_mut().enumerate() {
            let value = bits(words[3], 3 * c as u32, 3);
            *s = DstSel::from_field(value).ok_or(E::ReservedDstSel {
                component: c,
                value,
            })?;
        }
        let format = match format.bgra_of() {
            Some(bgra) if dst_sel == bgra.dst_sel() => bgra,
            _ => format,
        };
        let (max_mip, base_level, last_level) = (
            bits(words[1], 16, 4),
            bits(words[3], 12, 4),
            bits(words[3], 16, 4),
        );
        let base_address = (words[0] as u64 | (bits(words[1], 0, 8) as u64) << 32) << 8;
        let width = (bits(words[1], 30, 2) | bits(words[2], 0, 12) << 2) + 1;
        let height = bits(words[2], 14, 14) + 1;
        let depth_field = bits(words[4], 0, 13);
        let base_array = bits(words[4], 16, 13);
        let derived = format.linear_row_pitch(width);
        let (depth, row_pitch, base_array) = match dim {
            ImageDim::D1 | ImageDim::D2 => {
                // PITCH 0: the derived pitch (Mesa writes 0 unless the image
                // has a custom pitch); otherwise pitch - 1.
                let field = bits(words[4], 0, 14);
                if field != 0 && max_mip != 0 {
                    return Err(E::ChainPitch {
                        max_mip,
                        row_pitch: field + 1,
                    });
                }
                (1, if field == 0 { derived } else { field + 1 }, 0)
            }
            ImageDim::D3 => (depth_field + 1, derived, 0),
            _ => {
                if depth_field < base_array {
                    return Err(E::LayerRange {
                        base_array,
                        last_layer: depth_field,
                    });
                }
                (depth_field - base_array + 1, derived, base_array)
            }
        };
        let desc = ImageDescriptor {
            base_address,
            format,
            dim,
            width,
            height,
            depth,
            row_pitch,
            max_mip,
            base_level,
            last_level,
            base_array,
            dst_sel,
        };
        // The 1D forms' height, and a custom pitch's alignment, checked as
        // for encoding.
        desc.check()?;
        Ok(desc)
    }
}

/// A side of level `level` as the layout counts it: halved per level
/// rounding up, never below one (addrlib `GetMipSize`, `ShiftCeil`).
fn layout_extent(side: u32, level: u32) -> u32 {
    let side = side.max(1) as u64;
    (side.div_ceil(1u64 << level.min(32)) as u32).max(1)
}

/// Bytes from the image's base address to texel (`x`, `y`, `z`) of chain
/// level `level`, for the linear layout: `z` is the 3D slice or the layer
/// within the view (the view's BASE_ARRAY is added here). Coordinates and
/// the level are not range-checked.
pub fn linear_texel_offset(desc: &ImageDescriptor, x: u32, y: u32, z: u32, level: u32) -> u64 {
    let bpt = desc.format.bytes_per_texel() as u64;
    let pitch = desc.level_pitch(level) as u64;
    let slice = z as u64 + desc.base_array as u64;
    slice * desc.slice_bytes() + desc.level_offset(level) + (y as u64 * pitch + x as u64) * bpt
}

/// Bytes the image occupies from its base address: every slice up to the
/// last one the view sees, each a whole chain.
pub fn linear_size(desc: &ImageDescriptor) -> u64 {
    let slices = match desc.dim {
        ImageDim::D3 => desc.depth,
        d if d.is_layered() => desc.base_array + desc.depth,
        _ => 1,
    } as u64;
    slices * desc.slice_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_round_trips_through_its_field() {
        for &f in IMAGE_FORMATS {
            let back = ImageFormat::from_format_field(f.format_field());
            if f.is_bgra() {
                assert_eq!(back.and_then(ImageFormat::bgra_of), Some(f));
            } else {
                assert_eq!(back, Some(f), "{f:?}");
            }
            assert!(f.bytes_per_texel().is_power_of_two(), "{f:?}");
        }
        assert_eq!(ImageFormat::from_format_field(0), None);
        assert_eq!(ImageFormat::from_format_field(3), None, "8_USCALED");
        assert_eq!(ImageFormat::from_format_field(58), None, "32_32_32_UINT");
    }

    /// Fields placed by hand from ROCr's `resource_gfx11.h` bit table: a
    /// 2D RGBA8 image of 100 x 50 at 0x12_3456_7800 with pitch 128.
    #[test]
    fn a_2d_descriptor_places_every_field() {
        let d = ImageDescriptor::linear(
            0x12_3456_7800,
            ImageFormat::Rgba8Unorm,
            ImageDim::D2,
            100,
            50,
            1,
        );
        assert_eq!(d.row_pitch, 128);
        let w = d.encode().unwrap();
        // Address >> 8 = 0x1234_5678: low 32 bits in dword 0, 0x12 nothing
        // above bit 39.
        assert_eq!(w[0], 0x1234_5678);
        // FORMAT 42 at bits 27:20; width - 1 = 99 = 0b110_0011: low two bits 3
        // at bits 31:30.
        assert_eq!(w[1], 42 << 20 | 3 << 30);
        // WIDTH_HI 99 >> 2 = 24; HEIGHT 49 at bits 27:14.
        assert_eq!(w[2], 24 | 49 << 14);
        // DST_SEL X=4 Y=5 Z=6 W=7; TYPE 9 (2D) at bits 31:28.
        assert_eq!(w[3], 4 | 5 << 3 | 6 << 6 | 7 << 9 | 9 << 28);
        // PITCH - 1.
        assert_eq!(w[4], 127);
        assert_eq!(&w[5..], &[0, 0, 0]);
        assert_eq!(ImageDescriptor::decode(&w), Ok(d));
    }

    #[test]
    fn arrays_and_3d_round_trip() {
        let mut a =
            ImageDescriptor::linear(0x1_0000, ImageFormat::R32Float, ImageDim::D2Array, 7, 3, 4);
        a.base_array = 2;
        let w = a.encode().unwrap();
        // Last layer 2 + 4 - 1 = 5, BASE_ARRAY 2 at bits 28:16.
        assert_eq!(w[4], 5 | 2 << 16);
        assert_eq!(w[3] >> 28, 13);
        assert_eq!(ImageDescriptor::decode(&w), Ok(a));
        let v = ImageDescriptor::linear(0x2_0000, ImageFormat::Rg16Sint, ImageDim::D3, 9, 5, 6);
        let w = v.encode().unwrap();
        assert_eq!(w[4], 5);
        assert_eq!(ImageDescriptor::decode(&w), Ok(v));
        let b = ImageDescriptor::linear(0x100, ImageFormat::Bgra8Unorm, ImageDim::D1, 300, 1, 1);
        let w = b.encode().unwrap();
        assert_eq!(w[3] & 0xFFF, 6 | 5 << 3 | 4 << 6 | 7 << 9);
        assert_eq!(ImageDescriptor::decode(&w), Ok(b));
        // FORMAT 66 (8_8_8_8_SRGB), with and without the BGRA swizzle.
        for f in [ImageFormat::Rgba8UnormSrgb, ImageFormat::Bgra8UnormSrgb] {
            let s = ImageDescriptor::linear(0x200, f, ImageDim::D2, 5, 3, 1);
            let w = s.encode().unwrap();
            assert_eq!(w[1] >> 20 & 0xFF, 66);
            assert_eq!(ImageDescriptor::decode(&w), Ok(s));
        }
        for dim in [ImageDim::D1Array, ImageDim::Cube] {
            let h = if dim == ImageDim::Cube { 4 } else { 1 };
            let c = ImageDescriptor::linear(0x300, ImageFormat::R8Uint, dim, 4, h, 6);
            assert_eq!(ImageDescriptor::decode(&c.encode().unwrap()), Ok(c));
        }
    }

    #[test]
    fn unmodelled_descriptors_are_refused() {
        use ImageDescriptorError as E;
        let d = ImageDescriptor::linear(0x1000, ImageFormat::R32Uint, ImageDim::D2, 4, 4, 1);
        let w = d.encode().unwrap();
        let with = |k: usize, v: u32| {
            let mut x = w;
            x[k] |= v;
            ImageDescriptor::decode(&x)
        };
        assert_eq!(with(3, 9 << 20), Err(E::TiledSwizzle { sw_mode: 9 }));
        // LAST_LEVEL 1 past MAX_MIP 0.
        assert_eq!(
            with(3, 1 << 16),
            Err(E::LevelRange {
                max_mip: 0,
                base_level: 0,
                last_level: 1
            })
        );
        // MAX_MIP 1 with the custom pitch the single level had.
        assert_eq!(
            with(1, 1 << 16),
            Err(E::ChainPitch {
                max_mip: 1,
                row_pitch: 64
            })
        );
        assert_eq!(with(6, 1 << 21), Err(E::Compressed));
        assert_eq!(
            with(2, 1 << 30),
            Err(E::ReservedBits {
                word: 2,
                bits: 1 << 30
            })
        );
        let mut x = w;
        x[3] = x[3] & !(0xF << 28) | 14 << 28;
        assert_eq!(
            ImageDescriptor::decode(&x),
            Err(E::UnsupportedType { type_field: 14 })
        );
        let mut x = w;
        x[1] = x[1] & !(0xFF << 20) | 3 << 20;
        assert_eq!(
            ImageDescriptor::decode(&x),
            Err(E::UnsupportedFormat { format: 3 })
        );
        let mut x = w;
        x[3] = x[3] & !7 | 2;
        assert_eq!(
            ImageDescriptor::decode(&x),
            Err(E::ReservedDstSel {
                component: 0,
                value: 2
            })
        );
        // A pitch of 65 four-byte texels is not a multiple of 256 bytes.
        let mut x = w;
        x[4] = 64;
        assert!(matches!(
            ImageDescriptor::decode(&x),
            Err(E::RowPitch { .. })
        ));
        // PITCH 0 reads as the derived pitch.
        let mut x = w;
        x[4] = 0;
        assert_eq!(ImageDescriptor::decode(&x).map(|d| d.row_pitch), Ok(64));
        let mut bad = d;
        bad.base_address = 0x1080;
        assert_eq!(bad.encode(), Err(E::BaseAddress { address: 0x1080 }));
        let mut bad = d;
        bad.width = MAX_EXTENT + 1;
        assert!(matches!(
            bad.encode(),
            Err(E::Extent {
                what: ExtentKind::Width,
                ..
            })
        ));
        let mut bad = ImageDescriptor::linear(0, ImageFormat::R8Uint, ImageDim::D3, 4, 4, 4);
        bad.row_pitch = 512;
        assert_eq!(
            bad.encode(),
            Err(E::PitchNotEncodable {
                row_pitch: 512,
                derived: 256
            })
        );
    }

    #[test]
    fn linear_layout_arithmetic() {
        // 2D RGBA16F (8 bytes): pitch 32 texels (256 bytes).
        let d = ImageDescriptor::linear(0, ImageFormat::Rgba16Float, ImageDim::D2, 20, 3, 1);
        assert_eq!(d.row_pitch, 32);
        assert_eq!(linear_texel_offset(&d, 5, 2, 0, 0), (2 * 32 + 5) * 8);
        assert_eq!(linear_size(&d), 3 * 32 * 8);
        // 2D array, view from layer 1: layer 2 of the view is slice 3.
        let mut a = ImageDescriptor::linear(0, ImageFormat::R8Unorm, ImageDim::D2Array, 10, 4, 3);
        a.base_array = 1;
        assert_eq!(a.row_pitch, 256);
        assert_eq!(linear_texel_offset(&a, 1, 1, 2, 0), 3 * 4 * 256 + 256 + 1);
        assert_eq!(linear_size(&a), 4 * 4 * 256);
        // 3D R32: slices of pitch 64 x height 2.
        let v = ImageDescriptor::linear(0, ImageFormat::R32Sint, ImageDim::D3, 3, 2, 5);
        assert_eq!(
            linear_texel_offset(&v, 2, 1, 4, 0),
            ((4 * 2 + 1) * 64 + 2) * 4
        );
        assert_eq!(linear_size(&v), 5 * 2 * 64 * 4);
        // 16-byte texels: 16 per 256-byte row.
        assert_eq!(ImageFormat::Rgba32Float.linear_row_pitch(17), 32);
    }

    /// Offsets worked by hand from addrlib's linear loop (smallest level
    /// first, `ShiftCeil` layout extents, 256-byte pitches).
    #[test]
    fn mip_chain_layout_arithmetic() {
        // RGBA8 100 x 50, three levels: layout extents 100x50, 50x25,
        // 25x13, pitches 128, 64, 64 texels.
        let d = ImageDescriptor::linear(0, ImageFormat::Rgba8Unorm, ImageDim::D2, 100, 50, 1)
            .with_levels(3, 0, 2);
        assert_eq!(d.level_offset(2), 0);
        assert_eq!(d.level_offset(1), 64 * 13 * 4);
        assert_eq!(d.level_offset(0), 64 * 13 * 4 + 64 * 25 * 4);
        assert_eq!(d.slice_bytes(), 64 * 13 * 4 + 64 * 25 * 4 + 128 * 50 * 4);
        assert_eq!(d.level_extent(2), [25, 12, 1]);
        assert_eq!(
            linear_texel_offset(&d, 3, 2, 0, 1),
            64 * 13 * 4 + (2 * 64 + 3) * 4
        );
        assert_eq!(linear_size(&d), d.slice_bytes());
        // R8 512 x 512, ten levels: level 0 follows levels 9..1.
        let r = ImageDescriptor::linear(0, ImageFormat::R8Unorm, ImageDim::D2, 512, 512, 1)
            .with_levels(10, 0, 9);
        assert_eq!(r.level_offset(0), 130_816);
        assert_eq!(r.level_offset(9), 0);
        // 2D array: each layer holds a whole chain; a view from layer 1.
        let mut a = ImageDescriptor::linear(0, ImageFormat::R32Float, ImageDim::D2Array, 5, 5, 2)
            .with_levels(2, 1, 1);
        a.base_array = 1;
        // Level 1 is 3 x 3 in the layout (2 x 2 texels), pitch 64.
        assert_eq!(a.slice_bytes(), 64 * 3 * 4 + 64 * 5 * 4);
        assert_eq!(
            linear_texel_offset(&a, 1, 1, 0, 1),
            a.slice_bytes() + (64 + 1) * 4
        );
        assert_eq!(a.level_extent(1), [2, 2, 2]);
        // 3D R8 8 x 4 x 4, three levels: every depth slice holds the whole
        // chain (level 2 2x1, level 1 4x2, level 0 8x4; pitch 256), so
        // level 1's depth slice 1 (of its 2) is one chain on.
        let v = ImageDescriptor::linear(0, ImageFormat::R8Unorm, ImageDim::D3, 8, 4, 4)
            .with_levels(3, 0, 2);
        assert_eq!(v.slice_bytes(), 256 + 2 * 256 + 4 * 256);
        assert_eq!(v.level_extent(1), [4, 2, 2]);
        assert_eq!(v.level_extent(2), [2, 1, 1]);
        assert_eq!(
            linear_texel_offset(&v, 3, 1, 1, 1),
            v.slice_bytes() + 256 + 256 + 3
        );
        assert_eq!(linear_size(&v), 4 * v.slice_bytes());
        // A single level keeps its custom pitch and rows.
        let mut s = ImageDescriptor::linear(0, ImageFormat::R32Uint, ImageDim::D2, 4, 3, 1);
        s.row_pitch = 128;
        assert_eq!(s.slice_bytes(), 128 * 3 * 4);
    }

    #[test]
    fn mip_chains_round_trip_and_refuse_bad_ranges() {
        use ImageDescriptorError as E;
        let d = ImageDescriptor::linear(0x4000, ImageFormat::Rgba16Float, ImageDim::D2, 33, 17, 1)
            .with_levels(6, 2, 4);
        let w = d.encode().unwrap();
        assert_eq!(w[1] >> 16 & 0xF, 5, "MAX_MIP");
        assert_eq!(w[3] >> 12 & 0xF, 2, "BASE_LEVEL");
        assert_eq!(w[3] >> 16 & 0xF, 4, "LAST_LEVEL");
        assert_eq!(w[4], 0, "a chain's PITCH is derived");
        assert_eq!(ImageDescriptor::decode(&w), Ok(d));
        assert_eq!(d.levels(), 3);
        let a = ImageDescriptor::linear(0x4000, ImageFormat::R8Uint, ImageDim::D2Array, 8, 8, 3)
            .with_levels(4, 0, 3);
        assert_eq!(ImageDescriptor::decode(&a.encode().unwrap()), Ok(a));
        let v = ImageDescriptor::linear(0x4000, ImageFormat::R32Float, ImageDim::D3, 8, 4, 4)
            .with_levels(3, 1, 2);
        assert_eq!(ImageDescriptor::decode(&v.encode().unwrap()), Ok(v));
        let range = |max_mip, base_level, last_level| E::LevelRange {
            max_mip,
            base_level,
            last_level,
        };
        // BASE_LEVEL past LAST_LEVEL.
        let mut x = w;
        x[3] = x[3] & !(0xFF << 12) | 3 << 12 | 2 << 16;
        assert_eq!(ImageDescriptor::decode(&x), Err(range(5, 3, 2)));
        // LAST_LEVEL past MAX_MIP.
        let mut x = w;
        x[3] = x[3] & !(0xF << 16) | 6 << 16;
        assert_eq!(ImageDescriptor::decode(&x), Err(range(5, 2, 6)));
        // A custom PITCH with a chain.
        let mut x = w;
        x[4] = 63;
        assert_eq!(
            ImageDescriptor::decode(&x),
            Err(E::ChainPitch {
                max_mip: 5,
                row_pitch: 64
            })
        );
        let mut bad = d;
        bad.row_pitch = 96;
        assert!(matches!(bad.encode(), Err(E::ChainPitch { .. })));
        assert_eq!(d.with_levels(17, 0, 16).encode(), Err(range(16, 0, 16)));
    }
}
