//! The facade with objects destroyed, dropped or lost while the GPU still
//! uses them, from the submitting thread and from others: each row must end
//! as WebGPU says (in-flight work keeps what it uses alive and finishes; a
//! destroyed device fails later maps and creations; every map callback runs
//! exactly once), never crash, fault the GPU or hang, and the device (or,
//! after a destroy, a new one) must still give the host's results.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aqueduct::*;
use aqueduct_test_harness::facade::*;
use aqueduct_test_support::thread::bounded;

const LIMIT: Duration = Duration::from_secs(120);
/// Items and rounds of the slow dispatch (tens of milliseconds on gfxsim).
const ITEMS: u32 = 4096;
const ROUNDS: u32 = 600;

/// What `sqrt_exp_loop` writes for input `x` after `ROUNDS` rounds, as
/// f32 bits (the kernel's own recurrence on the host; compared within a
/// tolerance since the device's exp/sqrt are not the host's).
fn host_sqrt_exp(x0: f32) -> f32 {
    let (mut x, mut acc) = (x0, 0.0f32);
    for k in 0..ROUNDS {
        let fk = k as f32;
        acc += (x.abs() + fk).sqrt() * (-x * 0.01 * fk).exp();
        x = x * 0.5 + 1.0 / (1.0 + acc);
    }
    acc
}

fn inputs() -> Vec<u32> {
    (0..ITEMS).map(|i| (i as f32 * 0.25).to_bits()).collect()
}

/// The slow dispatch `input -> out`, not yet submitted.
fn slow_work(c: &Ctx, input: &Buffer, out: &Buffer) -> CommandBuffer {
    let module = kernel_module(&c.device, "sqrt_exp_loop", [64, 1, 1]);
    let pipeline = auto_pipeline(&c.device, &module, "sqrt_exp_loop");
    let bg = bind_group(&c.device, &pipeline, 0, &[input, out]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.set_immediates(0, &ROUNDS.to_le_bytes());
        pass.set_immediates(4, &ITEMS.to_le_bytes());
        pass.dispatch_workgroups(ITEMS / 64, 1, 1);
    }
    enc.finish()
}

/// Submits the slow dispatch over fresh buffers and a copy of its output
/// into a readback buffer; returns (input, output, readback).
fn submit_slow_with_readback(c: &Ctx) -> (Buffer, Buffer, Buffer) {
    let input = storage_init(&c.device, &inputs());
    let out = storage(&c.device, u64::from(ITEMS) * 4);
    let rb = readback_buffer(&c.device, u64::from(ITEMS) * 4);
    let mut copy = c.device.create_command_encoder(&Default::default());
    copy.copy_buffer_to_buffer(&out, 0, &rb, 0, out.size());
    c.queue.submit([slow_work(c, &input, &out), copy.finish()]);
    (input, out, rb)
}

fn check_slow_result(words: &[u32]) {
    for (i, (&got, &x)) in words.iter().zip(&inputs()).enumerate() {
        let want = host_sqrt_exp(f32::from_bits(x));
        let got = f32::from_bits(got);
        assert!(
            (got - want).abs() <= 1e-3 * want.abs().max(1.0),
            "item {i}: {got}, host {want}"
        );
    }
}

fn still_works(c: &Ctx) {
    let (cb, dst) = doubling_work(c);
    c.queue.submit([cb]);
    assert_eq!(read_words(c, &dst), [2, 4, 6, 8]);
}

/// Buffers destroyed by another thread while the dispatch that reads and
/// writes them runs: the work keeps their memory and finishes (no fault),
/// later use of them is a validation error, and a copy submitted before the
/// destroy still delivers the dispatch's result.
#[test]
fn buffers_destroyed_by_another_thread_while_in_flight() {
    bounded(LIMIT, || {
        let c = ctx();
        let (input, out, rb) = submit_slow_with_readback(&c);
        let (input, out) = (Arc::new(input), Arc::new(out));
        let destroyer = {
            let (input, out) = (input.clone(), out.clone());
            std::thread::spawn(move || {
                input.destroy();
                out.destroy();
            })
        };
        destroyer.join().expect("destroying thread");
        let bytes = aqueduct::util::read_mapped(&c.device, &rb).expect("readback");
        check_slow_result(bytemuck::cast_slice(&bytes));
        let (_, err) = validation_error(&c.device, || {
            let mut e = c.device.create_command_encoder(&Default::default());
            e.copy_buffer_to_buffer(&out, 0, &rb, 0, 16);
            c.queue.submit([e.finish()]);
        });
        assert!(err.is_some(), "a destroyed buffer was accepted in a copy");
        still_works(&c);
    });
}

/// The queue handle dropped right after submit, and every object the work
/// uses dropped with it: the work still runs to completion and a map of its
/// result, requested after the drops, delivers it.
#[test]
fn queue_and_resources_dropped_after_submit() {
    bounded(LIMIT, || {
        let c = ctx();
        // Input and output are dropped here, with the work in flight.
        let (_, _, rb) = submit_slow_with_readback(&c);
        let Ctx {
            instance,
            adapter,
            device,
            queue,
        } = c;
        drop(queue);
        let bytes = aqueduct::util::read_mapped(&device, &rb).expect("readback after the queue");
        check_slow_result(bytemuck::cast_slice(&bytes));
        drop((rb, device, adapter, instance));
    });
}

/// A device destroyed from another thread while a dispatch runs and a map
/// waits on it: the map's callback runs exactly once (the work finishes
/// before the device is marked lost, so it succeeds), and afterwards maps
/// fail with `DeviceLost` and new buffers are errors.
#[test]
fn device_destroyed_with_work_and_a_map_pending() {
    bounded(LIMIT, || {
        let c = ctx();
        let (_input, _out, rb) = submit_slow_with_readback(&c);
        let results: Arc<Mutex<Vec<Result<(), BufferAsyncError>>>> = Arc::default();
        let r = results.clone();
        rb.map_async(MapMode::Read, .., move |res| r.lock().unwrap().push(res));
        let device = c.device.clone();
        std::thread::spawn(move || device.destroy())
            .join()
            .expect("destroying thread");
        c.device.poll(PollType::wait_indefinitely()).ok();
        assert_eq!(results.lock().unwrap().len(), 1, "map callbacks run");
        assert!(
            results.lock().unwrap()[0].is_ok(),
            "{:?}",
            results.lock().unwrap()
        );
        check_slow_result(bytemuck::cast_slice(
            &rb.get_mapped_range(..).expect("mapped"),
        ));
        rb.unmap();
        let lost: Arc<Mutex<Vec<Result<(), BufferAsyncError>>>> = Arc::default();
        let l = lost.clone();
        rb.map_async(MapMode::Read, .., move |res| l.lock().unwrap().push(res));
        c.device.poll(PollType::wait_indefinitely()).ok();
        assert_eq!(
            lost.lock().unwrap().len(),
            1,
            "the lost map's callback runs once"
        );
        assert!(
            lost.lock().unwrap()[0].is_err(),
            "a map on a destroyed device succeeded"
        );
        assert!(
            any_error(&c.device, || storage(&c.device, 16)).is_some(),
            "a buffer was created on a destroyed device"
        );
        let (device, queue) = c
            .adapter
            .request_device_sync(&DeviceDescriptor {
                required_features: c.adapter.features(),
                experimental_features: experimental_features(),
                required_limits: c.adapter.limits(),
                ..Default::default()
            })
            .expect("a new device after the destroy");
        let fresh = Ctx {
            instance: c.instance,
            adapter: c.adapter,
            device,
            queue,
        };
        still_works(&fresh);
    });
}

/// Eight threads on one device, each submitting the doubling chain over
/// its own buffers and then destroying them, dropping them, or reading the
/// result back, while another thread polls: every read gives the host's
/// result and no work faults.
#[test]
fn eight_threads_destroy_and_drop_their_buffers_in_flight() {
    bounded(LIMIT, || {
        let c = Arc::new(ctx());
        let checked = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let poller = {
            let (c, stop) = (c.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Acquire) {
                    let _ = c.device.poll(PollType::Poll);
                    std::thread::yield_now();
                }
            })
        };
        let workers: Vec<_> = (0..8)
            .map(|t| {
                let (c, checked) = (c.clone(), checked.clone());
                std::thread::spawn(move || {
                    for round in 0..12 {
                        let (cb, dst) = doubling_work(&c);
                        c.queue.submit([cb]);
                        match (t + round) % 3 {
                            0 => dst.destroy(),
                            1 => drop(dst),
                            _ => {
                                assert_eq!(read_words(&c, &dst), [2, 4, 6, 8]);
                                checked.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().expect("worker thread");
        }
        stop.store(true, Ordering::Release);
        poller.join().expect("polling thread");
        assert_eq!(checked.load(Ordering::Relaxed), 32, "reads checked");
        still_works(&c);
    });
}
