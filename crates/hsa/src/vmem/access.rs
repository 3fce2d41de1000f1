//! Per-agent access to mapped ranges (`hsa_amd_vmem_set_access`,
//! `hsa_amd_vmem_get_access`).
//!
//! A GPU gets access by MAP_MEMORY_TO_GPU of the mapping's BO on it and
//! loses it by UNMAP, so a kernel of a GPU without access faults at the
//! address (gfxsim checks this when it builds its page table, not on every
//! load). The host gets access by an mmap of the handle's dma-buf over the
//! range, with the protection asked for, and loses it when PROT_NONE is put
//! back. KFD has no per-GPU read-only mapping of a BO (ROCr uses the render
//! node's GEM_VA for that), so on a GPU ReadOnly and WriteOnly map the
//! memory as KFD imports it, readable and writable; `get_access` reports
//! what was set.

use std::ffi::c_void;
use std::os::fd::{AsFd, BorrowedFd};

use aqueduct_kfd::uapi::MapMemoryToGpuArgs;
use rustix::mm::{MapFlags, ProtFlags};

use crate::agent::Agent;

use super::error::{VmemError, VmemResult};
use super::manager::{Target, VirtualMemory};
use super::state::{Mapped, State};

/// `hsa_access_permission_t`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Access {
    #[default]
    None,
    ReadOnly,
    WriteOnly,
    ReadWrite,
}

impl Access {
    fn prot(self) -> ProtFlags {
        match self {
            Access::None => ProtFlags::empty(),
            Access::ReadOnly => ProtFlags::READ,
            Access::WriteOnly => ProtFlags::WRITE,
            Access::ReadWrite => ProtFlags::READ | ProtFlags::WRITE,
        }
    }
}

impl VirtualMemory {
    /// Set `agent`'s access for every mapping tiling `[va, va+size)`
    /// (mappings laid end to end from `va`); agents not named keep theirs.
    pub fn set_access(&self, va: u64, size: u64, desc: &[(&Agent, Access)]) -> VmemResult<()> {
        let targets = desc
            .iter()
            .map(|(agent, access)| Ok((self.target(agent)?, *access)))
            .collect::<VmemResult<Vec<_>>>()?;
        let mut state = self.state();
        if size == 0 || state.reserved_containing(va, size).is_none() {
            return Err(VmemError::OutsideReservation { va, size });
        }
        let mut starts = Vec::new();
        let mut chunk = va;
        while chunk < va + size {
            let m = state
                .mapped
                .get(&chunk)
                .ok_or(VmemError::NotCovered { va, size, chunk })?;
            starts.push(chunk);
            chunk += m.size;
        }
        let State {
            mapped, handles, ..
        } = &mut *state;
        for start in starts {
            let Some(m) = mapped.get_mut(&start) else {
                continue;
            };
            let fd = handles
                .get(&m.handle)
                .map(|p| p.dmabuf.as_fd())
                .ok_or(VmemError::HandleGone { handle: m.handle })?;
            for &(target, access) in &targets {
                self.apply(start, m, fd, target, access)?;
            }
        }
        Ok(())
    }

    /// Change one agent's access to one mapping (`fd`: its handle's dma-buf).
    fn apply(
        &self,
        va: u64,
        m: &mut Mapped,
        fd: BorrowedFd<'_>,
        target: Target,
        access: Access,
    ) -> VmemResult<()> {
        match target {
            Target::Gpu(gpu_id) => {
                let had = m.gpus.get(&gpu_id).is_some_and(|a| *a != Access::None);
                let wants = access != Access::None;
                if wants && !had {
                    let mut args = MapMemoryToGpuArgs {
                        handle: m.bo,
                        n_devices: 1,
                        ..Default::default()
                    };
                    self.ctx
                        .device
                        .map_memory_to_gpu(&mut args, &[gpu_id])
                        .map_err(|e| VmemError::from_driver("MAP_MEMORY_TO_GPU", e))?;
                } else if had && !wants {
                    self.unmap_bo(m.bo, &[gpu_id])?;
                }
                m.gpus.insert(gpu_id, access);
            }
            Target::Cpu => {
                if access == Access::None {
                    if m.cpu.is_some_and(|a| a != Access::None) {
                        // SAFETY: the vmem API hands out addresses, never references; withdrawing host access is the caller's request.
                        unsafe { self.ctx.reservation.restore_prot_none(va, m.size) }?;
                    }
                } else {
                    self.map_host(va, m.size, fd, access)?;
                }
                m.cpu = Some(access);
            }
        }
        Ok(())
    }

    /// mmap the handle's dma-buf over the mapping with `access`.
    fn map_host(&self, va: u64, size: u64, fd: BorrowedFd<'_>, access: Access) -> VmemResult<()> {
        let len = usize::try_from(size).map_err(|_| VmemError::SizeTooLarge { size })?;
        // SAFETY: [va, va+len) lies in a reserved range of the runtime's
        // PROT_NONE aperture and belongs to this mapping alone; nothing Rust
        // owns lives there.
        unsafe {
            rustix::mm::mmap(
                va as *mut c_void,
                len,
                access.prot(),
                MapFlags::SHARED | MapFlags::FIXED,
                fd,
                0,
            )
        }
        .map_err(|e| VmemError::HostMapping {
            va,
            len,
            source: e.into(),
        })?;
        Ok(())
    }

    /// `agent`'s access to the mapping containing `va` (None if never set).
    pub fn get_access(&self, va: u64, agent: &Agent) -> VmemResult<Access> {
        let state = self.state();
        let start = state
            .mapping_containing(va)
            .ok_or(VmemError::NothingMapped { va })?;
        let target = self.target(agent)?;
        let m = &state.mapped[&start];
        Ok(match target {
            Target::Gpu(gpu_id) => m.gpus.get(&gpu_id).copied().unwrap_or_default(),
            Target::Cpu => m.cpu.unwrap_or_default(),
        })
    }
}
