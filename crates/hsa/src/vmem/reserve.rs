//! Reserving and freeing VA ranges (`hsa_amd_vmem_address_reserve[_align]`,
//! `hsa_amd_vmem_address_free`).
//!
//! Ranges come from the runtime's VA aperture (the PROT_NONE host
//! reservation every allocation lives in), so a reserved range can never
//! collide with a buffer or another process mapping. A requested address
//! is honoured when the whole range there is free and aligned; otherwise
//! the range is placed first-fit, as ROCr retries without FixedAddress.

use crate::memory::vmem::PAGE_SIZE;

use super::error::{VmemError, VmemResult};
use super::manager::VirtualMemory;
use super::state::Reserved;

impl VirtualMemory {
    /// Reserve `size` bytes of GPU/CPU virtual address space (a non-zero
    /// multiple of the 4 KiB page), at `address` if that range is free
    /// (0: anywhere). Returns the range's start.
    pub fn reserve(&self, size: u64, address: u64) -> VmemResult<u64> {
        self.reserve_aligned(size, address, 0)
    }

    /// As [`VirtualMemory::reserve`], the start aligned to `alignment`
    /// (0: the page; otherwise a power of two of at least a page).
    pub fn reserve_aligned(&self, size: u64, address: u64, alignment: u64) -> VmemResult<u64> {
        if size == 0 || !size.is_multiple_of(PAGE_SIZE) {
            return Err(VmemError::ReserveSize {
                size,
                page: PAGE_SIZE,
            });
        }
        let alignment = if alignment == 0 { PAGE_SIZE } else { alignment };
        if !alignment.is_power_of_two() || alignment < PAGE_SIZE {
            return Err(VmemError::ReserveAlignment {
                alignment,
                page: PAGE_SIZE,
            });
        }
        let mut state = self.state();
        let va =
            if address != 0
                && address.is_multiple_of(alignment)
                && self.ctx.va.allocate_at(address, size)
            {
                address
            } else {
                let (va, _) = self.ctx.va.allocate(size, alignment).map_err(|source| {
                    VmemError::NoFreeRange {
                        size,
                        alignment,
                        source,
                    }
                })?;
                va
            };
        state.reserved.insert(va, Reserved { size, mappings: 0 });
        tracing::debug!(
            va = format_args!("{va:#x}"),
            size,
            requested = format_args!("{address:#x}"),
            "vmem: reserved VA range"
        );
        Ok(va)
    }

    /// Free the reserved range starting at `va`; `size` must be the size it
    /// was reserved with, and nothing may be mapped in it any more.
    pub fn free(&self, va: u64, size: u64) -> VmemResult<()> {
        let mut state = self.state();
        let Some(r) = state.reserved.get(&va) else {
            return Err(VmemError::NotReserved { va });
        };
        if r.size != size {
            return Err(VmemError::ReservedSizeMismatch {
                va,
                reserved: r.size,
                size,
            });
        }
        if r.mappings > 0 {
            return Err(VmemError::StillMapped {
                va,
                mappings: r.mappings,
            });
        }
        state.reserved.remove(&va);
        self.ctx.va.free(va, size);
        Ok(())
    }
}
