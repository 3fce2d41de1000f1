//! [`VirtualMemory`]: one runtime's vmem state (the tables of `state.rs`
//! behind one lock) and what every call needs: the memory context the
//! BOs and VA ranges come from, and the agents access may be granted to.
//!
//! Dropping it undoes everything still outstanding (mappings, handles,
//! reservations), so a process that forgets a release leaks nothing past
//! the manager.

use std::sync::{Arc, Mutex, MutexGuard};

use aqueduct_kfd::uapi::{FreeMemoryOfGpuArgs, UnmapMemoryFromGpuArgs};

use crate::agent::{Agent, DeviceType};
use crate::memory::MemoryPool;
use crate::memory::context::MemoryContext;
use crate::runtime::Runtime;

use super::access::Access;
use super::error::{VmemError, VmemResult};
use super::state::{Mapped, Physical, State};

/// Who an access descriptor names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// A GPU agent, by gpu_id.
    Gpu(u32),
    /// The host (any CPU agent).
    Cpu,
}

#[derive(Debug)]
pub(crate) struct GpuEntry {
    pub gpu_id: u32,
    pub pools: Vec<MemoryPool>,
}

/// The vmem API of one runtime (ROCm's `hsa_amd_vmem_*`).
#[derive(Debug)]
pub struct VirtualMemory {
    pub(crate) ctx: Arc<MemoryContext>,
    pub(crate) gpus: Vec<GpuEntry>,
    pub(crate) cpu_nodes: Vec<u32>,
    /// The KFD interface's minor version (what the runtime read at init).
    pub(crate) kfd_minor: u32,
    state: Mutex<State>,
}

impl VirtualMemory {
    /// The vmem API over `runtime`'s aperture, pools and agents.
    pub fn new(runtime: &Runtime) -> VmemResult<VirtualMemory> {
        let mut gpus = Vec::new();
        let mut ctx = None;
        for agent in runtime.gpu_agents() {
            let pools = runtime.pools(agent)?.to_vec();
            if let Some(p) = pools.first() {
                ctx.get_or_insert_with(|| p.context().clone());
            }
            gpus.push(GpuEntry {
                gpu_id: agent.gpu_id,
                pools,
            });
        }
        let ctx = ctx.ok_or(VmemError::NoGpuAgent)?;
        let cpu_nodes = runtime.cpu_agents().map(|a| a.node_id).collect();
        Ok(VirtualMemory {
            ctx,
            gpus,
            cpu_nodes,
            kfd_minor: runtime.kfd_version().1,
            state: Mutex::new(State {
                next_handle: 1,
                ..State::default()
            }),
        })
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What `agent` names, if it is one of this runtime's agents.
    pub(crate) fn target(&self, agent: &Agent) -> VmemResult<Target> {
        match agent.device_type {
            DeviceType::Gpu if self.gpus.iter().any(|g| g.gpu_id == agent.gpu_id) => {
                Ok(Target::Gpu(agent.gpu_id))
            }
            DeviceType::Cpu if self.cpu_nodes.contains(&agent.node_id) => Ok(Target::Cpu),
            _ => Err(VmemError::UnknownAgent {
                name: agent.name.clone(),
                node: agent.node_id,
            }),
        }
    }

    /// The pool of GPU `gpu_id` with the memory of `flags` (VRAM: the
    /// coarse device pool; GTT: the fine system pool).
    pub(crate) fn pool_for(&self, gpu_id: u32, vram: bool) -> Option<&MemoryPool> {
        use crate::memory::PoolKind;
        let want = if vram {
            PoolKind::CoarseDevice
        } else {
            PoolKind::FineSystem
        };
        self.gpus
            .iter()
            .find(|g| g.gpu_id == gpu_id)?
            .pools
            .iter()
            .find(|p| p.kind() == want)
    }

    /// FREE_MEMORY_OF_GPU, logging a failure (teardown paths).
    pub(crate) fn free_bo(&self, bo: u64) {
        let mut args = FreeMemoryOfGpuArgs { handle: bo };
        if let Err(e) = self.ctx.device.free_memory_of_gpu(&mut args) {
            tracing::warn!("vmem: FREE_MEMORY_OF_GPU of {bo:#x}: {e}");
        }
    }

    /// UNMAP_MEMORY_FROM_GPU of `bo` on `gpus`.
    pub(crate) fn unmap_bo(&self, bo: u64, gpus: &[u32]) -> VmemResult<()> {
        if gpus.is_empty() {
            return Ok(());
        }
        let mut args = UnmapMemoryFromGpuArgs {
            handle: bo,
            n_devices: gpus.len() as u32,
            ..Default::default()
        };
        self.ctx
            .device
            .unmap_memory_from_gpu(&mut args, gpus)
            .map_err(VmemError::Kfd)
    }

    /// Undo a mapping: GPU mappings, its BO, host access.
    pub(crate) fn tear_down(&self, va: u64, m: &Mapped) -> VmemResult<()> {
        let mapped: Vec<u32> = m
            .gpus
            .iter()
            .filter(|(_, a)| **a != Access::None)
            .map(|(g, _)| *g)
            .collect();
        self.unmap_bo(m.bo, &mapped)?;
        self.free_bo(m.bo);
        if m.cpu.is_some_and(|a| a != Access::None) {
            // SAFETY: the mapping is being torn down and its BO is freed above; the vmem API hands out addresses, never references.
            unsafe { self.ctx.reservation.restore_prot_none(va, m.size) }?;
        }
        Ok(())
    }

    /// Free a handle's memory (its BO; the dma-buf fd closes on drop).
    pub(crate) fn destroy(&self, p: Physical) {
        self.free_bo(p.bo);
        drop(p.dmabuf);
    }
}

impl Drop for VirtualMemory {
    fn drop(&mut self) {
        let state = std::mem::take(&mut *self.state());
        for (va, m) in &state.mapped {
            if let Err(e) = self.tear_down(*va, m) {
                tracing::warn!("vmem: unmapping {va:#x} at teardown: {e}");
            }
        }
        for (_, p) in state.handles {
            self.destroy(p);
        }
        for (va, r) in state.reserved {
            self.ctx.va.free(va, r.size);
        }
    }
}
