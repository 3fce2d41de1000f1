//! aqueduct-kfd: the KFD driver interface.
//!
//! This crate is the bottom of Aqueduct's runtime stack. It holds the UAPI of
//! `kfd_ioctl.h` ([`uapi`]) and its ioctl request numbers ([`ioctl`]), the
//! sysfs topology parser ([`topology`]), the [`KfdDevice`] trait that is the
//! only seam between the runtime and hardware, and [`DevKfd`], the real
//! implementation over /dev/kfd. The simulated device (aqueduct-gfxsim)
//! implements the same trait; nothing above this crate knows which it has.

pub mod abi;
mod dev_kfd;
pub mod device;
mod doorbell_pages;
pub mod error;
pub mod ioctl;
pub mod syscalls;
pub mod topology;
pub mod uapi;

pub use dev_kfd::{DEV_KFD_PATH, DevKfd, KFD_MIN_MINOR_VERSION};
pub use device::KfdDevice;
pub use error::{KfdError, KfdResult, NoDeviceError};
pub use syscalls::{KfdSyscalls, RustixSyscalls};
pub use topology::{CwsrSizes, GfxVersion, Node, NodeKind, Topology};
