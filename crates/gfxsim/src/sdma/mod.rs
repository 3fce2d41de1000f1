//! SDMA queues: the system DMA engines' user-mode queues, created through
//! the same CREATE_QUEUE ioctl as compute queues (`KFD_IOC_QUEUE_TYPE_SDMA`).
//!
//! - `create.rs`: the argument checks and the per-process queue limit;
//! - `packet.rs`: the SDMA 6.0 packet formats the engine decodes;
//! - `engine.rs`: the engine thread that consumes a queue's ring.
//!
//! An SDMA queue shares `QueueShared` (doorbell, wake-up, halt, exception)
//! with compute queues; its ring holds variable-length packets of dwords
//! and its read and write pointers count bytes.

pub mod create;
pub mod engine;
pub mod packet;

/// SDMA engines of the simulated part (gfx1100 has two: Linux
/// `amdgpu_discovery.c` reports two SDMA 6.0.0 instances, and the
/// topology's `num_sdma_engines` is 2).
pub const SDMA_ENGINES: u32 = 2;

/// SDMA queues per engine KFD may hand out: 8 per SDMA 6.0 engine less the
/// 2 the kernel driver reserves (Linux `kfd_device.c`
/// `kfd_device_info_set_sdma_info`: `num_sdma_queues_per_engine = 8`,
/// `num_reserved_sdma_queues_per_engine = 2` for IP 6.0.x), which the
/// topology reports as `num_sdma_queues_per_engine` 6 (`kfd_topology.c`).
pub const SDMA_QUEUES_PER_ENGINE: u32 = 6;

/// Most SDMA queues a process may hold at once: KFD's SDMA queue bitmap
/// has engines x queues-per-engine bits (`kfd_device_queue_manager.c`
/// `get_num_sdma_queues`, `allocate_sdma_queue`, which fails with ENOMEM
/// when none is free).
pub const MAX_SDMA_QUEUES: u32 = SDMA_ENGINES * SDMA_QUEUES_PER_ENGINE;
