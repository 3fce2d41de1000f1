//! Builder of the agent-dispatch packet (`hsa_agent_dispatch_packet_t`,
//! layout in `aqueduct_kfd::abi`), the packet family a CPU agent's soft
//! queue executes: a function id, four 64-bit arguments, a return address
//! and a completion signal.

use aqueduct_kfd::abi::{AgentDispatchPacket, RawPacket, packet_type};

use crate::queue::AqlPacket;
use crate::queue::packet::{PacketFence, header};

/// An agent dispatch, before encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentDispatch {
    /// The function id (`type` in hsa.h): vendor ids below 0x8000,
    /// application-registered ids from 0x8000.
    pub function_id: u16,
    pub args: [u64; 4],
    /// Where the function may write its result (0 = nowhere).
    pub return_address: u64,
    /// Signal handle decremented on completion (0 = none).
    pub completion_signal: u64,
    pub fence: PacketFence,
}

impl AgentDispatch {
    /// A call of `function_id` with `args`, fully ordered and system
    /// scoped, with no return address and no completion signal.
    pub fn new(function_id: u16, args: [u64; 4]) -> Self {
        Self {
            function_id,
            args,
            return_address: 0,
            completion_signal: 0,
            fence: PacketFence::SYSTEM_ORDERED,
        }
    }

    pub fn to_packet(&self) -> AgentDispatchPacket {
        AgentDispatchPacket {
            header: header(packet_type::AGENT_DISPATCH, self.fence),
            dispatch_type: self.function_id,
            reserved0: 0,
            return_address: self.return_address,
            arg: self.args,
            reserved2: 0,
            completion_signal: self.completion_signal,
        }
    }
}

impl AqlPacket for AgentDispatchPacket {
    fn to_raw(&self) -> RawPacket {
        bytemuck::cast(*self)
    }
}
