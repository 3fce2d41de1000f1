//! The baseline compiler's object writer: machine code and what the code
//! generator knows about each kernel (registers, inputs, kernel arguments)
//! → a relocatable AMDGPU ELF-64 object of the shape LLVM 19 emits for this
//! crate's kernels → [`crate::link::link`] → the ET_DYN code object (code
//! object v5) a runtime loads.
//!
//! The object is built to be what `clang-19 -x ir -mcode-object-version=5
//! -c` writes for the same kernel, so that the code object that comes out
//! of the linker is byte-identical to the LLVM path's when the code and the
//! register counts are the same (the unit tests check this against LLVM):
//! - ELF header (AMDGPUUsage "ELF Header"): `ELFOSABI_AMDGPU_HSA` (64), ABI
//!   version 3 (code object v5), `EM_AMDGPU`, `e_flags` =
//!   `EF_AMDGPU_MACH_*` of the processor with the xnack and sramecc
//!   settings LLVM uses by default (`any` where the processor supports the
//!   feature, AMDGPUUsage "ELF Header" `EF_AMDGPU_FEATURE_*_V4`).
//! - `.text`: each kernel 256-byte aligned (LLVM aligns kernels to 256),
//!   the gap filled with `s_nop 0`, then the end padding LLVM's
//!   `EmitCodeEnd` writes against instruction prefetch past the end
//!   (gfx10+: `s_code_end` up to the instruction cache line, then three
//!   more lines; gfx90a/gfx942: `s_nop 0` up to the 64-byte line, then 16
//!   lines). Each kernel is a global `STT_FUNC` of protected visibility,
//!   sized by its code.
//! - `.rodata`: the 64-byte kernel descriptors (AMDGPUUsage "Kernel
//!   Descriptor"), 64-aligned, each a global `STT_OBJECT` `<symbol>.kd`;
//!   `.rela.rodata` resolves `kernel_code_entry_byte_offset` (kd + 16) with
//!   `R_AMDGPU_REL64` against the kernel, addend 16 (AMDGPUUsage
//!   "Relocation Records").
//! - `.note`: one `NT_AMDGPU_METADATA` note (type 32, owner "AMDGPU") with
//!   the code object v5 metadata msgpack map (AMDGPUUsage "Code Object V5
//!   Metadata"), keys sorted and integers in their shortest msgpack form as
//!   LLVM's msgpack writer writes them.
//! - `.symtab`, and one `.strtab` for symbol and section names (LLVM
//!   shares it too).
//!
//! The rules this writer follows where LLVM's choices are not written in
//! AMDGPUUsage (compared with clang-19 by the tests):
//! - The SGPR count LLVM reports (`.sgpr_count`) and granulates (rsrc1
//!   GRANULATED_WAVEFRONT_SGPR_COUNT, AMDGPUUsage "compute_pgm_rsrc1") is
//!   the SGPRs the code names plus the special ones it may write: VCC on
//!   gfx10+ (the baseline code always reserves it); on gfx9 VCC and the
//!   XNACK mask (xnack `any`), and FLAT_SCRATCH with architected flat
//!   scratch (gfx942) or flat scratch init. Input SGPRs the code never
//!   names are not counted, as LLVM does not count them. LLVM 19 writes the
//!   granulated count on gfx10+ too, where AMDGPUUsage calls the field
//!   reserved; the writer does as LLVM does.
//! - The VGPR count is the VGPRs the code names, at least the work-item id
//!   VGPRs the hardware writes (v0 when packed, else v0..v{dims}).
//! - gfx1100 has LLVM's "UserSGPRInit16Bug": a wave32 kernel must enable
//!   at least 16 user plus system SGPRs (workgroup ids), so LLVM pads
//!   USER_SGPR_COUNT up to 16 minus the system SGPRs, and the workgroup ids
//!   move up with it ([`sgpr_layout`] says where they land: s13..s15 for a
//!   kernarg pointer and three workgroup ids, not s2..s4).
//! - The hidden arguments are none, or the dispatch geometry block
//!   ([`HiddenArgs`]), as LLVM 19 lists them once the AMDGPU attributor has
//!   proved a kernel uses no hostcall, multigrid, heap, queue or
//!   completion-action argument (every kernel this crate emits, at -O1 and
//!   above).

use crate::link::{self, LinkError};

/// Why a code object could not be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ObjectError {
    #[error("no kernels to write")]
    NoKernels,
    #[error("target `{target}` is not supported by the baseline object writer")]
    UnsupportedTarget { target: String },
    #[error("kernel `{symbol}` is for `{target}`, the code object for `{expected}`")]
    MixedTargets {
        symbol: String,
        target: String,
        expected: String,
    },
    #[error("kernel symbol `{symbol}` is empty or holds a NUL byte")]
    BadSymbol { symbol: String },
    #[error("symbol `{symbol}` is defined twice")]
    DuplicateSymbol { symbol: String },
    #[error("kernel `{symbol}`: its code is empty or not whole 32-bit words")]
    BadCode { symbol: String },
    #[error("kernel `{symbol}`: {target} runs wave64 only")]
    Wave32Unsupported { symbol: String, target: String },
    #[error("kernel `{symbol}`: {count} {kind}s, more than the {limit} a wave addresses")]
    TooManyRegisters {
        symbol: String,
        kind: &'static str,
        count: u32,
        limit: u32,
    },
    #[error("{target} has no {what} user SGPR (architected flat scratch)")]
    UserSgprUnavailable { what: &'static str, target: String },
    #[error("kernel `{symbol}`: workgroup size {size:?} is not 1..=1024 work-items")]
    BadWorkgroupSize { symbol: String, size: [u32; 3] },
    #[error("kernel `{symbol}`: workitem id dimensions {dims} is not 0, 1 or 2")]
    BadWorkitemDims { symbol: String, dims: u32 },
    #[error("kernel `{symbol}`: {bytes} bytes of workgroup memory, more than 65536")]
    TooMuchLds { symbol: String, bytes: u32 },
    #[error("kernel argument `{arg}`: size {size} and alignment {align} are not a valid layout")]
    BadArgLayout { arg: String, size: u32, align: u32 },
    #[error("the kernel arguments do not fit in 4 GiB")]
    KernargOverflow,
    #[error("linking the baseline object: {0}")]
    Link(#[from] LinkError),
}

/// What a kernel argument is, for the metadata's `.value_kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArgKind {
    /// A `ptr addrspace(1)` (8 bytes, 8-aligned): `.value_kind:
    /// global_buffer`, `.address_space: global`. `read_only` does not reach
    /// the metadata: LLVM writes `.access: read_only` only for `readonly
    /// noalias` pointers, and this crate's IR has no `noalias`.
    GlobalBuffer { read_only: bool },
    /// Bytes copied into the kernarg segment (`.value_kind: by_value`).
    ByValue,
}

/// One explicit kernel argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KernelArg<'a> {
    pub name: &'a str,
    pub kind: ArgKind,
    pub size: u32,
    /// A power of two; the offset is the previous argument's end rounded up
    /// to it ([`kernarg_layout`]).
    pub align: u32,
}

impl<'a> KernelArg<'a> {
    /// A storage buffer's address (`g{group}_b{binding}`).
    pub fn global_buffer(name: &'a str, read_only: bool) -> Self {
        KernelArg {
            name,
            kind: ArgKind::GlobalBuffer { read_only },
            size: 8,
            align: 8,
        }
    }

    /// A by-value argument (a buffer's u32 byte size, immediates).
    pub fn by_value(name: &'a str, size: u32, align: u32) -> Self {
        KernelArg {
            name,
            kind: ArgKind::ByValue,
            size,
            align,
        }
    }
}

/// The code object v5 hidden arguments after the explicit ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum HiddenArgs {
    /// None: the kernel never reads past its explicit arguments (LLVM:
    /// `"amdgpu-no-implicitarg-ptr"`).
    #[default]
    None,
    /// The 256-byte implicit block, 8-aligned after the explicit arguments,
    /// with the dispatch geometry listed ([`hidden`] has the offsets):
    /// block counts, group sizes, remainders, global offsets, grid dims.
    Dispatch,
}

/// Offsets within the hidden block ([`KernargLayout::hidden`]) of the
/// fields [`HiddenArgs::Dispatch`] lists (AMDGPUUsage "Code Object V5
/// Metadata", hidden arguments).
pub(crate) mod hidden {
    /// u32 work-group counts per dimension.
    pub(crate) const BLOCK_COUNT: [u32; 3] = [0, 4, 8];
    /// u16 work-group sizes.
    pub(crate) const GROUP_SIZE: [u32; 3] = [12, 14, 16];
    /// u16 sizes of the last, partial work-group.
    pub(crate) const REMAINDER: [u32; 3] = [18, 20, 22];
    /// u64 global offsets.
    pub(crate) const GLOBAL_OFFSET: [u32; 3] = [40, 48, 56];
    /// u16 grid dimensions.
    pub(crate) const GRID_DIMS: u32 = 64;
    /// The block's size.
    pub(crate) const SIZE: u32 = 256;
}

/// (`.value_kind`, offset in the block, size) of the listed hidden args.
const DISPATCH_HIDDEN: [(&str, u32, u32); 13] = [
    ("hidden_block_count_x", hidden::BLOCK_COUNT[0], 4),
    ("hidden_block_count_y", hidden::BLOCK_COUNT[1], 4),
    ("hidden_block_count_z", hidden::BLOCK_COUNT[2], 4),
    ("hidden_group_size_x", hidden::GROUP_SIZE[0], 2),
    ("hidden_group_size_y", hidden::GROUP_SIZE[1], 2),
    ("hidden_group_size_z", hidden::GROUP_SIZE[2], 2),
    ("hidden_remainder_x", hidden::REMAINDER[0], 2),
    ("hidden_remainder_y", hidden::REMAINDER[1], 2),
    ("hidden_remainder_z", hidden::REMAINDER[2], 2),
    ("hidden_global_offset_x", hidden::GLOBAL_OFFSET[0], 8),
    ("hidden_global_offset_y", hidden::GLOBAL_OFFSET[1], 8),
    ("hidden_global_offset_z", hidden::GLOBAL_OFFSET[2], 8),
    ("hidden_grid_dims", hidden::GRID_DIMS, 2),
];

/// The user SGPRs a kernel asks the hardware to load. They are placed
/// from s0 in this order (AMDGPUUsage "Initial Kernel Execution State"),
/// each only when enabled: private segment buffer (4), dispatch ptr (2),
/// queue ptr (2), kernarg segment ptr (2), dispatch id (2), flat scratch
/// init (2), private segment size (1). [`sgpr_layout`] gives the numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct UserSgprs {
    /// Not on targets with architected flat scratch (gfx942, gfx11+).
    pub private_segment_buffer: bool,
    pub dispatch_ptr: bool,
    pub queue_ptr: bool,
    pub kernarg_segment_ptr: bool,
    pub dispatch_id: bool,
    /// Not on targets with architected flat scratch (gfx942, gfx11+).
    pub flat_scratch_init: bool,
    pub private_segment_size: bool,
}

impl UserSgprs {
    /// The kernarg segment pointer only (s[0:1]).
    pub const KERNARG: UserSgprs = UserSgprs {
        private_segment_buffer: false,
        dispatch_ptr: false,
        queue_ptr: false,
        kernarg_segment_ptr: true,
        dispatch_id: false,
        flat_scratch_init: false,
        private_segment_size: false,
    };

    /// (enabled, SGPRs, kernel_code_properties bit, name) in load order.
    fn fields(self) -> [(bool, u8, u16, &'static str); 7] {
        [
            (
                self.private_segment_buffer,
                4,
                1 << 0,
                "private segment buffer",
            ),
            (self.dispatch_ptr, 2, 1 << 1, "dispatch ptr"),
            (self.queue_ptr, 2, 1 << 2, "queue ptr"),
            (self.kernarg_segment_ptr, 2, 1 << 3, "kernarg segment ptr"),
            (self.dispatch_id, 2, 1 << 4, "dispatch id"),
            (self.flat_scratch_init, 2, 1 << 5, "flat scratch init"),
            (self.private_segment_size, 1, 1 << 6, "private segment size"),
        ]
    }
}

/// Where the hardware puts a kernel's input SGPRs ([`sgpr_layout`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SgprLayout {
    /// COMPUTE_PGM_RSRC2.USER_SGPR_COUNT (with gfx1100's padding).
    pub user_sgpr_count: u8,
    pub private_segment_buffer: Option<u8>,
    pub dispatch_ptr: Option<u8>,
    pub queue_ptr: Option<u8>,
    pub kernarg_segment_ptr: Option<u8>,
    pub dispatch_id: Option<u8>,
    pub flat_scratch_init: Option<u8>,
    pub private_segment_size: Option<u8>,
    /// The system SGPRs, right after the user SGPRs.
    pub workgroup_id: [Option<u8>; 3],
    /// With a private segment (private_segment_fixed_size > 0), on targets
    /// without architected flat scratch.
    pub private_segment_wave_offset: Option<u8>,
    /// SGPRs the hardware writes before the first instruction.
    pub input_sgprs: u8,
}

/// Where each explicit argument lies in the kernarg segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KernargLayout {
    /// Byte offset of each explicit argument, in order.
    pub offsets: Vec<u32>,
    /// Byte offset of the hidden block ([`HiddenArgs::Dispatch`]).
    pub hidden: Option<u32>,
    /// `.kernarg_segment_size` (and the descriptor's kernarg_size).
    pub size: u32,
    /// `.kernarg_segment_align`.
    pub align: u32,
}

/// One kernel of a code object written without LLVM.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KernelImage<'a> {
    /// The kernel symbol (the reflection's `kernel`, e.g. `main`, `m3.main`);
    /// the descriptor is `<symbol>.kd`.
    pub symbol: &'a str,
    /// Machine code; the kernel entry is its first byte.
    pub code: &'a [u8],
    /// gfx1100, gfx1030, gfx1201, gfx90a or gfx942 (`crate::KNOWN_TARGETS`).
    pub target: &'a str,
    /// false for wave32 (gfx10+ only), true for wave64.
    pub wave64: bool,
    /// SGPRs the code names (s0 up to the highest it reads or writes),
    /// VCC and the other special SGPRs not counted: the writer adds those.
    pub sgpr_count: u32,
    /// VGPRs the code names (v0 up to the highest).
    pub vgpr_count: u32,
    /// Workgroup (LDS) bytes.
    pub group_segment_fixed_size: u32,
    /// Scratch bytes per work-item (0: no private segment).
    pub private_segment_fixed_size: u32,
    /// `.reqd_workgroup_size`; `.max_flat_workgroup_size` is the product.
    pub workgroup_size: [u32; 3],
    pub user_sgprs: UserSgprs,
    /// ENABLE_SGPR_WORKGROUP_ID_X/Y/Z: system SGPRs after the user SGPRs.
    pub workgroup_ids: [bool; 3],
    /// ENABLE_VGPR_WORKITEM_ID: 0 (x), 1 (x, y), 2 (x, y, z); packed into
    /// v0 (10 bits each) on gfx90a, gfx942 and gfx11+, else v0, v1, v2.
    pub workitem_id_dims: u32,
    pub args: &'a [KernelArg<'a>],
    pub hidden_args: HiddenArgs,
}

/// What the writer needs to know about a processor.
struct Target {
    name: &'static str,
    /// `e_flags`: EF_AMDGPU_MACH_* | xnack and sramecc as LLVM sets them
    /// (AMDGPUUsage "ELF Header": EF_AMDGPU_FEATURE_XNACK_ANY_V4 0x100,
    /// EF_AMDGPU_FEATURE_SRAMECC_ANY_V4 0x400).
    e_flags: u32,
    /// 9, 10, 11 or 12.
    generation: u8,
    /// AMDGPUUsage processor table, "Architected flat scratch".
    architected_flat_scratch: bool,
    /// "Packed work-item IDs": x, y and z share v0.
    packed_tid: bool,
    /// gfx90a and gfx942 (MAI instructions, unified VGPR/AGPR file):
    /// `.agpr_count` in the metadata, ACCUM_OFFSET in rsrc3, VGPRs
    /// granulated by 8 at wave64.
    mai: bool,
    /// SGPRs a wave addresses (s0..).
    max_sgprs: u32,
    /// LLVM's UserSGPRInit16Bug (gfx1100, gfx1102; wave32 only).
    user_sgpr_init16_bug: bool,
}

const TARGETS: [Target; 5] = [
    Target {
        name: "gfx1100",
        e_flags: 0x041,
        generation: 11,
        architected_flat_scratch: true,
        packed_tid: true,
        mai: false,
        max_sgprs: 106,
        user_sgpr_init16_bug: true,
    },
    Target {
        name: "gfx1030",
        e_flags: 0x036,
        generation: 10,
        architected_flat_scratch: false,
        packed_tid: false,
        mai: false,
        max_sgprs: 106,
        user_sgpr_init16_bug: false,
    },
    Target {
        name: "gfx1201",
        e_flags: 0x04e,
        generation: 12,
        architected_flat_scratch: true,
        packed_tid: true,
        mai: false,
        max_sgprs: 106,
        user_sgpr_init16_bug: false,
    },
    Target {
        name: "gfx942",
        e_flags: 0x04c | 0x100 | 0x400,
        generation: 9,
        architected_flat_scratch: true,
        packed_tid: true,
        mai: true,
        max_sgprs: 102,
        user_sgpr_init16_bug: false,
    },
    Target {
        name: "gfx90a",
        e_flags: 0x03f | 0x100 | 0x400,
        generation: 9,
        architected_flat_scratch: false,
        packed_tid: true,
        mai: true,
        max_sgprs: 102,
        user_sgpr_init16_bug: false,
    },
];

fn target(name: &str) -> Result<&'static Target, ObjectError> {
    TARGETS
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| ObjectError::UnsupportedTarget {
            target: name.into(),
        })
}

/// The special SGPRs LLVM adds to the ones the code names (LLVM
/// `IsaInfo::getNumExtraSGPRs`; see the module comment): VCC on gfx10+;
/// on gfx9 (xnack `any`) VCC and the XNACK mask, and FLAT_SCRATCH too with
/// architected flat scratch or when the kernel sets it up (flat scratch
/// init).
fn extra_sgprs(t: &Target, user: UserSgprs) -> u32 {
    if t.generation >= 10 {
        2
    } else if t.architected_flat_scratch || user.flat_scratch_init {
        6
    } else {
        4
    }
}

/// The VGPRs a wave addresses.
const MAX_VGPRS: u32 = 256;
/// LDS a workgroup may allocate on every supported target.
const MAX_LDS: u32 = 65536;
/// `s_nop 0`: LLVM's fill between kernels.
const S_NOP: u32 = 0xbf80_0000;
/// `s_code_end`: LLVM's end padding on gfx10+.
const S_CODE_END: u32 = 0xbf9f_0000;

fn align_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

/// The kernarg offsets LLVM gives `args` (AMDGPUSubtarget
/// getExplicitKernArgSize / getKernArgSegmentSize): each argument at the
/// previous end rounded up to its alignment; the hidden block 8-aligned
/// after them; the segment size rounded up to 4; the alignment at least 4
/// (8 with the hidden block).
pub(crate) fn kernarg_layout(
    args: &[KernelArg<'_>],
    hidden_args: HiddenArgs,
) -> Result<KernargLayout, ObjectError> {
    let mut offsets = Vec::with_capacity(args.len());
    let mut end = 0u64;
    let mut align = 4u64;
    for a in args {
        let pointer_ok = match a.kind {
            ArgKind::GlobalBuffer { .. } => a.size == 8 && a.align == 8,
            ArgKind::ByValue => true,
        };
        if !a.align.is_power_of_two() || !pointer_ok {
            return Err(ObjectError::BadArgLayout {
                arg: a.name.into(),
                size: a.size,
                align: a.align,
            });
        }
        let at = align_up(end, u64::from(a.align));
        offsets.push(u32::try_from(at).map_err(|_| ObjectError::KernargOverflow)?);
        end = at + u64::from(a.size);
        align = align.max(u64::from(a.align));
    }
    let hidden_at = match hidden_args {
        HiddenArgs::None => None,
        HiddenArgs::Dispatch => {
            align = align.max(8);
            let at = align_up(end, 8);
            end = at + u64::from(hidden::SIZE);
            Some(u32::try_from(at).map_err(|_| ObjectError::KernargOverflow)?)
        }
    };
    let size = u32::try_from(align_up(end, 4)).map_err(|_| ObjectError::KernargOverflow)?;
    Ok(KernargLayout {
        offsets,
        hidden: hidden_at,
        size,
        align: u32::try_from(align).map_err(|_| ObjectError::KernargOverflow)?,
    })
}

/// Where the hardware loads a kernel's input SGPRs on `target`
/// (AMDGPUUsage "Initial Kernel Execution State": the enabled user SGPRs
/// from s0 in [`UserSgprs`] order, then the workgroup ids x, y, z, then the
/// private segment wave offset where there is one), with gfx1100's wave32
/// padding of the user SGPRs to 16 minus the workgroup ids (see the module
/// comment).
pub(crate) fn sgpr_layout(
    target_name: &str,
    wave64: bool,
    user: UserSgprs,
    workgroup_ids: [bool; 3],
    private_segment: bool,
) -> Result<SgprLayout, ObjectError> {
    let t = target(target_name)?;
    let mut layout = SgprLayout::default();
    let mut next = 0u8;
    let slots = [
        &mut layout.private_segment_buffer,
        &mut layout.dispatch_ptr,
        &mut layout.queue_ptr,
        &mut layout.kernarg_segment_ptr,
        &mut layout.dispatch_id,
        &mut layout.flat_scratch_init,
        &mut layout.private_segment_size,
    ];
    for ((enabled, width, _, what), slot) in user.fields().into_iter().zip(slots) {
        if !enabled {
            continue;
        }
        if t.architected_flat_scratch
            && matches!(what, "private segment buffer" | "flat scratch init")
        {
            return Err(ObjectError::UserSgprUnavailable {
                what,
                target: t.name.into(),
            });
        }
        *slot = Some(next);
        next += width;
    }
    let system = workgroup_ids.iter().filter(|&&on| on).count() as u8;
    if t.user_sgpr_init16_bug && !wave64 {
        next = next.max(16 - system);
    }
    // At most 4 + 2 + 2 + 2 + 2 + 2 + 1 = 15: USER_SGPR_COUNT never
    // passes the 16 the hardware loads.
    debug_assert!(next <= 16);
    layout.user_sgpr_count = next;
    for (id, on) in layout.workgroup_id.iter_mut().zip(workgroup_ids) {
        if on {
            *id = Some(next);
            next += 1;
        }
    }
    // With architected flat scratch the hardware sets FLAT_SCRATCH to the
    // wave's scratch and loads no offset SGPR.
    if private_segment && !t.architected_flat_scratch {
        layout.private_segment_wave_offset = Some(next);
        next += 1;
    }
    layout.input_sgprs = next;
    Ok(layout)
}

/// A kernel with everything the descriptor and the metadata need.
struct Prepared<'k, 'a> {
    image: &'k KernelImage<'a>,
    kernarg: KernargLayout,
    /// `.sgpr_count`: the named SGPRs plus the target's extra SGPRs.
    sgprs: u32,
    /// `.vgpr_count`: the named VGPRs, at least the input ones.
    vgprs: u32,
    descriptor: [u8; 64],
}

fn prepare<'k, 'a>(t: &Target, k: &'k KernelImage<'a>) -> Result<Prepared<'k, 'a>, ObjectError> {
    let symbol = || k.symbol.to_string();
    if k.code.is_empty() || !k.code.len().is_multiple_of(4) {
        return Err(ObjectError::BadCode { symbol: symbol() });
    }
    if !k.wave64 && t.generation < 10 {
        return Err(ObjectError::Wave32Unsupported {
            symbol: symbol(),
            target: t.name.into(),
        });
    }
    let items = k
        .workgroup_size
        .iter()
        .map(|&d| u64::from(d))
        .product::<u64>();
    if k.workgroup_size.contains(&0) || items > 1024 {
        return Err(ObjectError::BadWorkgroupSize {
            symbol: symbol(),
            size: k.workgroup_size,
        });
    }
    if k.workitem_id_dims > 2 {
        return Err(ObjectError::BadWorkitemDims {
            symbol: symbol(),
            dims: k.workitem_id_dims,
        });
    }
    if k.group_segment_fixed_size > MAX_LDS {
        return Err(ObjectError::TooMuchLds {
            symbol: symbol(),
            bytes: k.group_segment_fixed_size,
        });
    }
    for (kind, count, limit) in [
        ("SGPR", k.sgpr_count, t.max_sgprs),
        ("VGPR", k.vgpr_count, MAX_VGPRS),
    ] {
        if count > limit {
            return Err(ObjectError::TooManyRegisters {
                symbol: symbol(),
                kind,
                count,
                limit,
            });
        }
    }
    let private = k.private_segment_fixed_size > 0;
    let sgpr = sgpr_layout(t.name, k.wave64, k.user_sgprs, k.workgroup_ids, private)?;
    let kernarg = kernarg_layout(k.args, k.hidden_args)?;

    // As LLVM counts them: the SGPRs the code names (input SGPRs it never
    // reads are not counted) plus the special ones.
    let sgprs = k.sgpr_count + extra_sgprs(t, k.user_sgprs);
    let input_vgprs = if t.packed_tid {
        1
    } else {
        k.workitem_id_dims + 1
    };
    let vgprs = k.vgpr_count.max(input_vgprs);

    // COMPUTE_PGM_RSRC1 (AMDGPUUsage "compute_pgm_rsrc1"): granulated
    // counts are ceil(max(1, n) / granule) - 1; VGPRs by 8 on gfx90a/gfx942
    // and at wave32, by 4 at wave64 elsewhere; SGPRs by 8.
    let vgpr_granule = if t.mai || !k.wave64 { 8 } else { 4 };
    let blocks = |n: u32, granule: u32| n.max(1).div_ceil(granule) - 1;
    let mut rsrc1 = blocks(vgprs, vgpr_granule) | blocks(sgprs, 8) << 6;
    // FLOAT_ROUND_MODE_32/16_64 round to nearest even (0);
    // FLOAT_DENORM_MODE_32/16_64 flush none (3), LLVM's default for
    // kernels without "denormal-fp-math" attributes.
    rsrc1 |= 3 << 16 | 3 << 18;
    if t.generation < 12 {
        // ENABLE_DX10_CLAMP and ENABLE_IEEE_MODE (gone on gfx12).
        rsrc1 |= 1 << 21 | 1 << 23;
    }
    if t.generation >= 10 {
        // WGP_MODE (LLVM compiles for WGP mode unless +cumode) and
        // MEM_ORDERED.
        rsrc1 |= 1 << 29 | 1 << 30;
    }
    // COMPUTE_PGM_RSRC2 ("compute_pgm_rsrc2"): ENABLE_PRIVATE_SEGMENT,
    // USER_SGPR_COUNT, ENABLE_SGPR_WORKGROUP_ID_X/Y/Z,
    // ENABLE_VGPR_WORKITEM_ID; trap handler, workgroup info, exceptions
    // and LDS size 0 as LLVM writes them (the CP fills the LDS size).
    let mut rsrc2 = u32::from(private) | u32::from(sgpr.user_sgpr_count) << 1;
    for (i, &on) in k.workgroup_ids.iter().enumerate() {
        rsrc2 |= u32::from(on) << (7 + i);
    }
    rsrc2 |= k.workitem_id_dims << 11;
    // COMPUTE_PGM_RSRC3: gfx90a/gfx942 ACCUM_OFFSET (the first AGPR, in
    // units of 4 VGPRs, minus 1: right after the VGPRs as there are no
    // AGPRs), TG_SPLIT 0; gfx10/gfx11/gfx12: 0 as LLVM writes it.
    let rsrc3 = if t.mai { vgprs.div_ceil(4) - 1 } else { 0 };
    // kernel_code_properties: the user SGPR enables, then
    // ENABLE_WAVEFRONT_SIZE32 (bit 10); USES_DYNAMIC_STACK (bit 11) 0.
    let mut properties = k
        .user_sgprs
        .fields()
        .iter()
        .filter(|f| f.0)
        .fold(0u16, |p, f| p | f.2);
    if !k.wave64 {
        properties |= 1 << 10;
    }

    let mut d = [0u8; 64];
    d[0..4].copy_from_slice(&k.group_segment_fixed_size.to_le_bytes());
    d[4..8].copy_from_slice(&k.private_segment_fixed_size.to_le_bytes());
    d[8..12].copy_from_slice(&kernarg.size.to_le_bytes());
    // 16..24: kernel_code_entry_byte_offset, from the relocation.
    d[44..48].copy_from_slice(&rsrc3.to_le_bytes());
    d[48..52].copy_from_slice(&rsrc1.to_le_bytes());
    d[52..56].copy_from_slice(&rsrc2.to_le_bytes());
    d[56..58].copy_from_slice(&properties.to_le_bytes());
    // 58..60: kernarg_preload 0 (no preloaded kernargs).
    Ok(Prepared {
        image: k,
        kernarg,
        sgprs,
        vgprs,
        descriptor: d,
    })
}

/// A msgpack encoder writing what LLVM's `msgpack::Writer` writes:
/// the shortest form of each unsigned integer, string and container header.
struct MsgPack(Vec<u8>);

impl MsgPack {
    fn uint(&mut self, v: u64) {
        let o = &mut self.0;
        if v < 0x80 {
            o.push(v as u8);
        } else if v <= 0xff {
            o.extend_from_slice(&[0xcc, v as u8]);
        } else if v <= 0xffff {
            o.push(0xcd);
            o.extend_from_slice(&(v as u16).to_be_bytes());
        } else if v <= 0xffff_ffff {
            o.push(0xce);
            o.extend_from_slice(&(v as u32).to_be_bytes());
        } else {
            o.push(0xcf);
            o.extend_from_slice(&v.to_be_bytes());
        }
    }

    fn bool(&mut self, v: bool) {
        self.0.push(if v { 0xc3 } else { 0xc2 });
    }

    fn str_header(&mut self, len: usize) {
        let o = &mut self.0;
        if len < 32 {
            o.push(0xa0 | len as u8);
        } else if len <= 0xff {
            o.extend_from_slice(&[0xd9, len as u8]);
        } else if len <= 0xffff {
            o.push(0xda);
            o.extend_from_slice(&(len as u16).to_be_bytes());
        } else {
            o.push(0xdb);
            o.extend_from_slice(&(len as u32).to_be_bytes());
        }
    }

    fn str(&mut self, s: &str) {
        self.str_header(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }

    fn container(&mut self, len: usize, fix: u8, x16: u8) {
        let o = &mut self.0;
        if len < 16 {
            o.push(fix | len as u8);
        } else if len <= 0xffff {
            o.push(x16);
            o.extend_from_slice(&(len as u16).to_be_bytes());
        } else {
            o.push(x16 + 1);
            o.extend_from_slice(&(len as u32).to_be_bytes());
        }
    }

    fn array(&mut self, len: usize) {
        self.container(len, 0x90, 0xdc);
    }

    fn map(&mut self, len: usize) {
        self.container(len, 0x80, 0xde);
    }

    /// `key: uint`.
    fn entry(&mut self, key: &str, v: u64) {
        self.str(key);
        self.uint(v);
    }
}

/// The `amdhsa.*` metadata map (AMDGPUUsage "Code Object V5 Metadata"),
/// keys in the byte order LLVM's msgpack document sorts them in.
fn metadata(t: &Target, kernels: &[Prepared<'_, '_>]) -> Vec<u8> {
    let mut m = MsgPack(Vec::with_capacity(512 * kernels.len()));
    m.map(3);
    m.str("amdhsa.kernels");
    m.array(kernels.len());
    for p in kernels {
        let k = p.image;
        m.map(15 + usize::from(t.mai) + usize::from(t.generation >= 10));
        if t.mai {
            m.entry(".agpr_count", 0);
        }
        m.str(".args");
        let hidden = if p.kernarg.hidden.is_some() {
            DISPATCH_HIDDEN.len()
        } else {
            0
        };
        m.array(k.args.len() + hidden);
        for (a, &offset) in k.args.iter().zip(&p.kernarg.offsets) {
            let global = matches!(a.kind, ArgKind::GlobalBuffer { .. });
            m.map(3 + usize::from(global) + usize::from(!a.name.is_empty()));
            if global {
                m.str(".address_space");
                m.str("global");
            }
            if !a.name.is_empty() {
                m.str(".name");
                m.str(a.name);
            }
            m.entry(".offset", u64::from(offset));
            m.entry(".size", u64::from(a.size));
            m.str(".value_kind");
            m.str(if global { "global_buffer" } else { "by_value" });
        }
        if let Some(base) = p.kernarg.hidden {
            for (kind, offset, size) in DISPATCH_HIDDEN {
                m.map(3);
                m.entry(".offset", u64::from(base + offset));
                m.entry(".size", u64::from(size));
                m.str(".value_kind");
                m.str(kind);
            }
        }
        m.entry(
            ".group_segment_fixed_size",
            u64::from(k.group_segment_fixed_size),
        );
        m.entry(".kernarg_segment_align", u64::from(p.kernarg.align));
        m.entry(".kernarg_segment_size", u64::from(p.kernarg.size));
        let items = k.workgroup_size.iter().map(|&d| u64::from(d)).product();
        m.entry(".max_flat_workgroup_size", items);
        m.str(".name");
        m.str(k.symbol);
        m.entry(
            ".private_segment_fixed_size",
            u64::from(k.private_segment_fixed_size),
        );
        m.str(".reqd_workgroup_size");
        m.array(3);
        for d in k.workgroup_size {
            m.uint(u64::from(d));
        }
        m.entry(".sgpr_count", u64::from(p.sgprs));
        m.entry(".sgpr_spill_count", 0);
        m.str(".symbol");
        m.str_header(k.symbol.len() + 3);
        m.0.extend_from_slice(k.symbol.as_bytes());
        m.0.extend_from_slice(b".kd");
        m.str(".uses_dynamic_stack");
        m.bool(false);
        m.entry(".vgpr_count", u64::from(p.vgprs));
        m.entry(".vgpr_spill_count", 0);
        m.entry(".wavefront_size", if k.wave64 { 64 } else { 32 });
        if t.generation >= 10 {
            m.entry(".workgroup_processor_mode", 1);
        }
    }
    m.str("amdhsa.target");
    m.str_header("amdgcn-amd-amdhsa--".len() + t.name.len());
    m.0.extend_from_slice(b"amdgcn-amd-amdhsa--");
    m.0.extend_from_slice(t.name.as_bytes());
    m.str("amdhsa.version");
    m.array(2);
    m.uint(1);
    m.uint(2);
    m.0
}

// ELF constants (ELF-64 gABI; AMDGPUUsage "ELF Code Object").
const ELFOSABI_AMDGPU_HSA: u8 = 64;
const ELFABIVERSION_AMDGPU_HSA_V5: u8 = 3;
const ET_REL: u16 = 1;
const EM_AMDGPU: u16 = 224;
const SHT_PROGBITS: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_RELA: u32 = 4;
const SHT_NOTE: u32 = 7;
const SHF_ALLOC: u64 = 2;
const SHF_EXECINSTR: u64 = 4;
const SHF_INFO_LINK: u64 = 0x40;
const STB_GLOBAL: u8 = 1;
const STT_OBJECT: u8 = 1;
const STT_FUNC: u8 = 2;
const STV_PROTECTED: u8 = 3;
const NT_AMDGPU_METADATA: u32 = 32;
const R_AMDGPU_REL64: u64 = 5;

// Section indices of the relocatable object.
const SEC_STRTAB: u16 = 1;
const SEC_TEXT: u16 = 2;
const SEC_RODATA: u16 = 3;
const SEC_RELA: u16 = 4;
const SEC_NOTE: u16 = 5;
const SEC_SYMTAB: u16 = 6;
const SECTIONS: u16 = 7;

/// A section header of the relocatable object (sh_addr is 0).
#[derive(Default)]
struct Shdr {
    name: u32,
    sh_type: u32,
    flags: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

impl Shdr {
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.name.to_le_bytes());
        out.extend_from_slice(&self.sh_type.to_le_bytes());
        out.extend_from_slice(&self.flags.to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes());
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.size.to_le_bytes());
        out.extend_from_slice(&self.link.to_le_bytes());
        out.extend_from_slice(&self.info.to_le_bytes());
        out.extend_from_slice(&self.align.to_le_bytes());
        out.extend_from_slice(&self.entsize.to_le_bytes());
    }
}

/// Write the relocatable object holding `kernels` (what clang-19 `-c`
/// writes for them; see the module comment).
pub(crate) fn write_relocatable(kernels: &[KernelImage<'_>]) -> Result<Vec<u8>, ObjectError> {
    let first = kernels.first().ok_or(ObjectError::NoKernels)?;
    let t = target(first.target)?;
    let mut names: Vec<&str> = Vec::with_capacity(kernels.len());
    for k in kernels {
        if k.target != t.name {
            return Err(ObjectError::MixedTargets {
                symbol: k.symbol.into(),
                target: k.target.into(),
                expected: t.name.into(),
            });
        }
        if k.symbol.is_empty() || k.symbol.contains('\0') {
            return Err(ObjectError::BadSymbol {
                symbol: k.symbol.into(),
            });
        }
        names.push(k.symbol);
    }
    // A kernel `a.kd` next to a kernel `a` clashes with `a`'s descriptor.
    for (i, k) in kernels.iter().enumerate() {
        let kd_clash = |n: &str| {
            n.len() == k.symbol.len() + 3 && n.starts_with(k.symbol) && n.ends_with(".kd")
        };
        if names[..i].contains(&k.symbol) {
            return Err(ObjectError::DuplicateSymbol {
                symbol: k.symbol.into(),
            });
        }
        if let Some(n) = names.iter().find(|n| kd_clash(n)) {
            return Err(ObjectError::DuplicateSymbol {
                symbol: (*n).into(),
            });
        }
    }
    let prepared = kernels
        .iter()
        .map(|k| prepare(t, k))
        .collect::<Result<Vec<_>, _>>()?;

    // .text: kernels 256-aligned with s_nop between them, then LLVM's end
    // padding.
    let mut text =
        Vec::with_capacity(kernels.iter().map(|k| k.code.len() + 256).sum::<usize>() + 1024);
    let mut entries = Vec::with_capacity(kernels.len());
    for k in kernels {
        while !text.len().is_multiple_of(256) {
            text.extend_from_slice(&S_NOP.to_le_bytes());
        }
        entries.push(text.len() as u64);
        text.extend_from_slice(k.code);
    }
    let (line, pad, lines) = match t.generation {
        9 => (64, S_NOP, 16),
        10 => (64, S_CODE_END, 3),
        _ => (128, S_CODE_END, 3),
    };
    let end = align_up(text.len() as u64, line) as usize + line as usize * lines;
    while text.len() < end {
        text.extend_from_slice(&pad.to_le_bytes());
    }

    // .rodata: the descriptors; .rela.rodata: their entry offsets.
    let mut rodata = Vec::with_capacity(64 * kernels.len());
    let mut rela = Vec::with_capacity(24 * kernels.len());
    for (i, p) in prepared.iter().enumerate() {
        rela.extend_from_slice(&(rodata.len() as u64 + 16).to_le_bytes());
        let kernel_symbol = 1 + 2 * i as u64;
        rela.extend_from_slice(&(kernel_symbol << 32 | R_AMDGPU_REL64).to_le_bytes());
        rela.extend_from_slice(&16i64.to_le_bytes());
        rodata.extend_from_slice(&p.descriptor);
    }

    // .note: NT_AMDGPU_METADATA, owner "AMDGPU" (namesz 7, padded to 8).
    let desc = metadata(t, &prepared);
    let mut note = Vec::with_capacity(24 + desc.len());
    note.extend_from_slice(&7u32.to_le_bytes());
    note.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    note.extend_from_slice(&NT_AMDGPU_METADATA.to_le_bytes());
    note.extend_from_slice(b"AMDGPU\0\0");
    note.extend_from_slice(&desc);
    note.resize(note.len().next_multiple_of(4), 0);

    // .strtab (also the section name table) and .symtab: per kernel its
    // function, then its descriptor, as LLVM orders them.
    let mut strtab = Vec::with_capacity(64 + 2 * names.iter().map(|n| n.len() + 4).sum::<usize>());
    strtab.push(0);
    let mut section_names = [0u32; SECTIONS as usize];
    for (i, name) in [
        ".strtab",
        ".text",
        ".rodata",
        ".rela.rodata",
        ".note",
        ".symtab",
    ]
    .into_iter()
    .enumerate()
    {
        section_names[i + 1] = strtab.len() as u32;
        strtab.extend_from_slice(name.as_bytes());
        strtab.push(0);
    }
    let mut symtab = vec![0u8; 24];
    for (i, k) in kernels.iter().enumerate() {
        let name = strtab.len() as u32;
        strtab.extend_from_slice(k.symbol.as_bytes());
        strtab.push(0);
        let kd_name = strtab.len() as u32;
        strtab.extend_from_slice(k.symbol.as_bytes());
        strtab.extend_from_slice(b".kd\0");
        let symbols = [
            (
                name,
                STB_GLOBAL << 4 | STT_FUNC,
                STV_PROTECTED,
                SEC_TEXT,
                entries[i],
                k.code.len() as u64,
            ),
            (
                kd_name,
                STB_GLOBAL << 4 | STT_OBJECT,
                0,
                SEC_RODATA,
                64 * i as u64,
                64,
            ),
        ];
        for (name, info, other, shndx, value, size) in symbols {
            symtab.extend_from_slice(&name.to_le_bytes());
            symtab.push(info);
            symtab.push(other);
            symtab.extend_from_slice(&shndx.to_le_bytes());
            symtab.extend_from_slice(&value.to_le_bytes());
            symtab.extend_from_slice(&size.to_le_bytes());
        }
    }

    // File layout: header, .text at 256, .rodata, .note, .symtab,
    // .rela.rodata, .strtab, section headers.
    let text_off = 256u64;
    let rodata_off = align_up(text_off + text.len() as u64, 64);
    let note_off = rodata_off + rodata.len() as u64;
    let symtab_off = align_up(note_off + note.len() as u64, 8);
    let rela_off = symtab_off + symtab.len() as u64;
    let strtab_off = rela_off + rela.len() as u64;
    let shoff = align_up(strtab_off + strtab.len() as u64, 8);
    let total = shoff + 64 * u64::from(SECTIONS);

    let mut out = Vec::with_capacity(total as usize);
    out.extend_from_slice(b"\x7fELF");
    out.extend_from_slice(&[2, 1, 1, ELFOSABI_AMDGPU_HSA, ELFABIVERSION_AMDGPU_HSA_V5]);
    out.resize(16, 0);
    out.extend_from_slice(&ET_REL.to_le_bytes());
    out.extend_from_slice(&EM_AMDGPU.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes()); // e_entry
    out.extend_from_slice(&0u64.to_le_bytes()); // e_phoff
    out.extend_from_slice(&shoff.to_le_bytes());
    out.extend_from_slice(&t.e_flags.to_le_bytes());
    for half in [64u16, 0, 0, 64, SECTIONS, SEC_STRTAB] {
        out.extend_from_slice(&half.to_le_bytes());
    }
    for (at, bytes) in [
        (text_off, &text),
        (rodata_off, &rodata),
        (note_off, &note),
        (symtab_off, &symtab),
        (rela_off, &rela),
        (strtab_off, &strtab),
    ] {
        out.resize(at as usize, 0);
        out.extend_from_slice(bytes);
    }
    out.resize(shoff as usize, 0);
    let sh = |i: u16| section_names[usize::from(i)];
    let headers = [
        Shdr::default(),
        Shdr {
            name: sh(SEC_STRTAB),
            sh_type: SHT_STRTAB,
            offset: strtab_off,
            size: strtab.len() as u64,
            align: 1,
            ..Shdr::default()
        },
        Shdr {
            name: sh(SEC_TEXT),
            sh_type: SHT_PROGBITS,
            flags: SHF_ALLOC | SHF_EXECINSTR,
            offset: text_off,
            size: text.len() as u64,
            align: 256,
            ..Shdr::default()
        },
        Shdr {
            name: sh(SEC_RODATA),
            sh_type: SHT_PROGBITS,
            flags: SHF_ALLOC,
            offset: rodata_off,
            size: rodata.len() as u64,
            align: 64,
            ..Shdr::default()
        },
        Shdr {
            name: sh(SEC_RELA),
            sh_type: SHT_RELA,
            flags: SHF_INFO_LINK,
            offset: rela_off,
            size: rela.len() as u64,
            link: u32::from(SEC_SYMTAB),
            info: u32::from(SEC_RODATA),
            align: 8,
            entsize: 24,
        },
        Shdr {
            name: sh(SEC_NOTE),
            sh_type: SHT_NOTE,
            flags: SHF_ALLOC,
            offset: note_off,
            size: note.len() as u64,
            align: 4,
            ..Shdr::default()
        },
        Shdr {
            name: sh(SEC_SYMTAB),
            sh_type: SHT_SYMTAB,
            offset: symtab_off,
            size: symtab.len() as u64,
            link: u32::from(SEC_STRTAB),
            // The first global symbol: all but the null one are global.
            info: 1,
            align: 8,
            entsize: 24,
            ..Shdr::default()
        },
    ];
    for h in &headers {
        h.write(&mut out);
    }
    debug_assert_eq!(out.len() as u64, total);
    Ok(out)
}

/// Write a code object (ET_DYN, as [`link::link`] lays it out) holding
/// `kernels`, all for the same target.
pub(crate) fn write_code_object(kernels: &[KernelImage<'_>]) -> Result<Vec<u8>, ObjectError> {
    Ok(link::link(&write_relocatable(kernels)?)?)
}

/// What the tests check: for every known target, the writer's code object
/// of LLVM's own machine code, given LLVM's register counts and input
/// enables, equals the LLVM path's byte for byte (metadata, descriptors,
/// layout), for kernels with and without hidden arguments, with workgroup
/// memory, scratch, two kernels, long names, and at wave64 on gfx10+; the
/// linked layout (segments, entry offsets, exports, padding) and that
/// ld.lld-19 lays the writer's object out the same; the USER_SGPR_COUNT and
/// workgroup id placement; LLVM's kernarg layout rule; the typed errors;
/// and the writer's time per kernel.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BindingKind, KNOWN_TARGETS, Options, Source, Toolchain};

    /// A read and a read-write buffer with runtime sizes, 64 work-items.
    const TRIPLE: &str = "
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&dst)) { return; }
    dst[i] = src[i] * 3u;
}
";

    /// Two kernels: one with hidden arguments (num_workgroups), workgroup
    /// memory, three workgroup ids and three work-item ids; one with none.
    const GRID: &str = "
@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
var<workgroup> tile: array<u32, 64>;
@compute @workgroup_size(8, 4, 2)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    tile[lid.x] = gid.x;
    workgroupBarrier();
    dst[gid.x + gid.y * 7u + gid.z] = nw.x * nw.y + nw.z + tile[lid.z];
}
@compute @workgroup_size(1)
fn second() {
    dst[0] = 1u;
}
";

    /// A prefix that makes the kernel names longer than a msgpack fixstr
    /// (31 bytes), so the metadata needs str8 as LLVM writes it.
    const LONG_PREFIX: &str = "module_with_a_rather_long_prefix";

    #[derive(Clone, Debug)]
    struct Sec {
        name: String,
        sh_type: u32,
        flags: u64,
        addr: u64,
        offset: u64,
        size: u64,
        align: u64,
    }

    #[derive(Clone, Debug, PartialEq)]
    struct Sym {
        name: String,
        info: u8,
        other: u8,
        shndx: u16,
        value: u64,
        size: u64,
    }

    /// Just enough of an ELF-64 reader for the tests.
    struct Elf<'a> {
        bytes: &'a [u8],
        sections: Vec<Sec>,
    }

    fn u16_at(b: &[u8], at: usize) -> u16 {
        u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
    }
    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }
    fn u64_at(b: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
    }
    fn cstr(b: &[u8], at: usize) -> String {
        let end = b[at..].iter().position(|&c| c == 0).unwrap();
        String::from_utf8(b[at..at + end].to_vec()).unwrap()
    }

    impl<'a> Elf<'a> {
        fn parse(bytes: &'a [u8]) -> Self {
            assert_eq!(&bytes[..4], b"\x7fELF");
            let shoff = u64_at(bytes, 40) as usize;
            let shnum = u16_at(bytes, 60) as usize;
            let shstrndx = u16_at(bytes, 62) as usize;
            let raw = |i: usize| {
                let h = shoff + 64 * i;
                (
                    u32_at(bytes, h),
                    Sec {
                        name: String::new(),
                        sh_type: u32_at(bytes, h + 4),
                        flags: u64_at(bytes, h + 8),
                        addr: u64_at(bytes, h + 16),
                        offset: u64_at(bytes, h + 24),
                        size: u64_at(bytes, h + 32),
                        align: u64_at(bytes, h + 48),
                    },
                )
            };
            let shstr = raw(shstrndx).1;
            let sections = (0..shnum)
                .map(|i| {
                    let (name, mut s) = raw(i);
                    s.name = cstr(bytes, shstr.offset as usize + name as usize);
                    s
                })
                .collect();
            Elf { bytes, sections }
        }

        fn e_type(&self) -> u16 {
            u16_at(self.bytes, 16)
        }

        fn section(&self, name: &str) -> &Sec {
            let found = self.sections.iter().find(|s| s.name == name);
            found.unwrap_or_else(|| panic!("no section {name}"))
        }

        fn data(&self, name: &str) -> &'a [u8] {
            let s = self.section(name);
            &self.bytes[s.offset as usize..(s.offset + s.size) as usize]
        }

        fn symbols(&self, table: &str, names: &str) -> Vec<Sym> {
            let strings = self.data(names);
            self.data(table)
                .chunks_exact(24)
                .map(|r| Sym {
                    name: cstr(strings, u32_at(r, 0) as usize),
                    info: r[4],
                    other: r[5],
                    shndx: u16_at(r, 6),
                    value: u64_at(r, 8),
                    size: u64_at(r, 16),
                })
                .collect()
        }

        fn symbol(&self, name: &str) -> Sym {
            let all = self.symbols(".symtab", ".strtab");
            let found = all.into_iter().find(|s| s.name == name);
            found.unwrap_or_else(|| panic!("no symbol {name}"))
        }

        /// The bytes at a loaded address of a linked code object.
        fn at(&self, addr: u64, len: usize) -> &'a [u8] {
            let s = self
                .sections
                .iter()
                .find(|s| s.flags & SHF_ALLOC != 0 && s.addr <= addr && addr < s.addr + s.size)
                .unwrap_or_else(|| panic!("no section holds {addr:#x}"));
            let at = (s.offset + addr - s.addr) as usize;
            &self.bytes[at..at + len]
        }

        fn descriptor(&self, kernel: &str) -> [u8; 64] {
            let kd = self.symbol(&format!("{kernel}.kd"));
            self.at(kd.value, 64).try_into().unwrap()
        }

        fn code(&self, kernel: &str) -> &'a [u8] {
            let s = self.symbol(kernel);
            self.at(s.value, s.size as usize)
        }

        /// The NT_AMDGPU_METADATA note, decoded.
        fn metadata(&self) -> rmpv::Value {
            let note = self.data(".note");
            let (namesz, descsz, kind) = (u32_at(note, 0), u32_at(note, 4), u32_at(note, 8));
            assert_eq!((namesz, kind), (7, NT_AMDGPU_METADATA));
            assert_eq!(&note[12..19], b"AMDGPU\0");
            let mut desc = &note[20..20 + descsz as usize];
            let value = rmpv::decode::read_value(&mut desc).unwrap();
            assert!(desc.is_empty(), "bytes after the metadata map");
            value
        }
    }

    fn get<'v>(map: &'v rmpv::Value, key: &str) -> &'v rmpv::Value {
        let entries = map.as_map().unwrap();
        let found = entries.iter().find(|(k, _)| k.as_str() == Some(key));
        &found.unwrap_or_else(|| panic!("no key {key}")).1
    }

    fn kernels_of(meta: &rmpv::Value) -> &[rmpv::Value] {
        get(meta, "amdhsa.kernels").as_array().unwrap()
    }

    /// The metadata without the fields that describe the code rather than
    /// the interface: `.sgpr_count` and `.vgpr_count` (the code
    /// generator's register allocation; the writer adds the special SGPRs
    /// to the count it is given). The writer's spill counts (0),
    /// `.agpr_count` (0), `.uses_dynamic_stack` (false) and
    /// `.private_segment_fixed_size` (its input) stay compared: LLVM's
    /// kernels here spill nothing and use no stack or AGPRs either.
    fn interface(meta: &rmpv::Value) -> rmpv::Value {
        let mut meta = meta.clone();
        let rmpv::Value::Map(root) = &mut meta else {
            panic!("metadata is not a map");
        };
        for (key, value) in root {
            let (Some("amdhsa.kernels"), rmpv::Value::Array(kernels)) = (key.as_str(), value)
            else {
                continue;
            };
            for kernel in kernels {
                let rmpv::Value::Map(fields) = kernel else {
                    panic!("kernel metadata is not a map");
                };
                fields.retain(|(k, _)| !matches!(k.as_str(), Some(".sgpr_count" | ".vgpr_count")));
            }
        }
        meta
    }

    fn uint(v: &rmpv::Value) -> u32 {
        v.as_u64().unwrap() as u32
    }

    /// An explicit argument: name, kind, size, alignment.
    type OwnedArg = (String, ArgKind, u32, u32);

    /// One kernel as the writer would be given it, from what the LLVM path
    /// built: the explicit arguments from the reflection (this crate's
    /// binding ABI), the code, register counts and input enables from
    /// LLVM's symbols, metadata and descriptor.
    struct Inputs {
        symbol: String,
        code: Vec<u8>,
        args: Vec<OwnedArg>,
        hidden: HiddenArgs,
        sgprs: u32,
        vgprs: u32,
        workgroup_size: [u32; 3],
        descriptor: [u8; 64],
    }

    fn inputs_from_llvm(
        target: &str,
        llvm: &Elf<'_>,
        name: &str,
        args: Vec<OwnedArg>,
        kernel_meta: &rmpv::Value,
    ) -> Inputs {
        let llvm_args = get(kernel_meta, ".args").as_array().unwrap();
        let hidden = if llvm_args.iter().any(|a| {
            get(a, ".value_kind")
                .as_str()
                .unwrap()
                .starts_with("hidden_")
        }) {
            HiddenArgs::Dispatch
        } else {
            HiddenArgs::None
        };
        let descriptor = llvm.descriptor(name);
        let extra = extra_sgprs(target_of(target), user_sgprs_of(&descriptor));
        let reqd = get(kernel_meta, ".reqd_workgroup_size").as_array().unwrap();
        Inputs {
            symbol: name.into(),
            code: llvm.code(name).to_vec(),
            args,
            hidden,
            sgprs: uint(get(kernel_meta, ".sgpr_count")) - extra,
            vgprs: uint(get(kernel_meta, ".vgpr_count")),
            workgroup_size: [uint(&reqd[0]), uint(&reqd[1]), uint(&reqd[2])],
            descriptor,
        }
    }

    /// The explicit arguments of an entry point (this crate's binding ABI).
    fn args_of_entry(entry: &crate::EntryReflection) -> Vec<OwnedArg> {
        let mut args = Vec::new();
        for b in &entry.bindings {
            let read_only = match b.kind {
                BindingKind::StorageRead => true,
                BindingKind::StorageReadWrite => false,
                other => panic!("test shader binding kind {other:?}"),
            };
            args.push((b.arg.clone(), ArgKind::GlobalBuffer { read_only }, 8, 8));
            if let Some(size) = &b.size_arg {
                args.push((size.clone(), ArgKind::ByValue, 4, 4));
            }
        }
        args
    }

    fn target_of(name: &str) -> &'static Target {
        target(name).unwrap()
    }

    /// The user SGPR enables of a descriptor's kernel_code_properties.
    fn user_sgprs_of(d: &[u8; 64]) -> UserSgprs {
        let p = u16_at(d, 56);
        let on = |bit: u16| p & (1 << bit) != 0;
        UserSgprs {
            private_segment_buffer: on(0),
            dispatch_ptr: on(1),
            queue_ptr: on(2),
            kernarg_segment_ptr: on(3),
            dispatch_id: on(4),
            flat_scratch_init: on(5),
            private_segment_size: on(6),
        }
    }

    /// LLVM IR compiled by clang-19 for `target` (wave64 on gfx10+ with
    /// `-target-feature +wavefrontsize64`) and linked by this crate's
    /// linker, as the crate's in-process path does.
    fn clang_code_object(ir: &str, target: &str, wave64: bool) -> Vec<u8> {
        let dir = std::env::temp_dir().join(format!(
            "baseline-object-{}-{target}-{}",
            std::process::id(),
            ir.len()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let (ll, obj) = (dir.join("k.ll"), dir.join("k.o"));
        std::fs::write(&ll, crate::ir_for_target(ir, target)).unwrap();
        let mut clang = std::process::Command::new(Toolchain::find(None).unwrap().clang);
        clang
            .args([
                "-x",
                "ir",
                "-target",
                "amdgcn-amd-amdhsa",
                "-nogpulib",
                "-O3",
            ])
            .arg(format!("-mcpu={target}"));
        if wave64 && !target.starts_with("gfx9") {
            clang.args(["-Xclang", "-target-feature", "-Xclang", "+wavefrontsize64"]);
        }
        let status = clang
            .args(["-mcode-object-version=5", "-fno-ident", "-c"])
            .arg(&ll)
            .arg("-o")
            .arg(&obj)
            .status()
            .unwrap();
        assert!(status.success());
        let object = std::fs::read(&obj).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        link::link(&object).unwrap()
    }

    /// Build `source` with LLVM for `target` (through the crate, or for
    /// wave64 on gfx10+ through clang-19) and compare the writer's code
    /// object of the same code and inputs with it ([`compare`]).
    fn compare_with_llvm(source: &str, prefix: &str, target: &str, wave64: bool) {
        let options = Options {
            targets: vec![target.into()],
            symbol_prefix: prefix.into(),
            ..Default::default()
        };
        let (llvm_co, reflection) = if wave64 == target.starts_with("gfx9") {
            let compiled = crate::compile(Source::Wgsl(source), &options).unwrap();
            (compiled.code_object, compiled.reflection)
        } else {
            let translated = crate::translate(Source::Wgsl(source), &options).unwrap();
            let co = clang_code_object(&translated.llvm_ir, target, wave64);
            (co, translated.reflection)
        };
        compare(&llvm_co, target, wave64, &|name| {
            let entry = reflection.entry_points.iter().find(|e| e.kernel == name);
            args_of_entry(entry.unwrap())
        });
    }

    /// Write the kernels of LLVM's code object `llvm_co` with the writer,
    /// given their code, register counts and input enables from LLVM's
    /// symbols, metadata and descriptors and their explicit arguments from
    /// `args_of`; check the metadata (interface fields, then all), each
    /// descriptor and the whole code object against LLVM's.
    fn compare(
        llvm_co: &[u8],
        target: &str,
        wave64: bool,
        args_of: &dyn Fn(&str) -> Vec<OwnedArg>,
    ) {
        let llvm = Elf::parse(llvm_co);
        let llvm_meta = llvm.metadata();
        let inputs: Vec<Inputs> = kernels_of(&llvm_meta)
            .iter()
            .map(|kernel_meta| {
                let name = get(kernel_meta, ".name").as_str().unwrap();
                inputs_from_llvm(target, &llvm, name, args_of(name), kernel_meta)
            })
            .collect();
        let args: Vec<Vec<KernelArg<'_>>> = inputs
            .iter()
            .map(|i| {
                i.args
                    .iter()
                    .map(|(name, kind, size, align)| KernelArg {
                        name,
                        kind: *kind,
                        size: *size,
                        align: *align,
                    })
                    .collect()
            })
            .collect();
        let images: Vec<KernelImage<'_>> = inputs
            .iter()
            .zip(&args)
            .map(|(i, args)| {
                let d = &i.descriptor;
                let rsrc2 = u32_at(d, 52);
                KernelImage {
                    symbol: &i.symbol,
                    code: &i.code,
                    target,
                    wave64,
                    sgpr_count: i.sgprs,
                    vgpr_count: i.vgprs,
                    group_segment_fixed_size: u32_at(d, 0),
                    private_segment_fixed_size: u32_at(d, 4),
                    workgroup_size: i.workgroup_size,
                    user_sgprs: user_sgprs_of(d),
                    workgroup_ids: [0, 1, 2].map(|b| rsrc2 & (1 << (7 + b)) != 0),
                    workitem_id_dims: (rsrc2 >> 11) & 3,
                    args,
                    hidden_args: i.hidden,
                }
            })
            .collect();
        let ours = write_code_object(&images).unwrap();
        let mine = Elf::parse(&ours);
        let meta = mine.metadata();
        assert_eq!(
            interface(&meta),
            interface(&llvm_meta),
            "{target}: metadata interface fields"
        );
        assert_eq!(meta, llvm_meta, "{target}: metadata with register counts");
        for i in &inputs {
            let (a, b) = (mine.descriptor(&i.symbol), i.descriptor);
            assert_eq!(a[..16], b[..16], "{target} {}: descriptor", i.symbol);
            assert_eq!(a[24..], b[24..], "{target} {}: descriptor", i.symbol);
        }
        if ours != llvm_co {
            let at = ours.iter().zip(llvm_co).position(|(a, b)| a != b);
            panic!(
                "{target}: code objects differ at {at:?} (lengths {} and {})",
                ours.len(),
                llvm_co.len()
            );
        }
    }

    /// A kernel with a private segment (a dynamically indexed array),
    /// written as this crate's emitter writes kernels.
    const SCRATCH_IR: &str = r#"target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @"scratch"(ptr addrspace(1) %g0_b0, i32 %g0_b0_size) "amdgpu-flat-work-group-size"="32,32" nounwind !reqd_work_group_size !{i32 32, i32 1, i32 1} {
  %a = alloca [16 x i32], align 4, addrspace(5)
  %p = getelementptr [16 x i32], ptr addrspace(5) %a, i32 0, i32 %g0_b0_size
  store volatile i32 7, ptr addrspace(5) %p
  %q = getelementptr [16 x i32], ptr addrspace(5) %a, i32 0, i32 3
  %v = load volatile i32, ptr addrspace(5) %q
  store i32 %v, ptr addrspace(1) %g0_b0
  ret void
}
"#;

    #[test]
    fn matches_llvm_for_a_kernel_with_scratch() {
        if !Toolchain::available() {
            eprintln!("skipping: clang-19 / ld.lld-19 not installed");
            return;
        }
        for target in KNOWN_TARGETS {
            let wave64 = target.starts_with("gfx9");
            let co = clang_code_object(SCRATCH_IR, target, wave64);
            compare(&co, target, wave64, &|_| {
                vec![
                    (
                        "g0_b0".into(),
                        ArgKind::GlobalBuffer { read_only: false },
                        8,
                        8,
                    ),
                    ("g0_b0_size".into(), ArgKind::ByValue, 4, 4),
                ]
            });
        }
    }

    #[test]
    fn matches_llvm_for_the_example_kernel() {
        if !Toolchain::available() {
            eprintln!("skipping: clang-19 / ld.lld-19 not installed");
            return;
        }
        for target in KNOWN_TARGETS {
            compare_with_llvm(TRIPLE, "", target, target.starts_with("gfx9"));
        }
    }

    #[test]
    fn matches_llvm_with_hidden_args_lds_and_two_kernels() {
        if !Toolchain::available() {
            eprintln!("skipping: clang-19 / ld.lld-19 not installed");
            return;
        }
        for target in KNOWN_TARGETS {
            compare_with_llvm(GRID, LONG_PREFIX, target, target.starts_with("gfx9"));
        }
    }

    #[test]
    fn matches_llvm_at_wave64_on_gfx10_and_later() {
        if !Toolchain::available() {
            eprintln!("skipping: clang-19 / ld.lld-19 not installed");
            return;
        }
        for target in KNOWN_TARGETS.iter().filter(|t| !t.starts_with("gfx9")) {
            compare_with_llvm(TRIPLE, "", target, true);
            compare_with_llvm(GRID, LONG_PREFIX, target, true);
        }
    }

    fn endpgm_code(words: usize) -> Vec<u8> {
        let mut code: Vec<u8> = (0..words - 1)
            .flat_map(|i| (0x7e00_0200u32 + i as u32).to_le_bytes())
            .collect();
        code.extend_from_slice(&0xbfb0_0000u32.to_le_bytes()); // s_endpgm
        code
    }

    const BUFFER_ARGS: [KernelArg<'static>; 2] = [
        KernelArg {
            name: "g0_b0",
            kind: ArgKind::GlobalBuffer { read_only: false },
            size: 8,
            align: 8,
        },
        KernelArg {
            name: "g0_b0_size",
            kind: ArgKind::ByValue,
            size: 4,
            align: 4,
        },
    ];

    fn image<'a>(symbol: &'a str, code: &'a [u8], target: &'a str) -> KernelImage<'a> {
        KernelImage {
            symbol,
            code,
            target,
            wave64: target.starts_with("gfx9"),
            sgpr_count: 8,
            vgpr_count: 4,
            group_segment_fixed_size: 0,
            private_segment_fixed_size: 0,
            workgroup_size: [64, 1, 1],
            user_sgprs: UserSgprs::KERNARG,
            workgroup_ids: [true, true, true],
            workitem_id_dims: 0,
            args: &BUFFER_ARGS,
            hidden_args: HiddenArgs::None,
        }
    }

    #[test]
    fn linked_layout_points_descriptors_at_their_code() {
        let (a, b) = (endpgm_code(17), endpgm_code(75));
        let kernels = [
            image("first", &a, "gfx1100"),
            KernelImage {
                hidden_args: HiddenArgs::Dispatch,
                group_segment_fixed_size: 1024,
                ..image("m1.second", &b, "gfx1100")
            },
        ];
        let co = write_code_object(&kernels).unwrap();
        let elf = Elf::parse(&co);
        assert_eq!(elf.e_type(), 3, "ET_DYN");
        assert_eq!(u16_at(&co, 18), EM_AMDGPU);
        assert_eq!(u32_at(&co, 48), 0x41, "e_flags gfx1100");
        assert_eq!(
            &co[7..9],
            &[ELFOSABI_AMDGPU_HSA, ELFABIVERSION_AMDGPU_HSA_V5]
        );

        // Segments: PT_LOADs in address order, file offsets congruent to
        // addresses modulo the page, .text alone in the executable one.
        let phoff = u64_at(&co, 32) as usize;
        let loads: Vec<(u32, u64, u64, u64)> = (0..u16_at(&co, 56) as usize)
            .map(|i| phoff + 56 * i)
            .filter(|&h| u32_at(&co, h) == 1)
            .map(|h| {
                (
                    u32_at(&co, h + 4),
                    u64_at(&co, h + 8),
                    u64_at(&co, h + 16),
                    u64_at(&co, h + 40),
                )
            })
            .collect();
        assert_eq!(loads.len(), 3);
        assert!(loads.windows(2).all(|w| w[0].2 + w[0].3 <= w[1].2));
        for &(_, offset, addr, _) in &loads {
            assert_eq!(offset % 0x1000, addr % 0x1000);
        }
        let text = elf.section(".text");
        let rodata = elf.section(".rodata");
        let exec = loads.iter().find(|l| l.0 & 1 != 0).unwrap();
        assert_eq!((exec.2, exec.3), (text.addr, text.size));
        assert_eq!(text.addr % 256, 0);
        assert_eq!(text.align, 256);
        assert_eq!((rodata.addr % 64, rodata.size), (0, 128));
        assert!(loads[0].2 <= rodata.addr && rodata.addr + rodata.size <= loads[0].2 + loads[0].3);

        // Each descriptor's entry offset reaches its kernel's code.
        for (k, code) in kernels.iter().zip([&a, &b]) {
            let kernel = elf.symbol(k.symbol);
            let kd = elf.symbol(&format!("{}.kd", k.symbol));
            assert_eq!(
                (kernel.info, kernel.other),
                (STB_GLOBAL << 4 | STT_FUNC, STV_PROTECTED)
            );
            assert_eq!((kd.info, kd.size), (STB_GLOBAL << 4 | STT_OBJECT, 64));
            assert_eq!(kernel.size, code.len() as u64);
            assert_eq!(kernel.value % 256, 0);
            let d = elf.descriptor(k.symbol);
            let entry = i64::from_le_bytes(d[16..24].try_into().unwrap());
            assert_eq!(kd.value.wrapping_add_signed(entry), kernel.value);
            assert_eq!(elf.code(k.symbol), code.as_slice());
        }
        // Both kernels and descriptors are exported.
        let dynsym = elf.symbols(".dynsym", ".dynstr");
        for name in ["first", "first.kd", "m1.second", "m1.second.kd"] {
            assert!(dynsym.iter().any(|s| s.name == name), "{name} exported");
        }
        // The gap between the kernels is s_nop; the end is LLVM's padding.
        let text_bytes = elf.data(".text");
        assert_eq!(u32_at(text_bytes, a.len()), S_NOP);
        let end = 256 + b.len();
        assert_eq!(text_bytes.len(), end.next_multiple_of(128) + 3 * 128);
        assert!(
            text_bytes[end..]
                .chunks(4)
                .all(|w| w == S_CODE_END.to_le_bytes())
        );

        // The metadata lists both kernels.
        let meta = elf.metadata();
        let ks = kernels_of(&meta);
        assert_eq!(get(&ks[1], ".symbol").as_str(), Some("m1.second.kd"));
        assert_eq!(uint(get(&ks[1], ".kernarg_segment_size")), 16 + 256);
        assert_eq!(uint(get(&ks[1], ".group_segment_fixed_size")), 1024);
        assert_eq!(
            get(&meta, "amdhsa.target").as_str(),
            Some("amdgcn-amd-amdhsa--gfx1100")
        );

        // ld.lld-19 links the same object to the same bytes.
        let Ok(tools) = Toolchain::find(None) else {
            return;
        };
        if !Toolchain::available() {
            return;
        }
        let dir = std::env::temp_dir().join(format!("baseline-object-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (obj, out) = (dir.join("k.o"), dir.join("k.co"));
        std::fs::write(&obj, write_relocatable(&kernels).unwrap()).unwrap();
        let status = std::process::Command::new(&tools.lld)
            .args(["-shared", "--build-id=none"])
            .arg(&obj)
            .arg("-o")
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success());
        let lld = std::fs::read(&out).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        // lld adds a `.comment`; everything loaded is the same.
        let lld_elf = Elf::parse(&lld);
        let loaded = |e: &Elf<'_>| -> Vec<(String, u64, u64, Vec<u8>)> {
            e.sections
                .iter()
                .filter(|s| s.flags & SHF_ALLOC != 0)
                .map(|s| {
                    // .relro_padding is NOBITS: its place, not its bytes.
                    let bytes = if s.sh_type == 8 {
                        Vec::new()
                    } else {
                        e.at(s.addr, s.size as usize).to_vec()
                    };
                    (s.name.clone(), s.addr, s.size, bytes)
                })
                .collect()
        };
        assert_eq!(
            loaded(&lld_elf),
            loaded(&elf),
            "ld.lld-19 and link::link: sections"
        );
        let phdrs = |b: &[u8]| b[u64_at(b, 32) as usize..][..56 * u16_at(b, 56) as usize].to_vec();
        assert_eq!(
            phdrs(&lld),
            phdrs(&co),
            "ld.lld-19 and link::link: program headers"
        );
    }

    #[test]
    fn rsrc2_places_workgroup_ids_after_the_user_sgprs() {
        let code = endpgm_code(4);
        // gfx1100 pads the user SGPRs at wave32 only (UserSGPRInit16Bug).
        for (target, wave64, user_count, ids) in [
            ("gfx942", true, 2, [2, 3, 4]),
            ("gfx1100", false, 13, [13, 14, 15]),
            ("gfx1100", true, 2, [2, 3, 4]),
        ] {
            let k = KernelImage {
                wave64,
                ..image("k", &code, target)
            };
            let co = write_code_object(&[k]).unwrap();
            let d = Elf::parse(&co).descriptor("k");
            let rsrc2 = u32_at(&d, 52);
            assert_eq!((rsrc2 >> 1) & 0x1f, user_count, "{target} USER_SGPR_COUNT");
            assert_eq!((rsrc2 >> 7) & 7, 7, "{target} workgroup ids x, y, z");
            assert_eq!(
                rsrc2 & !(0x1f << 1 | 7 << 7),
                0,
                "{target} other rsrc2 bits"
            );
            assert_eq!(
                u16_at(&d, 56) & 0x7f,
                1 << 3,
                "{target} kernarg segment ptr only"
            );
            let layout = sgpr_layout(target, wave64, UserSgprs::KERNARG, [true; 3], false).unwrap();
            assert_eq!(layout.kernarg_segment_ptr, Some(0));
            assert_eq!(layout.user_sgpr_count, user_count as u8);
            assert_eq!(layout.workgroup_id, ids.map(Some));
            assert_eq!(layout.input_sgprs, ids[2] + 1);
        }
        // gfx90a has no architected flat scratch: LLVM's kernels load the
        // private segment buffer first, and the kernarg pointer follows.
        let user = UserSgprs {
            private_segment_buffer: true,
            ..UserSgprs::KERNARG
        };
        let layout = sgpr_layout("gfx90a", true, user, [true, false, true], true).unwrap();
        assert_eq!(layout.private_segment_buffer, Some(0));
        assert_eq!(layout.kernarg_segment_ptr, Some(4));
        assert_eq!(layout.workgroup_id, [Some(6), None, Some(7)]);
        assert_eq!(layout.private_segment_wave_offset, Some(8));
        // Architected flat scratch: no wave offset SGPR.
        let layout = sgpr_layout("gfx1100", false, UserSgprs::KERNARG, [true; 3], true).unwrap();
        assert_eq!(layout.private_segment_wave_offset, None);
        assert_eq!(layout.input_sgprs, 16);
    }

    #[test]
    fn kernarg_layout_follows_llvm() {
        let args = [
            KernelArg::global_buffer("g0_b0", true),
            KernelArg::by_value("g0_b0_size", 4, 4),
            KernelArg::by_value("immediates", 20, 16),
        ];
        let plain = kernarg_layout(&args, HiddenArgs::None).unwrap();
        assert_eq!(plain.offsets, [0, 8, 16]);
        assert_eq!((plain.hidden, plain.size, plain.align), (None, 36, 16));
        let hidden = kernarg_layout(&args, HiddenArgs::Dispatch).unwrap();
        assert_eq!(
            (hidden.hidden, hidden.size, hidden.align),
            (Some(40), 296, 16)
        );
        let small = kernarg_layout(&[KernelArg::by_value("x", 2, 2)], HiddenArgs::None).unwrap();
        assert_eq!((small.size, small.align), (4, 4));
        let none = kernarg_layout(&[], HiddenArgs::Dispatch).unwrap();
        assert_eq!((none.hidden, none.size, none.align), (Some(0), 256, 8));
    }

    #[test]
    fn errors_are_typed() {
        let code = endpgm_code(4);
        let k = image("k", &code, "gfx1100");
        let one = |k: KernelImage<'_>| write_code_object(&[k]).unwrap_err();
        assert_eq!(write_code_object(&[]).unwrap_err(), ObjectError::NoKernels);
        assert_eq!(
            write_code_object(&[k, k]).unwrap_err(),
            ObjectError::DuplicateSymbol { symbol: "k".into() }
        );
        assert_eq!(
            write_code_object(&[
                k,
                KernelImage {
                    symbol: "k.kd",
                    ..k
                }
            ])
            .unwrap_err(),
            ObjectError::DuplicateSymbol {
                symbol: "k.kd".into()
            }
        );
        assert_eq!(
            write_code_object(&[
                k,
                KernelImage {
                    target: "gfx942",
                    wave64: true,
                    ..k
                }
            ])
            .unwrap_err(),
            ObjectError::MixedTargets {
                symbol: "k".into(),
                target: "gfx942".into(),
                expected: "gfx1100".into()
            }
        );
        assert_eq!(
            one(KernelImage {
                target: "gfx803",
                ..k
            }),
            ObjectError::UnsupportedTarget {
                target: "gfx803".into()
            }
        );
        assert_eq!(
            one(KernelImage { symbol: "", ..k }),
            ObjectError::BadSymbol { symbol: "".into() }
        );
        assert_eq!(
            one(KernelImage {
                code: &code[..6],
                ..k
            }),
            ObjectError::BadCode { symbol: "k".into() }
        );
        assert_eq!(
            one(KernelImage { code: &[], ..k }),
            ObjectError::BadCode { symbol: "k".into() }
        );
        assert_eq!(
            one(KernelImage {
                target: "gfx90a",
                ..k
            }),
            ObjectError::Wave32Unsupported {
                symbol: "k".into(),
                target: "gfx90a".into()
            }
        );
        assert_eq!(
            one(KernelImage {
                vgpr_count: 257,
                ..k
            }),
            ObjectError::TooManyRegisters {
                symbol: "k".into(),
                kind: "VGPR",
                count: 257,
                limit: 256
            }
        );
        assert_eq!(
            one(KernelImage {
                sgpr_count: 107,
                ..k
            }),
            ObjectError::TooManyRegisters {
                symbol: "k".into(),
                kind: "SGPR",
                count: 107,
                limit: 106
            }
        );
        let user = UserSgprs {
            private_segment_buffer: true,
            ..UserSgprs::KERNARG
        };
        assert_eq!(
            one(KernelImage {
                user_sgprs: user,
                ..k
            }),
            ObjectError::UserSgprUnavailable {
                what: "private segment buffer",
                target: "gfx1100".into()
            }
        );
        let all = UserSgprs {
            private_segment_buffer: true,
            dispatch_ptr: true,
            queue_ptr: true,
            kernarg_segment_ptr: true,
            dispatch_id: true,
            flat_scratch_init: true,
            private_segment_size: true,
        };
        let layout = sgpr_layout("gfx1030", false, all, [true; 3], true).unwrap();
        assert_eq!(layout.user_sgpr_count, 15);
        assert_eq!(layout.private_segment_size, Some(14));
        assert_eq!(layout.private_segment_wave_offset, Some(18));
        assert_eq!(
            one(KernelImage {
                workgroup_size: [64, 32, 1],
                ..k
            }),
            ObjectError::BadWorkgroupSize {
                symbol: "k".into(),
                size: [64, 32, 1]
            }
        );
        assert_eq!(
            one(KernelImage {
                workgroup_size: [0, 1, 1],
                ..k
            }),
            ObjectError::BadWorkgroupSize {
                symbol: "k".into(),
                size: [0, 1, 1]
            }
        );
        assert_eq!(
            one(KernelImage {
                workitem_id_dims: 3,
                ..k
            }),
            ObjectError::BadWorkitemDims {
                symbol: "k".into(),
                dims: 3
            }
        );
        assert_eq!(
            one(KernelImage {
                group_segment_fixed_size: 65537,
                ..k
            }),
            ObjectError::TooMuchLds {
                symbol: "k".into(),
                bytes: 65537
            }
        );
        let bad = [KernelArg::by_value("odd", 4, 3)];
        assert_eq!(
            one(KernelImage { args: &bad, ..k }),
            ObjectError::BadArgLayout {
                arg: "odd".into(),
                size: 4,
                align: 3
            }
        );
        let short_pointer = [KernelArg {
            size: 4,
            ..KernelArg::global_buffer("p", false)
        }];
        assert_eq!(
            kernarg_layout(&short_pointer, HiddenArgs::None).unwrap_err(),
            ObjectError::BadArgLayout {
                arg: "p".into(),
                size: 4,
                align: 8
            }
        );
        let huge = [
            KernelArg::by_value("a", u32::MAX, 4),
            KernelArg::by_value("b", 8, 8),
        ];
        assert_eq!(
            kernarg_layout(&huge, HiddenArgs::None).unwrap_err(),
            ObjectError::KernargOverflow
        );
    }

    #[test]
    fn writer_time_per_kernel() {
        let code = endpgm_code(256);
        let args = [
            KernelArg::global_buffer("g0_b0", true),
            KernelArg::by_value("g0_b0_size", 4, 4),
            KernelArg::global_buffer("g0_b1", false),
            KernelArg::by_value("g0_b1_size", 4, 4),
        ];
        let k = KernelImage {
            args: &args,
            hidden_args: HiddenArgs::Dispatch,
            ..image("main", &code, "gfx1100")
        };
        let kernels = [k];
        let runs = 2000;
        let mut bytes = 0;
        let start = std::time::Instant::now();
        for _ in 0..runs {
            bytes += write_code_object(std::hint::black_box(&kernels))
                .unwrap()
                .len();
        }
        let per = start.elapsed() / runs;
        let start = std::time::Instant::now();
        for _ in 0..runs {
            bytes += write_relocatable(std::hint::black_box(&kernels))
                .unwrap()
                .len();
        }
        let object_only = start.elapsed() / runs;
        eprintln!(
            "baseline object writer: {per:?} per 1 KiB kernel code object \
             (relocatable object alone {object_only:?}; {bytes} bytes written)"
        );
    }
}
