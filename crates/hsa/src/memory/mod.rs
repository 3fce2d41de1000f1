//! Memory: the VA aperture, KFD buffer objects, pools and sub-allocation.

pub mod allocation;
pub(crate) mod context;
pub mod pool;
pub mod suballoc;
pub mod vmem;

pub use allocation::{Allocation, HostMapping};
pub use pool::{AllocOptions, MemoryPool, PoolInfo, PoolKind, Segment};
pub use suballoc::{SubAllocation, SubAllocator};
