//! [`HsaStatus`]: the `hsa_status_t` an error corresponds to, for callers
//! that only want to know which HSA status a call would have returned
//! (values from ROCr's `hsa.h`, `hsa_status_t`).

/// An `hsa_status_t` error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HsaStatus {
    /// `HSA_STATUS_ERROR`: a generic failure (driver refusals, timeouts).
    Error,
    InvalidArgument,
    InvalidQueueCreation,
    InvalidAllocation,
    InvalidAgent,
    InvalidSignal,
    OutOfResources,
    InvalidPacketFormat,
    ResourceFree,
    NotInitialized,
    IncompatibleArguments,
    InvalidIsa,
    InvalidCodeObject,
    InvalidSymbolName,
    /// `HSA_STATUS_ERROR_EXCEPTION`: a queue is in error.
    Exception,
}

impl HsaStatus {
    /// The numeric `hsa_status_t` value.
    pub fn code(self) -> u32 {
        match self {
            HsaStatus::Error => 0x1000,
            HsaStatus::InvalidArgument => 0x1001,
            HsaStatus::InvalidQueueCreation => 0x1002,
            HsaStatus::InvalidAllocation => 0x1003,
            HsaStatus::InvalidAgent => 0x1004,
            HsaStatus::InvalidSignal => 0x1006,
            HsaStatus::OutOfResources => 0x1008,
            HsaStatus::InvalidPacketFormat => 0x1009,
            HsaStatus::ResourceFree => 0x100A,
            HsaStatus::NotInitialized => 0x100B,
            HsaStatus::IncompatibleArguments => 0x100D,
            HsaStatus::InvalidIsa => 0x100F,
            HsaStatus::InvalidCodeObject => 0x1010,
            HsaStatus::InvalidSymbolName => 0x1013,
            HsaStatus::Exception => 0x1016,
        }
    }

    /// The status code's name (`"HSA_STATUS_ERROR_INVALID_ARGUMENT"`...).
    pub fn name(self) -> &'static str {
        match self {
            HsaStatus::Error => "HSA_STATUS_ERROR",
            HsaStatus::InvalidArgument => "HSA_STATUS_ERROR_INVALID_ARGUMENT",
            HsaStatus::InvalidQueueCreation => "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION",
            HsaStatus::InvalidAllocation => "HSA_STATUS_ERROR_INVALID_ALLOCATION",
            HsaStatus::InvalidAgent => "HSA_STATUS_ERROR_INVALID_AGENT",
            HsaStatus::InvalidSignal => "HSA_STATUS_ERROR_INVALID_SIGNAL",
            HsaStatus::OutOfResources => "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
            HsaStatus::InvalidPacketFormat => "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT",
            HsaStatus::ResourceFree => "HSA_STATUS_ERROR_RESOURCE_FREE",
            HsaStatus::NotInitialized => "HSA_STATUS_ERROR_NOT_INITIALIZED",
            HsaStatus::IncompatibleArguments => "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS",
            HsaStatus::InvalidIsa => "HSA_STATUS_ERROR_INVALID_ISA",
            HsaStatus::InvalidCodeObject => "HSA_STATUS_ERROR_INVALID_CODE_OBJECT",
            HsaStatus::InvalidSymbolName => "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME",
            HsaStatus::Exception => "HSA_STATUS_ERROR_EXCEPTION",
        }
    }
}
