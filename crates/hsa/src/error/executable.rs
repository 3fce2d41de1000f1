//! [`ExecutableError`]: loading code for an agent and finding its kernels.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExecutableError {
    /// The agent's ISA name does not parse as an AMDGPU ISA name.
    #[error("invalid ISA: agent ISA `{isa}` is not a valid AMDGPU ISA name")]
    InvalidIsaName { isa: String },
    /// No kernel of that name; `available` lists the executable's kernels.
    #[error("kernel `{name}` not found in the executable; it has: {}", available.join(", "))]
    KernelNotFound {
        name: String,
        available: Vec<String>,
    },
}
