//! The runtime's GPU virtual-address space: one large PROT_NONE host
//! reservation (the "aperture") and a first-fit allocator over it.
//!
//! As in ROCr, the CPU address of every allocation equals its GPU address:
//! the runtime reserves host VA once (MAP_NORESERVE, so it costs nothing),
//! hands ranges of it to ALLOC_MEMORY_OF_GPU as `va_addr`, and host-visible
//! BOs are mmap'd over their range with MAP_FIXED. When a BO is freed the
//! runtime puts PROT_NONE back over the range, so the reservation stays
//! whole and no other mapping of the process can land inside it.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::Mutex;

use aqueduct_kfd::KfdError;
use rustix::mm::{MapFlags, ProtFlags};

use crate::error::{HsaResult, MemoryError};

/// Default aperture size: 64 GiB of address space (not memory).
pub const DEFAULT_APERTURE_SIZE: u64 = 64 << 30;
/// Alignment of the aperture itself (a huge-page boundary).
pub const APERTURE_ALIGN: u64 = 2 << 20;
/// The smallest unit of VA handed out.
pub const PAGE_SIZE: u64 = 4096;

/// A PROT_NONE host VA range owned by the runtime; unmapped on drop.
#[derive(Debug)]
pub struct VaReservation {
    base: u64,
    size: u64,
}

impl VaReservation {
    /// Reserve `size` bytes aligned to `align` (a power of two).
    pub fn new(size: u64, align: u64) -> HsaResult<Self> {
        if size == 0
            || !size.is_multiple_of(PAGE_SIZE)
            || !align.is_power_of_two()
            || align < PAGE_SIZE
        {
            return Err(MemoryError::VaReservation { size, align }.into());
        }
        let padded = size + align;
        // SAFETY: a fresh anonymous PROT_NONE mapping at a kernel-chosen address touches no existing memory.
        let raw = unsafe {
            rustix::mm::mmap_anonymous(
                std::ptr::null_mut(),
                padded as usize,
                ProtFlags::empty(),
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        }
        .map_err(|e| KfdError::Os {
            what: "mmap of the VA aperture",
            source: e.into(),
        })?;
        let raw = raw as u64;
        let base = raw.next_multiple_of(align);
        let head = base - raw;
        let tail = padded - head - size;
        if head > 0 {
            // SAFETY: [raw, base) is the unaligned head of the mapping made above, owned by nobody else.
            unsafe { rustix::mm::munmap(raw as *mut c_void, head as usize) }.map_err(|e| {
                KfdError::Os {
                    what: "munmap of the aperture head",
                    source: e.into(),
                }
            })?;
        }
        if tail > 0 {
            // SAFETY: [base+size, raw+padded) is the tail of the mapping made above, owned by nobody else.
            unsafe { rustix::mm::munmap((base + size) as *mut c_void, tail as usize) }.map_err(
                |e| KfdError::Os {
                    what: "munmap of the aperture tail",
                    source: e.into(),
                },
            )?;
        }
        tracing::debug!(
            base = format_args!("{base:#x}"),
            size,
            "reserved VA aperture"
        );
        Ok(Self { base, size })
    }

    pub fn base(&self) -> u64 {
        self.base
    }
    pub fn size(&self) -> u64 {
        self.size
    }
    pub fn contains(&self, va: u64, len: u64) -> bool {
        va >= self.base && len <= self.size && va - self.base <= self.size - len
    }

    /// Put a fresh PROT_NONE anonymous mapping back over `[va, va+len)`,
    /// dropping whatever BO mapping was there.
    ///
    /// # Safety
    /// Nothing uses `[va, va+len)` any more: no reference or slice into it
    /// lives, and the mapping there belongs to a BO being released (or to
    /// host access being withdrawn) by the caller.
    pub unsafe fn restore_prot_none(&self, va: u64, len: u64) -> HsaResult<()> {
        if !self.contains(va, len) {
            return Err(MemoryError::OutsideAperture { va, len }.into());
        }
        // SAFETY: the range lies inside this reservation, which the runtime owns, and per the contract nothing uses it.
        unsafe {
            rustix::mm::mmap_anonymous(
                va as *mut c_void,
                len as usize,
                ProtFlags::empty(),
                MapFlags::PRIVATE | MapFlags::NORESERVE | MapFlags::FIXED,
            )
        }
        .map_err(|e| KfdError::Os {
            what: "mmap PROT_NONE over a freed BO",
            source: e.into(),
        })?;
        Ok(())
    }
}

impl Drop for VaReservation {
    fn drop(&mut self) {
        // SAFETY: the whole reservation belongs to this value, and every allocation in it holds a reference that kept it alive until now.
        if let Err(e) = unsafe { rustix::mm::munmap(self.base as *mut c_void, self.size as usize) }
        {
            tracing::warn!("munmap of the VA aperture failed: {e}");
        }
    }
}

/// First-fit allocator of page-granular ranges inside `[base, base+size)`.
/// Free ranges are kept by start address and coalesced on free.
#[derive(Debug)]
pub struct VaAllocator {
    base: u64,
    size: u64,
    free: Mutex<BTreeMap<u64, u64>>,
}

impl VaAllocator {
    pub fn new(base: u64, size: u64) -> Self {
        let mut free = BTreeMap::new();
        if size > 0 {
            free.insert(base, size);
        }
        Self {
            base,
            size,
            free: Mutex::new(free),
        }
    }

    pub fn base(&self) -> u64 {
        self.base
    }
    pub fn size(&self) -> u64 {
        self.size
    }

    /// A range of `size` bytes (rounded up to pages) aligned to `align`.
    /// Returns `(va, rounded_size)`.
    pub fn allocate(&self, size: u64, align: u64) -> HsaResult<(u64, u64)> {
        let align = align.max(PAGE_SIZE);
        if size == 0 || !align.is_power_of_two() {
            return Err(MemoryError::VaRange { size, align }.into());
        }
        let size = size
            .checked_next_multiple_of(PAGE_SIZE)
            .filter(|s| *s <= self.size)
            .ok_or(MemoryError::ExceedsAperture {
                size,
                aperture: self.size,
            })?;
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let found = free.iter().find_map(|(&start, &len)| {
            let aligned = start.checked_next_multiple_of(align)?;
            let waste = aligned - start;
            (len >= waste && len - waste >= size).then_some((start, len, aligned))
        });
        let Some((start, len, aligned)) = found else {
            return Err(MemoryError::NoFreeVaRange { size, align }.into());
        };
        free.remove(&start);
        if aligned > start {
            free.insert(start, aligned - start);
        }
        let end = aligned + size;
        if end < start + len {
            free.insert(end, start + len - end);
        }
        Ok((aligned, size))
    }

    /// Take exactly `[va, va+size)` (page aligned) if it is wholly free;
    /// false (and nothing taken) otherwise.
    pub fn allocate_at(&self, va: u64, size: u64) -> bool {
        if size == 0 || !va.is_multiple_of(PAGE_SIZE) || !size.is_multiple_of(PAGE_SIZE) {
            return false;
        }
        let Some(end) = va.checked_add(size) else {
            return false;
        };
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let Some((&start, &len)) = free.range(..=va).next_back() else {
            return false;
        };
        if start + len < end {
            return false;
        }
        free.remove(&start);
        if va > start {
            free.insert(start, va - start);
        }
        if end < start + len {
            free.insert(end, start + len - end);
        }
        true
    }

    /// Give back a range from [`VaAllocator::allocate`].
    pub fn free(&self, va: u64, size: u64) {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let mut start = va;
        let mut len = size;
        if let Some((&prev, &prev_len)) = free.range(..va).next_back()
            && prev + prev_len == va
        {
            free.remove(&prev);
            start = prev;
            len += prev_len;
        }
        if let Some(&next_len) = free.get(&(va + size)) {
            free.remove(&(va + size));
            len += next_len;
        }
        free.insert(start, len);
    }

    /// Bytes currently free (for tests and diagnostics).
    pub fn free_bytes(&self) -> u64 {
        self.free
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::HsaError;

    #[test]
    fn allocates_aligned_and_coalesces() {
        let a = VaAllocator::new(0x10_0000, 0x10_0000);
        let (x, xs) = a.allocate(1, 0).unwrap();
        assert_eq!((x, xs), (0x10_0000, 0x1000));
        let (y, ys) = a.allocate(0x3000, 0x4_0000).unwrap();
        assert_eq!((y, ys), (0x14_0000, 0x3000));
        let (z, _) = a.allocate(0x1000, 0).unwrap();
        assert_eq!(z, 0x10_1000);
        assert!(matches!(
            a.allocate(0x20_0000, 0),
            Err(HsaError::Memory(MemoryError::ExceedsAperture {
                size: 0x20_0000,
                aperture: 0x10_0000
            }))
        ));
        assert!(matches!(
            a.allocate(0, 0),
            Err(HsaError::Memory(MemoryError::VaRange { size: 0, .. }))
        ));
        a.free(y, ys);
        a.free(x, xs);
        a.free(z, 0x1000);
        assert_eq!(a.free_bytes(), 0x10_0000);
        // Fully coalesced: the whole range is one block again.
        assert_eq!(a.allocate(0x10_0000, 0).unwrap(), (0x10_0000, 0x10_0000));
        assert!(matches!(
            a.allocate(0x1000, 0),
            Err(HsaError::Memory(MemoryError::NoFreeVaRange {
                size: 0x1000,
                ..
            }))
        ));
    }

    #[test]
    fn allocate_at_takes_exactly_a_free_range() {
        let a = VaAllocator::new(0x10_0000, 0x10_0000);
        assert!(a.allocate_at(0x14_0000, 0x2000));
        assert!(!a.allocate_at(0x14_1000, 0x1000), "already taken");
        assert!(!a.allocate_at(0x1f_f000, 0x2000), "runs past the end");
        assert!(!a.allocate_at(0x0f_f000, 0x1000), "below the base");
        assert!(!a.allocate_at(0x12_0800, 0x1000), "unaligned");
        assert_eq!(a.free_bytes(), 0x10_0000 - 0x2000);
        // The first fit now skips the taken range's neighbourhood correctly.
        assert_eq!(a.allocate(0x4_0000, 0).unwrap(), (0x10_0000, 0x4_0000));
        a.free(0x14_0000, 0x2000);
        a.free(0x10_0000, 0x4_0000);
        assert_eq!(a.free_bytes(), 0x10_0000);
        assert_eq!(a.allocate(0x10_0000, 0).unwrap(), (0x10_0000, 0x10_0000));
    }

    #[test]
    fn reservation_is_aligned_and_restorable() {
        let r = VaReservation::new(16 << 20, APERTURE_ALIGN).unwrap();
        assert_eq!(r.base() % APERTURE_ALIGN, 0);
        assert!(r.contains(r.base(), 16 << 20));
        assert!(!r.contains(r.base() + 4096, 16 << 20));
        // SAFETY: nothing was placed in the reservation.
        unsafe { r.restore_prot_none(r.base() + 4096, 8192) }.unwrap();
        // SAFETY: the call fails before mapping anything.
        assert!(unsafe { r.restore_prot_none(r.base() + (16 << 20), 4096) }.is_err());
    }
}
