//! The device: one GPU agent, its AQL queue and the registries of the
//! objects made on it.
//!
//! `DeviceShared` is what every handle points at. Its locks are
//! `submit_lock` (whoever writes packets to the GPU queue), `state` (the
//! submission engine: rings, pending uploads, in-flight submissions,
//! callbacks; let go while a submission waits for ring space) and
//! `registry` (buffer state), taken in that order; the order of every lock
//! of the facade is in `lock_rank`. Callbacks always run with no lock held.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use aqueduct_hsa::{Agent, PoolKind, Runtime, Signal};
use wgpu_types::{AdapterInfo, BufferUsages, Features, Limits, PollError, PollStatus};

use crate::binding::{
    self, BindGroup, BindGroupDescriptor, BindGroupLayout, BindGroupLayoutDescriptor,
};
use crate::buffer::{Buffer, BufferDescriptor, BufferInner, MapTarget, check_map_range};
use crate::command::blit::BlitKernels;
use crate::command::encoder::{CommandEncoder, CommandEncoderDescriptor};
use crate::command::lower::{self, PacketRole};
use crate::error::{
    BufferAsyncError, BufferError, BufferRole, DeviceError, DeviceId, DeviceInitError, Error,
    ErrorFilter, InternalError, MapError, MapRangeError, ShaderModuleError, ValidationError,
};
use crate::error_scope::{ErrorScopeGuard, ErrorSink, UncapturedErrorHandler};
use crate::lock_rank::{LockRank, Mutex, MutexGuard};
use crate::pipeline::{
    self, ComputePipeline, ComputePipelineDescriptor, PipelineLayout, PipelineLayoutDescriptor,
};
use crate::placement::{BufferMemory, Placement};
use crate::queue::{Callback, PollType, QueueState};
use crate::registry::{BufferId, BufferState, MapMode, MapState, Owner, Registry};
use crate::shader::{self, ShaderModule, ShaderModuleDescriptor};
use crate::wgsl::ShaderCache;

/// AQL packets in the device queue's ring (4 MiB): large enough that a
/// submission of thousands of dispatches is written without waiting for
/// the device to drain the ring.
pub(crate) const QUEUE_PACKETS: u32 = 1 << 16;
/// Bytes of the kernarg ring.
pub(crate) const KERNARG_RING_BYTES: u64 = 4 << 20;
/// Bytes of the write_buffer staging ring.
pub(crate) const STAGING_RING_BYTES: u64 = 4 << 20;

#[derive(Debug)]
pub(crate) struct DeviceShared {
    /// This device's identity; every object it creates carries it.
    pub id: DeviceId,
    pub runtime: Arc<Runtime>,
    pub agent: Agent,
    pub adapter_info: AdapterInfo,
    pub features: Features,
    pub limits: Limits,
    pub errors: Arc<ErrorSink>,
    pub registry: Mutex<Registry>,
    pub next_id: AtomicU64,
    pub blit: BlitKernels,
    /// Loaded WGSL variants by content hash, target and constants.
    pub shader_cache: ShaderCache,
    pub hsa_queue: aqueduct_hsa::Queue,
    /// The SDMA queue copies and fills go to, when the device has one.
    pub copy_engine: Option<Arc<crate::queue::sdma::CopyEngine>>,
    /// The queue's epoch signal: EPOCH_BASE - completed submissions.
    pub epoch_signal: Signal,
    pub state: Mutex<QueueState>,
    /// Held while packets are written to `hsa_queue` (submissions, host
    /// callbacks), so they land in order; taken before `state`.
    pub submit_lock: Mutex<()>,
    /// The host-callback soft queue (see `host_callback`).
    pub host_callbacks: crate::host_callback::HostCallbacks,
    /// Map and work-done callbacks go to the host-callback thread.
    pub callbacks_on_host_thread: AtomicBool,
    pub lost: AtomicBool,
    /// gfxsim counts this device's dispatches (while a trace is written:
    /// `count_dispatches`).
    pub counting: AtomicBool,
    /// Spare recording storage for encoders and passes.
    pub recordings: crate::command::pool::RecordingPool,
    /// Dropped buffers' memory, kept for new buffers of the same size.
    pub memory_reuse: Arc<crate::memory_reuse::MemoryReuse>,
    /// The signals traced packets complete (empty until a trace runs).
    pub trace_signals: Arc<crate::trace::signal_pool::SignalPool>,
}

impl Drop for DeviceShared {
    /// A trace gets what the device retired and is flushed: an
    /// `AQUEDUCT_TRACE` file is complete once the devices are dropped.
    fn drop(&mut self) {
        // Fields drop in order, the registry before the GPU queue: dropped
        // buffers' memory that in-flight work still uses goes to the queue
        // state, which drops after the queue.
        let deferred = self.registry().take_deferred();
        self.lock_state().keep_memory(deferred);
        if crate::trace::enabled() {
            let traces = std::mem::take(&mut self.lock_state().retired_traces);
            crate::trace::submission::record_retired(self, traces);
            if let Err(e) = crate::trace::flush() {
                tracing::warn!("{e}");
            }
        }
    }
}

impl DeviceShared {
    pub(crate) fn new(
        runtime: Arc<Runtime>,
        agent: Agent,
        adapter_info: AdapterInfo,
        features: Features,
        limits: Limits,
    ) -> Result<DeviceShared, DeviceInitError> {
        let shader_cache = ShaderCache::default();
        let mut blit = BlitKernels::load(&runtime, &agent, &shader_cache)?;
        let copy_engine = crate::queue::sdma::CopyEngine::open(&runtime, &agent);
        if copy_engine.is_some() {
            blit.sdma_min_bytes = Some(crate::queue::sdma::sdma_min_bytes());
        }
        let hsa_queue = runtime.create_queue(&agent, QUEUE_PACKETS)?;
        // The CP stamps completion signals: timestamp queries are its
        // end_ts (src/query.rs).
        hsa_queue.set_profiling(true);
        let epoch_signal = runtime.create_signal(crate::queue::EPOCH_BASE)?;
        let kernargs = crate::ring::Ring::new(runtime.kernarg_pool(&agent)?, KERNARG_RING_BYTES)?;
        let staging = crate::ring::Ring::new(
            runtime.pool(&agent, PoolKind::FineSystem)?,
            STAGING_RING_BYTES,
        )?;
        let sanitizer = crate::device_select::SanitizerSource::of(runtime.device());
        let trace_signals =
            crate::trace::signal_pool::SignalPool::new(runtime.clone(), agent.clone());
        Ok(DeviceShared {
            id: DeviceId::next(),
            runtime,
            agent,
            adapter_info,
            features,
            limits,
            errors: Arc::new(ErrorSink::default()),
            registry: Mutex::new(LockRank::Registry, Registry::default()),
            next_id: AtomicU64::new(1),
            blit,
            shader_cache,
            hsa_queue,
            copy_engine,
            epoch_signal,
            state: Mutex::new(
                LockRank::QueueState,
                QueueState::new(kernargs, staging, sanitizer),
            ),
            submit_lock: Mutex::new(LockRank::SubmitLock, ()),
            host_callbacks: Default::default(),
            callbacks_on_host_thread: AtomicBool::new(false),
            lost: AtomicBool::new(false),
            counting: AtomicBool::new(false),
            recordings: Default::default(),
            memory_reuse: Default::default(),
            trace_signals,
        })
    }

    /// Have gfxsim count the dispatches launched from now on (`on`: a
    /// trace is being written, src/trace/submission.rs), or stop; nothing
    /// on another device.
    pub(crate) fn count_dispatches(&self, on: bool) {
        if self.counting.load(Ordering::Relaxed) == on {
            return;
        }
        self.counting.store(on, Ordering::Relaxed);
        if let Some(source) = crate::device_select::DispatchCounterSource::of(self.runtime.device())
        {
            source.set_counting(on);
        }
    }

    /// Whether `Device::destroy` ran: no new work or mapping is taken.
    pub(crate) fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    pub(crate) fn report(&self, e: impl Into<Error>) {
        self.errors.report(e.into());
    }

    pub(crate) fn registry(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock_unpoisoned()
    }

    pub(crate) fn lock_state(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock_unpoisoned()
    }

    pub(crate) fn with_buffer<R>(
        &self,
        id: BufferId,
        f: impl FnOnce(&mut BufferState) -> R,
    ) -> Option<R> {
        self.registry().buffers.get_mut(id).map(f)
    }

    /// Remove dropped buffer `id` from the registry. Its `memory` stays
    /// alive until the last submission that used the buffer completes
    /// (the registry's deferred list); submissions hold no memory of the
    /// buffers they reach through bind groups.
    pub(crate) fn forget_buffer(&self, id: BufferId, memory: Option<Arc<BufferMemory>>) {
        let completed = crate::queue::completed_epoch(self);
        let (removed, free_now) = self.registry().forget(id, memory, completed);
        // Freed with the registry lock let go (reuse takes its own lock).
        drop(free_now);
        if let Some(state) = removed
            && matches!(state.map, MapState::Pending { .. })
        {
            self.abort_map(id, BufferAsyncError::Dropped);
        }
    }

    fn abort_map(&self, id: BufferId, why: BufferAsyncError) {
        let cb = self.lock_state().take_map_callback(id);
        if let Some(cb) = cb {
            cb(Err(why));
        }
    }

    pub(crate) fn create_buffer(self: &Arc<Self>, desc: &BufferDescriptor<'_>) -> Buffer {
        let id = self.registry().buffers.insert(BufferState::new());
        let label = desc.label.map(str::to_string);
        let invalid = |this: &Arc<Self>, err: Error| {
            this.report(err);
            this.with_buffer(id, |s| s.destroyed = true);
            Buffer {
                inner: Arc::new(BufferInner {
                    device: this.clone(),
                    id,
                    size: desc.size,
                    usage: desc.usage,
                    label: label.clone(),
                    memory: None,
                }),
            }
        };
        // A lost device makes invalid objects (WebGPU `createBuffer`).
        if self.is_lost() {
            return invalid(
                self,
                DeviceError::Destroyed {
                    call: "create_buffer",
                }
                .into(),
            );
        }
        if let Err(e) = self.check_buffer_descriptor(desc) {
            return invalid(self, ValidationError::Buffer(e).into());
        }
        let placement = Placement::for_usage(desc.usage);
        let memory = match BufferMemory::allocate(
            &self.runtime,
            &self.memory_reuse,
            &self.agent,
            desc.size,
            placement,
        ) {
            Ok(m) => Arc::new(m),
            Err(e) => {
                return invalid(
                    self,
                    Error::OutOfMemory {
                        source: Box::new(InternalError::BufferAllocation {
                            label: label.clone(),
                            size: desc.size,
                            placement,
                            source: e,
                        }),
                    },
                );
            }
        };
        let size4 = desc.size.next_multiple_of(4);
        if desc.mapped_at_creation {
            let staging = if placement == Placement::CoarseDevice {
                let pool = match self.runtime.pool(&self.agent, PoolKind::FineSystem) {
                    Ok(p) => p,
                    Err(e) => {
                        return invalid(
                            self,
                            Error::OutOfMemory {
                                source: Box::new(e),
                            },
                        );
                    }
                };
                match self
                    .memory_reuse
                    .allocate(pool, PoolKind::FineSystem, size4.max(4))
                {
                    Ok(a) => Some(Arc::new(a)),
                    Err(e) => {
                        return invalid(
                            self,
                            Error::OutOfMemory {
                                source: Box::new(e),
                            },
                        );
                    }
                }
            } else {
                None
            };
            self.with_buffer(id, |s| {
                s.map = MapState::Mapped {
                    mode: MapMode::Write,
                    range: 0..desc.size,
                };
                s.owner = Owner::Host;
                s.creation_staging = staging;
            });
        } else if placement == Placement::CoarseDevice && size4 > 0 {
            // Device memory is not promised to be zero: clear it first.
            let access = crate::command::hazard::Access {
                range: memory.va_range(0..size4),
                write: true,
                host_visible: false,
                // The key every access to this buffer carries.
                object: id.hazard_object(),
                group: crate::command::hazard::NOT_BOUND,
                binding: 0,
            };
            match lower::fill_ops(&self.blit, access, 0) {
                Ok(ops) => {
                    self.lock_state()
                        .push_pending(ops, Some(id), vec![Box::new(memory.clone())])
                }
                Err(source) => {
                    let e = InternalError::ZeroInit {
                        buffer: crate::error::BufferIdent {
                            label: label.clone(),
                            size: desc.size,
                        },
                        source,
                    };
                    self.report(Error::Internal {
                        description: e.to_string(),
                        source: Box::new(e),
                    });
                }
            }
        }
        Buffer {
            inner: Arc::new(BufferInner {
                device: self.clone(),
                id,
                size: desc.size,
                usage: desc.usage,
                label,
                memory: Some(memory),
            }),
        }
    }

    fn check_buffer_descriptor(&self, desc: &BufferDescriptor<'_>) -> Result<(), BufferError> {
        let u = desc.usage;
        let label = || desc.label.map(str::to_string);
        if u.is_empty() {
            return Err(BufferError::EmptyUsage { label: label() });
        }
        if desc.size > self.limits.max_buffer_size {
            return Err(BufferError::TooLarge {
                label: label(),
                size: desc.size,
                max: self.limits.max_buffer_size,
            });
        }
        if desc.mapped_at_creation && !desc.size.is_multiple_of(4) {
            return Err(BufferError::UnalignedMappedAtCreation {
                label: label(),
                size: desc.size,
            });
        }
        let mappable_primary = self.features.contains(Features::MAPPABLE_PRIMARY_BUFFERS);
        if !mappable_primary {
            if u.contains(BufferUsages::MAP_READ)
                && !(BufferUsages::MAP_READ | BufferUsages::COPY_DST).contains(u)
            {
                return Err(BufferError::MapReadCombined {
                    label: label(),
                    usage: u,
                });
            }
            if u.contains(BufferUsages::MAP_WRITE)
                && !(BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC).contains(u)
            {
                return Err(BufferError::MapWriteCombined {
                    label: label(),
                    usage: u,
                });
            }
        }
        Ok(())
    }

    pub(crate) fn map_async(
        self: &Arc<Self>,
        buffer: &Buffer,
        mode: MapMode,
        range: Option<Range<u64>>,
        callback: Callback,
    ) {
        // Traced: a slice from the request to the callback.
        let callback: Callback = match crate::trace::host_start() {
            None => callback,
            Some(start) => {
                let device = self.id.number();
                let args: serde_json::Map<String, serde_json::Value> = [
                    (
                        "buffer".to_string(),
                        serde_json::json!(buffer.ident().to_string()),
                    ),
                    ("mode".to_string(), serde_json::json!(format!("{mode:?}"))),
                ]
                .into_iter()
                .collect();
                Box::new(move |result| {
                    let mut args = args;
                    args.insert("ok".to_string(), serde_json::json!(result.is_ok()));
                    crate::trace::host_slice(
                        device,
                        crate::trace::Track::Map,
                        "map_async",
                        start,
                        args,
                    );
                    callback(result)
                })
            }
        };
        let id = buffer.inner.id;
        let check = || -> Result<Range<u64>, MapError> {
            buffer
                .check_usable(self, BufferRole::Buffer)
                .map_err(MapError::Unusable)?;
            let range = range.ok_or(MapError::InvertedRange)?;
            let need = match mode {
                MapMode::Read => BufferUsages::MAP_READ,
                MapMode::Write => BufferUsages::MAP_WRITE,
            };
            if !buffer.usage().contains(need) {
                return Err(MapError::MissingUsage {
                    buffer: buffer.ident(),
                    needed: need,
                    mode,
                });
            }
            check_map_range(&range, buffer.size())?;
            Ok(range)
        };
        // WebGPU `mapAsync` rejects on a lost device without a validation error.
        if self.is_lost() {
            return callback(Err(BufferAsyncError::DeviceLost));
        }
        let range = match check() {
            Ok(r) => r,
            Err(e) => {
                self.report(e.clone());
                return callback(Err(BufferAsyncError::Validation(e)));
            }
        };
        // Uploads queued for this buffer must land before the host sees it.
        let flush = self.lock_state().pending_touches(id);
        if flush {
            crate::queue::submit(self, Vec::new());
        }
        let mut state = self.lock_state();
        let mut reg = self.registry();
        let Some(s) = reg.buffers.get_mut(id) else {
            drop(reg);
            drop(state);
            return callback(Err(BufferAsyncError::BufferGone));
        };
        if !matches!(s.map, MapState::Unmapped) {
            drop(reg);
            drop(state);
            let e = MapError::AlreadyMapped {
                buffer: buffer.ident(),
            };
            self.report(e.clone());
            return callback(Err(BufferAsyncError::Validation(e)));
        }
        let epoch = s.last_use;
        s.map = MapState::Pending { mode, range };
        drop(reg);
        if !self.callbacks_on_host_thread() {
            return state.push_map_callback(epoch, id, callback);
        }
        // On the host-callback thread, behind the work submitted so far.
        state.push_host_map_callback(id, callback);
        drop(state);
        let weak = Arc::downgrade(self);
        let finish = move |outcome| {
            if let Some(dev) = weak.upgrade() {
                crate::queue::finish_host_map(&dev, id, outcome)
            }
        };
        if let Err(e) = crate::host_callback::enqueue(self, Box::new(finish)) {
            tracing::warn!("map_async: host callback queue: {e}; using poll");
            let mut state = self.lock_state();
            if let Some(callback) = state.take_map_callback(id) {
                state.push_map_callback(epoch, id, callback);
            }
        }
    }

    /// Whether map and work-done callbacks run on the host-callback thread
    /// (`Device::set_callbacks_on_host_thread`).
    pub(crate) fn callbacks_on_host_thread(&self) -> bool {
        self.callbacks_on_host_thread.load(Ordering::Acquire)
    }

    /// Register a view of `range`; returns its host pointer.
    pub(crate) fn map_view(
        &self,
        buffer: &Buffer,
        range: Range<u64>,
        writable: bool,
    ) -> Result<(*mut u8, MapTarget), MapRangeError> {
        let mut reg = self.registry();
        let s = reg
            .buffers
            .get_mut(buffer.inner.id)
            .ok_or(MapRangeError::BufferGone)?;
        let MapState::Mapped {
            mode,
            range: mapped,
        } = &s.map
        else {
            return Err(MapRangeError::NotMapped {
                buffer: buffer.ident(),
            });
        };
        if writable && *mode == MapMode::Read {
            return Err(MapRangeError::MappedForRead);
        }
        if range.start < mapped.start || range.end > mapped.end {
            return Err(MapRangeError::OutsideMapped {
                range,
                mapped: mapped.clone(),
            });
        }
        if !range.start.is_multiple_of(wgpu_types::MAP_ALIGNMENT)
            || !(range.end - range.start).is_multiple_of(4)
        {
            return Err(MapRangeError::Unaligned { range });
        }
        if let Some((r, _)) = s
            .views
            .iter()
            .find(|(r, _)| r.start < range.end && range.start < r.end)
        {
            return Err(MapRangeError::OverlapsView {
                range,
                view: r.clone(),
            });
        }
        let (base, keep) = match &s.creation_staging {
            Some(staging) => (
                staging.gpu_va() as *mut u8,
                MapTarget::Staging(staging.clone()),
            ),
            None => {
                let memory = buffer.memory().ok_or(MapRangeError::InvalidBuffer)?;
                let p = memory.host_ptr().ok_or(MapRangeError::NotHostMapped)?;
                (p, MapTarget::Memory(memory.clone()))
            }
        };
        s.views.push((range.clone(), writable));
        // SAFETY: range.start < the mapped size, which lies inside the host-mapped allocation.
        Ok((unsafe { base.add(range.start as usize) }, keep))
    }

    pub(crate) fn release_view(&self, id: BufferId, range: &Range<u64>) {
        let mut reg = self.registry();
        if let Some(s) = reg.buffers.get_mut(id)
            && let Some(i) = s.views.iter().position(|(r, _)| r == range)
        {
            s.views.swap_remove(i);
        }
    }

    pub(crate) fn unmap(self: &Arc<Self>, buffer: &Buffer) {
        let traced_from = crate::trace::host_start();
        self.unmap_untraced(buffer);
        if let Some(start) = traced_from {
            let args = [(
                "buffer".to_string(),
                serde_json::json!(buffer.ident().to_string()),
            )];
            crate::trace::host_slice(
                self.id.number(),
                crate::trace::Track::Map,
                "unmap",
                start,
                args.into_iter().collect(),
            );
        }
    }

    fn unmap_untraced(self: &Arc<Self>, buffer: &Buffer) {
        let id = buffer.inner.id;
        let mut reg = self.registry();
        let Some(s) = reg.buffers.get_mut(id) else {
            return;
        };
        match &s.map {
            MapState::Unmapped => {}
            MapState::Pending { .. } => {
                s.map = MapState::Unmapped;
                drop(reg);
                self.abort_map(id, BufferAsyncError::Unmapped);
            }
            MapState::Mapped { .. } => {
                if !s.views.is_empty() {
                    let n = s.views.len();
                    drop(reg);
                    self.report(MapError::LiveViews {
                        buffer: buffer.ident(),
                        views: n,
                    });
                    return;
                }
                s.map = MapState::Unmapped;
                s.owner = Owner::Agent;
                let staging = s.creation_staging.take();
                drop(reg);
                if let (Some(staging), Some(memory)) = (staging, buffer.memory()) {
                    let size = buffer.size().next_multiple_of(4);
                    if size > 0 {
                        let src = crate::command::hazard::Access {
                            range: staging.gpu_va()..staging.gpu_va() + size,
                            write: false,
                            host_visible: true,
                            object: staging.gpu_va(),
                            group: crate::command::hazard::NOT_BOUND,
                            binding: 0,
                        };
                        let dst = buffer.access(0..size, true);
                        match lower::copy_ops(&self.blit, PacketRole::Upload, src, dst) {
                            Ok(ops) => self.lock_state().push_pending(
                                ops,
                                Some(id),
                                vec![Box::new(staging), Box::new(memory.clone())],
                            ),
                            Err(source) => {
                                let e = InternalError::CreationUpload {
                                    buffer: buffer.ident(),
                                    source,
                                };
                                self.report(Error::Internal {
                                    description: e.to_string(),
                                    source: Box::new(e),
                                });
                            }
                        }
                    }
                }
            }
        }
    }

    pub(crate) fn destroy_buffer(self: &Arc<Self>, buffer: &Buffer) {
        let pending = {
            let mut reg = self.registry();
            let Some(s) = reg.buffers.get_mut(buffer.inner.id) else {
                return;
            };
            s.destroyed = true;
            let pending = matches!(s.map, MapState::Pending { .. });
            s.map = MapState::Unmapped;
            s.owner = Owner::Agent;
            s.creation_staging = None;
            pending
        };
        if pending {
            self.abort_map(buffer.inner.id, BufferAsyncError::Destroyed);
        }
    }
}

/// A logical device (cheap to clone; clones are the same device).
#[derive(Clone, Debug)]
pub struct Device {
    pub(crate) shared: Arc<DeviceShared>,
}

impl PartialEq for Device {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl Device {
    /// The features the device was opened with.
    pub fn features(&self) -> Features {
        self.shared.features
    }
    /// The limits the device was opened with.
    pub fn limits(&self) -> Limits {
        self.shared.limits.clone()
    }
    /// What the device's adapter is (name, vendor, driver).
    pub fn adapter_info(&self) -> AdapterInfo {
        self.shared.adapter_info.clone()
    }

    /// Create a buffer; a descriptor that breaks the rules reports an error and gives an invalid
    /// buffer.
    pub fn create_buffer(&self, desc: &BufferDescriptor<'_>) -> Buffer {
        self.shared.create_buffer(desc)
    }

    /// Create a texture (zero-initialised, linear, one mip level); a
    /// failure reports an error and gives an invalid texture.
    pub fn create_texture(&self, desc: &crate::texture::TextureDescriptor<'_>) -> crate::Texture {
        crate::texture::create_texture(&self.shared, desc)
    }

    /// Create a sampler; a descriptor that breaks the rules (or asks for
    /// anisotropic filtering, which the device does not do) reports an
    /// error and gives an invalid sampler.
    pub fn create_sampler(&self, desc: &crate::sampler::SamplerDescriptor<'_>) -> crate::Sampler {
        crate::sampler::create_sampler(&self.shared, desc)
    }

    /// Create a shader module from WGSL or a code object; a failure reports an error and gives an
    /// invalid module.
    pub fn create_shader_module(&self, desc: ShaderModuleDescriptor<'_>) -> ShaderModule {
        shader::create(&self.shared, desc)
    }

    /// Make an aqueduct-shaderc object (code object or bundle, and its
    /// `NAME.reflect.json` with the `source_hash` of its WGSL) available to
    /// `ShaderSource::Wgsl` modules on this device: a module whose text has
    /// that hash (and a pipeline with the override constants the object was
    /// built with) uses it instead of compiling. Errors (a malformed
    /// reflection, no source hash, an object that does not load on this
    /// agent) are returned, not reported to error scopes.
    pub fn register_precompiled(
        &self,
        code: &[u8],
        reflection: &str,
    ) -> Result<(), ValidationError> {
        crate::wgsl::register(&self.shared, code, reflection)
            .map_err(|e| ShaderModuleError::RegisterPrecompiled(e).into())
    }

    /// How many WGSL compilations this device has run (modules and
    /// pipeline variants resolved neither by a registered object nor by an
    /// earlier compilation), those the on-disk shader cache answered
    /// included: [`Device::wgsl_disk_cache_hits`] counts them.
    pub fn wgsl_compiles(&self) -> u64 {
        self.shared
            .shader_cache
            .compiles
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many of this device's WGSL compilations the baseline compiler
    /// did: modules it covers compile in microseconds without LLVM
    /// (`AQUEDUCT_SHADER_BASELINE=off` turns it off; see the book's
    /// shader chapter).
    pub fn wgsl_baseline_compiles(&self) -> u64 {
        self.shared
            .shader_cache
            .baseline_compiles
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many of this device's WGSL compilations the on-disk shader
    /// cache (`AQUEDUCT_SHADER_CACHE`) answered without running the compiler.
    pub fn wgsl_disk_cache_hits(&self) -> u64 {
        self.shared
            .shader_cache
            .disk_hits
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Create a bind group layout; a failure reports an error and gives an invalid layout.
    pub fn create_bind_group_layout(
        &self,
        desc: &BindGroupLayoutDescriptor<'_>,
    ) -> BindGroupLayout {
        binding::create_layout(&self.shared, desc, None)
    }

    /// Create a bind group; a failure reports an error and gives an invalid bind group.
    pub fn create_bind_group(&self, desc: &BindGroupDescriptor<'_>) -> BindGroup {
        binding::create_bind_group(&self.shared, desc)
    }

    /// Create a pipeline layout; a failure reports an error and gives an invalid layout.
    pub fn create_pipeline_layout(&self, desc: &PipelineLayoutDescriptor<'_>) -> PipelineLayout {
        pipeline::create_pipeline_layout(&self.shared, desc)
    }

    /// Create a compute pipeline; a failure reports an error and gives an invalid pipeline.
    pub fn create_compute_pipeline(&self, desc: &ComputePipelineDescriptor<'_>) -> ComputePipeline {
        pipeline::create_compute_pipeline(&self.shared, desc)
    }

    /// Create a query set (timestamps need Features::TIMESTAMP_QUERY).
    pub fn create_query_set(
        &self,
        desc: &crate::query::QuerySetDescriptor<'_>,
    ) -> crate::query::QuerySet {
        crate::query::create_query_set(&self.shared, desc)
    }

    /// Create a command encoder.
    pub fn create_command_encoder(&self, desc: &CommandEncoderDescriptor<'_>) -> CommandEncoder {
        CommandEncoder::new(self.shared.clone(), desc.label.map(str::to_string))
    }

    /// Check on (or wait for) submitted work, then run the map and
    /// work-done callbacks of everything that completed.
    pub fn poll(&self, poll_type: PollType) -> Result<PollStatus, PollError> {
        crate::queue::poll(&self.shared, poll_type)
    }

    /// Open an error scope catching errors of `filter` on this thread.
    pub fn push_error_scope(&self, filter: ErrorFilter) -> ErrorScopeGuard {
        let id = self.shared.errors.push(filter);
        ErrorScopeGuard {
            sink: Arc::downgrade(&self.shared.errors),
            id,
            popped: false,
        }
    }

    /// Deliver `error` to this thread's innermost matching error scope, else
    /// to the uncaptured-error handler, exactly as the facade's own errors
    /// go. For layers built on the facade that validate calls of their own
    /// (aqueduct-wgpu reports wgpu calls with no compute meaning this way).
    pub fn report_error(&self, error: Error) {
        self.shared.report(error);
    }

    /// Where errors go that no scope catches. With no handler installed
    /// such an error is logged and the call that reported it panics, as in
    /// wgpu; `Arc::new(aqueduct::log_uncaptured_error)` logs instead.
    pub fn on_uncaptured_error(&self, handler: Arc<dyn UncapturedErrorHandler>) {
        self.shared
            .errors
            .set_handler(Arc::new(move |e| handler(e)));
    }

    /// Wait for all work, then mark the device lost: later submissions,
    /// buffer creations and `write_buffer`s are errors, `map_async` fails
    /// with `BufferAsyncError::DeviceLost`. Memory goes when the last handle
    /// does.
    pub fn destroy(&self) {
        let _ = self.poll(PollType::wait_indefinitely());
        self.shared.lost.store(true, Ordering::Release);
    }
}
