//! [`PacketError`]: AQL packets the packet processor would reject.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PacketError {
    /// Dispatch dimensions outside 1..=3.
    #[error("dispatch dimensions must be 1..=3, not {dimensions}")]
    Dimensions { dimensions: u8 },
    /// A size other than 1 in a dimension past the dispatch's dimensions.
    #[error("a {dimensions}-D dispatch needs grid and workgroup size 1 in dimension {dimension}")]
    UnusedDimension { dimensions: u8, dimension: usize },
    /// A zero grid or workgroup size.
    #[error(
        "grid size {grid} / workgroup size {workgroup} in dimension {dimension} must be non-zero"
    )]
    ZeroSize {
        grid: u32,
        workgroup: u16,
        dimension: usize,
    },
    /// A workgroup of more work-items than the hardware runs.
    #[error("workgroup of {items} work-items exceeds {limit}")]
    WorkgroupTooLarge { items: u32, limit: u32 },
    /// A null or misaligned kernel object address.
    #[error("kernel object {address:#x} must be a non-null 64-byte-aligned address")]
    KernelObject { address: u64 },
    /// A misaligned kernarg address.
    #[error("kernarg address {address:#x} must be 16-byte aligned")]
    KernargAddress { address: u64 },
    /// A barrier with more dependency signals than its packet has room for.
    #[error("a barrier packet carries at most {limit} dependency signals, not {count}")]
    BarrierDependencies { count: usize, limit: usize },
}
