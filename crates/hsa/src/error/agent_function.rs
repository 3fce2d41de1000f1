//! [`AgentFunctionError`]: registering host functions of agent dispatch.

use super::HsaStatus;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentFunctionError {
    /// An id in the range reserved for the vendor's functions.
    #[error("function id {id:#x} is in the vendor range; applications use {start:#x}..={end:#x}")]
    VendorRange { id: u16, start: u16, end: u16 },
    /// An id that already has a function.
    #[error("function id {id:#x} is already registered")]
    AlreadyRegistered { id: u16 },
    /// Every application id has a function.
    #[error("every application function id is registered")]
    IdsExhausted,
}

impl AgentFunctionError {
    /// The HSA status ROCr returns for this case.
    pub fn status(&self) -> HsaStatus {
        match self {
            AgentFunctionError::IdsExhausted => HsaStatus::OutOfResources,
            _ => HsaStatus::InvalidArgument,
        }
    }
}
