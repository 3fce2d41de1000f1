//! One simulated GPU's device-side state: its page table, doorbell page,
//! MMIO-remap page, decoded-code cache, workgroup worker pool, VRAM
//! accounting, and the per-process facts KFD keeps per device (VM acquired,
//! render node open, apertures, CWSR sizes).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aqueduct_kfd::topology::CwsrSizes;
use aqueduct_kfd::uapi::ProcessDeviceApertures;

use crate::dispatch::WorkerPool;
use crate::doorbell::DoorbellPage;
use crate::memory::backing::Backing;
use crate::memory::vm::GpuVm;
use crate::memory::{GPUVM_LIMIT, PAGE_SIZE};
use crate::part::SimPart;
use crate::sanitizer::Sanitizer;
use crate::stats::StatsCounters;
use aqueduct_isa::XccSpread;
use aqueduct_isa::gfx11::CodeCache;

/// LDS (shared) aperture base of gfx9+ on 64-bit hosts
/// (kfd_flat_memory.c MAKE_LDS_APP_BASE_V9).
pub const LDS_APERTURE_BASE: u64 = 1 << 48;
/// Scratch (private) aperture base of gfx9+ (MAKE_SCRATCH_APP_BASE_V9).
pub const SCRATCH_APERTURE_BASE: u64 = 2 << 48;
/// Start of the user part of the GPUVM aperture (kfd_flat_memory.c
/// SVM_USER_BASE: the low 16 MiB are reserved for the CWSR trap handler
/// and kernel IBs).
pub const GPUVM_USER_BASE: u64 = 0x100_0000;

/// The limit KFD reports for a 4 GiB aperture based at `base`.
const fn aperture_limit(base: u64) -> u64 {
    (base & 0xFFFF_FFFF_0000_0000) | 0xFFFF_FFFF
}

#[derive(Debug)]
pub struct Gpu {
    /// 0-based index (topology node index - 1).
    pub index: usize,
    pub gpu_id: u32,
    pub render_minor: u32,
    pub vram_size: u64,
    pub vm: Arc<GpuVm>,
    pub doorbells: DoorbellPage,
    pub mmio_page: Arc<Backing>,
    pub code_cache: Arc<CodeCache>,
    pub pool: WorkerPool,
    pub vram_used: Mutex<u64>,
    pub cwsr: CwsrSizes,
    /// The part this GPU is (`SimConfig::part`): which ISA its code is.
    pub part: SimPart,
    /// The watchdog's per-dispatch time limit (`SimConfig::dispatch_timeout`).
    pub dispatch_timeout: Option<Duration>,
    /// The device's sanitizer (`SimConfig::sanitize` not off).
    pub sanitizer: Option<Arc<Sanitizer>>,
    /// The render-node fd whose VM this process acquired (the process
    /// device's `drm_file` in amdkfd).
    vm_fd: Mutex<Option<u32>>,
    render_open: AtomicBool,
    /// References live queues hold on BOs mapped in this GPU's VM, by
    /// handle (amdgpu's `bo_va->queue_refcount`).
    queue_refs: Mutex<HashMap<u64, u32>>,
    /// The logical XCC id the next compute queue's first XCC gets (amdkfd's
    /// `device_queue_manager.current_logical_xcc_start`, xcc spread in
    /// aqueduct-isa's xcc.rs).
    xcc_start: AtomicU32,
}

impl Gpu {
    pub fn new(
        index: usize,
        gpu_id: u32,
        render_minor: u32,
        vram_size: u64,
        cwsr: CwsrSizes,
        threads: usize,
        stats: Arc<StatsCounters>,
    ) -> std::io::Result<Gpu> {
        let vm = Arc::new(GpuVm::new());
        let pool = WorkerPool::new(gpu_id, threads, vm.clone(), stats)?;
        Ok(Gpu {
            index,
            gpu_id,
            render_minor,
            vram_size,
            vm,
            doorbells: DoorbellPage::new()?,
            mmio_page: Arc::new(Backing::new_memfd("gfxsim-mmio", PAGE_SIZE)?),
            code_cache: Arc::new(CodeCache::new()),
            pool,
            vram_used: Mutex::new(0),
            cwsr,
            part: SimPart::default(),
            dispatch_timeout: None,
            sanitizer: None,
            vm_fd: Mutex::new(None),
            render_open: AtomicBool::new(false),
            queue_refs: Mutex::new(HashMap::new()),
            xcc_start: AtomicU32::new(0),
        })
    }

    /// How a new compute queue's command processors spread workgroups over
    /// the part's XCCs. Linux `kfd_mqd_manager_v9.c`, `init_mqd_v9_4_3`:
    /// each compute queue's MQDs take the device queue manager's
    /// `current_logical_xcc_start` and increment it (it starts at 0 and is
    /// never decremented), with `compute_tg_chunk_size = 1` for AQL queues.
    /// Single-XCC parts spread over one XCC whatever the counter says.
    pub fn claim_xcc_spread(&self) -> XccSpread {
        let start = self.xcc_start.fetch_add(1, Ordering::Relaxed);
        XccSpread::new(self.part.properties().num_xcc as u32, 1, start)
    }

    /// A queue takes a reference on each of `handles` (kfd_queue.c
    /// `kfd_queue_buffer_get` increments the mapping's `queue_refcount`).
    pub fn hold_queue_buffers(&self, handles: &[u64]) {
        let mut refs = self.queue_refs.lock().unwrap_or_else(|e| e.into_inner());
        for &h in handles {
            *refs.entry(h).or_default() += 1;
        }
    }

    /// A queue drops its references (kfd_queue.c `kfd_queue_unref_bo_va`).
    pub fn release_queue_buffers(&self, handles: &[u64]) {
        let mut refs = self.queue_refs.lock().unwrap_or_else(|e| e.into_inner());
        for h in handles {
            if let Some(n) = refs.get_mut(h) {
                *n -= 1;
                if *n == 0 {
                    refs.remove(h);
                }
            }
        }
    }

    /// Whether a live queue holds BO `handle` through this GPU's VM.
    pub fn queue_holds(&self, handle: u64) -> bool {
        self.queue_refs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(&handle)
    }

    pub fn vm_acquired(&self) -> bool {
        self.vm_fd
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// ACQUIRE_VM through render-node fd `fd`: the first one binds the
    /// VM; the same fd again succeeds, another one is refused, since the
    /// process device keeps the first `drm_file` (kfd_chardev.c
    /// `kfd_ioctl_acquire_vm`: EBUSY). Returns whether it was accepted.
    pub fn acquire_vm(&self, fd: u32) -> bool {
        let mut bound = self.vm_fd.lock().unwrap_or_else(|e| e.into_inner());
        match *bound {
            Some(first) => first == fd,
            None => {
                *bound = Some(fd);
                true
            }
        }
    }

    pub fn render_node_open(&self) -> bool {
        self.render_open.load(Ordering::Acquire)
    }

    pub fn set_render_node_open(&self) {
        self.render_open.store(true, Ordering::Release);
    }

    /// What GET_PROCESS_APERTURES_NEW reports for this GPU.
    pub fn apertures(&self) -> ProcessDeviceApertures {
        ProcessDeviceApertures {
            lds_base: LDS_APERTURE_BASE,
            lds_limit: aperture_limit(LDS_APERTURE_BASE),
            scratch_base: SCRATCH_APERTURE_BASE,
            scratch_limit: aperture_limit(SCRATCH_APERTURE_BASE),
            gpuvm_base: GPUVM_USER_BASE,
            gpuvm_limit: GPUVM_LIMIT - 1,
            gpu_id: self.gpu_id,
            pad: 0,
        }
    }
}
