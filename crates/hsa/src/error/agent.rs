//! [`AgentError`]: an agent that is missing, not of the kind a call needs,
//! or lacks what the runtime needs from it.

use crate::memory::PoolKind;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// A GPU node whose ISA has no known context-save and EOP buffer sizes.
    #[error("GPU node {node} ({name}) has no known queue buffer sizes")]
    NoQueueBufferSizes { node: u32, name: String },
    /// A GPU node the topology gives no DRM render node.
    #[error("GPU node {node} has no DRM render node")]
    NoRenderNode { node: u32 },
    /// An agent that is not one of this runtime's visible GPUs.
    #[error("`{name}` (node {node}) is not a visible GPU agent of this runtime")]
    NotVisibleGpu { name: String, node: u32 },
    /// An agent without a pool of the kind asked for.
    #[error("agent `{agent}` has no {kind:?} pool")]
    NoPool { agent: String, kind: PoolKind },
    /// A GPU ordinal past the visible GPUs.
    #[error("GPU ordinal {ordinal} out of range: {visible} GPU(s) visible")]
    OrdinalOutOfRange { ordinal: usize, visible: usize },
    /// No agent has the UUID asked for; `known` lists the agents' UUIDs.
    #[error("no agent has UUID `{uuid}` (agents: {})", known.join(", "))]
    UnknownUuid { uuid: String, known: Vec<String> },
    /// Code objects need a GPU agent.
    #[error("agent `{name}` is not a GPU and runs no code objects")]
    NotGpu { name: String },
    /// Soft queues need one of this runtime's CPU agents.
    #[error(
        "`{name}` (node {node}) is not a CPU agent of this runtime; soft queues run on CPU agents"
    )]
    NotCpu { name: String, node: u32 },
    /// The system has no CPU agent (host functions need one).
    #[error("the system has no CPU agent")]
    NoCpuAgent,
}
