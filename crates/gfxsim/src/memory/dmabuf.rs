//! dma-buf sharing of BOs: EXPORT_DMABUF, GET_DMABUF_INFO, IMPORT_DMABUF.
//!
//! A VRAM/GTT BO's backing is a memfd, and that memfd plays the dma-buf:
//! export hands out a close-on-exec dup of it, import maps the fd it is
//! given, so an import (in this process or, after the fd travels over a
//! socket or through fork/exec, in another) aliases the exporter's pages.
//! The memory lives until the last fd, mapping and BO referring to it are
//! gone, as a dma-buf's does.
//!
//! What a real dma-buf carries (owning GPU, alloc flags) travels in the
//! memfd's name, `gfxsim-bo:<gpu_id hex>:<flags hex>`, which any process
//! can read back through /proc/self/fd; gpu_ids are the same in every
//! gfxsim instance, so a child's gfxsim recognises its parent's buffers.
//! An fd that is not such a memfd is EINVAL, as KFD answers for a dma-buf
//! another driver exported. Imports are writable and executable and are not
//! charged to the importer's memory limits (the exporter's BO is), as in
//! KFD. Exported and imported BOs count as host visible for strict
//! coherence (anyone holding the fd may mmap it), so system-scope fences
//! move their data between GPU copies and the shared pages.

use std::os::fd::{AsRawFd, BorrowedFd, IntoRawFd, OwnedFd};
use std::sync::Arc;

use aqueduct_kfd::KfdResult;
use aqueduct_kfd::uapi::{
    DMABUF_EXPORT_CLOEXEC, ExportDmabufArgs, GetDmabufInfoArgs, ImportDmabufArgs, alloc_flags,
};
use rustix::io::Errno;

use super::backing::Backing;
use super::bo::{Bo, MemType};
use super::{GPUVM_LIMIT, Memory, PAGE_SIZE, err};
use crate::gpu::Gpu;

const NAME_PREFIX: &str = "gfxsim-bo:";

/// The memfd name of a VRAM/GTT BO of `gpu_id` with `flags`.
pub fn memfd_name(gpu_id: u32, flags: u32) -> String {
    format!("{NAME_PREFIX}{gpu_id:x}:{flags:x}")
}

/// What a gfxsim dma-buf fd holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmabufInfo {
    pub size: u64,
    pub gpu_id: u32,
    pub flags: u32,
    pub mem_type: MemType,
}

/// Parse a `/proc/self/fd` link target of a gfxsim memfd:
/// `/memfd:gfxsim-bo:<gpu>:<flags> (deleted)`.
fn parse_link(target: &str) -> Option<(u32, u32)> {
    let rest = target.strip_prefix("/memfd:")?.strip_prefix(NAME_PREFIX)?;
    let rest = rest.strip_suffix(" (deleted)").unwrap_or(rest);
    let (gpu, flags) = rest.split_once(':')?;
    Some((
        u32::from_str_radix(gpu, 16).ok()?,
        u32::from_str_radix(flags, 16).ok()?,
    ))
}

/// Borrow the fd number a request carries.
fn borrow(ioctl: &'static str, raw: u32) -> KfdResult<BorrowedFd<'static>> {
    let raw = i32::try_from(raw).map_err(|_| err(ioctl, Errno::BADF))?;
    // SAFETY: the number is only used for fcntl/fstat/dup within this call,
    // the way the kernel uses an fd it is given; a number that is not open
    // makes the first of them fail with EBADF.
    let fd = unsafe { BorrowedFd::borrow_raw(raw) };
    rustix::io::fcntl_getfd(fd).map_err(|e| err(ioctl, e))?;
    Ok(fd)
}

/// Identify the memory behind `fd`.
pub fn dmabuf_info(ioctl: &'static str, fd: BorrowedFd<'_>) -> KfdResult<DmabufInfo> {
    let link = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
        .map_err(|_| err(ioctl, Errno::BADF))?;
    let (gpu_id, flags) = link.to_str().and_then(parse_link).ok_or_else(|| {
        tracing::debug!("{ioctl}: {} is not a gfxsim dma-buf", link.display());
        err(ioctl, Errno::INVAL)
    })?;
    let mem_type = MemType::from_flags(flags)
        .filter(|t| matches!(t, MemType::Vram | MemType::Gtt))
        .ok_or_else(|| err(ioctl, Errno::INVAL))?;
    let stat = rustix::fs::fstat(fd).map_err(|e| err(ioctl, e))?;
    let size = u64::try_from(stat.st_size).map_err(|_| err(ioctl, Errno::INVAL))?;
    if size == 0 || !size.is_multiple_of(PAGE_SIZE) {
        return Err(err(ioctl, Errno::INVAL));
    }
    Ok(DmabufInfo {
        size,
        gpu_id,
        flags,
        mem_type,
    })
}

impl Memory {
    /// EXPORT_DMABUF: a dup of the BO's memfd.
    pub fn export_dmabuf(&self, args: &mut ExportDmabufArgs) -> KfdResult<()> {
        const NAME: &str = "EXPORT_DMABUF";
        if args.flags & !DMABUF_EXPORT_CLOEXEC != 0 {
            return Err(err(NAME, Errno::INVAL));
        }
        let bos = self.bos();
        let bo = bos
            .get(args.handle)
            .ok_or_else(|| err(NAME, Errno::INVAL))?;
        if !matches!(bo.mem_type, MemType::Vram | MemType::Gtt) {
            tracing::debug!("{NAME}: a {:?} BO cannot be exported", bo.mem_type);
            return Err(err(NAME, Errno::INVAL));
        }
        let fd = bo
            .backing
            .dup_fd()
            .ok_or_else(|| err(NAME, Errno::INVAL))?
            .map_err(|e| err(NAME, e))?;
        // Whoever holds the fd may mmap it: for strict coherence the BO is
        // host visible from now on (system-scope fences reload and write
        // back its GPU copies), as for an mmap of the render node.
        bo.sharing.set_host_mapped();
        args.dmabuf_fd = fd.into_raw_fd() as u32;
        tracing::trace!("{NAME}: handle {:#x} -> fd {}", bo.handle, args.dmabuf_fd);
        Ok(())
    }

    /// GET_DMABUF_INFO: size, owner and flags; gfxsim buffers carry no
    /// metadata (`metadata_size` 0).
    pub fn get_dmabuf_info(
        &self,
        gpus: &[Arc<Gpu>],
        args: &mut GetDmabufInfoArgs,
    ) -> KfdResult<()> {
        const NAME: &str = "GET_DMABUF_INFO";
        let fd = borrow(NAME, args.dmabuf_fd)?;
        let info = dmabuf_info(NAME, fd)?;
        if !gpus.iter().any(|g| g.gpu_id == info.gpu_id) {
            return Err(err(NAME, Errno::INVAL));
        }
        args.size = info.size;
        args.gpu_id = info.gpu_id;
        args.flags = info.flags;
        args.metadata_size = 0;
        Ok(())
    }

    /// IMPORT_DMABUF: a new BO of `args.gpu_id` over the fd's pages.
    pub fn import_dmabuf(&self, gpus: &[Arc<Gpu>], args: &mut ImportDmabufArgs) -> KfdResult<()> {
        const NAME: &str = "IMPORT_DMABUF";
        let gpu = gpus
            .iter()
            .find(|g| g.gpu_id == args.gpu_id)
            .ok_or_else(|| err(NAME, Errno::INVAL))?;
        if !gpu.vm_acquired() {
            return Err(err(NAME, Errno::INVAL));
        }
        let fd = borrow(NAME, args.dmabuf_fd)?;
        let info = dmabuf_info(NAME, fd)?;
        if !args.va_addr.is_multiple_of(PAGE_SIZE)
            || args
                .va_addr
                .checked_add(info.size)
                .is_none_or(|end| end > GPUVM_LIMIT)
        {
            return Err(err(NAME, Errno::INVAL));
        }
        let own: OwnedFd = rustix::io::fcntl_dupfd_cloexec(fd, 0).map_err(|e| err(NAME, e))?;
        let backing = Backing::from_fd(own, info.size).map_err(|e| {
            tracing::warn!("{NAME}: cannot map the dma-buf: {e}");
            err(NAME, Errno::NOMEM)
        })?;
        let mut bos = self.bos();
        let handle = bos.next_handle(gpu.gpu_id);
        let type_bits = info.flags & alloc_flags::TYPE_MASK;
        let bo = Bo {
            handle,
            gpu_id: gpu.gpu_id,
            va: args.va_addr,
            size: info.size,
            flags: type_bits
                | alloc_flags::WRITABLE
                | alloc_flags::EXECUTABLE
                | (info.flags & alloc_flags::COHERENT),
            mem_type: info.mem_type,
            mmap_offset: 0,
            backing: Arc::new(backing),
            mapped_on: Vec::new(),
            sharing: Default::default(),
            imported: true,
        };
        // The exporter and any other importer share these pages.
        bo.sharing.set_host_mapped();
        tracing::trace!(
            "{NAME}: fd {} -> handle {handle:#x} va {:#x} size {:#x}",
            args.dmabuf_fd,
            bo.va,
            bo.size
        );
        bos.insert(bo, false);
        args.handle = handle;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_targets_parse() {
        assert_eq!(
            parse_link("/memfd:gfxsim-bo:3f2a:80000001 (deleted)"),
            Some((0x3f2a, 0x8000_0001))
        );
        assert_eq!(parse_link("/memfd:gfxsim-bo:1:2"), Some((1, 2)));
        assert_eq!(parse_link("/memfd:other:1:2 (deleted)"), None);
        assert_eq!(parse_link("/tmp/file"), None);
        assert_eq!(parse_link("/memfd:gfxsim-bo:zz:1"), None);
        assert_eq!(memfd_name(0x3f2a, 0x8000_0001), "gfxsim-bo:3f2a:80000001");
    }
}
