//! The doorbell pages [`crate::DevKfd`] has mapped, so that
//! [`crate::KfdDevice::write_doorbell`] stays a safe method: a store goes
//! only to an address inside a page that is mapped now.
//!
//! A doorbell page is a BO allocated with the DOORBELL flag and mapped by
//! `mmap_kfd` at the offset ALLOC_MEMORY_OF_GPU returned for it. It stops
//! being a doorbell page when its BO is freed or another mapping is
//! placed over its range (both go through the device). A range can also be
//! unmapped behind the device's back, by munmap or a MAP_FIXED mapping
//! the caller makes itself; those are unsafe calls whose contract is that
//! nothing still uses the range, and the runtime frees a doorbell BO before
//! it unmaps the page (aqueduct-hsa `Allocation`'s drop).

use std::collections::BTreeMap;

/// Doorbell BOs and where their pages are mapped.
#[derive(Debug, Default)]
pub(crate) struct DoorbellPages {
    /// mmap offset -> BO handle, for BOs allocated with the DOORBELL flag.
    bos: BTreeMap<u64, u64>,
    /// Mapped doorbell pages: start VA -> (size, BO handle).
    mapped: BTreeMap<u64, (u64, u64)>,
}

impl DoorbellPages {
    /// A doorbell BO was allocated: mapping `mmap_offset` maps its page.
    pub(crate) fn allocated(&mut self, handle: u64, mmap_offset: u64) {
        self.bos.insert(mmap_offset, handle);
    }

    /// `[va, va+size)` was mapped at `mmap_offset`: whatever doorbell pages
    /// were mapped there are gone, and the range is a doorbell page if the
    /// offset is a doorbell BO's.
    pub(crate) fn mapped(&mut self, va: u64, size: u64, mmap_offset: Option<u64>) {
        self.mapped
            .retain(|&start, &mut (len, _)| start + len <= va || va + size <= start);
        if let Some(&handle) = mmap_offset.and_then(|offset| self.bos.get(&offset)) {
            self.mapped.insert(va, (size, handle));
        }
    }

    /// The BO `handle` is freed: its page is no longer a doorbell page.
    pub(crate) fn freed(&mut self, handle: u64) {
        self.bos.retain(|_, &mut h| h != handle);
        self.mapped.retain(|_, &mut (_, h)| h != handle);
    }

    /// Whether the 8 bytes at `va` lie inside one mapped doorbell page.
    pub(crate) fn contains(&self, va: u64) -> bool {
        self.mapped
            .range(..=va)
            .next_back()
            .is_some_and(|(&start, &(size, _))| {
                va.checked_add(8).is_some_and(|end| end <= start + size)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_a_doorbell_page_from_mapping_until_free_or_remap() {
        let mut pages = DoorbellPages::default();
        pages.mapped(0x10_0000, 0x2000, Some(0x5000));
        assert!(!pages.contains(0x10_0000), "offset of no doorbell BO");
        pages.allocated(7, 0x5000);
        pages.mapped(0x10_0000, 0x2000, Some(0x5000));
        assert!(pages.contains(0x10_0000));
        assert!(pages.contains(0x10_1ff8));
        assert!(!pages.contains(0x10_1ffc), "the 8 bytes must fit");
        assert!(!pages.contains(0x10_2000));
        assert!(!pages.contains(0x0f_fff8));
        // Another mapping over part of the page replaces it.
        pages.mapped(0x10_1000, 0x1000, None);
        assert!(!pages.contains(0x10_0000));
        pages.mapped(0x10_0000, 0x2000, Some(0x5000));
        pages.freed(7);
        assert!(!pages.contains(0x10_0000));
        pages.mapped(0x10_0000, 0x2000, Some(0x5000));
        assert!(
            !pages.contains(0x10_0000),
            "a freed BO's offset maps no doorbell"
        );
    }
}
