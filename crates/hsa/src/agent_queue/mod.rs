//! AQL agent dispatch: soft queues of the CPU agent and the host functions
//! they run.
//!
//! AQL has three packet families: kernel dispatch, barrier-AND/OR and
//! agent dispatch. GPU queues take the first two; an [`AgentQueue`] is a
//! user-mode AQL ring on a CPU agent whose packet processor is a host
//! thread, taking agent-dispatch packets (a call of a registered host
//! function) and barrier packets. With barrier packets on both sides, host
//! work sits between device work in order: a GPU queue's barrier-AND can
//! wait for an agent dispatch's completion signal and an agent queue's
//! barrier-AND for a kernel's — no host thread polls in between.
//!
//! Modules: [`packet`] (the agent-dispatch builder), [`registry`] (function
//! id -> host function), `raw_signal` (signals by handle), `shared`,
//! `processor` (the packet processor) and [`soft_queue`] (the queue).

pub mod packet;
mod processor;
mod raw_signal;
pub mod registry;
mod shared;
pub mod soft_queue;

pub use packet::AgentDispatch;
pub use registry::{
    HostCall, HostFunction, HostFunctionError, HostFunctionRegistry, HostFunctionResult,
};
pub use soft_queue::AgentQueue;

/// Vendor function id the runtime uses for one-shot host callbacks
/// ([`AgentQueue::submit_callback`]): arg 0 is the callback's token.
pub const CALLBACK_FUNCTION_ID: u16 = 0x0001;
