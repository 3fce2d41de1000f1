//! [`SignalError`]: signals whose memory or event the runtime cannot use.

use super::HsaStatus;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignalError {
    /// A signal slot that is not 64 bytes at a 64-byte-aligned address.
    #[error("signal slot must be 64 bytes, 64-byte aligned (got {len} bytes at {va:#x})")]
    SlotLayout { len: u64, va: u64 },
    /// WAIT_EVENTS reported failure without an error from the driver.
    #[error("WAIT_EVENTS reported failure (an event was destroyed?)")]
    WaitFailed,
    /// A signal event whose slot lies past the event page.
    #[error("event slot {slot} is outside the event page ({limit} slots)")]
    EventSlot { slot: u32, limit: u32 },
}

impl SignalError {
    /// The HSA status ROCr returns for this case.
    pub fn status(&self) -> HsaStatus {
        match self {
            SignalError::SlotLayout { .. } | SignalError::WaitFailed => HsaStatus::InvalidSignal,
            SignalError::EventSlot { .. } => HsaStatus::OutOfResources,
        }
    }
}
