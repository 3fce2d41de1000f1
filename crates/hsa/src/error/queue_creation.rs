//! [`QueueCreationError`]: why a hardware or soft queue could not be made.

use aqueduct_kfd::KfdError;

use super::HsaStatus;

#[derive(Debug, thiserror::Error)]
pub enum QueueCreationError {
    /// A ring size that is not a power of two in the supported range.
    #[error("queue size {packets} must be a power of two in {min}..={max} packets")]
    PacketCount { packets: u32, min: u32, max: u32 },
    /// Memory of the queue (its `part`: "ring", "queue page") that the
    /// host has to write is not host mapped.
    #[error("the queue's {part} is not host mapped")]
    NotHostMapped { part: &'static str },
    /// The driver refused CREATE_QUEUE.
    #[error("CREATE_QUEUE on gpu {gpu_id:#x}: {source}")]
    CreateQueue {
        gpu_id: u32,
        #[source]
        source: KfdError,
    },
    /// The soft queue's processor thread could not be started.
    #[error("spawning the soft queue's processor: {source}")]
    ProcessorThread {
        #[source]
        source: std::io::Error,
    },
    /// The AQL queue's scratch handler thread could not be started.
    #[error("spawning the queue's scratch handler: {source}")]
    ScratchHandler {
        #[source]
        source: std::io::Error,
    },
}

impl QueueCreationError {
    /// The HSA status ROCr returns for this case.
    pub fn status(&self) -> HsaStatus {
        match self {
            QueueCreationError::ProcessorThread { .. }
            | QueueCreationError::ScratchHandler { .. } => HsaStatus::OutOfResources,
            _ => HsaStatus::InvalidQueueCreation,
        }
    }
}
