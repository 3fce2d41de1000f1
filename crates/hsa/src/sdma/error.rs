//! [`SdmaError`]: SDMA commands the engine would reject.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SdmaError {
    /// A dword fill whose destination or size is not a multiple of 4.
    #[error("a dword fill needs a 4-byte aligned destination and size, not {address:#x}+{bytes}")]
    UnalignedFill { address: u64, bytes: u64 },
    /// More dependency signals than one command waits on.
    #[error("an SDMA command waits on at most {limit} signals, not {count}")]
    TooManyDependencies { count: usize, limit: usize },
}
