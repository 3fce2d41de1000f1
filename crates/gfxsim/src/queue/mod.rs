//! User-mode queues: CREATE/DESTROY/UPDATE_QUEUE and the state a queue's
//! command processor (compute) or SDMA engine (`crate::sdma`) shares with
//! the rest of the device.

pub mod command_processor;
pub mod scratch;
pub mod validation;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use aqueduct_kfd::uapi::{CreateQueueArgs, KFD_IOC_QUEUE_TYPE_SDMA, UpdateQueueArgs, mmap_offset};
use aqueduct_kfd::{KfdError, KfdResult};
use rustix::io::Errno;

use crate::dispatch::Job;
use crate::events::Events;
use crate::gpu::Gpu;
use crate::sdma::MAX_SDMA_QUEUES;
use crate::sdma::engine::SdmaEngine;
use crate::stats::StatsCounters;
use crate::wake::Wake;
use command_processor::CommandProcessor;
use validation::{
    QueueBuffers, QueueConfig, RING_REF, check_percentage_priority, check_ring,
    effective_ring_size, validate_create,
};

/// Most queues per process (KFD_MAX_NUM_OF_QUEUES_PER_PROCESS).
pub const MAX_QUEUES: u32 = 1024;

fn err(ioctl: &'static str, errno: Errno) -> KfdError {
    KfdError::ioctl(ioctl, errno.raw_os_error())
}

/// What a queue's command processor shares with the device.
#[derive(Debug)]
pub struct QueueShared {
    pub id: u32,
    pub doorbell_index: u32,
    pub wake: Arc<Wake>,
    config: Mutex<QueueConfig>,
    stop: AtomicBool,
    pub halted: AtomicBool,
    exception: Mutex<Option<String>>,
    /// The dispatch the command processor is running on its own thread.
    inline_job: Mutex<Option<Arc<Job>>>,
}

impl QueueShared {
    pub fn set_inline_job(&self, job: Option<Arc<Job>>) {
        *self.inline_job.lock().unwrap_or_else(|e| e.into_inner()) = job;
    }

    /// Abort the dispatch running on the command processor's thread, if any.
    fn abort_inline_job(&self) {
        if let Some(job) = &*self.inline_job.lock().unwrap_or_else(|e| e.into_inner()) {
            job.abort();
        }
    }

    pub fn config(&self) -> QueueConfig {
        *self.config.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    pub fn is_halted(&self) -> bool {
        self.halted.load(Ordering::Acquire)
    }

    pub fn set_exception(&self, detail: &str) {
        *self.exception.lock().unwrap_or_else(|e| e.into_inner()) = Some(detail.to_string());
    }

    pub fn exception(&self) -> Option<String> {
        self.exception
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

#[derive(Debug)]
struct Queue {
    shared: Arc<QueueShared>,
    gpu: Arc<Gpu>,
    thread: Option<JoinHandle<()>>,
    /// An SDMA queue (run by an SDMA engine, not a command processor).
    sdma: bool,
    /// The BOs the queue holds while it lives (see `validation`).
    buffers: QueueBuffers,
}

/// All queues of the process.
#[derive(Debug, Default)]
pub struct Queues {
    queues: Mutex<HashMap<u32, Queue>>,
}

impl Queues {
    fn lock(&self) -> MutexGuard<'_, HashMap<u32, Queue>> {
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn create(
        &self,
        gpus: &[Arc<Gpu>],
        events: &Arc<Events>,
        stats: &Arc<StatsCounters>,
        args: &mut CreateQueueArgs,
    ) -> KfdResult<()> {
        const NAME: &str = "CREATE_QUEUE";
        let gpu = gpus
            .iter()
            .find(|g| g.gpu_id == args.gpu_id)
            .ok_or_else(|| {
                tracing::debug!("{NAME}: unknown gpu_id {:#x}", args.gpu_id);
                err(NAME, Errno::INVAL)
            })?;
        if !gpu.vm_acquired() {
            tracing::debug!(
                "{NAME}: ACQUIRE_VM was not called for gpu {:#x}",
                args.gpu_id
            );
            return Err(err(NAME, Errno::INVAL));
        }
        let sdma = args.queue_type == KFD_IOC_QUEUE_TYPE_SDMA;
        let (config, buffers) = {
            let view = gpu.vm.view();
            let checked = if sdma {
                crate::sdma::create::validate_create(args, &view)
            } else {
                validate_create(args, &view, &gpu.cwsr)
            };
            checked.map_err(|invalid| {
                tracing::debug!("{NAME}: {}", invalid.0);
                err(NAME, Errno::INVAL)
            })?
        };
        let mut queues = self.lock();
        if sdma && queues.values().filter(|q| q.sdma).count() as u32 >= MAX_SDMA_QUEUES {
            tracing::debug!("{NAME}: all {MAX_SDMA_QUEUES} SDMA queues are in use");
            return Err(err(NAME, Errno::NOMEM));
        }
        let id = (0..MAX_QUEUES)
            .find(|id| !queues.contains_key(id))
            .ok_or_else(|| err(NAME, Errno::NOMEM))?;
        let wake = Arc::new(Wake::new());
        let doorbell_index = gpu
            .doorbells
            .claim(wake.clone())
            .ok_or_else(|| err(NAME, Errno::NOMEM))?;
        events.add_listener(&wake);
        let shared = Arc::new(QueueShared {
            id,
            doorbell_index,
            wake,
            config: Mutex::new(config),
            stop: AtomicBool::new(false),
            halted: AtomicBool::new(false),
            exception: Mutex::new(None),
            inline_job: Mutex::new(None),
        });
        let spawned = if sdma {
            let engine = SdmaEngine::new(shared.clone(), gpu.clone(), events.clone());
            std::thread::Builder::new()
                .name(format!("gfxsim-sdma-{id}"))
                .spawn(move || engine.run())
        } else {
            let cp =
                CommandProcessor::new(shared.clone(), gpu.clone(), events.clone(), stats.clone());
            std::thread::Builder::new()
                .name(format!("gfxsim-cp-{id}"))
                .spawn(move || cp.run())
        };
        let thread = spawned.map_err(|e| {
            gpu.doorbells.release(doorbell_index);
            tracing::warn!("{NAME}: cannot start the command processor thread: {e}");
            err(NAME, Errno::NOMEM)
        })?;
        args.queue_id = id;
        args.ring_size = config.ring_size as u32;
        args.doorbell_offset = mmap_offset::TYPE_DOORBELL
            | mmap_offset::gpu_id(gpu.gpu_id)
            | (doorbell_index as u64 * 8);
        gpu.hold_queue_buffers(&buffers.0);
        queues.insert(
            id,
            Queue {
                shared,
                gpu: gpu.clone(),
                thread: Some(thread),
                sdma,
                buffers,
            },
        );
        tracing::debug!(
            "{NAME}: queue {id} on gpu {:#x}, doorbell {doorbell_index}, ring {:#x}+{:#x}",
            gpu.gpu_id,
            config.ring_base,
            config.ring_size
        );
        Ok(())
    }

    /// Stop queue `id`'s command processor after its in-flight work ends
    /// (workgroups not yet started are dropped, as preemption would).
    pub fn destroy(&self, id: u32) -> KfdResult<()> {
        let queue = self
            .lock()
            .remove(&id)
            .ok_or_else(|| err("DESTROY_QUEUE", Errno::INVAL))?;
        Self::stop(queue);
        Ok(())
    }

    fn stop(mut queue: Queue) {
        queue.shared.stop.store(true, Ordering::Release);
        // After the store: a job the command processor sets after this
        // look sees `stop` and aborts itself.
        queue.shared.abort_inline_job();
        queue.shared.wake.notify();
        if let Some(thread) = queue.thread.take()
            && thread.join().is_err()
        {
            tracing::error!(
                "gfxsim: command processor of queue {} panicked",
                queue.shared.id
            );
        }
        queue.gpu.doorbells.release(queue.shared.doorbell_index);
        queue.gpu.release_queue_buffers(&queue.buffers.0);
    }

    pub fn destroy_all(&self) {
        let all: Vec<Queue> = self.lock().drain().map(|(_, q)| q).collect();
        for queue in all {
            Self::stop(queue);
        }
    }

    /// UPDATE_QUEUE (kfd_chardev.c `kfd_ioctl_update_queue`, then
    /// kfd_process_queue_manager.c `pqm_update_queue_properties`): the
    /// argument checks are EINVAL; an unknown queue, or a new ring that
    /// `kfd_queue_buffer_get` does not find, is EFAULT. The queue then holds
    /// the new ring's BO instead of the old one.
    pub fn update(&self, args: &UpdateQueueArgs) -> KfdResult<()> {
        const NAME: &str = "UPDATE_QUEUE";
        let ring_size = check_percentage_priority(args.queue_percentage, args.queue_priority)
            .and_then(|()| effective_ring_size(args.ring_size))
            .map_err(|invalid| {
                tracing::debug!("{NAME}: {}", invalid.0);
                err(NAME, Errno::INVAL)
            })?;
        let mut queues = self.lock();
        let queue = queues
            .get_mut(&args.queue_id)
            .ok_or_else(|| err(NAME, Errno::FAULT))?;
        if args.ring_base_address != 0 {
            let view = queue.gpu.vm.view();
            let ring = check_ring(&view, args.ring_base_address, ring_size).map_err(|invalid| {
                tracing::debug!("{NAME}: {}", invalid.0);
                err(NAME, Errno::FAULT)
            })?;
            drop(view);
            // The ring's reference is the third one taken at creation.
            let old = std::mem::replace(&mut queue.buffers.0[RING_REF], ring);
            queue.gpu.hold_queue_buffers(&[ring]);
            queue.gpu.release_queue_buffers(&[old]);
        }
        {
            let mut config = queue
                .shared
                .config
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            config.ring_base = args.ring_base_address;
            config.ring_size = ring_size;
            config.percentage = args.queue_percentage;
            config.priority = args.queue_priority;
        }
        queue.shared.wake.notify();
        Ok(())
    }

    pub fn exception_detail(&self, id: u32) -> Option<String> {
        self.lock().get(&id).and_then(|q| q.shared.exception())
    }
}
