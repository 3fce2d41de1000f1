//! Errors of the KFD layer.

use std::path::PathBuf;

pub type KfdResult<T> = Result<T, KfdError>;

#[derive(Debug, thiserror::Error)]
pub enum KfdError {
    /// /dev/kfd is absent or lists no GPU node.
    #[error("no KFD device: {0}")]
    NoDevice(String),
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
    /// A topology file is missing or malformed.
    #[error("topology: {path}: {message}")]
    Topology { path: PathBuf, message: String },
    /// KFD reports an interface version this crate cannot drive.
    #[error("unsupported KFD interface version {major}.{minor} (need 1.x, x >= {min_minor})")]
    UnsupportedVersion {
        major: u32,
        minor: u32,
        min_minor: u32,
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
