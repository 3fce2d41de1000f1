//! `SimDevice`: the simulated KFD. It implements [`KfdDevice`] by
//! dispatching each request to the part that owns it: topology, memory
//! (BOs and page tables), events, queues (and their command processors),
//! doorbells. One `SimDevice` is one process's open of /dev/kfd.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use aqueduct_kfd::topology::MemTree;
use aqueduct_kfd::uapi::*;
use aqueduct_kfd::{KfdDevice, KfdError, KfdResult, NoDeviceError, Topology};
use rustix::io::Errno;

use crate::coherence::GpuCoherence;
use crate::coherence_report::{CoherenceLog, CoherenceReport, CoherenceStats};
use crate::config::SimConfig;
use crate::events::{EVENT_PAGE_SIZE, Events};
use crate::gpu::Gpu;
use crate::memory::backing::Backing;
use crate::memory::bo::MemType;
use crate::memory::vm::Mapping;
use crate::memory::{DOORBELL_SLICE_SIZE, Memory, PAGE_SIZE};
use crate::queue::Queues;
use crate::sanitizer::{Sanitizer, SanitizerReport};
use crate::stats::{SimStats, StatsCounters};
use crate::topology::{FIRST_RENDER_MINOR, MAX_GPUS, build_tree, gpu_id_of, host_memory_size};
use aqueduct_isa::GpuMemory;
use aqueduct_isa::gfx11::CodeCache;

/// Fake file descriptors handed out for render nodes (far above real fds),
/// one per open.
const RENDER_FD_BASE: u32 = 0x4000_0000;
/// Destroyed queues whose errors [`SimDevice::wave_error`] remembers; the
/// record starts over past this many.
const RETIRED_ERROR_LIMIT: usize = 1024;

fn err(ioctl: &'static str, errno: Errno) -> KfdError {
    KfdError::ioctl(ioctl, errno.raw_os_error())
}

fn mmap_err(errno: Errno) -> KfdError {
    KfdError::Os {
        what: "mmap",
        source: errno.into(),
    }
}

/// What a mmap of /dev/kfd placed where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KfdPage {
    /// The doorbell page of GPU index `.0`.
    Doorbells(usize),
    Events,
    Mmio(usize),
}

#[derive(Clone, Copy, Debug)]
struct KfdMapping {
    va: u64,
    size: u64,
    page: KfdPage,
}

/// A simulated KFD with `config.gpus` gfx1100 GPUs.
#[derive(Debug)]
pub struct SimDevice {
    config: SimConfig,
    tree: MemTree,
    topology: Topology,
    gpus: Vec<Arc<Gpu>>,
    memory: Memory,
    events: Arc<Events>,
    queues: Queues,
    kfd_mappings: Mutex<Vec<KfdMapping>>,
    render_fds: Mutex<HashMap<u32, usize>>,
    stats: Arc<StatsCounters>,
    /// Strict-coherence reports and counters (empty when the mode is off).
    coherence: Arc<CoherenceLog>,
    /// gfxsim's account of the errors of destroyed queues, by queue id
    /// (a runtime recreates a faulted queue before anyone asks).
    retired_errors: Mutex<HashMap<u32, String>>,
    /// The sanitizer (`SimConfig::sanitize` not off).
    sanitizer: Option<Arc<Sanitizer>>,
}

impl SimDevice {
    /// Build the simulated system: topology, per-GPU doorbell pages and
    /// worker pools.
    pub fn new(config: SimConfig) -> KfdResult<Arc<SimDevice>> {
        if config.gpus == 0 || config.gpus > MAX_GPUS {
            return Err(NoDeviceError::GpuCount {
                backend: "gfxsim",
                requested: config.gpus,
                max: MAX_GPUS,
            }
            .into());
        }
        if !crate::kfd_version::is_modelled(config.kfd_minor_version) {
            return Err(NoDeviceError::KfdVersion {
                backend: "gfxsim",
                requested: config.kfd_minor_version,
                min: crate::kfd_version::MIN_KFD_MINOR_VERSION,
                max: KFD_IOCTL_MINOR_VERSION,
            }
            .into());
        }
        let events = Arc::new(Events::new(config.kfd_minor_version));
        raise_fd_limit();
        // Start the realtime counter (it counts from its first read): a
        // GPU's counter runs long before any packet, so no CP timestamp
        // reads 0, the value a signal without timestamps holds.
        aqueduct_isa::realtime::realtime_ticks();
        let tree = build_tree(config.part, config.gpus, config.vram_size);
        let topology = Topology::parse(&tree)?;
        let stats = Arc::new(StatsCounters::default());
        let coherence = Arc::new(CoherenceLog::default());
        let sanitizer =
            (!config.sanitize.is_off()).then(|| Arc::new(Sanitizer::new(config.sanitize)));
        let mut gpus = Vec::with_capacity(config.gpus);
        for index in 0..config.gpus {
            let gpu_id = gpu_id_of(index);
            let node = topology
                .node_by_gpu_id(gpu_id)
                .ok_or(NoDeviceError::GpuNotInTopology {
                    backend: "gfxsim",
                    gpu_id,
                })?;
            let cwsr = node
                .cwsr_sizes()
                .ok_or(NoDeviceError::NoCwsrSizes { gpu_id })?;
            let mut gpu = Gpu::new(
                index,
                gpu_id,
                FIRST_RENDER_MINOR + index as u32,
                config.vram_size,
                cwsr,
                config.threads,
                stats.clone(),
            )
            .map_err(|e| KfdError::Os {
                what: "gfxsim device setup",
                source: e,
            })?;
            gpu.dispatch_timeout = config.dispatch_timeout;
            gpu.part = config.part;
            gpu.code_cache = Arc::new(CodeCache::for_isa(config.part.isa_kind()));
            gpu.sanitizer = sanitizer.clone();
            if config.strict_coherence {
                gpu.vm.enable_strict_coherence(Arc::new(GpuCoherence::new(
                    gpu_id,
                    config.part.properties().num_xcc as u32,
                    coherence.clone(),
                )));
            }
            gpus.push(Arc::new(gpu));
        }
        tracing::debug!(
            "gfxsim: {} GPU(s), {} worker thread(s) each, strict coherence {}",
            config.gpus,
            config.threads,
            if config.strict_coherence { "on" } else { "off" }
        );
        let memory = Memory::new(host_memory_size(), config.fresh_vram);
        Ok(Arc::new(SimDevice {
            config,
            tree,
            topology,
            gpus,
            memory,
            events,
            queues: Queues::default(),
            kfd_mappings: Mutex::new(Vec::new()),
            render_fds: Mutex::new(HashMap::new()),
            stats,
            coherence,
            retired_errors: Mutex::new(HashMap::new()),
            sanitizer,
        }))
    }

    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The sysfs-format topology tree this device publishes.
    pub fn topology_tree(&self) -> &MemTree {
        &self.tree
    }

    /// gfxsim's own account of the last error of queue `queue_id` (the
    /// faulting instruction's PC and mnemonic, the exact address, a
    /// watchdog stop), also after the queue was destroyed. KFD has no such
    /// report (hardware exposes it only to a debugger), so this is not part
    /// of [`KfdDevice`]: the runtime never sees it, tests and tools on
    /// gfxsim ask for it here.
    pub fn wave_error(&self, queue_id: u32) -> Option<String> {
        self.queues.exception_detail(queue_id).or_else(|| {
            self.retired_errors
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&queue_id)
                .cloned()
        })
    }

    /// Execution counters since the device was created.
    pub fn stats(&self) -> SimStats {
        self.stats.snapshot()
    }

    /// Bytes of freed VRAM whose host memory gfxsim keeps to back the next
    /// VRAM BO of the same GPU, flags and size (charged to no GPU).
    pub fn pooled_vram(&self) -> u64 {
        self.memory.pooled_vram()
    }

    /// Count every dispatch launched from now on (`on`), or none: wave
    /// instructions by class, global-memory bytes and occupancy, kept by
    /// completion signal until [`SimDevice::dispatch_counters`] takes them
    /// (dispatch_counters.rs).
    pub fn set_dispatch_counters(&self, on: bool) {
        self.stats
            .per_dispatch
            .store(on, std::sync::atomic::Ordering::Relaxed);
    }

    /// The counters of the completed dispatch whose packet's completion
    /// signal is at `signal` (taken: a second call gives None). Fetch them
    /// once the signal shows the completion; the CP keeps them before it
    /// decrements the signal.
    pub fn dispatch_counters(&self, signal: u64) -> Option<crate::DispatchCounters> {
        self.stats
            .log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take(signal)
    }

    /// Every finding of the sanitizer so far, folded by (tool, kernel, PC)
    /// in the order first found (always empty when `SimConfig::sanitize`
    /// is off). Each was printed to stderr when its first dispatch ended.
    pub fn sanitizer_reports(&self) -> Vec<SanitizerReport> {
        self.sanitizer
            .as_ref()
            .map_or_else(Vec::new, |s| s.log().reports())
    }

    /// Whether the sanitizer runs (`SimConfig::sanitize` not off).
    pub fn sanitizes(&self) -> bool {
        self.sanitizer.is_some()
    }

    /// The sanitizer's findings of the dispatch whose packet carried
    /// `kernarg_address`, when the runtime noted it
    /// (`KfdDevice::note_dispatch_bindings`); the note is forgotten. Take
    /// them once the dispatch completed: the command processor keeps them
    /// before the completion signal.
    pub fn take_dispatch_findings(&self, kernarg_address: u64) -> Vec<SanitizerReport> {
        self.sanitizer
            .as_ref()
            .map_or_else(Vec::new, |s| s.take_dispatch_findings(kernarg_address))
    }

    /// [`SimDevice::sanitizer_reports`], leaving the record empty.
    pub fn take_sanitizer_reports(&self) -> Vec<SanitizerReport> {
        self.sanitizer
            .as_ref()
            .map_or_else(Vec::new, |s| s.log().take())
    }

    /// Every stale read strict coherence mode found on this device, in the
    /// order found (always empty when `SimConfig::strict_coherence` is off).
    pub fn coherence_reports(&self) -> Vec<CoherenceReport> {
        self.coherence.reports()
    }

    /// What the fences of strict coherence mode moved on this device.
    pub fn coherence_stats(&self) -> CoherenceStats {
        self.coherence.stats()
    }

    /// Bytes of GPU `gpu_id`'s VRAM held by BOs (None for an unknown GPU).
    pub fn vram_used(&self, gpu_id: u32) -> Option<u64> {
        self.gpu(gpu_id)
            .map(|g| *g.vram_used.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Bytes of system memory held by GTT and USERPTR BOs.
    pub fn gtt_used(&self) -> u64 {
        self.memory.gtt_used()
    }

    /// Run `f` with GPU `gpu_id`'s view of memory, the one the emulator
    /// translates through; None for an unknown gpu_id. The page table cannot
    /// change while `f` runs (MAP/UNMAP/FREE wait), so do not call those
    /// from `f`.
    pub fn with_gpu_memory<R>(
        &self,
        gpu_id: u32,
        f: impl FnOnce(&dyn GpuMemory) -> R,
    ) -> Option<R> {
        let gpu = self.gpu(gpu_id)?;
        let view = gpu.vm.view();
        Some(f(&view))
    }

    fn gpu(&self, gpu_id: u32) -> Option<&Arc<Gpu>> {
        self.gpus.iter().find(|g| g.gpu_id == gpu_id)
    }

    fn kfd_mappings(&self) -> MutexGuard<'_, Vec<KfdMapping>> {
        self.kfd_mappings.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Map a device page (doorbells, events, MMIO) at `va` and remember it.
    ///
    /// # Safety
    /// As `KfdDevice::mmap_kfd`.
    unsafe fn map_device_page(
        &self,
        backing: &Backing,
        va: u64,
        size: u64,
        page: KfdPage,
    ) -> KfdResult<()> {
        // SAFETY: the caller owns [va, va+size) (mmap_kfd's contract).
        unsafe { backing.map_fixed_at(va, size, 0) }.map_err(|e| KfdError::Os {
            what: "mmap",
            source: e,
        })?;
        let mut mappings = self.kfd_mappings();
        mappings.retain(|m| m.va + m.size <= va || va + size <= m.va);
        mappings.push(KfdMapping { va, size, page });
        Ok(())
    }
}

/// Let the process hold one memfd per buffer object: raise the soft limit
/// on open files to the hard limit.
fn raise_fd_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if let Some(max) = limit.maximum
        && limit.current.is_some_and(|cur| cur < max)
    {
        let raised = rustix::process::Rlimit {
            current: Some(max),
            maximum: Some(max),
        };
        if let Err(e) = setrlimit(Resource::Nofile, raised) {
            tracing::debug!("gfxsim: cannot raise RLIMIT_NOFILE: {e}");
        }
    }
}

impl Drop for SimDevice {
    fn drop(&mut self) {
        self.queues.destroy_all();
        for gpu in &self.gpus {
            gpu.pool.shutdown();
        }
    }
}

impl KfdDevice for SimDevice {
    fn backend_name(&self) -> &'static str {
        "gfxsim"
    }

    fn topology(&self) -> KfdResult<Topology> {
        Ok(self.topology.clone())
    }

    fn open_render_node(&self, drm_render_minor: u32) -> KfdResult<u32> {
        let gpu = self
            .gpus
            .iter()
            .find(|g| g.render_minor == drm_render_minor)
            .ok_or_else(|| KfdError::Os {
                what: "open render node",
                source: Errno::NOENT.into(),
            })?;
        gpu.set_render_node_open();
        // Every open is a new file, as open(2) of /dev/dri/renderD<minor>
        // is: ACQUIRE_VM tells them apart.
        let mut fds = self.render_fds.lock().unwrap_or_else(|e| e.into_inner());
        let fd = RENDER_FD_BASE + fds.len() as u32;
        fds.insert(fd, gpu.index);
        Ok(fd)
    }

    fn get_version(&self, args: &mut GetVersionArgs) -> KfdResult<()> {
        args.major_version = KFD_IOCTL_MAJOR_VERSION;
        args.minor_version = self.config.kfd_minor_version;
        Ok(())
    }

    fn get_process_apertures_new(
        &self,
        args: &mut GetProcessAperturesNewArgs,
        apertures: &mut [ProcessDeviceApertures],
    ) -> KfdResult<()> {
        if args.num_of_nodes == 0 {
            args.num_of_nodes = self.gpus.len() as u32;
            return Ok(());
        }
        let n = (args.num_of_nodes as usize)
            .min(apertures.len())
            .min(self.gpus.len());
        for (slot, gpu) in apertures.iter_mut().zip(&self.gpus).take(n) {
            *slot = gpu.apertures();
        }
        args.num_of_nodes = n as u32;
        Ok(())
    }

    fn acquire_vm(&self, args: &mut AcquireVmArgs) -> KfdResult<()> {
        const NAME: &str = "ACQUIRE_VM";
        let gpu = self
            .gpu(args.gpu_id)
            .ok_or_else(|| err(NAME, Errno::INVAL))?;
        let fd_gpu = self
            .render_fds
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&args.drm_fd)
            .copied();
        match fd_gpu {
            Some(index) if index == gpu.index => {
                if gpu.acquire_vm(args.drm_fd) {
                    Ok(())
                } else {
                    tracing::debug!(
                        "{NAME}: gpu {:#x}'s VM was acquired through another render-node fd",
                        args.gpu_id
                    );
                    Err(err(NAME, Errno::BUSY))
                }
            }
            Some(_) => {
                tracing::debug!("{NAME}: fd {} is another GPU's render node", args.drm_fd);
                Err(err(NAME, Errno::INVAL))
            }
            // kfd_ioctl_acquire_vm: `fget` of an fd that is no open file
            // fails with EINVAL.
            None => Err(err(NAME, Errno::INVAL)),
        }
    }

    fn set_memory_policy(&self, args: &mut SetMemoryPolicyArgs) -> KfdResult<()> {
        const NAME: &str = "SET_MEMORY_POLICY";
        self.gpu(args.gpu_id)
            .ok_or_else(|| err(NAME, Errno::INVAL))?;
        let valid =
            |p: u32| p == KFD_IOC_CACHE_POLICY_COHERENT || p == KFD_IOC_CACHE_POLICY_NONCOHERENT;
        if !valid(args.default_policy) || !valid(args.alternate_policy) {
            return Err(err(NAME, Errno::INVAL));
        }
        Ok(())
    }

    fn get_clock_counters(&self, args: &mut GetClockCountersArgs) -> KfdResult<()> {
        crate::clock::sample(args, self.gpu(args.gpu_id).is_some());
        Ok(())
    }

    fn alloc_memory_of_gpu(&self, args: &mut AllocMemoryOfGpuArgs) -> KfdResult<()> {
        self.memory.alloc(&self.gpus, args)?;
        if let Some(s) = &self.sanitizer
            && MemType::from_flags(args.flags) == Some(MemType::Vram)
        {
            s.note_vram_allocation(args.va_addr, args.size);
        }
        Ok(())
    }

    fn free_memory_of_gpu(&self, args: &mut FreeMemoryOfGpuArgs) -> KfdResult<()> {
        // The event page stays until the process ends (kfd_chardev.c
        // `kfd_ioctl_free_memory_of_gpu`: EPERM, checked before the handle).
        if self.events.page_handle() == Some(args.handle) {
            tracing::debug!(
                "FREE_MEMORY_OF_GPU: handle {:#x} is the event page",
                args.handle
            );
            return Err(err("FREE_MEMORY_OF_GPU", Errno::PERM));
        }
        let va = self.memory.bo(args.handle).map(|bo| bo.va);
        self.memory.free(&self.gpus, args)?;
        if let (Some(s), Some(va)) = (&self.sanitizer, va) {
            s.forget_allocation(va);
        }
        Ok(())
    }

    fn note_allocation(&self, va: u64, size: u64) {
        if let Some(s) = &self.sanitizer {
            s.note_allocation(va, size);
        }
    }

    fn note_kernel(&self, kernel_object: u64, name: &str) {
        if let Some(s) = &self.sanitizer {
            s.note_kernel(kernel_object, name);
        }
    }

    fn note_dispatch_bindings(&self, kernarg_address: u64, bindings: &[std::ops::Range<u64>]) {
        if let Some(s) = &self.sanitizer {
            s.note_dispatch_bindings(kernarg_address, bindings);
        }
    }

    fn map_memory_to_gpu(
        &self,
        args: &mut MapMemoryToGpuArgs,
        device_ids: &[u32],
    ) -> KfdResult<()> {
        self.memory.map(&self.gpus, args, device_ids)
    }

    fn unmap_memory_from_gpu(
        &self,
        args: &mut UnmapMemoryFromGpuArgs,
        device_ids: &[u32],
    ) -> KfdResult<()> {
        self.memory.unmap(&self.gpus, args, device_ids)
    }

    fn get_dmabuf_info(&self, args: &mut GetDmabufInfoArgs, metadata: &mut [u8]) -> KfdResult<()> {
        let _ = metadata;
        self.memory.get_dmabuf_info(&self.gpus, args)
    }

    fn import_dmabuf(&self, args: &mut ImportDmabufArgs) -> KfdResult<()> {
        self.memory.import_dmabuf(&self.gpus, args)
    }

    fn export_dmabuf(&self, args: &mut ExportDmabufArgs) -> KfdResult<()> {
        if self.config.kfd_minor_version < aqueduct_kfd::uapi::minor_version::EXPORT_DMABUF {
            // No table entry for the number: kfd_ioctl's initial EINVAL.
            return Err(err("EXPORT_DMABUF", Errno::INVAL));
        }
        self.memory.export_dmabuf(args)
    }

    fn create_queue(&self, args: &mut CreateQueueArgs) -> KfdResult<()> {
        self.queues
            .create(&self.gpus, &self.events, &self.stats, args)
    }

    fn destroy_queue(&self, args: &mut DestroyQueueArgs) -> KfdResult<()> {
        let error = self.queues.exception_detail(args.queue_id);
        self.queues.destroy(args.queue_id)?;
        if let Some(error) = error {
            let mut retired = self
                .retired_errors
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if retired.len() >= RETIRED_ERROR_LIMIT {
                retired.clear();
            }
            retired.insert(args.queue_id, error);
        }
        Ok(())
    }

    fn update_queue(&self, args: &mut UpdateQueueArgs) -> KfdResult<()> {
        self.queues.update(args)
    }

    fn create_event(&self, args: &mut CreateEventArgs) -> KfdResult<()> {
        self.events.create(&self.memory, args)
    }

    fn destroy_event(&self, args: &mut DestroyEventArgs) -> KfdResult<()> {
        self.events.destroy(args.event_id)
    }

    fn set_event(&self, args: &mut SetEventArgs) -> KfdResult<()> {
        self.events.host_set(args.event_id)
    }

    fn reset_event(&self, args: &mut ResetEventArgs) -> KfdResult<()> {
        self.events.reset(args.event_id)
    }

    fn wait_events(&self, args: &mut WaitEventsArgs, events: &mut [KfdEventData]) -> KfdResult<()> {
        let n = (args.num_events as usize).min(events.len());
        args.wait_result =
            self.events
                .wait(&mut events[..n], args.wait_for_all != 0, args.timeout_ms)?;
        Ok(())
    }

    unsafe fn mmap_render_node(
        &self,
        gpu_id: u32,
        va: u64,
        size: u64,
        mmap_offset: u64,
    ) -> KfdResult<()> {
        let gpu = self.gpu(gpu_id).ok_or(mmap_err(Errno::INVAL))?;
        // SAFETY: forwarded contract: the caller owns [va, va+size).
        let bo_va = unsafe { self.memory.mmap_render_node(gpu, va, size, mmap_offset) }?;
        if let Some(s) = &self.sanitizer {
            s.note_host_mapped(bo_va);
        }
        Ok(())
    }

    unsafe fn mmap_kfd(&self, va: u64, size: u64, offset: u64) -> KfdResult<()> {
        if size == 0 || !va.is_multiple_of(PAGE_SIZE) {
            return Err(mmap_err(Errno::INVAL));
        }
        let gpu_index = || {
            self.gpus
                .iter()
                .position(|g| g.gpu_id == mmap_offset::get_gpu_id(offset))
                .ok_or(mmap_err(Errno::INVAL))
        };
        let low_bits = offset & !(mmap_offset::TYPE_MASK | mmap_offset::GPU_ID_MASK);
        match offset & mmap_offset::TYPE_MASK {
            mmap_offset::TYPE_DOORBELL => {
                let index = gpu_index()?;
                if size != DOORBELL_SLICE_SIZE || low_bits != 0 {
                    return Err(mmap_err(Errno::INVAL));
                }
                let backing = self.gpus[index].doorbells.backing();
                // SAFETY: forwarded contract: the caller owns [va, va+size).
                unsafe { self.map_device_page(&backing, va, size, KfdPage::Doorbells(index)) }
            }
            mmap_offset::TYPE_EVENTS => {
                let backing = self.events.page_backing().ok_or(mmap_err(Errno::INVAL))?;
                if size > EVENT_PAGE_SIZE || low_bits != 0 {
                    return Err(mmap_err(Errno::INVAL));
                }
                // SAFETY: forwarded contract: the caller owns [va, va+size).
                unsafe { self.map_device_page(&backing, va, size, KfdPage::Events) }?;
                // The GPU reaches a kernel-allocated event page too (its
                // mailbox writes), as through the IOMMU on an APU.
                for gpu in &self.gpus {
                    let mapping = Mapping {
                        start: va,
                        end: va + size,
                        handle: 0,
                        writable: true,
                        executable: false,
                        backing: backing.clone(),
                        coarse: None,
                        cu: None,
                    };
                    if !gpu.vm.insert(mapping) {
                        tracing::debug!(
                            "gfxsim: event page at {va:#x} overlaps a GPU mapping; not GPU-visible"
                        );
                    }
                }
                Ok(())
            }
            mmap_offset::TYPE_MMIO => {
                let index = gpu_index()?;
                if size != PAGE_SIZE || low_bits != 0 {
                    return Err(mmap_err(Errno::INVAL));
                }
                let backing = self.gpus[index].mmio_page.clone();
                // SAFETY: forwarded contract: the caller owns [va, va+size).
                unsafe { self.map_device_page(&backing, va, size, KfdPage::Mmio(index)) }
            }
            _ => Err(mmap_err(Errno::INVAL)),
        }
    }

    fn write_doorbell(&self, doorbell_va: u64, value: u64) {
        if !doorbell_va.is_multiple_of(8) {
            tracing::warn!("gfxsim: unaligned doorbell write at {doorbell_va:#x} ignored");
            return;
        }
        let found = self.kfd_mappings().iter().find_map(|m| match m.page {
            KfdPage::Doorbells(index) if m.va <= doorbell_va && doorbell_va < m.va + m.size => {
                Some((index, ((doorbell_va - m.va) / 8) as u32))
            }
            _ => None,
        });
        // A doorbell BO mapped into a GPU's address space works too.
        let found = found.or_else(|| {
            self.gpus.iter().enumerate().find_map(|(index, gpu)| {
                let view = gpu.vm.view();
                let m = view.find(doorbell_va)?;
                Arc::ptr_eq(&m.backing, &gpu.doorbells.backing())
                    .then(|| (index, ((doorbell_va - m.start) / 8) as u32))
            })
        });
        match found {
            Some((index, slot)) => self.gpus[index].doorbells.ring(slot, value),
            None => tracing::warn!(
                "gfxsim: doorbell write at {doorbell_va:#x} outside any doorbell page ignored"
            ),
        }
    }
}
