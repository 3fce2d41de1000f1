//! Host memory behind simulated GPU memory.
//!
//! A VRAM or GTT buffer object is a memfd that gfxsim maps once at an
//! address of its own choosing (its "physical" view of the BO). The runtime
//! maps the same memfd at the BO's GPU VA through `mmap_render_node`, so the
//! host's view and the device's view alias the same pages. Pages are
//! committed only when touched, so reporting 24 GiB of VRAM costs nothing;
//! the one exception is gfxsim's view of a small BO, committed when the BO
//! is mapped to a GPU (`populate`), so kernels take no host page faults.
//! USERPTR BOs use the caller's memory directly. The memfd is also what
//! EXPORT_DMABUF hands out (a dup of it), so a BO imported from it, in
//! this process or another, maps the same pages.
//!
//! A backing whose memfd never left gfxsim (never exported, never mapped
//! by the runtime, never imported) is "private": only gfxsim's own view
//! reaches its pages, so a freed VRAM BO's private backing can be handed
//! to a new BO (vram_pool.rs) without any earlier holder seeing it.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fs::{FallocateFlags, MemfdFlags, fallocate, ftruncate, memfd_create};
use rustix::io::Errno;
use rustix::mm::{MapFlags, ProtFlags, mmap, munmap};

/// Memory a BO (or a doorbell/event/MMIO page) lives in, and gfxsim's own
/// pointer to it.
#[derive(Debug)]
pub struct Backing {
    /// gfxsim's view: valid for `size` bytes while this value lives.
    ptr: usize,
    size: u64,
    /// The memfd, for VRAM/GTT and device pages; None for USERPTR.
    fd: Option<OwnedFd>,
    /// The memfd or a mapping of it left gfxsim: a dup was handed out, the
    /// runtime mapped it, or it came in from outside.
    escaped: AtomicBool,
}

impl Backing {
    /// A zero-filled memfd of `size` bytes (page multiple), mapped
    /// read-write at an address the kernel picks.
    pub fn new_memfd(name: &str, size: u64) -> std::io::Result<Backing> {
        let fd = memfd_create(name, MemfdFlags::CLOEXEC)?;
        ftruncate(&fd, size)?;
        Backing::map_shared(fd, size)
    }

    /// Memory behind an imported dma-buf: `fd` (a memfd another BO's
    /// backing exported, possibly from another process) mapped read-write
    /// for `size` bytes, so this view aliases the exporter's pages.
    pub fn from_fd(fd: OwnedFd, size: u64) -> std::io::Result<Backing> {
        if size == 0 {
            return Err(std::io::Error::from(Errno::INVAL));
        }
        let backing = Backing::map_shared(fd, size)?;
        backing.escaped.store(true, Ordering::Relaxed);
        Ok(backing)
    }

    /// `fd`'s first `size` bytes mapped shared and read-write at an address
    /// the kernel picks; the Backing keeps the fd (for export) and unmaps in
    /// Drop.
    fn map_shared(fd: OwnedFd, size: u64) -> std::io::Result<Backing> {
        let len = usize::try_from(size).map_err(|_| std::io::Error::from(Errno::NOMEM))?;
        // SAFETY: a fresh shared mapping of a file we hold, at a
        // kernel-chosen address; it overlaps nothing and is unmapped only in
        // Drop.
        let ptr = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED | MapFlags::NORESERVE,
                &fd,
                0,
            )?
        };
        Ok(Backing {
            ptr: ptr as usize,
            size,
            fd: Some(fd),
            escaped: AtomicBool::new(false),
        })
    }

    /// A new close-on-exec descriptor of this backing's memfd (what
    /// EXPORT_DMABUF hands out, or the errno of the failed dup); None for
    /// USERPTR memory.
    pub fn dup_fd(&self) -> Option<Result<OwnedFd, Errno>> {
        let fd = self.fd.as_ref()?;
        self.escaped.store(true, Ordering::Relaxed);
        Some(rustix::io::fcntl_dupfd_cloexec(fd, 0))
    }

    /// The caller's own memory at `ptr` (USERPTR); the caller keeps it
    /// mapped for as long as the BO exists, as KFD requires.
    pub fn new_user(ptr: u64, size: u64) -> Backing {
        Backing {
            ptr: ptr as usize,
            size,
            fd: None,
            escaped: AtomicBool::new(true),
        }
    }

    /// Whether only gfxsim's own view reaches this memfd's pages (see the
    /// module comment).
    pub fn is_private(&self) -> bool {
        self.fd.is_some() && !self.escaped.load(Ordering::Relaxed)
    }

    /// Give `[offset, offset+len)` of the memfd back to the host, so it
    /// reads zero again (fallocate PUNCH_HOLE, KEEP_SIZE: the size stays).
    pub fn punch_hole(&self, offset: u64, len: u64) -> std::io::Result<()> {
        let Some(fd) = &self.fd else {
            return Err(std::io::Error::from(Errno::INVAL));
        };
        if len == 0 {
            return Ok(());
        }
        fallocate(
            fd,
            FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE,
            offset,
            len,
        )?;
        Ok(())
    }

    pub fn ptr(&self) -> *mut u8 {
        self.ptr as *mut u8
    }

    /// Commit gfxsim's view of a memfd backing of at most `limit` bytes now
    /// (MADV_POPULATE_WRITE), as MAP_MEMORY_TO_GPU fills the GPU's page
    /// tables on hardware: a kernel's first touch of each page then costs no
    /// host page fault inside the dispatch. Larger backings, USERPTR memory
    /// and kernels before Linux 5.14 (which lack the advice) keep faulting
    /// pages in on first touch, so a 24 GiB VRAM BO still costs nothing
    /// until used.
    pub fn populate(&self, limit: u64) {
        if self.fd.is_none() || self.size == 0 || self.size > limit {
            return;
        }
        // SAFETY: [ptr, ptr+size) is this backing's own live mapping; the
        // advice only faults its pages in and changes no contents.
        let done = unsafe {
            rustix::mm::madvise(
                self.ptr as *mut std::ffi::c_void,
                self.size as usize,
                rustix::mm::Advice::LinuxPopulateWrite,
            )
        };
        if let Err(e) = done {
            tracing::debug!("gfxsim: populating a {} byte backing: {e}", self.size);
        }
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// Map `[file_offset, file_offset+len)` of this memfd at `va` with
    /// MAP_SHARED|MAP_FIXED, read-write.
    ///
    /// # Safety
    /// The caller owns `[va, va+len)` (see `KfdDevice::mmap_render_node`).
    pub unsafe fn map_fixed_at(&self, va: u64, len: u64, file_offset: u64) -> std::io::Result<()> {
        let Some(fd) = &self.fd else {
            return Err(std::io::Error::from(Errno::INVAL));
        };
        let len = usize::try_from(len).map_err(|_| std::io::Error::from(Errno::INVAL))?;
        self.escaped.store(true, Ordering::Relaxed);
        // SAFETY: the caller guarantees it owns the range being replaced.
        unsafe {
            mmap(
                va as *mut std::ffi::c_void,
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED | MapFlags::FIXED,
                fd.as_fd(),
                file_offset,
            )?;
        }
        Ok(())
    }
}

impl Drop for Backing {
    fn drop(&mut self) {
        if self.fd.is_some() {
            // SAFETY: this mapping was created in new_memfd and nothing
            // references it any more (all users hold an Arc<Backing>).
            if let Err(e) = unsafe { munmap(self.ptr as *mut std::ffi::c_void, self.size as usize) }
            {
                tracing::warn!("gfxsim: munmap of a BO backing failed: {e}");
            }
        }
    }
}
