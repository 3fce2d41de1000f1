//! The parts of [`CodeObjectError`](super::CodeObjectError) for a kernarg
//! segment that cannot be built: which argument ([`ArgLabel`]) and what is
//! wrong with a dispatch shape ([`DispatchShapeError`]).

use std::fmt;

use thiserror::Error;

/// An explicit kernel argument, as errors name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgLabel {
    /// The kernel's name.
    pub kernel: String,
    /// Position among the kernel's explicit arguments.
    pub index: usize,
    /// The argument's metadata `.name`, when it has one.
    pub name: Option<String>,
}

impl fmt::Display for ArgLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => write!(f, "{} (`{name}`) of kernel `{}`", self.index, self.kernel),
            None => write!(f, "{} of kernel `{}`", self.index, self.kernel),
        }
    }
}

/// Why a [`DispatchShape`](super::DispatchShape) cannot describe a dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum DispatchShapeError {
    /// The dimension count is not 1, 2 or 3.
    #[error("dims is {dims}, expected 1, 2 or 3")]
    Dims { dims: u32 },
    /// A workgroup size is 0 or does not fit the packet's 16-bit field.
    #[error("workgroup size {size} in dimension {axis} is not in 1..={max}")]
    WorkgroupSize { axis: usize, size: u32, max: u32 },
}
