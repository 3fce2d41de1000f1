//! AQL queues: packet builders, the ring protocol and the KFD-backed queue.

pub mod aql_queue;
pub mod packet;
pub mod ring;
pub mod scratch;
pub mod scratch_reclaim;

pub use aql_queue::{Queue, Reservation};
pub use packet::{AqlPacket, KernelDispatch, PacketFence};
pub use ring::AqlRing;
pub use scratch::{ScratchError, ScratchLimits, ScratchPlan, SrdLayout};
pub use scratch_reclaim::ScratchReclaimError;
