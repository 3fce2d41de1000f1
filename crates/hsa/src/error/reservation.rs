//! [`ReservationError`]: reserving and publishing packet slots of a ring.

use super::HsaStatus;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReservationError {
    /// A ring whose size is not a power of two.
    #[error("ring size {size} is not a power of two")]
    RingSize { size: u32 },
    /// A reservation of no slots or of more slots than the ring has.
    #[error("cannot reserve {count} slots of a {size}-slot ring")]
    Count { count: u32, size: u32 },
    /// A slot past the end of the reservation.
    #[error("slot {slot} of a {count}-slot reservation")]
    SlotOutOfRange { slot: u32, count: u32 },
    /// A slot that was already published.
    #[error("slot {slot} of the reservation was already published")]
    SlotPublished { slot: u32 },
    /// A run of slots past the end of the reservation.
    #[error("slots {first}..{end} of a {count}-slot reservation")]
    SlotsOutOfRange { first: u32, end: u64, count: u32 },
    /// A run of slots of which one was already published.
    #[error("a slot of {first}..{end} of the reservation was already published")]
    SlotsPublished { first: u32, end: u32 },
    /// More packets written than slots were reserved for them.
    #[error("more packets written than slots were reserved")]
    NoSlotLeft,
    /// A submission of more packets than a ring index can count.
    #[error("too many packets ({count})")]
    TooManyPackets { count: usize },
    /// The agent queue is being dropped.
    #[error("the agent queue is shutting down")]
    ShuttingDown,
    /// A host function running on a full agent queue submitted to it (it
    /// cannot wait for itself to make room).
    #[error("agent queue {queue_id:#x} is full and a host function running on it submitted more")]
    QueueFull { queue_id: u32 },
}

impl ReservationError {
    /// The HSA status ROCr returns for this case.
    pub fn status(&self) -> HsaStatus {
        match self {
            ReservationError::QueueFull { .. } => HsaStatus::OutOfResources,
            _ => HsaStatus::InvalidArgument,
        }
    }
}
