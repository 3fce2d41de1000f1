//! What a new VRAM buffer object holds before anything writes it.
//!
//! KFD promises nothing about fresh VRAM, and kernels differ:
//! - Linux `amdgpu_amdkfd_gpuvm_alloc_memory_of_gpu`
//!   (drivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd_gpuvm.c) creates KFD VRAM BOs
//!   with `AMDGPU_GEM_CREATE_VRAM_WIPE_ON_RELEASE`; on release,
//!   `amdgpu_bo_release_notify` (amdgpu_object.c) fills the memory with
//!   `AMDGPU_POISON` (0xd0bed0be, amdgpu.h). The next BO placed there reads
//!   that poison, or whatever the memory held before the driver first gave
//!   it out.
//! - Recent kernels add `AMDGPU_GEM_CREATE_VRAM_CLEARED` to those flags, so
//!   a new BO reads zeros.
//!
//! Runtimes that must work on distribution kernels cannot rely on either,
//! so gfxsim gives the one that exposes the mistake: by default a new VRAM
//! BO reads the poison pattern ([`FreshVram::Poison`]), as memory freed
//! earlier does on an older kernel; `AQUEDUCT_SIM_FRESH_VRAM=zero` gives the
//! newer kernels' zeros. GTT and USERPTR memory is the host's and comes
//! zeroed (TTM allocates system pages zeroed), so it is left alone.
//!
//! Poison costs host memory: the written pages are committed. Only the
//! first [`POISON_LIMIT`] bytes of a BO are written; beyond them the pages
//! stay untouched and read zero, which a real BO may also hold, so a large
//! reservation the program barely uses (a 24 GiB BO, a queue's context-save
//! area) stays cheap.
//!
//! A BO given a recycled backing (vram_pool.rs) reads exactly what a new one
//! reads: [`FreshVram::refill`] rewrites the poisoned part and gives every
//! other byte back to the host, so it reads zero.

use super::backing::Backing;

/// Environment variable that selects [`FreshVram`]: `poison` (the default)
/// or `zero`.
pub const FRESH_VRAM_ENV: &str = "AQUEDUCT_SIM_FRESH_VRAM";

/// The amdgpu driver's poison value for wiped VRAM (`AMDGPU_POISON`), as
/// its fill writes it: one dword, little-endian.
pub const AMDGPU_POISON: u32 = 0xd0be_d0be;

/// How many bytes at the start of a new VRAM BO [`FreshVram::Poison`]
/// writes: enough to cover every runtime structure and typical buffer
/// whole, little enough that a program allocating to the VRAM limit
/// commits a bounded share of it.
pub const POISON_LIMIT: u64 = 64 << 20;

/// The contents of a new VRAM BO.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FreshVram {
    /// The first [`POISON_LIMIT`] bytes read [`AMDGPU_POISON`]: a kernel
    /// that wipes VRAM on release only.
    #[default]
    Poison,
    /// Zeros: a kernel that allocates KFD VRAM cleared.
    Zero,
}

impl FreshVram {
    /// The mode `AQUEDUCT_SIM_FRESH_VRAM` names; an unknown value leaves
    /// the default and says so on stderr (a program asked for a behaviour
    /// it does not get).
    pub fn from_env() -> FreshVram {
        match std::env::var(FRESH_VRAM_ENV) {
            Ok(text) => FreshVram::parse(&text).unwrap_or_else(|| {
                eprintln!("gfxsim: {FRESH_VRAM_ENV}={text:?} is not poison or zero; using poison");
                FreshVram::Poison
            }),
            Err(_) => FreshVram::Poison,
        }
    }

    /// `poison` or `zero`, in any case.
    pub fn parse(text: &str) -> Option<FreshVram> {
        match text.trim().to_ascii_lowercase().as_str() {
            "poison" => Some(FreshVram::Poison),
            "zero" => Some(FreshVram::Zero),
            _ => None,
        }
    }

    /// Give `len` bytes at `ptr`, a new VRAM BO, this mode's contents.
    ///
    /// # Safety
    /// `ptr` is valid for writes of `len` bytes, 4-byte aligned, and nothing
    /// else uses that memory yet.
    pub unsafe fn fill(self, ptr: *mut u8, len: u64) {
        if self == FreshVram::Zero {
            return;
        }
        let dwords = (len.min(POISON_LIMIT) / 4) as usize;
        // SAFETY: the caller gives `len` writable, aligned, unshared bytes,
        // and `dwords * 4 <= len`.
        let words = unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u32>(), dwords) };
        words.fill(AMDGPU_POISON.to_le());
    }

    /// Make `backing`, a private memfd backing a freed VRAM BO left with
    /// any contents, read as a new BO's: the poison over its first
    /// [`POISON_LIMIT`] bytes (pages the first fill committed, so no faults
    /// and no kernel zeroing), zeros after them, or zeros throughout for
    /// [`FreshVram::Zero`]. Zeros come from punching the range out of the
    /// memfd rather than writing it, which touches no page the new owner
    /// does not.
    pub fn refill(self, backing: &Backing) -> std::io::Result<()> {
        let size = backing.size();
        let poisoned = match self {
            FreshVram::Poison => size.min(POISON_LIMIT),
            FreshVram::Zero => 0,
        };
        backing.punch_hole(poisoned, size - poisoned)?;
        // SAFETY: the backing's own mapping holds `size` bytes, page
        // aligned, and the caller owns the backing alone.
        unsafe { self.fill(backing.ptr(), size) };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_spells_both_modes() {
        assert_eq!(FreshVram::parse("poison"), Some(FreshVram::Poison));
        assert_eq!(FreshVram::parse(" Zero\n"), Some(FreshVram::Zero));
        assert_eq!(FreshVram::parse("cleared"), None);
        assert_eq!(FreshVram::default(), FreshVram::Poison);
    }

    #[test]
    fn poison_stops_at_the_limit() {
        let len = POISON_LIMIT + 8192;
        let mut memory = vec![0u32; (len / 4) as usize];
        // SAFETY: the vector holds `len` bytes, u32-aligned, used only here.
        unsafe { FreshVram::Poison.fill(memory.as_mut_ptr().cast(), len) };
        let limit = (POISON_LIMIT / 4) as usize;
        assert!(memory[..limit].iter().all(|&w| w == AMDGPU_POISON));
        assert!(memory[limit..].iter().all(|&w| w == 0));
        let bytes = memory[0].to_le_bytes();
        assert_eq!(bytes, [0xbe, 0xd0, 0xbe, 0xd0]);

        let mut zero = vec![0u32; 16];
        // SAFETY: as above, 64 bytes.
        unsafe { FreshVram::Zero.fill(zero.as_mut_ptr().cast(), 64) };
        assert!(zero.iter().all(|&w| w == 0));
    }
}
