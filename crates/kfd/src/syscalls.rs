//! The system calls [`crate::DevKfd`] makes, behind one narrow trait.
//!
//! Everything DevKfd asks of the kernel after opening its files is an
//! `ioctl(2)` on the KFD fd with an argument struct, or an `mmap(2)` of the
//! KFD fd or a render node. [`KfdSyscalls`] is exactly those two calls on
//! raw bytes: [`RustixSyscalls`] makes them for real (the default), and a
//! test can hand DevKfd a scripted implementation to see how it reacts to a
//! driver that reports an old interface version or fails an ioctl with any
//! errno, without a GPU. The argument struct travels as its bytes (every
//! UAPI struct is `Pod`), so a fake reads the request's fields and writes
//! the kernel's answer the way the kernel would.

use std::ffi::c_void;
use std::fmt;
use std::os::fd::BorrowedFd;

use rustix::io::Errno;
use rustix::ioctl::{Ioctl, IoctlOutput, Opcode};
use rustix::mm::{MapFlags, ProtFlags};

/// The ioctl and mmap calls of the real device.
pub trait KfdSyscalls: Send + Sync + fmt::Debug {
    /// `ioctl(fd, request, args.as_mut_ptr())`: the kernel reads and writes
    /// `args` in place. An `Err` is the errno the call failed with (EINTR
    /// included: the caller retries it).
    ///
    /// # Safety
    /// `request` is a KFD request whose size field is `args.len()`, and every
    /// pointer field inside `args` points at live memory holding at least as
    /// many elements as the count field the kernel reads with it.
    unsafe fn ioctl(&self, fd: BorrowedFd<'_>, request: u32, args: &mut [u8]) -> Result<(), Errno>;

    /// `mmap(va, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
    /// offset)`.
    ///
    /// # Safety
    /// `[va, va+len)` is a range the caller reserved and gives up: nothing
    /// Rust owns lives there.
    unsafe fn mmap_fixed(
        &self,
        fd: BorrowedFd<'_>,
        va: u64,
        len: usize,
        offset: u64,
    ) -> Result<(), Errno>;
}

/// The real system calls, through rustix.
#[derive(Debug, Default, Clone, Copy)]
pub struct RustixSyscalls;

/// A read-write ioctl whose argument is a byte buffer and whose request
/// number is known only at run time.
struct RawBytesIoctl<'a> {
    request: Opcode,
    args: &'a mut [u8],
}

// SAFETY: the kernel may write the whole buffer (IS_MUTATING), the pointer is
// the buffer's own, and no output is read back beyond the buffer itself.
unsafe impl Ioctl for RawBytesIoctl<'_> {
    type Output = ();
    const IS_MUTATING: bool = true;

    fn opcode(&self) -> Opcode {
        self.request
    }

    fn as_ptr(&mut self) -> *mut c_void {
        self.args.as_mut_ptr().cast()
    }

    unsafe fn output_from_ptr(_out: IoctlOutput, _ptr: *mut c_void) -> rustix::io::Result<()> {
        Ok(())
    }
}

impl KfdSyscalls for RustixSyscalls {
    unsafe fn ioctl(&self, fd: BorrowedFd<'_>, request: u32, args: &mut [u8]) -> Result<(), Errno> {
        let call = RawBytesIoctl {
            request: request as Opcode,
            args,
        };
        // SAFETY: the caller's contract: the request's size is the buffer's
        // and the pointer fields inside it are bound to live arrays.
        unsafe { rustix::ioctl::ioctl(fd, call) }
    }

    unsafe fn mmap_fixed(
        &self,
        fd: BorrowedFd<'_>,
        va: u64,
        len: usize,
        offset: u64,
    ) -> Result<(), Errno> {
        // SAFETY: MAP_FIXED replaces only [va, va+len), which the caller
        // vouches is its own reservation; nothing Rust owns lives there.
        unsafe {
            rustix::mm::mmap(
                va as *mut c_void,
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED | MapFlags::FIXED,
                fd,
                offset,
            )
        }
        .map(|_| ())
    }
}
