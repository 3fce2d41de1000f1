//! Builders of AQL packets (hsa.h layouts from `aqueduct_kfd::abi`).
//!
//! A packet's first 32 bits (header | setup << 16) are what publishes it
//! to the packet processor, so builders produce whole packets and the
//! queue stores that word last. Header bits: type 7:0, barrier 8,
//! acquire fence scope 10:9, release fence scope 12:11.

use aqueduct_kfd::abi::{
    BarrierPacket, FenceScope, KernelDispatchPacket, PacketHeader, RawPacket, packet_type,
};

use crate::error::{HsaError, HsaResult, PacketError};

/// Most dependency signals one barrier packet carries.
pub const MAX_BARRIER_DEPS: usize = 5;
/// Most work-items a workgroup may have.
pub const MAX_WORKGROUP_ITEMS: u32 = 1024;

/// The ordering part of a header: barrier bit and fence scopes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketFence {
    pub barrier: bool,
    pub acquire: FenceScope,
    pub release: FenceScope,
}

impl PacketFence {
    /// Barrier bit, system acquire, system release: fully ordered and
    /// visible to the host (what a lone dispatch wants).
    pub const SYSTEM_ORDERED: PacketFence = PacketFence {
        barrier: true,
        acquire: FenceScope::System,
        release: FenceScope::System,
    };
    /// No barrier, agent-scope fences (back-to-back device work).
    pub const AGENT_UNORDERED: PacketFence = PacketFence {
        barrier: false,
        acquire: FenceScope::Agent,
        release: FenceScope::Agent,
    };
}

impl Default for PacketFence {
    fn default() -> Self {
        Self::SYSTEM_ORDERED
    }
}

/// The 16-bit header of a packet of `packet_type` with `fence`.
pub fn header(packet_type: u16, fence: PacketFence) -> u16 {
    PacketHeader::new(packet_type, fence.barrier, fence.acquire, fence.release).to_bits()
}

/// The 32-bit publication word of a raw packet (bytes 0..4).
pub fn header_word(packet: &RawPacket) -> u32 {
    packet.0[0] as u32
}

/// A kernel dispatch, before encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelDispatch {
    /// Address of the 64-byte kernel descriptor.
    pub kernel_object: u64,
    /// Address of the kernarg block (16-byte aligned; 0 if none).
    pub kernarg_address: u64,
    /// Grid size in work-items per dimension.
    pub grid_size: [u32; 3],
    /// Workgroup size in work-items per dimension.
    pub workgroup_size: [u16; 3],
    /// 1, 2 or 3.
    pub dimensions: u8,
    /// Bytes of LDS per workgroup (the descriptor's fixed size + dynamic).
    pub group_segment_size: u32,
    /// Bytes of scratch per work-item.
    pub private_segment_size: u32,
    /// Signal handle decremented on completion (0 = none).
    pub completion_signal: u64,
    pub fence: PacketFence,
}

impl KernelDispatch {
    /// A dispatch of `grid` work-items in groups of `workgroup`, with the
    /// dimension count taken from the highest dimension larger than 1.
    pub fn new(
        kernel_object: u64,
        kernarg_address: u64,
        grid: [u32; 3],
        workgroup: [u16; 3],
    ) -> Self {
        let dimensions = if grid[2] > 1 || workgroup[2] > 1 {
            3
        } else if grid[1] > 1 || workgroup[1] > 1 {
            2
        } else {
            1
        };
        Self {
            kernel_object,
            kernarg_address,
            grid_size: grid,
            workgroup_size: workgroup,
            dimensions,
            group_segment_size: 0,
            private_segment_size: 0,
            completion_signal: 0,
            fence: PacketFence::default(),
        }
    }

    /// Encode, checking what the packet processor would reject.
    pub fn to_packet(&self) -> HsaResult<KernelDispatchPacket> {
        let bad = |e: PacketError| Err(HsaError::Packet(e));
        if !(1..=3).contains(&self.dimensions) {
            return bad(PacketError::Dimensions {
                dimensions: self.dimensions,
            });
        }
        let dims = self.dimensions as usize;
        for d in 0..3 {
            let (g, w) = (self.grid_size[d], self.workgroup_size[d]);
            if d >= dims && (g != 1 || w != 1) {
                return bad(PacketError::UnusedDimension {
                    dimensions: self.dimensions,
                    dimension: d,
                });
            }
            if g == 0 || w == 0 {
                return bad(PacketError::ZeroSize {
                    grid: g,
                    workgroup: w,
                    dimension: d,
                });
            }
        }
        let wg_items: u32 = self.workgroup_size.iter().map(|&w| w as u32).product();
        if wg_items > MAX_WORKGROUP_ITEMS {
            return bad(PacketError::WorkgroupTooLarge {
                items: wg_items,
                limit: MAX_WORKGROUP_ITEMS,
            });
        }
        if self.kernel_object == 0 || !self.kernel_object.is_multiple_of(64) {
            return bad(PacketError::KernelObject {
                address: self.kernel_object,
            });
        }
        if !self.kernarg_address.is_multiple_of(16) {
            return bad(PacketError::KernargAddress {
                address: self.kernarg_address,
            });
        }
        Ok(KernelDispatchPacket {
            header: header(packet_type::KERNEL_DISPATCH, self.fence),
            setup: self.dimensions as u16,
            workgroup_size_x: self.workgroup_size[0],
            workgroup_size_y: self.workgroup_size[1],
            workgroup_size_z: self.workgroup_size[2],
            reserved0: 0,
            grid_size_x: self.grid_size[0],
            grid_size_y: self.grid_size[1],
            grid_size_z: self.grid_size[2],
            private_segment_size: self.private_segment_size,
            group_segment_size: self.group_segment_size,
            kernel_object: self.kernel_object,
            kernarg_address: self.kernarg_address,
            reserved2: 0,
            completion_signal: self.completion_signal,
        })
    }
}

fn barrier(
    kind: u16,
    deps: &[u64],
    completion_signal: u64,
    fence: PacketFence,
) -> HsaResult<BarrierPacket> {
    if deps.len() > MAX_BARRIER_DEPS {
        return Err(PacketError::BarrierDependencies {
            count: deps.len(),
            limit: MAX_BARRIER_DEPS,
        }
        .into());
    }
    let mut dep_signal = [0u64; 5];
    dep_signal[..deps.len()].copy_from_slice(deps);
    Ok(BarrierPacket {
        header: header(kind, fence),
        dep_signal,
        completion_signal,
        ..Default::default()
    })
}

/// Barrier-AND: completes when every dependency signal is 0 (a null
/// handle counts as satisfied).
pub fn barrier_and(
    deps: &[u64],
    completion_signal: u64,
    fence: PacketFence,
) -> HsaResult<BarrierPacket> {
    barrier(packet_type::BARRIER_AND, deps, completion_signal, fence)
}

/// Barrier-OR: completes when any dependency signal is 0 (null handles
/// never satisfy it).
pub fn barrier_or(
    deps: &[u64],
    completion_signal: u64,
    fence: PacketFence,
) -> HsaResult<BarrierPacket> {
    barrier(packet_type::BARRIER_OR, deps, completion_signal, fence)
}

/// A packet that does nothing (a barrier-AND without dependencies).
pub fn nop(fence: PacketFence) -> BarrierPacket {
    BarrierPacket {
        header: header(packet_type::BARRIER_AND, fence),
        ..Default::default()
    }
}

/// Any packet as the raw 64 bytes a ring slot holds.
pub trait AqlPacket {
    fn to_raw(&self) -> RawPacket;
}

impl AqlPacket for KernelDispatchPacket {
    fn to_raw(&self) -> RawPacket {
        bytemuck::cast(*self)
    }
}
impl AqlPacket for BarrierPacket {
    fn to_raw(&self) -> RawPacket {
        bytemuck::cast(*self)
    }
}
impl AqlPacket for RawPacket {
    fn to_raw(&self) -> RawPacket {
        *self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_bits() {
        assert_eq!(
            header(packet_type::KERNEL_DISPATCH, PacketFence::SYSTEM_ORDERED),
            0x1502
        );
        assert_eq!(
            header(packet_type::BARRIER_AND, PacketFence::SYSTEM_ORDERED),
            0x1503
        );
        assert_eq!(
            header(packet_type::BARRIER_OR, PacketFence::AGENT_UNORDERED),
            0x0a05
        );
        let none = PacketFence {
            barrier: false,
            acquire: FenceScope::None,
            release: FenceScope::None,
        };
        assert_eq!(header(packet_type::INVALID, none), 0x0001);
    }
}
