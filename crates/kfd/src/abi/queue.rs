//! `amd_queue_t` (amd_hsa_queue.h): 256 bytes, 64-byte aligned, with the
//! embedded `hsa_queue_t` at offset 0.

use bytemuck::{Pod, Zeroable};

/// `hsa_queue_type_t`.
pub const HSA_QUEUE_TYPE_MULTI: u32 = 0;
pub const HSA_QUEUE_TYPE_SINGLE: u32 = 1;
pub const HSA_QUEUE_TYPE_COOPERATIVE: u32 = 2;
/// `hsa_queue_feature_t`.
pub const HSA_QUEUE_FEATURE_KERNEL_DISPATCH: u32 = 1;
pub const HSA_QUEUE_FEATURE_AGENT_DISPATCH: u32 = 2;

/// `amd_queue_properties_t` bits.
pub const AMD_QUEUE_PROPERTIES_ENABLE_TRAP_HANDLER: u32 = 1 << 0;
pub const AMD_QUEUE_PROPERTIES_IS_PTR64: u32 = 1 << 1;
pub const AMD_QUEUE_PROPERTIES_ENABLE_TRAP_HANDLER_DEBUG_SGPRS: u32 = 1 << 2;
pub const AMD_QUEUE_PROPERTIES_ENABLE_PROFILING: u32 = 1 << 3;
pub const AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE: u32 = 1 << 4;
/// `amd_queue_capabilities_t` bits of `caps`, which CP firmware sets when
/// the queue connects: the CP records `scratch_last_used_index` (and
/// supports a second scratch), so the runtime may reclaim scratch while the
/// queue runs.
pub const AMD_QUEUE_CAPS_ASYNC_RECLAIM: u32 = 1 << 0;

#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct AmdQueue {
    // hsa_queue_t
    pub queue_type: u32,
    pub features: u32,
    pub base_address: u64,
    pub doorbell_signal: u64,
    pub size: u32,
    pub reserved1: u32,
    pub id: u64,
    // amd extension
    pub caps: u32,
    pub reserved2: [u32; 3],
    pub write_dispatch_id: u64,
    pub group_segment_aperture_base_hi: u32,
    pub private_segment_aperture_base_hi: u32,
    pub max_cu_id: u32,
    pub max_wave_id: u32,
    pub max_legacy_doorbell_dispatch_id_plus_1: u64,
    pub legacy_doorbell_lock: u32,
    pub reserved3: [u32; 9],
    pub read_dispatch_id: u64,
    pub read_dispatch_id_field_base_byte_offset: u32,
    pub compute_tmpring_size: u32,
    pub scratch_resource_descriptor: [u32; 4],
    pub scratch_backing_memory_location: u64,
    pub scratch_backing_memory_byte_size: u64,
    pub scratch_wave64_lane_byte_size: u32,
    pub queue_properties: u32,
    pub scratch_last_used_index: u64,
    pub queue_inactive_signal: u64,
    pub reserved4: [u32; 2],
    pub alt_scratch_last_used_index: u64,
    pub alt_scratch_backing_memory_location: u64,
    pub alt_scratch_backing_memory_byte_size: u64,
    pub alt_scratch_dispatch_limit_x: u32,
    pub alt_scratch_dispatch_limit_y: u32,
    pub alt_scratch_dispatch_limit_z: u32,
    pub alt_scratch_wave64_lane_byte_size: u32,
    pub alt_compute_tmpring_size: u32,
    pub reserved5: u32,
}

impl Default for AmdQueue {
    fn default() -> Self {
        Self::zeroed()
    }
}

/// Byte offsets the device and the runtime address atomically.
pub const AMD_QUEUE_WRITE_DISPATCH_ID_OFFSET: usize = 56;
pub const AMD_QUEUE_READ_DISPATCH_ID_OFFSET: usize = 128;
/// Byte offset of `queue_properties`, which the CP reads for
/// `AMD_QUEUE_PROPERTIES_ENABLE_PROFILING`.
pub const AMD_QUEUE_PROPERTIES_OFFSET: usize = 180;
/// Byte offset of `caps`.
pub const AMD_QUEUE_CAPS_OFFSET: usize = 40;
/// Byte offsets of `scratch_wave64_lane_byte_size` and
/// `scratch_last_used_index`, which the runtime and the CP address
/// atomically during an asynchronous scratch reclaim.
pub const AMD_QUEUE_SCRATCH_WAVE64_LANE_BYTE_SIZE_OFFSET: usize = 176;
pub const AMD_QUEUE_SCRATCH_LAST_USED_INDEX_OFFSET: usize = 184;

const _: () = {
    assert!(std::mem::offset_of!(AmdQueue, caps) == AMD_QUEUE_CAPS_OFFSET);
    assert!(
        std::mem::offset_of!(AmdQueue, scratch_wave64_lane_byte_size)
            == AMD_QUEUE_SCRATCH_WAVE64_LANE_BYTE_SIZE_OFFSET
    );
    assert!(
        std::mem::offset_of!(AmdQueue, scratch_last_used_index)
            == AMD_QUEUE_SCRATCH_LAST_USED_INDEX_OFFSET
    );
    assert!(std::mem::offset_of!(AmdQueue, queue_properties) == AMD_QUEUE_PROPERTIES_OFFSET);
};
