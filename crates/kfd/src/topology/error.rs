//! What can be wrong in one topology file: the `fault` of a
//! [`KfdError::Topology`](crate::KfdError::Topology), which names the file.

/// A failure to read or parse one file or directory of the topology tree.
#[derive(Debug, thiserror::Error)]
pub enum TopologyFault {
    /// The file cannot be read.
    #[error("cannot read: {source}")]
    Unreadable {
        #[source]
        source: std::io::Error,
    },
    /// The directory cannot be listed.
    #[error("cannot list: {source}")]
    Unlistable {
        #[source]
        source: std::io::Error,
    },
    /// A properties line with a key and no value.
    #[error("key {key}: truncated line (no value)")]
    TruncatedLine { key: String },
    /// A properties line with a field after the value.
    #[error("key {key}: unexpected field '{field}'")]
    UnexpectedField { key: String, field: String },
    /// A property whose value is not a decimal u64.
    #[error("key {key}: invalid number '{value}'")]
    InvalidProperty { key: String, value: String },
    /// A single-number file (`gpu_id`, `generation_id`) that holds no
    /// decimal u64.
    #[error("invalid number '{value}'")]
    InvalidNumber { value: String },
    /// A directory entry where a numbered one (`0`, `1`, ...) belongs.
    #[error("entry '{name}' is not a number")]
    UnnumberedEntry { name: String },
    /// A `gpu_id` wider than the 32 bits KFD gives it.
    #[error("gpu_id {gpu_id} does not fit 32 bits")]
    GpuIdTooWide { gpu_id: u64 },
}
