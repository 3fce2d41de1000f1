//! AQL packets (64 bytes each) and their header bits (hsa.h).

use bytemuck::{Pod, Zeroable};

pub const AQL_PACKET_SIZE: usize = 64;

/// `hsa_packet_type_t`.
pub mod packet_type {
    pub const VENDOR_SPECIFIC: u16 = 0;
    pub const INVALID: u16 = 1;
    pub const KERNEL_DISPATCH: u16 = 2;
    pub const BARRIER_AND: u16 = 3;
    pub const AGENT_DISPATCH: u16 = 4;
    pub const BARRIER_OR: u16 = 5;
}

/// `hsa_fence_scope_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u16)]
pub enum FenceScope {
    None = 0,
    Agent = 1,
    System = 2,
}

impl FenceScope {
    pub fn from_bits(bits: u16) -> Option<Self> {
        match bits {
            0 => Some(FenceScope::None),
            1 => Some(FenceScope::Agent),
            2 => Some(FenceScope::System),
            _ => None,
        }
    }
}

pub const HEADER_TYPE_SHIFT: u16 = 0;
pub const HEADER_TYPE_WIDTH: u16 = 8;
pub const HEADER_BARRIER_SHIFT: u16 = 8;
pub const HEADER_SCACQUIRE_FENCE_SCOPE_SHIFT: u16 = 9;
pub const HEADER_SCRELEASE_FENCE_SCOPE_SHIFT: u16 = 11;
pub const HEADER_FENCE_SCOPE_WIDTH: u16 = 2;

/// Bits 1:0 of a kernel dispatch's `setup` field: the grid dimensions.
pub const KERNEL_DISPATCH_SETUP_DIMENSIONS_SHIFT: u16 = 0;

/// The 16-bit packet header, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketHeader {
    pub packet_type: u16,
    pub barrier: bool,
    pub acquire: FenceScope,
    pub release: FenceScope,
}

impl PacketHeader {
    pub fn new(packet_type: u16, barrier: bool, acquire: FenceScope, release: FenceScope) -> Self {
        Self {
            packet_type,
            barrier,
            acquire,
            release,
        }
    }

    pub fn to_bits(self) -> u16 {
        (self.packet_type << HEADER_TYPE_SHIFT)
            | ((self.barrier as u16) << HEADER_BARRIER_SHIFT)
            | ((self.acquire as u16) << HEADER_SCACQUIRE_FENCE_SCOPE_SHIFT)
            | ((self.release as u16) << HEADER_SCRELEASE_FENCE_SCOPE_SHIFT)
    }

    /// Decode; a reserved fence-scope value (3) reads as `None` in the
    /// returned `Option`, which a packet processor treats as malformed.
    pub fn from_bits(bits: u16) -> Option<Self> {
        let scope = |shift: u16| FenceScope::from_bits((bits >> shift) & 0x3);
        Some(Self {
            packet_type: bits & 0xff,
            barrier: (bits >> HEADER_BARRIER_SHIFT) & 1 != 0,
            acquire: scope(HEADER_SCACQUIRE_FENCE_SCOPE_SHIFT)?,
            release: scope(HEADER_SCRELEASE_FENCE_SCOPE_SHIFT)?,
        })
    }
}

/// `hsa_kernel_dispatch_packet_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct KernelDispatchPacket {
    pub header: u16,
    pub setup: u16,
    pub workgroup_size_x: u16,
    pub workgroup_size_y: u16,
    pub workgroup_size_z: u16,
    pub reserved0: u16,
    pub grid_size_x: u32,
    pub grid_size_y: u32,
    pub grid_size_z: u32,
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub kernel_object: u64,
    pub kernarg_address: u64,
    pub reserved2: u64,
    pub completion_signal: u64,
}

/// `hsa_barrier_and_packet_t` / `hsa_barrier_or_packet_t` (same layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct BarrierPacket {
    pub header: u16,
    pub reserved0: u16,
    pub reserved1: u32,
    pub dep_signal: [u64; 5],
    pub reserved2: u64,
    pub completion_signal: u64,
}

/// `hsa_agent_dispatch_packet_t`: a function call for the agent that
/// consumes the queue (a CPU agent's soft queue). `dispatch_type` is the
/// function id, in one of the ranges below; `arg` and `return_address` are
/// the function's to interpret.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct AgentDispatchPacket {
    pub header: u16,
    pub dispatch_type: u16,
    pub reserved0: u32,
    pub return_address: u64,
    pub arg: [u64; 4],
    pub reserved2: u64,
    pub completion_signal: u64,
}

/// `hsa_agent_dispatch_type_t` ranges of [`AgentDispatchPacket::dispatch_type`]:
/// ids 0x0000..=0x7fff are vendor functions, 0x8000..=0xffff functions an
/// application registers.
pub mod agent_dispatch_type {
    pub const VENDOR_START: u16 = 0x0000;
    pub const VENDOR_END: u16 = 0x7fff;
    pub const APPLICATION_START: u16 = 0x8000;
    pub const APPLICATION_END: u16 = 0xffff;
}

/// Any packet slot, viewed as raw words.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct RawPacket(pub [u64; 8]);
