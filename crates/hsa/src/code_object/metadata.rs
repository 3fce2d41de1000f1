//! The NT_AMDGPU_METADATA note: a MessagePack map with `amdhsa.version`,
//! `amdhsa.target` and `amdhsa.kernels` (one map per kernel, with its
//! argument list). This file decodes it into typed kernel and argument
//! records and checks what later code relies on (argument ranges inside the
//! kernarg segment, sane sizes), so a bad note is an error here, not a panic
//! or an out-of-range write later.

use rmpv::Value;

use super::elf_error::Unsupported;
use super::error::{CodeObjectError, MsgpackShapeError};
use super::metadata_error::{MetadataError, MetadataNode, MetadataType, MsgpackRead};

/// Largest kernarg segment accepted (HSA agents allow far less; this only
/// keeps a corrupt note from asking for a huge buffer).
const MAX_KERNARG_SEGMENT_SIZE: u64 = 1 << 20;

/// `.value_kind` of a kernel argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    ByValue,
    GlobalBuffer,
    DynamicSharedPointer,
    Sampler,
    Image,
    Pipe,
    Queue,
    HiddenGlobalOffsetX,
    HiddenGlobalOffsetY,
    HiddenGlobalOffsetZ,
    HiddenNone,
    HiddenPrintfBuffer,
    HiddenHostcallBuffer,
    HiddenDefaultQueue,
    HiddenCompletionAction,
    HiddenMultigridSyncArg,
    HiddenBlockCountX,
    HiddenBlockCountY,
    HiddenBlockCountZ,
    HiddenGroupSizeX,
    HiddenGroupSizeY,
    HiddenGroupSizeZ,
    HiddenRemainderX,
    HiddenRemainderY,
    HiddenRemainderZ,
    HiddenGridDims,
    HiddenHeapV1,
    HiddenDynamicLdsSize,
    HiddenPrivateBase,
    HiddenSharedBase,
    HiddenQueuePtr,
    /// A kind this loader does not know (kept verbatim).
    Unknown(String),
}

const VALUE_KINDS: &[(&str, ValueKind)] = &[
    ("by_value", ValueKind::ByValue),
    ("global_buffer", ValueKind::GlobalBuffer),
    ("dynamic_shared_pointer", ValueKind::DynamicSharedPointer),
    ("sampler", ValueKind::Sampler),
    ("image", ValueKind::Image),
    ("pipe", ValueKind::Pipe),
    ("queue", ValueKind::Queue),
    ("hidden_global_offset_x", ValueKind::HiddenGlobalOffsetX),
    ("hidden_global_offset_y", ValueKind::HiddenGlobalOffsetY),
    ("hidden_global_offset_z", ValueKind::HiddenGlobalOffsetZ),
    ("hidden_none", ValueKind::HiddenNone),
    ("hidden_printf_buffer", ValueKind::HiddenPrintfBuffer),
    ("hidden_hostcall_buffer", ValueKind::HiddenHostcallBuffer),
    ("hidden_default_queue", ValueKind::HiddenDefaultQueue),
    (
        "hidden_completion_action",
        ValueKind::HiddenCompletionAction,
    ),
    (
        "hidden_multigrid_sync_arg",
        ValueKind::HiddenMultigridSyncArg,
    ),
    ("hidden_block_count_x", ValueKind::HiddenBlockCountX),
    ("hidden_block_count_y", ValueKind::HiddenBlockCountY),
    ("hidden_block_count_z", ValueKind::HiddenBlockCountZ),
    ("hidden_group_size_x", ValueKind::HiddenGroupSizeX),
    ("hidden_group_size_y", ValueKind::HiddenGroupSizeY),
    ("hidden_group_size_z", ValueKind::HiddenGroupSizeZ),
    ("hidden_remainder_x", ValueKind::HiddenRemainderX),
    ("hidden_remainder_y", ValueKind::HiddenRemainderY),
    ("hidden_remainder_z", ValueKind::HiddenRemainderZ),
    ("hidden_grid_dims", ValueKind::HiddenGridDims),
    ("hidden_heap_v1", ValueKind::HiddenHeapV1),
    ("hidden_dynamic_lds_size", ValueKind::HiddenDynamicLdsSize),
    ("hidden_private_base", ValueKind::HiddenPrivateBase),
    ("hidden_shared_base", ValueKind::HiddenSharedBase),
    ("hidden_queue_ptr", ValueKind::HiddenQueuePtr),
];

impl ValueKind {
    /// Parse a `.value_kind` string; unknown kinds are kept as `Unknown`.
    pub fn parse(s: &str) -> ValueKind {
        VALUE_KINDS
            .iter()
            .find(|(name, _)| *name == s)
            .map(|(_, kind)| kind.clone())
            .unwrap_or_else(|| ValueKind::Unknown(s.to_string()))
    }

    /// The metadata spelling (`hidden_block_count_x`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            ValueKind::Unknown(name) => name,
            known => VALUE_KINDS
                .iter()
                .find(|(_, kind)| kind == known)
                .map_or("", |(name, _)| name),
        }
    }

    /// Hidden arguments are filled by the runtime, not by the caller; an
    /// unknown kind counts as hidden when its name starts with `hidden_`.
    /// A match rather than a name lookup: kernarg building asks this of
    /// every argument of every new dispatch.
    pub fn is_hidden(&self) -> bool {
        match self {
            ValueKind::Unknown(name) => name.starts_with("hidden_"),
            ValueKind::HiddenGlobalOffsetX
            | ValueKind::HiddenGlobalOffsetY
            | ValueKind::HiddenGlobalOffsetZ
            | ValueKind::HiddenNone
            | ValueKind::HiddenPrintfBuffer
            | ValueKind::HiddenHostcallBuffer
            | ValueKind::HiddenDefaultQueue
            | ValueKind::HiddenCompletionAction
            | ValueKind::HiddenMultigridSyncArg
            | ValueKind::HiddenBlockCountX
            | ValueKind::HiddenBlockCountY
            | ValueKind::HiddenBlockCountZ
            | ValueKind::HiddenGroupSizeX
            | ValueKind::HiddenGroupSizeY
            | ValueKind::HiddenGroupSizeZ
            | ValueKind::HiddenRemainderX
            | ValueKind::HiddenRemainderY
            | ValueKind::HiddenRemainderZ
            | ValueKind::HiddenGridDims
            | ValueKind::HiddenHeapV1
            | ValueKind::HiddenDynamicLdsSize
            | ValueKind::HiddenPrivateBase
            | ValueKind::HiddenSharedBase
            | ValueKind::HiddenQueuePtr => true,
            _ => false,
        }
    }
}

/// `.address_space` of a pointer argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressSpace {
    Private,
    Global,
    Constant,
    Local,
    Generic,
    Region,
}

impl AddressSpace {
    pub fn parse(s: &str) -> Option<AddressSpace> {
        Some(match s {
            "private" => AddressSpace::Private,
            "global" => AddressSpace::Global,
            "constant" => AddressSpace::Constant,
            "local" => AddressSpace::Local,
            "generic" => AddressSpace::Generic,
            "region" => AddressSpace::Region,
            _ => return None,
        })
    }
}

/// One entry of a kernel's `.args`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelArg {
    pub name: Option<String>,
    pub type_name: Option<String>,
    /// Byte offset in the kernarg segment.
    pub offset: u32,
    pub size: u32,
    pub value_kind: ValueKind,
    pub address_space: Option<AddressSpace>,
    /// `.access` (images and pipes: read_only, write_only, read_write).
    pub access: Option<String>,
    /// `.actual_access`: how the kernel really uses the memory.
    pub actual_access: Option<String>,
    pub pointee_align: Option<u32>,
    pub is_const: bool,
    pub is_restrict: bool,
    pub is_volatile: bool,
    pub is_pipe: bool,
}

/// One kernel's metadata, before the descriptor is attached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KernelMetadata {
    pub name: String,
    pub symbol: String,
    pub args: Vec<KernelArg>,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_align: u32,
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub wavefront_size: u32,
    pub sgpr_count: u32,
    pub vgpr_count: u32,
    pub agpr_count: u32,
    pub sgpr_spill_count: u32,
    pub vgpr_spill_count: u32,
    pub max_flat_workgroup_size: u32,
    pub reqd_workgroup_size: Option<[u32; 3]>,
    pub uses_dynamic_stack: bool,
}

/// The decoded note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Metadata {
    /// `amdhsa.version` [major, minor].
    pub version: [u32; 2],
    /// `amdhsa.target`, for example `amdgcn-amd-amdhsa--gfx1100`.
    pub target: Option<String>,
    pub kernels: Vec<KernelMetadata>,
}

/// A msgpack map, looked up by string key.
struct Map<'a> {
    entries: &'a [(Value, Value)],
    node: MetadataNode,
}

impl<'a> Map<'a> {
    fn new(value: &'a Value, node: MetadataNode) -> Result<Self, MetadataError> {
        match value {
            Value::Map(entries) => Ok(Map { entries, node }),
            _ => Err(MetadataError::NotAMap { node }),
        }
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    fn missing(&self, key: &'static str) -> MetadataError {
        MetadataError::MissingKey {
            node: self.node.clone(),
            key,
        }
    }

    fn wrong(&self, key: &'static str, expected: MetadataType) -> MetadataError {
        MetadataError::WrongType {
            node: self.node.clone(),
            key,
            expected,
        }
    }

    fn opt_u32(&self, key: &'static str) -> Result<Option<u32>, MetadataError> {
        match self.get(key) {
            None => Ok(None),
            Some(value) => value
                .as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .map(Some)
                .ok_or_else(|| self.wrong(key, MetadataType::U32)),
        }
    }

    fn u32(&self, key: &'static str) -> Result<u32, MetadataError> {
        self.opt_u32(key)?.ok_or_else(|| self.missing(key))
    }

    fn opt_str(&self, key: &'static str) -> Result<Option<String>, MetadataError> {
        match self.get(key) {
            None => Ok(None),
            Some(value) => value
                .as_str()
                .map(|s| Some(s.to_string()))
                .ok_or_else(|| self.wrong(key, MetadataType::Str)),
        }
    }

    fn str(&self, key: &'static str) -> Result<String, MetadataError> {
        self.opt_str(key)?.ok_or_else(|| self.missing(key))
    }

    fn bool(&self, key: &'static str) -> Result<bool, MetadataError> {
        match self.get(key) {
            None => Ok(false),
            Some(value) => value
                .as_bool()
                .ok_or_else(|| self.wrong(key, MetadataType::Bool)),
        }
    }

    fn opt_u32_array<const N: usize>(
        &self,
        key: &'static str,
    ) -> Result<Option<[u32; N]>, MetadataError> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let wrong = || self.wrong(key, MetadataType::U32Array { len: N });
        let items = value.as_array().ok_or_else(wrong)?;
        if items.len() != N {
            return Err(wrong());
        }
        let mut out = [0u32; N];
        for (slot, item) in out.iter_mut().zip(items) {
            *slot = item
                .as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(wrong)?;
        }
        Ok(Some(out))
    }
}

/// Deepest msgpack nesting accepted (real metadata nests 4 levels: root map,
/// kernel array, kernel map, argument array, argument map).
const MAX_NESTING: usize = 16;

/// Walk one msgpack value iteratively and check that it is complete and
/// nests at most `MAX_NESTING` deep, before the recursive decoder sees it (a
/// corrupt note of nested one-element arrays would otherwise recurse deep
/// enough to overflow a thread's stack).
fn check_msgpack_shape(bytes: &[u8]) -> Result<(), MsgpackShapeError> {
    let mut pos = 0usize;
    // Items still to read in each open container.
    let mut open: Vec<u64> = Vec::new();
    loop {
        let truncated = MsgpackShapeError::Truncated { offset: pos };
        let marker = *bytes.get(pos).ok_or(truncated)?;
        pos += 1;
        let be = |pos: usize, width: usize| -> Result<u64, MsgpackShapeError> {
            let raw = bytes.get(pos..pos + width).ok_or(truncated)?;
            Ok(raw.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
        };
        // (bytes of payload to skip, items of a container this value opens)
        let (skip, items): (u64, u64) = match marker {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => (0, 0),
            0x80..=0x8f => (0, 2 * u64::from(marker & 0x0f)),
            0x90..=0x9f => (0, u64::from(marker & 0x0f)),
            0xa0..=0xbf => (u64::from(marker & 0x1f), 0),
            0xc1 => {
                return Err(MsgpackShapeError::InvalidMarker {
                    marker,
                    offset: pos - 1,
                });
            }
            0xc4 | 0xd9 => (1 + be(pos, 1)?, 0),
            0xc5 | 0xda => (2 + be(pos, 2)?, 0),
            0xc6 | 0xdb => (4 + be(pos, 4)?, 0),
            0xc7 => (2 + be(pos, 1)?, 0),
            0xc8 => (3 + be(pos, 2)?, 0),
            0xc9 => (5 + be(pos, 4)?, 0),
            0xca | 0xce | 0xd2 => (4, 0),
            0xcb | 0xcf | 0xd3 => (8, 0),
            0xcc | 0xd0 => (1, 0),
            0xcd | 0xd1 => (2, 0),
            0xd4 => (2, 0),
            0xd5 => (3, 0),
            0xd6 => (5, 0),
            0xd7 => (9, 0),
            0xd8 => (17, 0),
            0xdc => (2, be(pos, 2)?),
            0xdd => (4, be(pos, 4)?),
            0xde => (2, 2 * be(pos, 2)?),
            0xdf => (4, 2 * be(pos, 4)?),
        };
        pos = usize::try_from(skip)
            .ok()
            .and_then(|skip| pos.checked_add(skip))
            .filter(|&end| end <= bytes.len())
            .ok_or(truncated)?;
        if items > 0 {
            if open.len() >= MAX_NESTING {
                return Err(MsgpackShapeError::TooDeep { limit: MAX_NESTING });
            }
            open.push(items);
            continue;
        }
        // A complete value: close every container it completes.
        loop {
            match open.last_mut() {
                None => return Ok(()),
                Some(left) => {
                    *left -= 1;
                    if *left > 0 {
                        break;
                    }
                    open.pop();
                }
            }
        }
    }
}

/// Decode the msgpack description of an NT_AMDGPU_METADATA note.
pub(crate) fn parse_metadata(desc: &[u8]) -> Result<Metadata, CodeObjectError> {
    check_msgpack_shape(desc)?;
    let mut reader = desc;
    let root = rmpv::decode::read_value(&mut reader).map_err(|e| MetadataError::Undecodable {
        read: match e {
            rmpv::decode::Error::InvalidMarkerRead(_) => MsgpackRead::Marker,
            rmpv::decode::Error::InvalidDataRead(_) => MsgpackRead::Data,
            rmpv::decode::Error::DepthLimitExceeded => MsgpackRead::DepthLimit,
        },
    })?;
    let root = Map::new(&root, MetadataNode::Root)?;
    let version = root
        .opt_u32_array::<2>("amdhsa.version")?
        .ok_or_else(|| root.missing("amdhsa.version"))?;
    if version[0] != 1 {
        return Err(CodeObjectError::Unsupported(Unsupported::MetadataVersion {
            major: version[0],
            minor: version[1],
        }));
    }
    let target = root.opt_str("amdhsa.target")?;
    let kernels = match root.get("amdhsa.kernels") {
        None => Vec::new(),
        Some(value) => value
            .as_array()
            .ok_or_else(|| root.wrong("amdhsa.kernels", MetadataType::Array))?
            .iter()
            .enumerate()
            .map(|(index, kernel)| parse_kernel(kernel, index))
            .collect::<Result<_, _>>()?,
    };
    Ok(Metadata {
        version,
        target,
        kernels,
    })
}

fn parse_kernel(value: &Value, index: usize) -> Result<KernelMetadata, MetadataError> {
    let map = Map::new(value, MetadataNode::KernelEntry { index })?;
    let name = map.str(".name")?;
    let map = Map {
        node: MetadataNode::Kernel {
            kernel: name.clone(),
        },
        ..map
    };
    let kernarg_segment_size = map.u32(".kernarg_segment_size")?;
    if u64::from(kernarg_segment_size) > MAX_KERNARG_SEGMENT_SIZE {
        return Err(MetadataError::KernargSegmentTooLarge {
            kernel: name,
            size: kernarg_segment_size,
            limit: MAX_KERNARG_SEGMENT_SIZE,
        });
    }
    let kernarg_segment_align = map.u32(".kernarg_segment_align")?;
    if !kernarg_segment_align.is_power_of_two() {
        return Err(MetadataError::KernargAlignNotPowerOfTwo {
            kernel: name,
            align: kernarg_segment_align,
        });
    }
    let args = match map.get(".args") {
        None => Vec::new(),
        Some(value) => value
            .as_array()
            .ok_or_else(|| map.wrong(".args", MetadataType::Array))?
            .iter()
            .enumerate()
            .map(|(i, arg)| parse_arg(arg, &name, i, kernarg_segment_size))
            .collect::<Result<_, _>>()?,
    };
    Ok(KernelMetadata {
        symbol: map.str(".symbol")?,
        args,
        kernarg_segment_size,
        kernarg_segment_align,
        group_segment_fixed_size: map.u32(".group_segment_fixed_size")?,
        private_segment_fixed_size: map.u32(".private_segment_fixed_size")?,
        wavefront_size: map.u32(".wavefront_size")?,
        sgpr_count: map.u32(".sgpr_count")?,
        vgpr_count: map.u32(".vgpr_count")?,
        agpr_count: map.opt_u32(".agpr_count")?.unwrap_or(0),
        sgpr_spill_count: map.opt_u32(".sgpr_spill_count")?.unwrap_or(0),
        vgpr_spill_count: map.opt_u32(".vgpr_spill_count")?.unwrap_or(0),
        max_flat_workgroup_size: map.u32(".max_flat_workgroup_size")?,
        reqd_workgroup_size: map.opt_u32_array::<3>(".reqd_workgroup_size")?,
        uses_dynamic_stack: map.bool(".uses_dynamic_stack")?,
        name,
    })
}

fn parse_arg(
    value: &Value,
    kernel: &str,
    index: usize,
    kernarg_segment_size: u32,
) -> Result<KernelArg, MetadataError> {
    let map = Map::new(
        value,
        MetadataNode::Argument {
            kernel: kernel.to_string(),
            index,
        },
    )?;
    let offset = map.u32(".offset")?;
    let size = map.u32(".size")?;
    let value_kind = ValueKind::parse(&map.str(".value_kind")?);
    let end = u64::from(offset) + u64::from(size);
    if end > u64::from(kernarg_segment_size) {
        return Err(MetadataError::ArgumentOutsideSegment {
            kernel: kernel.to_string(),
            index,
            value_kind,
            offset,
            end,
            segment_size: kernarg_segment_size,
        });
    }
    let address_space =
        match map.opt_str(".address_space")? {
            None => None,
            Some(space) => Some(AddressSpace::parse(&space).ok_or_else(|| {
                MetadataError::UnknownAddressSpace {
                    kernel: kernel.to_string(),
                    index,
                    space: space.clone(),
                }
            })?),
        };
    Ok(KernelArg {
        name: map.opt_str(".name")?,
        type_name: map.opt_str(".type_name")?,
        offset,
        size,
        value_kind,
        address_space,
        access: map.opt_str(".access")?,
        actual_access: map.opt_str(".actual_access")?,
        pointee_align: map.opt_u32(".pointee_align")?,
        is_const: map.bool(".is_const")?,
        is_restrict: map.bool(".is_restrict")?,
        is_volatile: map.bool(".is_volatile")?,
        is_pipe: map.bool(".is_pipe")?,
    })
}

#[cfg(test)]
mod value_kind_tests {
    use super::*;

    /// `is_hidden` says of every known kind what its metadata name says.
    #[test]
    fn hidden_kinds_are_those_named_hidden() {
        for (name, kind) in VALUE_KINDS {
            assert_eq!(kind.is_hidden(), name.starts_with("hidden_"), "{name}");
        }
        assert!(ValueKind::parse("hidden_new_kind").is_hidden());
        assert!(!ValueKind::parse("new_kind").is_hidden());
    }
}
