//! Errors of the KFD layer: [`KfdError`], the umbrella every device call
//! returns, and [`NoDeviceError`], why no usable device could be opened.
//! Topology parsing failures are [`TopologyFault`]s (`topology/error.rs`).

use std::path::PathBuf;

use crate::topology::TopologyFault;

pub type KfdResult<T> = Result<T, KfdError>;

#[derive(Debug, thiserror::Error)]
pub enum KfdError {
    /// /dev/kfd is absent or lists no GPU node.
    #[error("no KFD device: {0}")]
    NoDevice(#[from] NoDeviceError),
    /// An ioctl failed; `errno` is the raw OS error number (EINVAL, ENOMEM...).
    #[error("KFD ioctl {ioctl} failed: {source}")]
    Ioctl {
        ioctl: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// mmap/munmap/mprotect failed.
    #[error("{what} failed: {source}")]
    Os {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// A topology file is missing or malformed: `path` names the file,
    /// `fault` what is wrong in it.
    #[error("topology: {}: {fault}", path.display())]
    Topology { path: PathBuf, fault: TopologyFault },
    /// KFD reports an interface version this crate cannot drive.
    #[error("unsupported KFD interface version {major}.{minor} (need 1.x, x >= {min_minor})")]
    UnsupportedVersion {
        major: u32,
        minor: u32,
        min_minor: u32,
    },
}

/// Why no device could be opened.
#[derive(Debug, thiserror::Error)]
pub enum NoDeviceError {
    /// The KFD device node does not exist (no amdgpu/KFD driver).
    #[error(
        "{} does not exist: this machine has no AMD GPU with the amdgpu/KFD driver loaded \
         (use the simulated device instead)",
        path.display()
    )]
    NodeMissing { path: PathBuf },
    /// The KFD device node exists but this process may not open it.
    #[error(
        "{} exists but cannot be opened ({source}): add the user to the group owning it \
         (usually 'render')",
        path.display()
    )]
    NodeNotAccessible {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The topology lists no GPU node this process can use.
    #[error(
        "{} lists no GPU node (the KFD driver is loaded but no usable GPU is visible to this \
         process)",
        sysfs_root.display()
    )]
    NoGpuNode { sysfs_root: PathBuf },
    /// A device built with a GPU count outside what it supports.
    #[error("{backend} supports 1..={max} GPUs, not {requested}")]
    GpuCount {
        backend: &'static str,
        requested: usize,
        max: usize,
    },
    /// A GPU the device set up is missing from its own topology.
    #[error("{backend} topology lacks gpu {gpu_id:#x}")]
    GpuNotInTopology { backend: &'static str, gpu_id: u32 },
    /// A GPU node whose ISA has no known context-save area sizes.
    #[error("no CWSR sizes for gpu {gpu_id:#x}")]
    NoCwsrSizes { gpu_id: u32 },
    /// A device asked to present a KFD interface version it does not model.
    #[error("{backend} presents KFD 1.{min}..=1.{max}, not 1.{requested}")]
    KfdVersion {
        backend: &'static str,
        requested: u32,
        min: u32,
        max: u32,
    },
}

impl KfdError {
    /// Build an ioctl error from an errno value, the way the kernel reports it.
    pub fn ioctl(ioctl: &'static str, errno: i32) -> Self {
        KfdError::Ioctl {
            ioctl,
            source: std::io::Error::from_raw_os_error(errno),
        }
    }

    /// The raw errno of an ioctl or OS error, if it has one.
    pub fn errno(&self) -> Option<i32> {
        match self {
            KfdError::Ioctl { source, .. } | KfdError::Os { source, .. } => source.raw_os_error(),
            _ => None,
        }
    }
}
