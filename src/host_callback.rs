//! Host callbacks in queue order: [`Queue::submit_host_callback`], an
//! Aqueduct extension (not part of WebGPU).
//!
//! WebGPU's `on_submitted_work_done` and map callbacks run from `poll`. A
//! host callback instead runs on the device's host-callback thread as soon
//! as everything submitted before it has completed, with nobody polling,
//! the way `hipLaunchHostFunc` does. Underneath are AQL agent-dispatch
//! packets: a barrier-AND (barrier bit, system scope, no dependencies) on
//! the device's GPU queue completes a fresh signal once all earlier packets
//! have (skipped when nothing is outstanding); on a CPU-agent soft queue
//! (`aqueduct_hsa::agent_queue`), a tolerant barrier-AND waits for that
//! signal and an agent-dispatch packet runs the callback. Both are written
//! under the device's `submit_lock`, so callbacks keep submission order,
//! across threads too.
//!
//! The soft queue is the device's (`DeviceShared::host_callbacks`), made on
//! first use and dropped with the device (dropping it drops the callbacks
//! it never ran). Callbacks hold the device weakly.
//!
//! If the GPU queue faults before a callback's barrier, the callback still
//! runs, after the fault is handled (a `poll` or `submit` sees it, reports
//! it and recreates the queue, which marks the barrier's signal failed).
//! A callback that panics does not take the thread down: the panic is
//! caught and raised again from the next `Device::poll` on the device.
//! `poll(Wait)` returns only after the host callbacks submitted before it
//! have run (unless it is called from a host callback: that would wait for
//! itself). A callback may submit, poll and add host callbacks; it must not
//! wait for work submitted after it.

use std::any::Any;
use std::sync::{Arc, Weak};
use std::time::Duration;

use aqueduct_hsa::agent_queue::{AgentQueue, HostFunctionRegistry};
use aqueduct_hsa::{HsaError, QueueError};

use crate::device::DeviceShared;
use crate::error::{Error, InternalError, QueueWriteError};
use crate::lock_rank::{LockRank, Mutex};
use crate::queue::Queue;
use crate::trace::host_barrier::HostBarrierTrace;

/// Slots of each device's host-callback ring.
pub const HOST_CALLBACK_QUEUE_PACKETS: u32 = 1024;

/// A callback queued behind GPU work: `Err` when a GPU queue fault dropped
/// the work it waited for.
pub(crate) type HostCallback = Box<dyn FnOnce(Result<(), QueueError>) + Send>;

/// A device's host-callback soft queue and a callback panic not yet
/// raised again.
pub(crate) struct HostCallbacks {
    queue: Mutex<Option<Arc<AgentQueue>>>,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl Default for HostCallbacks {
    fn default() -> Self {
        HostCallbacks {
            queue: Mutex::new(LockRank::HostCallbackQueue, None),
            panic: Mutex::new(LockRank::HostCallbackPanic, None),
        }
    }
}

impl std::fmt::Debug for HostCallbacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostCallbacks")
            .field("queue", &*self.queue.lock_unpoisoned())
            .finish()
    }
}

impl HostCallbacks {
    /// The soft queue, if one was made.
    fn existing(&self) -> Option<Arc<AgentQueue>> {
        self.queue.lock_unpoisoned().clone()
    }

    /// The soft queue (made on first use).
    fn get_or_create(&self, dev: &DeviceShared) -> Result<Arc<AgentQueue>, QueueWriteError> {
        let mut slot = self.queue.lock_unpoisoned();
        if let Some(q) = slot.as_ref() {
            return Ok(q.clone());
        }
        let cpu = dev
            .runtime
            .cpu_agents()
            .next()
            .cloned()
            .ok_or(QueueWriteError::NoCpuAgent)?;
        let q = Arc::new(AgentQueue::new(
            &dev.runtime,
            &cpu,
            HOST_CALLBACK_QUEUE_PACKETS,
            HostFunctionRegistry::new(),
        )?);
        *slot = Some(q.clone());
        Ok(q)
    }

    fn keep_panic(&self, payload: Box<dyn Any + Send>) {
        self.panic.lock_unpoisoned().get_or_insert(payload);
    }
}

/// Queue `callback` on the device's soft queue behind all GPU work
/// submitted so far (pending uploads are submitted first).
pub(crate) fn enqueue(
    dev: &Arc<DeviceShared>,
    callback: HostCallback,
) -> Result<(), QueueWriteError> {
    let host = dev.host_callbacks.get_or_create(dev)?;
    if dev.lock_state().has_pending() {
        crate::queue::submit(dev, Vec::new());
    }
    let weak: Weak<DeviceShared> = Arc::downgrade(dev);
    let device = dev.id.number();
    let runner = move |barrier: Option<HostBarrierTrace>| {
        move |result: Result<(), QueueError>| {
            let traced_from = crate::trace::host_start();
            let caught =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(result)));
            if let Some(start) = traced_from {
                let track = crate::trace::Track::HostCallback;
                crate::trace::host_slice(device, track, "host callback", start, Default::default());
                if let Some(barrier) = barrier {
                    barrier.record(start);
                }
            }
            if let Err(payload) = caught
                && let Some(dev) = weak.upgrade()
            {
                dev.host_callbacks.keep_panic(payload);
            }
        }
    };
    let _order = dev.submit_lock.lock_unpoisoned();
    if crate::queue::all_completed(dev) {
        // Nothing outstanding on the GPU: only earlier host callbacks.
        let run = runner(None);
        host.submit_callback(&[], None, move || run(Ok(())))?;
        return Ok(());
    }
    let done = dev.runtime.create_signal(1)?;
    let barrier = crate::trace::enabled().then(|| HostBarrierTrace::new(dev, done.clone()));
    let run = runner(barrier);
    match crate::queue::write_host_barrier(dev, &done)? {
        // The soft queue keeps `done` alive until its barrier completes.
        None => host.submit_callback_after(&done, run)?,
        // A fault dropped the work it would wait for.
        Some(fault) => host.submit_callback(&[], None, move || run(Err(fault)))?,
    };
    Ok(())
}

/// For `poll(Wait)`: wait until the host callbacks submitted so far have
/// run (not on the host-callback thread itself), then raise a callback's
/// panic again on this thread.
pub(crate) fn drain(dev: &DeviceShared, timeout: Option<Duration>) -> Result<(), HsaError> {
    if let Some(host) = dev.host_callbacks.existing()
        && !host.on_processor_thread()
    {
        host.finish(timeout)?;
    }
    raise_callback_panic(dev);
    Ok(())
}

/// Raise again, on this thread, a panic a host callback raised.
pub(crate) fn raise_callback_panic(dev: &DeviceShared) {
    let payload = dev.host_callbacks.panic.lock_unpoisoned().take();
    if let Some(payload) = payload {
        std::panic::resume_unwind(payload);
    }
}

impl crate::device::Device {
    /// **Not part of WebGPU** (an Aqueduct extension): with `true`, the
    /// callbacks of later `map_async` and `Queue::on_submitted_work_done`
    /// calls run on the device's host-callback thread as soon as the work
    /// submitted before them has completed, in registration order together
    /// with `submit_host_callback`'s, with no `poll` needed (so a map
    /// callback still runs before a later work-done callback). After a GPU
    /// queue fault they still run: a map callback with an error (the buffer
    /// stays unmapped), a work-done callback as usual. `poll(Wait)` still
    /// returns only after them, and a panic in one is raised again from
    /// `poll`. Off (WebGPU's way, the default): they run from `poll` and
    /// `submit` on the calling thread.
    pub fn set_callbacks_on_host_thread(&self, on: bool) {
        self.shared
            .callbacks_on_host_thread
            .store(on, std::sync::atomic::Ordering::Release);
    }
}

impl Queue {
    /// **Not part of WebGPU** (an Aqueduct extension): run `callback` on the
    /// device's host-callback thread once all work submitted before this
    /// call (including pending `write_buffer` uploads) has completed, after
    /// every host callback submitted earlier. No `poll` is needed. If a GPU
    /// queue fault drops that work, the callback still runs once the fault
    /// is handled (the fault itself is reported through the device's error
    /// handling). Failures to queue it are reported the same way.
    pub fn submit_host_callback(&self, callback: impl FnOnce() + Send + 'static) {
        let dev = &self.shared;
        if let Err(e) = enqueue(dev, Box::new(move |_| callback())) {
            let e = InternalError::HostCallback { source: e };
            dev.report(Error::Internal {
                description: e.to_string(),
                source: Box::new(e),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use aqueduct_hsa::MemoryOrder;

    use crate::queue::EPOCH_BASE;
    use crate::test_support::{device, fault_at_work};

    const TIMEOUT: Duration = Duration::from_secs(60);

    fn clear_work(device: &crate::device::Device, queue: &crate::queue::Queue) {
        let buffer = device.create_buffer(&wgpu_types::BufferDescriptor {
            label: None,
            size: 4096,
            usage: wgpu_types::BufferUsages::STORAGE | wgpu_types::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = device.create_command_encoder(&Default::default());
        enc.clear_buffer(&buffer, 0, None);
        queue.submit([enc.finish()]);
    }

    /// Submit tests/kernels' fault_at, storing to an unmapped low page.
    fn submit_fault(device: &crate::device::Device, queue: &crate::queue::Queue) {
        queue.submit([fault_at_work(device)]);
    }

    /// A GPU queue fault before a host callback's barrier does not lose the
    /// callback: the poll that meets the fault reports it once, recreates
    /// the queue, and the callback (and later ones) run before it returns.
    #[test]
    fn host_callbacks_behind_a_gpu_fault_still_run() {
        let (device, queue) = device();
        let errors = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: crate::error::Error| {
            sink.lock().unwrap().push(e.to_string())
        }));
        submit_fault(&device, &queue);
        let (tx, rx) = mpsc::channel::<&str>();
        let t = tx.clone();
        queue.submit_host_callback(move || t.send("behind the fault").unwrap());
        device
            .poll(wgpu_types::PollType::wait_indefinitely())
            .expect("poll");
        assert_eq!(
            rx.try_recv(),
            Ok("behind the fault"),
            "ran before poll returned"
        );
        clear_work(&device, &queue);
        queue.submit_host_callback(move || tx.send("after recovery").unwrap());
        device
            .poll(wgpu_types::PollType::wait_indefinitely())
            .expect("poll");
        assert_eq!(rx.try_recv(), Ok("after recovery"));
        let errors = errors.lock().unwrap().clone();
        assert_eq!(
            errors
                .iter()
                .filter(|e| e.contains("GPU fault in kernel fault_at"))
                .count(),
            1,
            "{errors:?}"
        );
    }

    /// poll(Wait) returns after the host callbacks submitted before it ran;
    /// a callback that itself polls with Wait does not wait for itself.
    #[test]
    fn poll_wait_drains_host_callbacks_and_may_be_called_from_one() {
        let (device, queue) = device();
        clear_work(&device, &queue);
        let (tx, rx) = mpsc::channel::<u32>();
        let inner = device.clone();
        queue.submit_host_callback(move || {
            std::thread::sleep(Duration::from_millis(20));
            inner
                .poll(wgpu_types::PollType::wait_indefinitely())
                .expect("poll from a host callback");
            tx.send(1).unwrap();
        });
        device
            .poll(wgpu_types::PollType::wait_indefinitely())
            .expect("poll");
        assert_eq!(
            rx.try_recv(),
            Ok(1),
            "the callback ran before poll returned"
        );
    }

    /// A panicking host callback is raised again from the next poll on the
    /// device's thread, and later callbacks still run.
    #[test]
    fn a_host_callback_panic_is_raised_from_poll() {
        let (device, queue) = device();
        clear_work(&device, &queue);
        queue.submit_host_callback(|| panic!("boom in a host callback"));
        let raised = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            device.poll(wgpu_types::PollType::wait_indefinitely())
        }));
        let payload = raised.expect_err("the callback's panic reaches poll");
        assert_eq!(
            payload.downcast_ref::<&str>().copied(),
            Some("boom in a host callback")
        );
        let (tx, rx) = mpsc::channel::<u32>();
        queue.submit_host_callback(move || tx.send(2).unwrap());
        device
            .poll(wgpu_types::PollType::wait_indefinitely())
            .expect("poll");
        assert_eq!(rx.try_recv(), Ok(2));
    }

    /// Callbacks from several threads, each after its own submissions of
    /// real work, run without any poll, in submission order, each after
    /// the work submitted before it.
    #[test]
    fn host_callbacks_follow_submitted_work_in_order_without_poll() {
        let (device, queue) = device();
        let buffer = device.create_buffer(&wgpu_types::BufferDescriptor {
            label: None,
            size: 1 << 16,
            usage: wgpu_types::BufferUsages::STORAGE | wgpu_types::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let (tx, rx) = mpsc::channel::<(usize, u64, u64)>();
        const THREADS: usize = 3;
        const PER_THREAD: u64 = 20;
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let (device, queue, buffer, tx) =
                    (device.clone(), queue.clone(), buffer.clone(), tx.clone());
                s.spawn(move || {
                    for i in 0..PER_THREAD {
                        let mut enc = device.create_command_encoder(&Default::default());
                        enc.clear_buffer(&buffer, 0, None);
                        let index = queue.submit([enc.finish()]);
                        let dev = queue.shared.clone();
                        let tx = tx.clone();
                        queue.submit_host_callback(move || {
                            let completed =
                                (EPOCH_BASE - dev.epoch_signal.load(MemoryOrder::Acquire)) as u64;
                            assert!(completed >= index.0, "ran before its submission completed");
                            tx.send((t, i, completed)).unwrap();
                        });
                    }
                });
            }
        });
        drop(tx);
        let mut seen: Vec<(usize, u64, u64)> = Vec::new();
        while let Ok(entry) = rx.recv_timeout(TIMEOUT) {
            seen.push(entry);
            if seen.len() == THREADS * PER_THREAD as usize {
                break;
            }
        }
        assert_eq!(
            seen.len(),
            THREADS * PER_THREAD as usize,
            "every callback ran, unpolled"
        );
        for t in 0..THREADS {
            let mine: Vec<u64> = seen.iter().filter(|e| e.0 == t).map(|e| e.1).collect();
            assert_eq!(
                mine,
                (0..PER_THREAD).collect::<Vec<_>>(),
                "thread {t}'s order"
            );
        }
        assert!(
            seen.windows(2).all(|w| w[0].2 <= w[1].2),
            "later callbacks never saw less completed work"
        );
    }
}
