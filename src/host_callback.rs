//! Host callbacks in queue order: [`Queue::submit_host_callback`], an
//! Aqueduct extension (not part of WebGPU).
//!
//! WebGPU's `on_submitted_work_done` runs its callback from `poll`. A host
//! callback instead runs on the device's host-callback thread as soon as
//! everything submitted before it has completed, with nobody polling, the
//! way `hipLaunchHostFunc` does. Underneath are AQL agent-dispatch packets:
//! a barrier-AND (barrier bit, system scope, no dependencies) on the
//! device's GPU queue completes a fresh signal once all earlier packets
//! have; on a CPU-agent soft queue (`aqueduct_hsa::agent_queue`), a
//! barrier-AND waits for that signal and an agent-dispatch packet runs the
//! callback. One soft queue per device, fed under the queue-state lock,
//! keeps callbacks in submission order, across threads too.
//!
//! Each device's soft queue is created on first use and kept in a
//! process-wide table next to a weak reference to the device; entries of
//! dropped devices are released on the next use of the table (dropping a
//! soft queue drops the callbacks it never ran).
//!
//! A callback runs on a runtime thread: it may submit, poll and add host
//! callbacks; it must not wait for work submitted after it (that work
//! cannot complete before it returns on the same queue order). If the GPU
//! queue faults before a callback's barrier, the callback does not run.

use std::sync::{Arc, Mutex, Weak};

use aqueduct_hsa::HsaError;
use aqueduct_hsa::agent_queue::{AgentQueue, HostFunctionRegistry};
use aqueduct_hsa::queue::packet::{self, PacketFence};

use crate::device::DeviceShared;
use crate::error::{Error, InternalError};
use crate::queue::Queue;

/// Slots of each device's host-callback ring.
pub const HOST_CALLBACK_QUEUE_PACKETS: u32 = 1024;

type Entry = (Weak<DeviceShared>, Arc<AgentQueue>);

static HOST_QUEUES: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// The device's soft queue (created on first use).
fn host_queue(dev: &Arc<DeviceShared>) -> Result<Arc<AgentQueue>, HsaError> {
    let mut dead = Vec::new();
    let found = {
        let mut table = HOST_QUEUES.lock().unwrap_or_else(|p| p.into_inner());
        let mut i = 0;
        while i < table.len() {
            if table[i].0.strong_count() == 0 {
                dead.push(table.swap_remove(i));
            } else {
                i += 1;
            }
        }
        match table
            .iter()
            .find(|(w, _)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(dev)))
        {
            Some((_, q)) => q.clone(),
            None => {
                let cpu = dev.runtime.cpu_agents().next().cloned().ok_or_else(|| {
                    HsaError::InvalidAgent("the system has no CPU agent for host callbacks".into())
                })?;
                let q = Arc::new(AgentQueue::new(
                    &dev.runtime,
                    &cpu,
                    HOST_CALLBACK_QUEUE_PACKETS,
                    HostFunctionRegistry::new(),
                )?);
                table.push((Arc::downgrade(dev), q.clone()));
                q
            }
        }
    };
    // Queues of dropped devices stop outside the table's lock (their
    // callbacks may be using it).
    drop(dead);
    Ok(found)
}

fn submit(dev: &Arc<DeviceShared>, callback: Box<dyn FnOnce() + Send>) -> Result<(), HsaError> {
    let host = host_queue(dev)?;
    // Pending uploads (write_buffer, zero fills) go out first.
    crate::queue::submit(dev, Vec::new());
    let done = dev.runtime.create_signal(1)?;
    let _order = dev.submit_lock.lock().unwrap_or_else(|p| p.into_inner());
    let barrier = packet::barrier_and(&[], done.handle(), PacketFence::SYSTEM_ORDERED)?;
    dev.hsa_queue.submit(&barrier)?;
    // The soft queue keeps `done` alive until its barrier completes.
    host.submit_callback(&[&done], None, callback)?;
    Ok(())
}

impl Queue {
    /// **Not part of WebGPU** (an Aqueduct extension): run `callback` on the
    /// device's host-callback thread once all work submitted before this
    /// call (including pending `write_buffer` uploads) has completed, after
    /// every host callback submitted earlier. No `poll` is needed. Failures
    /// to queue it are reported through the device's error handling.
    pub fn submit_host_callback(&self, callback: impl FnOnce() + Send + 'static) {
        let dev = &self.shared;
        if let Err(e) = submit(dev, Box::new(callback)) {
            dev.report(Error::Internal {
                description: format!("submit_host_callback: {e}"),
                source: Box::new(InternalError(e.to_string())),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use aqueduct_hsa::MemoryOrder;

    use crate::block_on::block_on;
    use crate::device_select::DeviceChoice;
    use crate::instance::Instance;
    use crate::queue::EPOCH_BASE;

    const TIMEOUT: Duration = Duration::from_secs(60);

    fn device() -> (crate::device::Device, crate::queue::Queue) {
        let instance = Instance::with_device(DeviceChoice::Sim);
        let adapter = block_on(instance.request_adapter(&Default::default())).expect("adapter");
        block_on(adapter.request_device(&Default::default())).expect("device")
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
