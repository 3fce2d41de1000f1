//! `amd_signal_t` (amd_hsa_signal.h): 64 bytes, 64-byte aligned.
//! An `hsa_signal_t` handle is the address of one of these.

use bytemuck::{Pod, Zeroable};

pub const AMD_SIGNAL_KIND_INVALID: i64 = 0;
pub const AMD_SIGNAL_KIND_USER: i64 = 1;
pub const AMD_SIGNAL_KIND_DOORBELL: i64 = -1;
pub const AMD_SIGNAL_KIND_LEGACY_DOORBELL: i64 = -2;

#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct AmdSignal {
    pub kind: i64,
    /// The signal value (or the hardware doorbell address for doorbell
    /// signals).
    pub value: i64,
    /// Address of the KFD event-page slot to write `event_id` into after
    /// the value changes; 0 for signals without an event.
    pub event_mailbox_ptr: u64,
    pub event_id: u32,
    pub reserved1: u32,
    pub start_ts: u64,
    pub end_ts: u64,
    pub queue_ptr: u64,
    pub reserved3: [u32; 2],
}

/// Byte offset of `value` inside [`AmdSignal`].
pub const AMD_SIGNAL_VALUE_OFFSET: usize = 8;
/// Byte offset of `event_mailbox_ptr`.
pub const AMD_SIGNAL_EVENT_MAILBOX_OFFSET: usize = 16;
/// Byte offset of `event_id`.
pub const AMD_SIGNAL_EVENT_ID_OFFSET: usize = 24;
/// Byte offsets of `start_ts` and `end_ts`.
pub const AMD_SIGNAL_START_TS_OFFSET: usize = 32;
pub const AMD_SIGNAL_END_TS_OFFSET: usize = 40;
